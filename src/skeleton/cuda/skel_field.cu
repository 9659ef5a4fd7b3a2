// Stage 2 on CUDA: the exact potential field in fp32, three ways.
//   tiled:    charges staged through shared memory in tiles of 256, two
//             targets per thread (the CUDA N-body sample's technique);
//   global:   the paper's plain kernel, one thread per target reading the
//             charges from global memory;
//   constant: the paper's improved kernel, charges in constant memory in
//             chunks of 4096, the field accumulated over the chunks.
// The power is a template parameter: r^-(M+1) from rsqrtf by multiplications.
#include <cuda_runtime.h>

#include <pthread.h>
#include <string.h>

#include "core/device_internal.h"
#include "cuda/cuda_check.h"
#include "skeleton/skel.h"

namespace {

constexpr int TILE = 256;
constexpr int CONST_CHARGES = 4096; // 64 KB of float4

__constant__ float4 c_charges[CONST_CHARGES];

template <int M> __device__ __forceinline__ float inv_power(float r2)
{
    const float ir = rsqrtf(r2), ir2 = ir * ir;
    float v = (M + 1) % 2 ? ir : 1.0f;
#pragma unroll
    for (int k = 0; k < (M + 1) / 2; k++) v *= ir2;
    return r2 > 0.0f ? v : 0.0f; // a target on a charge feels no force from it
}

template <int M> __device__ __forceinline__ void add(float3 p, float4 c, float3 &f)
{
    const float dx = p.x - c.x, dy = p.y - c.y, dz = p.z - c.z;
    const float s = inv_power<M>(dx * dx + dy * dy + dz * dz);
    f.x = fmaf(dx, s, f.x);
    f.y = fmaf(dy, s, f.y);
    f.z = fmaf(dz, s, f.z);
}

__device__ __forceinline__ float3 load3(const float *a, int64_t i)
{
    return make_float3(a[3 * i], a[3 * i + 1], a[3 * i + 2]);
}

template <int M>
__global__ void __launch_bounds__(TILE) tiled_kernel(const float *targets, int64_t nt, const float *charges,
                                                     int64_t nc, float *F)
{
    __shared__ float4 tile[TILE];
    // two targets per thread: blockDim.x apart
    const int64_t t0 = (int64_t)blockIdx.x * 2 * TILE + threadIdx.x, t1 = t0 + TILE;
    const float3 p0 = t0 < nt ? load3(targets, t0) : make_float3(0, 0, 0);
    const float3 p1 = t1 < nt ? load3(targets, t1) : make_float3(0, 0, 0);
    float3 f0 = make_float3(0, 0, 0), f1 = make_float3(0, 0, 0);
    for (int64_t base = 0; base < nc; base += TILE) {
        const int64_t c = base + threadIdx.x;
        // padding charges sit far away: 1e18^-(M+1) is 0 in fp32
        tile[threadIdx.x] = c < nc ? make_float4(charges[3 * c], charges[3 * c + 1], charges[3 * c + 2], 0)
                                   : make_float4(1e18f, 1e18f, 1e18f, 0);
        __syncthreads();
#pragma unroll 8
        for (int k = 0; k < TILE; k++) {
            const float4 q = tile[k];
            add<M>(p0, q, f0);
            add<M>(p1, q, f1);
        }
        __syncthreads();
    }
    if (t0 < nt) F[3 * t0] = f0.x, F[3 * t0 + 1] = f0.y, F[3 * t0 + 2] = f0.z;
    if (t1 < nt) F[3 * t1] = f1.x, F[3 * t1 + 1] = f1.y, F[3 * t1 + 2] = f1.z;
}

template <int M>
__global__ void global_kernel(const float *targets, int64_t nt, const float *charges, int64_t nc, float *F)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nt) return;
    const float3 p = load3(targets, t);
    float3 f = make_float3(0, 0, 0);
    for (int64_t c = 0; c < nc; c++) add<M>(p, make_float4(charges[3 * c], charges[3 * c + 1], charges[3 * c + 2], 0), f);
    F[3 * t] = f.x, F[3 * t + 1] = f.y, F[3 * t + 2] = f.z;
}

