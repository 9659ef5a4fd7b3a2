// unsharp.pc by hand: gray, the 7-tap Gaussian along rows and columns
// (edges repeated), sharpen, ratio and the three output channels, in one
// kernel. A block takes COLS columns down a strip of rows: each row's gray
// values (with three columns of halo) are computed once into shared memory,
// every thread takes its row-blurred value from there and keeps the last
// seven of them, and the last four gray values, in registers.
#include <cuda_runtime.h>

#include "peers.h"

namespace {

constexpr int STRIP = 64, COLS = 128, R = 3;
__constant__ float taps[7] = {0.0366328454f, 0.111280758f, 0.216745321f, 0.270682149f,
                              0.216745321f, 0.111280758f, 0.0366328454f};

__global__ void __launch_bounds__(COLS) unsharp_kernel(int H, int W, const float *__restrict__ in,
                                                       float *__restrict__ out)
{
    __shared__ float gray[COLS + 2 * R];
    const size_t plane = (size_t)H * W;
    const int x0 = blockIdx.x * COLS, x = x0 + threadIdx.x, y0 = blockIdx.y * STRIP;
    const int y1 = min(y0 + STRIP, H);
    float hb[2 * R + 1], g[R + 1];
    for (int rr = y0 - R; rr < y1 + R; rr++) {
        const int r = min(max(rr, 0), H - 1);
        for (int i = threadIdx.x; i < COLS + 2 * R; i += COLS) {
            const size_t p = (size_t)r * W + min(max(x0 - R + i, 0), W - 1);
            gray[i] = 0.299f * __ldg(in + p) + 0.587f * __ldg(in + plane + p) + 0.114f * __ldg(in + 2 * plane + p);
        }
        __syncthreads();
        float s = taps[0] * gray[threadIdx.x];
#pragma unroll
        for (int t = 1; t < 2 * R + 1; t++) s += taps[t] * gray[threadIdx.x + t];
        const float center = gray[threadIdx.x + R];
        __syncthreads();
#pragma unroll
        for (int t = 0; t < 2 * R; t++) hb[t] = hb[t + 1];
        hb[2 * R] = s;
#pragma unroll
        for (int t = 0; t < R; t++) g[t] = g[t + 1];
        g[R] = center;
        const int y = rr - R; // the row whose window is complete
        if (y < y0 || x >= W) continue;
        float v = taps[0] * hb[0];
#pragma unroll
        for (int t = 1; t < 2 * R + 1; t++) v += taps[t] * hb[t];
        const float sharpen = 2.0f * g[0] - v, ratio = sharpen / g[0];
        const size_t p = (size_t)y * W + x;
        out[p] = ratio * __ldg(in + p);
        out[plane + p] = ratio * __ldg(in + plane + p);
        out[2 * plane + p] = ratio * __ldg(in + 2 * plane + p);
    }
}

} // namespace

extern "C" int peer_unsharp(int H, int W, const float *in, float *out, void *stream)
{
    const dim3 grid((W + COLS - 1) / COLS, (H + STRIP - 1) / STRIP);
    unsharp_kernel<<<grid, COLS, 0, (cudaStream_t)stream>>>(H, W, in, out);
    return (int)cudaGetLastError();
}
