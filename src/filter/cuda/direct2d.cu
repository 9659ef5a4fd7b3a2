// Method "direct" on CUDA: 2D correlation with the full kernel. A block loads
// its output tile plus the apron into shared memory (all threads load, none
// idles afterwards), then each thread computes 8 adjacent outputs, sliding a
// register window along every kernel row. The kernel travels in the
// constant bank (a __grid_constant__ parameter) and is staged in shared
// memory; kernels too large for that are read from device memory, and tiles
// too large for shared memory fall back to a plain gather kernel.
#include "core/alloc_internal.h"
#include "cuda/cuda_check.h"
#include "filter_cuda_common.cuh"

#include <stdlib.h>
#include <string.h>

enum { D_THREADS = 256, D_N = 8, D_TW = 64, D_PARAM_MAX = 7800 };

struct direct_params {
    int rx, ry, ntx; // ntx: kernel row length padded to 4
    float w[D_PARAM_MAX];
};

// wglobal == NULL: weights are in the parameter block (and staged in shared).
__global__ void __launch_bounds__(D_THREADS)
    direct_kernel(pc_img src, pc_img dst, const __grid_constant__ direct_params p,
                  const float *__restrict__ wglobal, int th, int mode, float cval)
{
    extern __shared__ float4 smem4[];
    float *sm = (float *)smem4;
    const int ntx = p.ntx, kh = 2 * p.ry + 1, pin = D_TW + ntx, rows = th + 2 * p.ry;
    const float *w;
    float *s_in;
    if (wglobal) {
        w = wglobal;
        s_in = sm;
    } else {
        float *ws = sm;
        for (int i = threadIdx.x; i < kh * ntx; i += D_THREADS) ws[i] = p.w[i];
        w = ws;
        s_in = sm + ((kh * ntx + 3) & ~3);
    }
    const int x0 = blockIdx.x * D_TW, y0 = blockIdx.y * th, z = blockIdx.z;
    for (int c = 0; c < src.ch; c++) {
        pc_load_tile<D_THREADS, 2, 4>(s_in, pin, rows, D_TW + 2 * p.rx, rows, src, x0 - p.rx, y0 - p.ry, z, c, mode,
                    cval);
        __syncthreads();
        for (int item = threadIdx.x; item < th * (D_TW / D_N); item += D_THREADS) {
            const int row = item / (D_TW / D_N), g = item % (D_TW / D_N);
            float acc[D_N];
#pragma unroll
            for (int j = 0; j < D_N; j++) acc[j] = 0.0f;
            for (int ky = 0; ky < kh; ky++)
                pc_window_acc<D_N>(s_in + (row + ky) * pin + g * D_N, w + ky * ntx, ntx, acc);
            const int y = y0 + row;
            if (y < dst.h) {
#pragma unroll
                for (int j = 0; j < D_N; j++) {
                    const int x = x0 + g * D_N + j;
                    if (x < dst.w) pc_store((char *)pc_addr(dst, x, y, z, c), dst.dtype, acc[j]);
                }
            }
        }
        __syncthreads();
    }
}

// Gather fallback for kernels whose tile cannot fit in shared memory.
__global__ void direct_gather_kernel(pc_img src, pc_img dst, const float *__restrict__ k, int rx,
                                     int ry, int mode, float cval)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    const int z = blockIdx.z;
    if (x >= dst.w || y >= dst.h) return;
    const int kw = 2 * rx + 1;
    for (int c = 0; c < src.ch; c++) {
        float acc = 0.0f;
        for (int ky = -ry; ky <= ry; ky++) {
            const int my = pc_map(y + ky, src.h, mode);
            for (int kx = -rx; kx <= rx; kx++) {
                const int mx = pc_map(x + kx, src.w, mode);
                const float v = (mx < 0 || my < 0) ? cval : pc_load(pc_addr(src, mx, my, z, c), src.dtype);
                acc = fmaf(k[(ky + ry) * kw + kx + rx], v, acc);
            }
        }
        pc_store((char *)pc_addr(dst, x, y, z, c), dst.dtype, acc);
    }
}

