/* blur.pc by hand in OpenCL C: the 3x1 then 1x3 mean of 16-bit pixels,
 * edges repeated, in one kernel. A work-item walks one column down a strip
 * of STRIP rows keeping the last two horizontal means in registers. */
#define STRIP 32

inline int row_mean(__global const ushort *in, int W, int y, int xl, int x, int xr)
{
    __global const ushort *r = in + (size_t)y * W;
    return (r[xl] + r[x] + r[xr]) / 3;
}

__kernel void blur(int H, int W, __global const ushort *restrict in, __global ushort *restrict out)
{
    const int x = get_global_id(0), y0 = get_global_id(1) * STRIP;
    if (x >= W || y0 >= H) return;
    const int xl = max(x - 1, 0), xr = min(x + 1, W - 1), y1 = min(y0 + STRIP, H);
    int a = row_mean(in, W, max(y0 - 1, 0), xl, x, xr), b = row_mean(in, W, y0, xl, x, xr);
    if (y1 - y0 == STRIP && y1 < H) { /* a whole strip: unrolled, several rows' loads in flight */
#pragma unroll 8
        for (int k = 0; k < STRIP; k++) {
            const int c = row_mean(in, W, y0 + k + 1, xl, x, xr);
            out[(size_t)(y0 + k) * W + x] = (ushort)((a + b + c) / 3);
            a = b;
            b = c;
        }
        return;
    }
    for (int y = y0; y < y1; y++) {
        const int c = row_mean(in, W, min(y + 1, H - 1), xl, x, xr);
        out[(size_t)y * W + x] = (ushort)((a + b + c) / 3);
        a = b;
        b = c;
    }
}
