/* unsharp.pc by hand in OpenCL C: gray, the 7-tap Gaussian along rows and
 * columns (edges repeated), sharpen, ratio and the three output channels, in
 * one kernel. A work-group takes COLS columns down a strip of rows: each
 * row's gray values (three columns of halo) are computed once into local
 * memory; every work-item keeps its last seven row-blurred values and last
 * four gray values in registers. */
#define STRIP 64
#define COLS 128
#define R 3
__constant float taps[7] = {0.0366328454f, 0.111280758f, 0.216745321f, 0.270682149f,
                            0.216745321f, 0.111280758f, 0.0366328454f};

__kernel __attribute__((reqd_work_group_size(COLS, 1, 1)))
void unsharp(int H, int W, __global const float *restrict in, __global float *restrict out)
{
    __local float gray[COLS + 2 * R];
    const size_t plane = (size_t)H * W;
    const int t = get_local_id(0), x0 = get_group_id(0) * COLS, x = x0 + t, y0 = get_group_id(1) * STRIP;
    const int y1 = min(y0 + STRIP, H);
    float hb[2 * R + 1] = {0}, g[R + 1] = {0};
    for (int rr = y0 - R; rr < y1 + R; rr++) {
        const int r = clamp(rr, 0, H - 1);
        for (int i = t; i < COLS + 2 * R; i += COLS) {
            const size_t p = (size_t)r * W + clamp(x0 - R + i, 0, W - 1);
            gray[i] = 0.299f * in[p] + 0.587f * in[plane + p] + 0.114f * in[2 * plane + p];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        float s = taps[0] * gray[t];
        for (int k = 1; k < 2 * R + 1; k++) s += taps[k] * gray[t + k];
        const float center = gray[t + R];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < 2 * R; k++) hb[k] = hb[k + 1];
        hb[2 * R] = s;
        for (int k = 0; k < R; k++) g[k] = g[k + 1];
        g[R] = center;
        const int y = rr - R; /* the row whose window is complete */
        if (y < y0 || x >= W) continue;
        float v = taps[0] * hb[0];
        for (int k = 1; k < 2 * R + 1; k++) v += taps[k] * hb[k];
        const float sharpen = 2.0f * g[0] - v, ratio = sharpen / g[0];
        const size_t p = (size_t)y * W + x;
        out[p] = ratio * in[p];
        out[plane + p] = ratio * in[plane + p];
        out[2 * plane + p] = ratio * in[2 * plane + p];
    }
}