static parac_status direct_slices(const pc_img &s, const pc_img &d, const float *k2d, int rx,
                                  int ry, parac__border_rule border, cudaStream_t stream,
                                  float **wbuf)
{
    int dev = 0, maxsh = 0;
    PARAC_CUDA_TRY(cudaGetDevice(&dev));
    PARAC_CUDA_TRY(cudaDeviceGetAttribute(&maxsh, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    const int kw = 2 * rx + 1, kh = 2 * ry + 1, ntx = pc_pad4(kw);
    const size_t wcount = (size_t)kh * ntx;
    const bool in_params = wcount <= D_PARAM_MAX;
    direct_params *pp = (direct_params *)parac__malloc(sizeof(direct_params)); // 31 KB: off the stack
    if (!pp) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "direct filter: parameter block");
    direct_params &p = *pp;
    p.rx = rx;
    p.ry = ry;
    p.ntx = ntx;
    // pick the tallest tile that fits
    int th = 0;
    size_t shmem = 0;
    for (int t = 32; t >= 4; t /= 2) {
        shmem = sizeof(float) * ((in_params ? ((wcount + 3) & ~(size_t)3) : 0) +
                                 (size_t)(D_TW + ntx) * (t + 2 * ry));
        if (shmem <= (size_t)maxsh) {
            th = t;
            break;
        }
    }
    // padded weights (rows of ntx, zeros after kw)
    float *wpad = (float *)parac__malloc(wcount * sizeof(float));
    if (!wpad) {
        free(pp);
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "direct filter: kernel of %zu taps", wcount);
    }
    for (int y = 0; y < kh; y++)
        for (int x = 0; x < ntx; x++) wpad[(size_t)y * ntx + x] = x < kw ? k2d[(size_t)y * kw + x] : 0.0f;
    parac_status st = PARAC_OK;
    if (th == 0 || !in_params) {
        // weights in device memory (the gather kernel takes the unpadded layout)
        size_t bytes = (th == 0 ? (size_t)kw * kh : wcount) * sizeof(float);
        st = PARAC_CUDA_MALLOC_ASYNC(wbuf, bytes, stream);
        if (!st)
            st = PARAC_CUDA_CHECK(cudaMemcpyAsync(*wbuf, th == 0 ? k2d : wpad, bytes,
                                                  cudaMemcpyHostToDevice, stream));
        if (!st) st = PARAC_CUDA_CHECK(cudaStreamSynchronize(stream)); // wpad is freed below
    } else {
        memcpy(p.w, wpad, wcount * sizeof(float));
    }
    free(wpad);
    if (!st && th == 0) {
        dim3 block(32, 8), grid((s.w + 31) / 32, (s.h + 7) / 8, s.d);
        direct_gather_kernel<<<grid, block, 0, stream>>>(s, d, *wbuf, rx, ry, (int)border.mode,
                                                         border.value);
        st = PARAC_CUDA_LAUNCH_CHECK();
    } else if (!st) {
        dim3 grid((s.w + D_TW - 1) / D_TW, (s.h + th - 1) / th, s.d);
        st = PARAC_CUDA_CHECK(cudaFuncSetAttribute(
            direct_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
        if (!st && (grid.y > 65535 || grid.z > 65535))
            st = parac__fail(PARAC_ERR_UNSUPPORTED, "direct filter on CUDA: image too tall");
        if (!st) {
            direct_kernel<<<grid, D_THREADS, shmem, stream>>>(s, d, p, in_params ? NULL : *wbuf, th,
                                                              (int)border.mode, border.value);
            st = PARAC_CUDA_LAUNCH_CHECK();
        }
    }
    free(pp);
    return st;
}

extern "C" parac_status parac__cuda_direct2d(const parac_image *in, parac_image *out,
                                             const float *k2d, int rx, int ry,
                                             const parac__fir1d *kz, parac__border_rule border,
                                             void *stream_)
{
    cudaStream_t stream = (cudaStream_t)stream_;
    PARAC_CUDA_TRY(cudaSetDevice(in->device));
    const pc_img s = pc_view(in), d = pc_view(out);
    const bool zpass = in->depth > 1 && kz && kz->radius > 0;
    float *tmp = NULL, *wbuf = NULL;
    parac_status st = PARAC_OK;
    pc_img mid = d;
    if (zpass) {
        st = pc_alloc_float(&tmp, (size_t)s.w * s.h * s.d * s.ch, stream);
        if (st) goto done;
        mid = pc_float_like(s, tmp);
    }
    st = direct_slices(s, mid, k2d, rx, ry, border, stream, &wbuf);
    if (!st && zpass) st = pc_pass_axis(mid, d, 2, kz, border, stream);
done:
    pc_free(tmp, stream);
    pc_free(wbuf, stream);
    return st;
}
