/* gaussian.pc by hand in OpenCL C: the 5-tap binomial along rows then
 * columns, mirrored edges, f32, in one kernel; a work-item walks one column
 * down a strip of rows with the last five row sums in registers. */
#define STRIP 32
__constant float taps[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};

inline int mirror(int i, int n) { return i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i; }

inline float row_sum(__global const float *in, int W, int y, const int *xs)
{
    __global const float *r = in + (size_t)y * W;
    float s = taps[0] * r[xs[0]];
    for (int k = 1; k < 5; k++) s += taps[k] * r[xs[k]];
    return s;
}

__kernel void gaussian(int H, int W, __global const float *restrict in, __global float *restrict out)
{
    const int x = get_global_id(0), y0 = get_global_id(1) * STRIP;
    if (x >= W || y0 >= H) return;
    int xs[5];
    for (int k = 0; k < 5; k++) xs[k] = mirror(x - 2 + k, W);
    float w[5];
    for (int k = 0; k < 4; k++) w[k] = row_sum(in, W, mirror(y0 - 2 + k, H), xs);
    const int y1 = min(y0 + STRIP, H);
    const bool whole = y1 - y0 == STRIP && y1 + 2 < H;
#pragma unroll 8
    for (int y = y0; y < y1; y++) {
        w[4] = row_sum(in, W, whole ? y + 2 : mirror(y + 2, H), xs);
        float s = taps[0] * w[0];
        for (int t = 1; t < 5; t++) s += taps[t] * w[t];
        out[(size_t)y * W + x] = s;
        for (int t = 0; t < 4; t++) w[t] = w[t + 1];
    }
}
