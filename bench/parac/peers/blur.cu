// blur.pc by hand: the 3x1 then 1x3 mean of 16-bit pixels, edges repeated,
// in one kernel. A thread walks one column down a strip of rows keeping the
// last two horizontal sums in registers (each input row is read once per
// strip, its neighbour columns from L1), so the intermediate image never
// reaches memory.
#include <cuda_runtime.h>

#include "peers.h"

namespace {

constexpr int STRIP = 32, COLS = 128;

__device__ __forceinline__ int row_mean(const uint16_t *__restrict__ in, int W, int y, int xl, int x, int xr)
{
    const uint16_t *r = in + (size_t)y * W;
    return (__ldg(r + xl) + __ldg(r + x) + __ldg(r + xr)) / 3;
}

__global__ void __launch_bounds__(COLS) blur_kernel(int H, int W, const uint16_t *__restrict__ in,
                                                    uint16_t *__restrict__ out)
{
    const int x = blockIdx.x * COLS + threadIdx.x, y0 = blockIdx.y * STRIP;
    if (x >= W) return;
    const int xl = max(x - 1, 0), xr = min(x + 1, W - 1), y1 = min(y0 + STRIP, H);
    int a = row_mean(in, W, max(y0 - 1, 0), xl, x, xr), b = row_mean(in, W, y0, xl, x, xr);
    if (y1 - y0 == STRIP && y1 < H) { // a whole strip: unrolled, so several rows' loads are in flight
#pragma unroll 8
        for (int k = 0; k < STRIP; k++) {
            const int c = row_mean(in, W, y0 + k + 1, xl, x, xr);
            out[(size_t)(y0 + k) * W + x] = (uint16_t)((a + b + c) / 3);
            a = b;
            b = c;
        }
        return;
    }
    for (int y = y0; y < y1; y++) {
        const int c = row_mean(in, W, min(y + 1, H - 1), xl, x, xr);
        out[(size_t)y * W + x] = (uint16_t)((a + b + c) / 3);
        a = b;
        b = c;
    }
}

} // namespace

extern "C" int peer_blur(int H, int W, const uint16_t *in, uint16_t *out, void *stream)
{
    const dim3 grid((W + COLS - 1) / COLS, (H + STRIP - 1) / STRIP);
    blur_kernel<<<grid, COLS, 0, (cudaStream_t)stream>>>(H, W, in, out);
    return (int)cudaGetLastError();
}
