// laplacian.pc by hand: one Laplacian pyramid level in two kernels. The
// first computes each pixel of the half-size image directly from the source
// (the five row-filtered values it needs, recomputed, so the full-size
// row-filtered image never reaches memory); the second writes the 2x2 layer
// pixels of each half-size pixel, source minus the upsampled value.
#include <cuda_runtime.h>

#include "peers.h"

namespace {

constexpr int BX = 32, BY = 8;

// Pixel i of a line of n (step apart), with the two-pixel extrapolation of
// the paper's figure 7 past either end.
__device__ __forceinline__ int ext(const unsigned char *__restrict__ line, long step, int i, int n)
{
#define P(k) ((int)__ldg(line + (long)(k) * step))
    if (i >= 0 && i < n) return P(i);
    if (i == -2) return P(3) * 4 - P(1) * 4 + P(0) * 2 - P(2);
    if (i == -1) return P(1) * 2 - P(3);
    if (i == n) return P(n - 2) * 2 - P(n - 4);
    return P(n - 4) * 4 - P(n - 2) * 4 + P(n - 1) * 2 - P(n - 3);
#undef P
}

// The row-filtered value at (r, c), rounded into a byte as the program's matrix holds it.
__device__ __forceinline__ int hval(const unsigned char *__restrict__ src, int N, int r, int c)
{
    const unsigned char *row = src + (long)r * N;
    const int s = ext(row, 1, c - 2, N) + 4 * ext(row, 1, c - 1, N) + 6 * ext(row, 1, c, N) +
                  4 * ext(row, 1, c + 1, N) + ext(row, 1, c + 2, N);
    return (unsigned char)((s + 8) / 16);
}

// The same at a row past either end: the extrapolation applied to the filtered rows.
__device__ int hrow(const unsigned char *__restrict__ src, int M, int N, int r, int c)
{
    if (r >= 0 && r < M) return hval(src, N, r, c);
    if (r == -2) return hval(src, N, 3, c) * 4 - hval(src, N, 1, c) * 4 + hval(src, N, 0, c) * 2 - hval(src, N, 2, c);
    if (r == -1) return hval(src, N, 1, c) * 2 - hval(src, N, 3, c);
    if (r == M) return hval(src, N, M - 2, c) * 2 - hval(src, N, M - 4, c);
    return hval(src, N, M - 4, c) * 4 - hval(src, N, M - 2, c) * 4 + hval(src, N, M - 1, c) * 2 -
           hval(src, N, M - 3, c);
}

__global__ void down_kernel(int M, int N, const unsigned char *__restrict__ src, unsigned char *__restrict__ down)
{
    const int hh = (M + 1) / 2, hw = (N + 1) / 2;
    const int j = blockIdx.x * BX + threadIdx.x, i = blockIdx.y * BY + threadIdx.y;
    if (i >= hh || j >= hw) return;
    const int c = 2 * j, r = 2 * i;
    const int s = hrow(src, M, N, r - 2, c) + 4 * hrow(src, M, N, r - 1, c) + 6 * hrow(src, M, N, r, c) +
                  4 * hrow(src, M, N, r + 1, c) + hrow(src, M, N, r + 2, c);
    down[(long)i * hw + j] = (unsigned char)((s + 8) / 16);
}

__global__ void layer_kernel(int M, int N, const unsigned char *__restrict__ src,
                             const unsigned char *__restrict__ down, short *__restrict__ layer)
{
    const int hh = (M + 1) / 2, hw = (N + 1) / 2;
    const int j = blockIdx.x * BX + threadIdx.x, i = blockIdx.y * BY + threadIdx.y;
    if (i >= hh || j >= hw) return;
    const int i1 = i + 1 < hh ? i + 1 : i, j1 = j + 1 < hw ? j + 1 : j;
    const int d = __ldg(down + (long)i * hw + j), rt = __ldg(down + (long)i * hw + j1);
    const int b = __ldg(down + (long)i1 * hw + j), g = __ldg(down + (long)i1 * hw + j1);
    const int x = 2 * i, y = 2 * j;
    const long p = (long)x * N + y;
    const bool right = y + 1 < N, below = x + 1 < M;
    layer[p] = (short)(__ldg(src + p) - d);
    if (right) layer[p + 1] = (short)(__ldg(src + p + 1) - (d + rt + 1) / 2);
    if (below) layer[p + N] = (short)(__ldg(src + p + N) - (d + b + 1) / 2);
    if (right && below) layer[p + N + 1] = (short)(__ldg(src + p + N + 1) - (d + rt + b + g + 2) / 4);
}

} // namespace

extern "C" int peer_laplacian(int M, int N, const unsigned char *src, short *layer, unsigned char *down, void *stream)
{
    const dim3 block(BX, BY), grid(((N + 1) / 2 + BX - 1) / BX, ((M + 1) / 2 + BY - 1) / BY);
    down_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(M, N, src, down);
    layer_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(M, N, src, down, layer);
    return (int)cudaGetLastError();
}
