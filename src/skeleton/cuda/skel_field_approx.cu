// The approximate field on CUDA (fp32): one block per target block of the
// tree (the targets of one L1 cell, at most 4^3, a thread each). A block's
// threads share its box, so they all open the same cells: no divergence.
// Cell moments are read from global memory; every thread of a block reads
// the same address at once, which the cache broadcasts.
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "core/device_internal.h"
#include "cuda/cuda_check.h"
#include "skeleton/skel_field_approx.h"

namespace {

constexpr int THREADS = PARAC__SKEL_L2_SPAN * PARAC__SKEL_L2_SPAN * PARAC__SKEL_L2_SPAN;
constexpr int MF4 = PARAC__SKEL_MOMENT_FLOATS / 4; // float4 per cell moment

// r^-Q from 1/r, by multiplications fixed at compile time
template <int Q> __device__ __forceinline__ float inv_pow(float ir)
{
    const float ir2 = ir * ir;
    float v = Q & 1 ? ir : 1.0f;
#pragma unroll
    for (int k = 0; k < Q / 2; k++) v *= ir2;
    return v;
}

// the cell's monopole and quadrupole at p (see skel_field_approx.c)
template <int Q> __device__ __forceinline__ void expansion(const float4 *m, float3 p, float3 &f)
{
    constexpr float q = (float)Q;
    const float4 a = __ldg(m), b = __ldg(m + 1), c = __ldg(m + 2);
    const float Rx = p.x - a.x, Ry = p.y - a.y, Rz = p.z - a.z;
    const float ir = rsqrtf(Rx * Rx + Ry * Ry + Rz * Rz), ir2 = ir * ir, rq = inv_pow<Q>(ir);
    const float QRx = b.x * Rx + b.y * Ry + b.z * Rz, QRy = b.y * Rx + b.w * Ry + c.x * Rz,
                QRz = b.z * Rx + c.x * Ry + c.y * Rz;
    const float tr = b.x + b.w + c.y, RQR = Rx * QRx + Ry * QRy + Rz * QRz;
    const float s = a.w * rq + 0.5f * q * rq * ir2 * (-tr + (q + 2) * ir2 * RQR), t = -q * rq * ir2;
    f.x += s * Rx + t * QRx;
    f.y += s * Ry + t * QRy;
    f.z += s * Rz + t * QRz;
}

__device__ __forceinline__ float box_dist2(const float *box, const float4 *m)
{
    const float4 c = __ldg(m);
    const float dx = fmaxf(fmaxf(box[0] - c.x, c.x - box[3]), 0.0f), dy = fmaxf(fmaxf(box[1] - c.y, c.y - box[4]), 0.0f),
                dz = fmaxf(fmaxf(box[2] - c.z, c.z - box[5]), 0.0f);
    return dx * dx + dy * dy + dz * dz;
}

template <int Q>
__global__ void __launch_bounds__(THREADS)
    approx_kernel(float o1, float o2, const float *targets, const int64_t *block_start, const float *block_box,
                  const float4 *l2, const int64_t *l2_range, int64_t n_l2, const float4 *l1, const int64_t *l1_range,
                  const float *charges, float *F)
{
    __shared__ float box[6];
    const int64_t b = blockIdx.x;
    if (threadIdx.x < 6) box[threadIdx.x] = block_box[6 * b + threadIdx.x];
    __syncthreads();
    const int64_t i = block_start[b] + threadIdx.x;
    const bool active = i < block_start[b + 1];
    const float3 p = active ? make_float3(targets[3 * i], targets[3 * i + 1], targets[3 * i + 2]) : make_float3(0, 0, 0);
    float3 f = make_float3(0, 0, 0);
    for (int64_t c2 = 0; c2 < n_l2; c2++) {
        const float4 *m2 = l2 + c2 * MF4;
        if (box_dist2(box, m2) >= o2) {
            expansion<Q>(m2, p, f);
            continue;
        }
        for (int64_t c1 = l2_range[2 * c2]; c1 < l2_range[2 * c2 + 1]; c1++) {
            const float4 *m1 = l1 + c1 * MF4;
            if (box_dist2(box, m1) >= o1) {
                expansion<Q>(m1, p, f);
                continue;
            }
            for (int64_t k = l1_range[2 * c1]; k < l1_range[2 * c1 + 1]; k++) {
                const float dx = p.x - __ldg(charges + 3 * k), dy = p.y - __ldg(charges + 3 * k + 1),
                            dz = p.z - __ldg(charges + 3 * k + 2);
                const float r2 = dx * dx + dy * dy + dz * dz;
                const float s = r2 > 0.0f ? inv_pow<Q>(rsqrtf(r2)) : 0.0f; // a target on a charge feels no force from it
                f.x = fmaf(dx, s, f.x);
                f.y = fmaf(dy, s, f.y);
                f.z = fmaf(dz, s, f.z);
            }
        }
    }
    if (active) {
        F[3 * i] = f.x;
        F[3 * i + 1] = f.y;
        F[3 * i + 2] = f.z;
    }
}

struct args {
    float o1, o2;
    const float *targets;
    const int64_t *block_start;
    const float *block_box;
    const float4 *l2;
    const int64_t *l2_range;
    int64_t n_l2;
    const float4 *l1;
    const int64_t *l1_range;
    const float *charges;
    float *F;
};

template <int Q> void launch(const args &a, int64_t blocks, cudaStream_t st)
{
    approx_kernel<Q><<<(unsigned)blocks, THREADS, 0, st>>>(a.o1, a.o2, a.targets, a.block_start, a.block_box, a.l2,
                                                           a.l2_range, a.n_l2, a.l1, a.l1_range, a.charges, a.F);
}

struct buffers {
    int dev;
    void *p[9];
    size_t bytes[9];
};

parac_status upload(buffers &b, int k, const void *src, size_t bytes, cudaStream_t st)
{
    b.bytes[k] = bytes ? bytes : 4;
    PARAC_TRY(parac__cuda_alloc(b.dev, b.bytes[k], &b.p[k]));
    if (src && bytes) return PARAC_CUDA_CHECK(cudaMemcpyAsync(b.p[k], src, bytes, cudaMemcpyHostToDevice, st));
    return PARAC_OK;
}

} // namespace

