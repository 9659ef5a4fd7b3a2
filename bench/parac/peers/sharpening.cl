/* sharpening.pc by hand in OpenCL C: 4x4 box down-sampling
 * (sharpening_down), the sum of the Sobel magnitudes (sharpening_edges: a
 * column walk with a 3x3 window in registers, a tree in local memory, one
 * 64-bit atomic per work-group), then sharpening_out, which upsamples,
 * measures the edge again and writes the clamped sharpened pixel. */
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define STRIP 32
#define COLS 128

__kernel void sharpening_down(int H, int W, __global const uchar *restrict src, __global uchar *restrict down)
{
    const int Md = H / 4, Nd = W / 4, j = get_global_id(0), i = get_global_id(1);
    if (i >= Md || j >= Nd) return;
    int s = 0;
    for (int a = 0; a < 4; a++) {
        __global const uchar *p = src + (long)(4 * i + a) * W + 4 * j;
        s += p[0] + p[1] + p[2] + p[3];
    }
    down[(long)i * Nd + j] = (uchar)((s + 8) >> 4);
}

typedef struct row3 {
    int l, c, r;
} row3;

inline row3 load3(__global const uchar *src, int W, int y, int xl, int x, int xr)
{
    __global const uchar *p = src + (long)y * W;
    row3 v = {p[xl], p[x], p[xr]};
    return v;
}

inline int sobel(row3 a, row3 b, row3 c)
{
    const int gx = -a.l + a.r - 2 * b.l + 2 * b.r - c.l + c.r;
    const int gy = -a.l - 2 * a.c - a.r + c.l + 2 * c.c + c.r;
    return (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);
}

__kernel __attribute__((reqd_work_group_size(COLS, 1, 1)))
void sharpening_edges(int H, int W, __global const uchar *restrict src, __global ulong *sum)
{
    __local ulong part[COLS];
    const int t = get_local_id(0), x = get_global_id(0), y0 = get_group_id(1) * STRIP;
    ulong s = 0;
    if (x < W) {
        const int xl = max(x - 1, 0), xr = min(x + 1, W - 1), y1 = min(y0 + STRIP, H);
        row3 a = load3(src, W, max(y0 - 1, 0), xl, x, xr), b = load3(src, W, y0, xl, x, xr);
        for (int y = y0; y < y1; y++) {
            const row3 c = load3(src, W, min(y + 1, H - 1), xl, x, xr);
            s += (ulong)sobel(a, b, c);
            a = b;
            b = c;
        }
    }
    part[t] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = COLS / 2; h > 0; h >>= 1) {
        if (t < h) part[t] += part[t + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0) atom_add(sum, part[0]);
}

/* Up pixel r along one axis of n4 samples: sample index and two weights. */
inline void weights(int r, int n4, int *i0, float *a, float *b)
{
    if (r < 2) {
        *i0 = 0, *a = 1.0f, *b = 0.0f;
    } else if (r >= 4 * n4 - 2) {
        *i0 = n4 - 1, *a = 1.0f, *b = 0.0f;
    } else {
        const int k = (r - 2) % 4;
        *i0 = (r - 2) / 4;
        *a = (float)(7 - 2 * k) / 8.0f;
        *b = (float)(1 + 2 * k) / 8.0f;
    }
}

__kernel void sharpening_out(int H, int W, int strength, int overshoot, __global const uchar *restrict src,
                             __global const uchar *restrict down, __global const ulong *sum,
                             __global uchar *restrict dst)
{
    const int x = get_global_id(0), y0 = get_global_id(1) * STRIP;
    if (x >= W || y0 >= H) return;
    const int Md = H / 4, Nd = W / 4;
    const int mean = (int)((long)sum[0] / ((long)H * W));
    const int xl = max(x - 1, 0), xr = min(x + 1, W - 1), y1 = min(y0 + STRIP, H);
    int j0, i0;
    float ca, cb, ra, rb;
    weights(x < 4 * Nd ? x : 4 * Nd - 1, Nd, &j0, &ca, &cb);
    const int j1 = j0 + 1 < Nd ? j0 + 1 : j0;
    row3 a = load3(src, W, max(y0 - 1, 0), xl, x, xr), b = load3(src, W, y0, xl, x, xr);
    for (int y = y0; y < y1; y++) {
        const row3 c = load3(src, W, min(y + 1, H - 1), xl, x, xr);
        weights(y < 4 * Md ? y : 4 * Md - 1, Md, &i0, &ra, &rb);
        const int i1 = i0 + 1 < Md ? i0 + 1 : i0;
        __global const uchar *d0 = down + (long)i0 * Nd, *d1 = down + (long)i1 * Nd;
        const float v = ra * (ca * (float)d0[j0] + cb * (float)d0[j1]) + rb * (ca * (float)d1[j0] + cb * (float)d1[j1]);
        const int up = (uchar)v, error = b.c - up;
        int gain = sobel(a, b, c) * strength / (mean + 1);
        if (gain > 4 * strength) gain = 4 * strength;
        const int prelim = (short)(up + error + error * gain / 16);
        int lo = min(min(min(a.l, a.c), min(a.r, b.l)), min(min(b.c, b.r), min(min(c.l, c.c), c.r)));
        int hi = max(max(max(a.l, a.c), max(a.r, b.l)), max(max(b.c, b.r), max(max(c.l, c.c), c.r)));
        lo -= overshoot;
        hi += overshoot;
        const int o = prelim < lo ? lo : prelim > hi ? hi : prelim;
        dst[(long)y * W + x] = (uchar)clamp(o, 0, 255);
        a = b;
        b = c;
    }
}
