// sharpening.pc by hand: 4x4 box down-sampling, then one pass for the mean
// Sobel magnitude (a column walk with a 3x3 window in registers, a warp
// shuffle and one atomic per block), then one pass that upsamples, measures
// the edge again and writes the clamped sharpened pixel: three kernels, the
// full-size up, error and edge images never reach memory.
#include <cuda_runtime.h>

#include "peers.h"

namespace {

constexpr int COLS = 128, STRIP = 32;

__global__ void down_kernel(int H, int W, const unsigned char *__restrict__ src, unsigned char *__restrict__ down)
{
    const int Md = H / 4, Nd = W / 4;
    const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= Md || j >= Nd) return;
    int s = 0;
#pragma unroll
    for (int a = 0; a < 4; a++) {
        const unsigned char *p = src + (long)(4 * i + a) * W + 4 * j;
        s += __ldg(p) + __ldg(p + 1) + __ldg(p + 2) + __ldg(p + 3);
    }
    down[(long)i * Nd + j] = (unsigned char)((s + 8) >> 4);
}

// The three pixels of row y around column x (edges repeated).
struct row3 {
    int l, c, r;
};

__device__ __forceinline__ row3 load3(const unsigned char *__restrict__ src, int W, int y, int xl, int x, int xr)
{
    const unsigned char *p = src + (long)y * W;
    return {__ldg(p + xl), __ldg(p + x), __ldg(p + xr)};
}

__device__ __forceinline__ int sobel(row3 a, row3 b, row3 c)
{
    const int gx = -a.l + a.r - 2 * b.l + 2 * b.r - c.l + c.r;
    const int gy = -a.l - 2 * a.c - a.r + c.l + 2 * c.c + c.r;
    return abs(gx) + abs(gy);
}

__global__ void __launch_bounds__(COLS) edge_sum_kernel(int H, int W, const unsigned char *__restrict__ src,
                                                        unsigned long long *sum)
{
    const int x = blockIdx.x * COLS + threadIdx.x, y0 = blockIdx.y * STRIP;
    unsigned long long s = 0;
    if (x < W) {
        const int xl = max(x - 1, 0), xr = min(x + 1, W - 1), y1 = min(y0 + STRIP, H);
        row3 a = load3(src, W, max(y0 - 1, 0), xl, x, xr), b = load3(src, W, y0, xl, x, xr);
        if (y1 - y0 == STRIP && y1 < H) { // a whole strip: unrolled, several rows' loads in flight
#pragma unroll 8
            for (int k = 0; k < STRIP; k++) {
                const row3 c = load3(src, W, y0 + k + 1, xl, x, xr);
                s += (unsigned)sobel(a, b, c);
                a = b;
                b = c;
            }
        } else {
            for (int y = y0; y < y1; y++) {
                const row3 c = load3(src, W, min(y + 1, H - 1), xl, x, xr);
                s += (unsigned)sobel(a, b, c);
                a = b;
                b = c;
            }
        }
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    __shared__ unsigned long long warp_sum[COLS / 32];
    if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long t = 0;
        for (int w = 0; w < COLS / 32; w++) t += warp_sum[w];
        atomicAdd(sum, t);
    }
}

// Up pixel r along one axis of n4 samples: sample index and its two weights
// (multiples of 1/8, so float holds every product exactly).
__device__ __forceinline__ void weights(int r, int n4, int *i0, float *a, float *b)
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

__global__ void __launch_bounds__(COLS) sharpen_kernel(int H, int W, int strength, int overshoot,
                                                       const unsigned char *__restrict__ src,
                                                       const unsigned char *__restrict__ down,
                                                       const unsigned long long *sum, unsigned char *__restrict__ dst)
{
    const int x = blockIdx.x * COLS + threadIdx.x, y0 = blockIdx.y * STRIP;
    if (x >= W) return;
    const int Md = H / 4, Nd = W / 4;
    const int mean = (int)((long long)*sum / ((long long)H * W));
    const int xl = max(x - 1, 0), xr = min(x + 1, W - 1), y1 = min(y0 + STRIP, H);
    int j0;
    float ca, cb;
    weights(x < 4 * Nd ? x : 4 * Nd - 1, Nd, &j0, &ca, &cb);
    const int j1 = j0 + 1 < Nd ? j0 + 1 : j0;
    row3 a = load3(src, W, max(y0 - 1, 0), xl, x, xr), b = load3(src, W, y0, xl, x, xr);
    for (int y = y0; y < y1; y++) {
        const row3 c = load3(src, W, min(y + 1, H - 1), xl, x, xr);
        int i0;
        float ra, rb;
        weights(y < 4 * Md ? y : 4 * Md - 1, Md, &i0, &ra, &rb);
        const int i1 = i0 + 1 < Md ? i0 + 1 : i0;
        const unsigned char *d0 = down + (long)i0 * Nd, *d1 = down + (long)i1 * Nd;
        const float v = ra * (ca * (float)__ldg(d0 + j0) + cb * (float)__ldg(d0 + j1)) +
                        rb * (ca * (float)__ldg(d1 + j0) + cb * (float)__ldg(d1 + j1));
        const int up = (unsigned char)v, error = b.c - up;
        int gain = sobel(a, b, c) * strength / (mean + 1);
        if (gain > 4 * strength) gain = 4 * strength;
        const int prelim = (short)(up + error + error * gain / 16);
        int lo = min(min(min(a.l, a.c), min(a.r, b.l)), min(min(b.c, b.r), min(min(c.l, c.c), c.r)));
        int hi = max(max(max(a.l, a.c), max(a.r, b.l)), max(max(b.c, b.r), max(max(c.l, c.c), c.r)));
        lo -= overshoot;
        hi += overshoot;
        const int o = prelim < lo ? lo : prelim > hi ? hi : prelim;
        dst[(long)y * W + x] = (unsigned char)(o < 0 ? 0 : o > 255 ? 255 : o);
        a = b;
        b = c;
    }
}

} // namespace

extern "C" long long peer_sharpening_scratch(int H, int W) { return 256 + (long long)(H / 4) * (W / 4); }

extern "C" int peer_sharpening(int H, int W, int strength, int overshoot, const unsigned char *src, unsigned char *dst,
                               void *scratch, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    unsigned long long *sum = (unsigned long long *)scratch;
    unsigned char *down = (unsigned char *)scratch + 256;
    cudaMemsetAsync(sum, 0, sizeof *sum, st);
    const dim3 b2(32, 8), g2((W / 4 + 31) / 32, (H / 4 + 7) / 8);
    down_kernel<<<g2, b2, 0, st>>>(H, W, src, down);
    const dim3 grid((W + COLS - 1) / COLS, (H + STRIP - 1) / STRIP);
    edge_sum_kernel<<<grid, COLS, 0, st>>>(H, W, src, sum);
    sharpen_kernel<<<grid, COLS, 0, st>>>(H, W, strength, overshoot, src, down, sum, dst);
    return (int)cudaGetLastError();
}