template <int M> __global__ void constant_kernel(const float *targets, int64_t nt, int n, float *F)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nt) return;
    const float3 p = load3(targets, t);
    float3 f = make_float3(F[3 * t], F[3 * t + 1], F[3 * t + 2]);
    for (int k = 0; k < n; k++) add<M>(p, c_charges[k], f);
    F[3 * t] = f.x, F[3 * t + 1] = f.y, F[3 * t + 2] = f.z;
}

__global__ void pack_kernel(const float *charges, int64_t first, int n, float4 *out)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = make_float4(charges[3 * (first + k)], charges[3 * (first + k) + 1], charges[3 * (first + k) + 2], 0);
}

// the constant bank is one per device and process: one caller at a time
pthread_mutex_t constant_lock = PTHREAD_MUTEX_INITIALIZER;

template <int M>
parac_status run(int kind, const float *targets, int64_t nt, const float *charges, int64_t nc, float *F,
                 cudaStream_t st)
{
    if (nt == 0) return PARAC_OK;
    if (kind == 0) {
        const int64_t blocks = (nt + 2 * TILE - 1) / (2 * TILE);
        tiled_kernel<M><<<(unsigned)blocks, TILE, 0, st>>>(targets, nt, charges, nc, F);
        return PARAC_CUDA_LAUNCH_CHECK();
    }
    if (kind == 1) {
        global_kernel<M><<<(unsigned)((nt + 127) / 128), 128, 0, st>>>(targets, nt, charges, nc, F);
        return PARAC_CUDA_LAUNCH_CHECK();
    }
    PARAC_CUDA_TRY(cudaMemsetAsync(F, 0, (size_t)nt * 3 * sizeof(float), st));
    int dev = 0;
    PARAC_CUDA_TRY(cudaGetDevice(&dev));
    void *staging_mem = nullptr;
    PARAC_TRY(parac__cuda_alloc(dev, CONST_CHARGES * sizeof(float4), &staging_mem));
    float4 *staging = (float4 *)staging_mem;
    parac_status rc = PARAC_OK;
    pthread_mutex_lock(&constant_lock);
    for (int64_t first = 0; rc == PARAC_OK && first < nc; first += CONST_CHARGES) {
        const int n = (int)(nc - first < CONST_CHARGES ? nc - first : CONST_CHARGES);
        pack_kernel<<<(n + 255) / 256, 256, 0, st>>>(charges, first, n, staging);
        rc = PARAC_CUDA_LAUNCH_CHECK();
        if (rc == PARAC_OK)
            rc = PARAC_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_charges, staging, (size_t)n * sizeof(float4), 0,
                                                          cudaMemcpyDeviceToDevice, st));
        if (rc == PARAC_OK) {
            constant_kernel<M><<<(unsigned)((nt + 127) / 128), 128, 0, st>>>(targets, nt, n, F);
            rc = PARAC_CUDA_LAUNCH_CHECK();
        }
    }
    // the bank is free again once this stream has used it
    const parac_status sync = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    pthread_mutex_unlock(&constant_lock);
    parac__cuda_release(dev, staging_mem, CONST_CHARGES * sizeof(float4));
    return rc != PARAC_OK ? rc : sync;
}

} // namespace

extern "C" parac_status parac__skel_field_cuda(const char *method, const float *targets, int64_t nt,
                                               const float *charges, int64_t nc, int M, float *F, void *stream)
{
    int kind;
    if (!strcmp(method, "tiled")) kind = 0;
    else if (!strcmp(method, "global")) kind = 1;
    else if (!strcmp(method, "constant")) kind = 2;
    else return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "skeleton: unknown field method '%s'", method);
    cudaStream_t st = (cudaStream_t)stream;
    switch (M) {
    case 1: return run<1>(kind, targets, nt, charges, nc, F, st);
    case 2: return run<2>(kind, targets, nt, charges, nc, F, st);
    case 3: return run<3>(kind, targets, nt, charges, nc, F, st);
    case 4: return run<4>(kind, targets, nt, charges, nc, F, st);
    case 5: return run<5>(kind, targets, nt, charges, nc, F, st);
    case 6: return run<6>(kind, targets, nt, charges, nc, F, st);
    case 7: return run<7>(kind, targets, nt, charges, nc, F, st);
    case 8: return run<8>(kind, targets, nt, charges, nc, F, st);
    case 9: return run<9>(kind, targets, nt, charges, nc, F, st);
    case 10: return run<10>(kind, targets, nt, charges, nc, F, st);
    default: return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "skeleton: field strength must be 1..10, got %d", M);
    }
}
