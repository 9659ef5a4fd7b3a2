// gaussian.pc by hand: the 5-tap binomial along rows then columns, mirrored
// edges, f32, in one kernel. A thread walks one column down a strip of rows
// with the last five row sums in registers; the row taps come from L1.
#include <cuda_runtime.h>

#include "peers.h"

namespace {

constexpr int STRIP = 32, COLS = 128;
__constant__ float taps[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};

__device__ __forceinline__ int mirror(int i, int n) { return i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i; }

__device__ __forceinline__ float row_sum(const float *__restrict__ in, int W, int y, const int *xs)
{
    const float *r = in + (size_t)y * W;
    float s = taps[0] * __ldg(r + xs[0]);
#pragma unroll
    for (int k = 1; k < 5; k++) s += taps[k] * __ldg(r + xs[k]);
    return s;
}

__global__ void __launch_bounds__(COLS) gaussian_kernel(int H, int W, const float *__restrict__ in,
                                                        float *__restrict__ out)
{
    const int x = blockIdx.x * COLS + threadIdx.x, y0 = blockIdx.y * STRIP;
    if (x >= W) return;
    int xs[5];
#pragma unroll
    for (int k = 0; k < 5; k++) xs[k] = mirror(x - 2 + k, W);
    float w[5];
#pragma unroll
    for (int k = 0; k < 4; k++) w[k] = row_sum(in, W, mirror(y0 - 2 + k, H), xs);
    const int y1 = min(y0 + STRIP, H);
    if (y1 - y0 == STRIP && y1 + 2 < H) { // a whole strip: unrolled, so several rows' loads are in flight
#pragma unroll 8
        for (int k = 0; k < STRIP; k++) {
            w[4] = row_sum(in, W, y0 + k + 2, xs);
            float s = taps[0] * w[0];
#pragma unroll
            for (int t = 1; t < 5; t++) s += taps[t] * w[t];
            out[(size_t)(y0 + k) * W + x] = s;
#pragma unroll
            for (int t = 0; t < 4; t++) w[t] = w[t + 1];
        }
        return;
    }
    for (int y = y0; y < y1; y++) {
        w[4] = row_sum(in, W, mirror(y + 2, H), xs);
        float s = taps[0] * w[0];
#pragma unroll
        for (int k = 1; k < 5; k++) s += taps[k] * w[k];
        out[(size_t)y * W + x] = s;
#pragma unroll
        for (int k = 0; k < 4; k++) w[k] = w[k + 1];
    }
}

} // namespace

extern "C" int peer_gaussian(int H, int W, const float *in, float *out, void *stream)
{
    const dim3 grid((W + COLS - 1) / COLS, (H + STRIP - 1) / STRIP);
    gaussian_kernel<<<grid, COLS, 0, (cudaStream_t)stream>>>(H, W, in, out);
    return (int)cudaGetLastError();
}