extern "C" parac_status parac__skel_field_approx_cuda(const parac__skel_tree *t, int M, float *F, void *stream,
                                                      float *kernel_ms)
{
    if (M < 1 || M > 10)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "skeleton: field strength must be 1..10, got %d", M);
    cudaStream_t st = (cudaStream_t)stream;
    buffers b = {};
    PARAC_CUDA_TRY(cudaGetDevice(&b.dev));
    float *sorted = (float *)parac__malloc((size_t)(t->nt ? t->nt : 1) * 3 * sizeof(float));
    parac_status rc = sorted ? PARAC_OK : parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: the field of %lld targets",
                                                      (long long)t->nt);
    const size_t mb = PARAC__SKEL_MOMENT_FLOATS * sizeof(float);
    if (rc == PARAC_OK) rc = upload(b, 0, t->targets, (size_t)t->nt * 3 * sizeof(float), st);
    if (rc == PARAC_OK) rc = upload(b, 1, t->block_start, (size_t)(t->n_blocks + 1) * sizeof(int64_t), st);
    if (rc == PARAC_OK) rc = upload(b, 2, t->block_box, (size_t)t->n_blocks * 6 * sizeof(float), st);
    if (rc == PARAC_OK) rc = upload(b, 3, t->l2, (size_t)t->n_l2 * mb, st);
    if (rc == PARAC_OK) rc = upload(b, 4, t->l2_range, (size_t)t->n_l2 * 2 * sizeof(int64_t), st);
    if (rc == PARAC_OK) rc = upload(b, 5, t->l1, (size_t)t->n_l1 * mb, st);
    if (rc == PARAC_OK) rc = upload(b, 6, t->l1_range, (size_t)t->n_l1 * 2 * sizeof(int64_t), st);
    if (rc == PARAC_OK) rc = upload(b, 7, t->charges, (size_t)t->nc * 3 * sizeof(float), st);
    if (rc == PARAC_OK) rc = upload(b, 8, nullptr, (size_t)t->nt * 3 * sizeof(float), st);
    cudaEvent_t ev[2] = {nullptr, nullptr};
    if (rc == PARAC_OK && kernel_ms) {
        rc = PARAC_CUDA_CHECK(cudaEventCreate(&ev[0]));
        if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaEventCreate(&ev[1]));
        if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaEventRecord(ev[0], st));
    }
    if (rc == PARAC_OK && t->n_blocks > 0) {
        const args a = {t->open1 * t->open1, t->open2 * t->open2, (const float *)b.p[0], (const int64_t *)b.p[1],
                        (const float *)b.p[2], (const float4 *)b.p[3], (const int64_t *)b.p[4], t->n_l2,
                        (const float4 *)b.p[5], (const int64_t *)b.p[6], (const float *)b.p[7], (float *)b.p[8]};
        switch (M) {
        case 1: launch<2>(a, t->n_blocks, st); break;
        case 2: launch<3>(a, t->n_blocks, st); break;
        case 3: launch<4>(a, t->n_blocks, st); break;
        case 4: launch<5>(a, t->n_blocks, st); break;
        case 5: launch<6>(a, t->n_blocks, st); break;
        case 6: launch<7>(a, t->n_blocks, st); break;
        case 7: launch<8>(a, t->n_blocks, st); break;
        case 8: launch<9>(a, t->n_blocks, st); break;
        case 9: launch<10>(a, t->n_blocks, st); break;
        default: launch<11>(a, t->n_blocks, st); break;
        }
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    if (rc == PARAC_OK && kernel_ms) rc = PARAC_CUDA_CHECK(cudaEventRecord(ev[1], st));
    if (rc == PARAC_OK)
        rc = PARAC_CUDA_CHECK(cudaMemcpyAsync(sorted, b.p[8], (size_t)t->nt * 3 * sizeof(float), cudaMemcpyDeviceToHost, st));
    const parac_status sync = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    if (rc == PARAC_OK) rc = sync;
    if (rc == PARAC_OK && kernel_ms) rc = PARAC_CUDA_CHECK(cudaEventElapsedTime(kernel_ms, ev[0], ev[1]));
    for (int k = 0; k < 2; k++)
        if (ev[k]) cudaEventDestroy(ev[k]);
    for (int k = 0; k < 9; k++)
        if (b.p[k]) parac__cuda_release(b.dev, b.p[k], b.bytes[k]);
    if (rc == PARAC_OK)
        for (int64_t i = 0; i < t->nt; i++) memcpy(F + 3 * t->order[i], sorted + 3 * i, 3 * sizeof(float));
    free(sorted);
    return rc;
}
