// Statistics of labelled regions on the GPU, in one pass over the pixels:
//   1. the largest label (and a check for negative ones), a block reduction;
//   2. every thread walks 16 pixels of a row and adds them up in two
//      partials held in registers, the current pixel's label and the one
//      before it (so a region's runs on both sides of a small one or of
//      background add up in registers); a partial pushed out goes to the
//      label's accumulators with atomics (minima and maxima only where a
//      read shows they change something). At the end the lanes of a warp
//      holding one label add their partials up (__match_any_sync and
//      shuffles) and the warps of a block offer theirs to one slot in shared
//      memory, so that a region spanning the image costs one set of atomics
//      per block, not per pixel;
//   3. the labels present are numbered by a scan (CUB) and their rows of the
//      table written.
// Coordinate sums and integer intensity sums are exact 64-bit integers, so
// the table does not depend on the order of the atomics; f32 intensity sums
// are doubles added in an unspecified order.
#include <cuda_runtime.h>
#include <stdint.h>

#include <cub/device/device_scan.cuh>

#include "core/device_internal.h"
#include "cuda/cuda_check.h"
#include "cuda/launch.h"
#include "label/regions.h"

namespace regionsk {
namespace {

constexpr int PER_THREAD = 16;
constexpr int WARPS = 8;                       // rows per block
constexpr int SPAN = 32 * PER_THREAD;          // pixels of a row per warp
constexpr uint32_t NONE = 0;                   // background / no run
constexpr unsigned FULL = 0xffffffffu;

struct images {
    const char *lab;
    int64_t lrp, lsp;
    int ldtype;
    const char *val;     // intensity or nullptr
    int64_t vrp, vsp;
    int vdtype;
    int w, h, d;
};

// Per-label accumulators, structure of arrays, index = label.
struct sums {
    unsigned long long *area;
    int *lo[3], *hi[3];              // per axis x, y, z
    unsigned long long *sum[3];
    unsigned *kmin, *kmax;           // intensities as order-preserving keys
    unsigned long long *isum;        // integer intensities (two's complement), or doubles for f32
};

// A run, or several combined: one label's partial statistics.
struct part {
    uint32_t label;
    uint32_t count;
    int lo[3], hi[3];
    unsigned long long sum[3];
    unsigned kmin, kmax;
    unsigned long long isum;         // or a double's bits for f32
};

// The intensity as a key whose unsigned order is the values' order, and as
// what its sum adds (the integer, or the double's bits).
__device__ inline void value_at(const images &m, int x, int64_t y, int64_t z, unsigned &key, long long &ival,
                                double &fval)
{
    const char *row = m.val + z * m.vsp + y * m.vrp;
    switch (m.vdtype) {
    case PARAC_U8: ival = ((const uint8_t *)row)[x]; key = (unsigned)ival; break;
    case PARAC_U16: ival = ((const uint16_t *)row)[x]; key = (unsigned)ival; break;
    case PARAC_I32: ival = ((const int32_t *)row)[x]; key = (unsigned)(int)ival ^ 0x80000000u; break;
    default: {
        const float f = ((const float *)row)[x];
        fval = f;
        const unsigned b = __float_as_uint(f);
        key = (b & 0x80000000u) ? ~b : b | 0x80000000u;
    }
    }
}

__device__ inline double key_value(unsigned key, int dtype)
{
    switch (dtype) {
    case PARAC_U8:
    case PARAC_U16: return (double)key;
    case PARAC_I32: return (double)(int)(key ^ 0x80000000u);
    default: {
        const unsigned b = (key & 0x80000000u) ? key & 0x7fffffffu : ~key;
        return (double)__uint_as_float(b);
    }
    }
}

__device__ inline void add_isum(unsigned long long *at, unsigned long long v, bool f32)
{
    if (f32) atomicAdd((double *)at, __longlong_as_double((long long)v));
    else atomicAdd(at, v);
}

__device__ inline unsigned long long isum_plus(unsigned long long a, unsigned long long b, bool f32)
{
    if (!f32) return a + b;
    return (unsigned long long)__double_as_longlong(__longlong_as_double((long long)a) +
                                                    __longlong_as_double((long long)b));
}

__device__ void flush(const sums &s, const part &p, bool with_values, bool f32)
{
    // a minimum only falls and a maximum only rises, so a value read (even
    // one older than the latest) that this one does not beat makes its
    // atomic unnecessary: most runs of a region leave its box as it is
    const uint32_t l = p.label;
    atomicAdd(&s.area[l], (unsigned long long)p.count);
    for (int k = 0; k < 3; k++) {
        if (p.lo[k] < s.lo[k][l]) atomicMin(&s.lo[k][l], p.lo[k]);
        if (p.hi[k] > s.hi[k][l]) atomicMax(&s.hi[k][l], p.hi[k]);
        if (p.sum[k]) atomicAdd(&s.sum[k][l], p.sum[k]);
    }
    if (with_values) {
        if (p.kmin < s.kmin[l]) atomicMin(&s.kmin[l], p.kmin);
        if (p.kmax > s.kmax[l]) atomicMax(&s.kmax[l], p.kmax);
        add_isum(&s.isum[l], p.isum, f32);
    }
}

__device__ inline void combine(part &a, const part &b, bool f32)
{
    a.count += b.count;
    for (int k = 0; k < 3; k++) {
        a.lo[k] = min(a.lo[k], b.lo[k]);
        a.hi[k] = max(a.hi[k], b.hi[k]);
        a.sum[k] += b.sum[k];
    }
    a.kmin = min(a.kmin, b.kmin);
    a.kmax = max(a.kmax, b.kmax);
    a.isum = isum_plus(a.isum, b.isum, f32);
}

// Lane src's partial, among the lanes of `group` (all of which call this).
__device__ inline part shuffle_from(const part &p, int src, unsigned group, bool with_values)
{
    part q;
    q.label = p.label;
    q.count = __shfl_sync(group, p.count, src);
    for (int k = 0; k < 3; k++) {
        q.lo[k] = __shfl_sync(group, p.lo[k], src);
        q.hi[k] = __shfl_sync(group, p.hi[k], src);
        q.sum[k] = __shfl_sync(group, p.sum[k], src);
    }
    q.kmin = q.kmax = 0, q.isum = 0;
    if (with_values) {
        q.kmin = __shfl_sync(group, p.kmin, src);
        q.kmax = __shfl_sync(group, p.kmax, src);
        q.isum = __shfl_sync(group, p.isum, src);
    }
    return q;
}

__device__ inline void start_part(part &p, uint32_t l, int x, int64_t y, int64_t z)
{
    p.label = l;
    p.count = 0;
    p.lo[0] = x, p.lo[1] = (int)y, p.lo[2] = (int)z;
    p.hi[0] = x, p.hi[1] = (int)y, p.hi[2] = (int)z;
    p.sum[0] = p.sum[1] = p.sum[2] = 0;
    p.kmin = 0xffffffffu, p.kmax = 0, p.isum = 0;
}

// The coordinate sums along y and z: every pixel of a thread's partial lies
// in one row.
__device__ inline void close_part(part &p, int64_t y, int64_t z)
{
    p.sum[1] = (unsigned long long)p.count * (unsigned long long)y;
    p.sum[2] = (unsigned long long)p.count * (unsigned long long)z;
}

// One slot per block: the partial sums of the first label its warps offer.
struct slot {
    unsigned label;
    unsigned long long count;
    int lo[3], hi[3];
    unsigned long long sum[3];
    unsigned kmin, kmax;
    unsigned long long isum;
};

__device__ void slot_add(slot &b, const part &p, bool with_values, bool f32)
{
    atomicAdd(&b.count, (unsigned long long)p.count);
    for (int k = 0; k < 3; k++) {
        atomicMin(&b.lo[k], p.lo[k]);
        atomicMax(&b.hi[k], p.hi[k]);
        atomicAdd(&b.sum[k], p.sum[k]);
    }
    if (with_values) {
        atomicMin(&b.kmin, p.kmin);
        atomicMax(&b.kmax, p.kmax);
        add_isum(&b.isum, p.isum, f32);
    }
}

// L: the labels' element type (a row's labels read without a switch per
// pixel).
template <typename L>
__global__ void accumulate_kernel(images m, sums s, int64_t rows)
{
    __shared__ slot b;
    const bool with_values = m.val != nullptr, f32 = m.vdtype == PARAC_F32;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int x_begin = blockIdx.x * SPAN + lane * PER_THREAD;
    const int x_end = min(x_begin + PER_THREAD, m.w);
    for (int64_t r0 = (int64_t)blockIdx.y * WARPS; r0 < rows; r0 += (int64_t)gridDim.y * WARPS) {
        if (threadIdx.x == 0) {
            b.label = NONE;
            b.count = 0;
            for (int k = 0; k < 3; k++) b.lo[k] = INT_MAX, b.hi[k] = -1, b.sum[k] = 0;
            b.kmin = 0xffffffffu, b.kmax = 0, b.isum = 0;
        }
        __syncthreads();
        const int64_t r = r0 + warp;
        const int64_t y = r % m.h, z = r / m.h;
        // two partials per thread: the label of the current pixel (a) and the
        // one before it (b), so that a region's runs on either side of another
        // (or of background) add up in registers
        part a, c;
        a.label = c.label = NONE;
        if (r < rows) {
            const L *lrow = (const L *)(m.lab + z * m.lsp + y * m.lrp);
            for (int x = x_begin; x < x_end; x++) {
                const uint32_t l = (uint32_t)lrow[x];
                if (l == NONE) continue;
                if (l != a.label) {
                    if (l == c.label) {
                        const part t = a;
                        a = c;
                        c = t;
                    } else {
                        if (c.label != NONE) {
                            close_part(c, y, z);
                            flush(s, c, with_values, f32);
                        }
                        c = a;
                        start_part(a, l, x, y, z);
                    }
                }
                a.count++;
                a.hi[0] = x;
                a.sum[0] += (unsigned long long)x;
                if (with_values) {
                    unsigned key;
                    long long iv = 0;
                    double fv = 0;
                    value_at(m, x, y, z, key, iv, fv);
                    a.kmin = min(a.kmin, key);
                    a.kmax = max(a.kmax, key);
                    a.isum = f32 ? isum_plus(a.isum, (unsigned long long)__double_as_longlong(fv), true)
                                 : a.isum + (unsigned long long)iv;
                }
            }
        }
        // each of the two partials: the lanes holding one label add theirs
        // up in the first of them, which offers the sum to the block's slot
        for (int round = 0; round < 2; round++) {
            part p = round == 0 ? a : c;
            const unsigned group = __match_any_sync(FULL, p.label);
            const int leader = __ffs(group) - 1;
            if (p.label != NONE) {
                close_part(p, y, z);
                for (unsigned rest = group & (group - 1); rest; rest &= rest - 1) {
                    const part q = shuffle_from(p, __ffs(rest) - 1, group, with_values);
                    if (lane == leader) combine(p, q, f32);
                }
                if (lane == leader) {
                    const unsigned owner = atomicCAS(&b.label, NONE, p.label);
                    if (owner == NONE || owner == p.label) slot_add(b, p, with_values, f32);
                    else flush(s, p, with_values, f32);
                }
            }
        }
        __syncthreads();
        if (threadIdx.x == 0 && b.label != NONE) {
            part p;
            p.label = b.label;
            p.count = (uint32_t)b.count;
            for (int k = 0; k < 3; k++) p.lo[k] = b.lo[k], p.hi[k] = b.hi[k], p.sum[k] = b.sum[k];
            p.kmin = b.kmin, p.kmax = b.kmax, p.isum = b.isum;
            flush(s, p, with_values, f32);
        }
        __syncthreads();
    }
}

// The largest label and the smallest, over the image: a row's pixels from
// the grid's x, rows (y and z flattened) from its y, strided past its reach,
// so that no pixel pays a 64-bit division for its row (a flat loop over the
// pixel count did, which took 8K labels longer than reading them).
template <typename L>
__global__ void extremes_kernel(images m, int64_t rows, unsigned long long *largest, long long *smallest)
{
    long long hi = 0, lo = 0;
    const int x0 = blockIdx.x * blockDim.x + threadIdx.x, xs = gridDim.x * blockDim.x;
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const L *row = (const L *)(m.lab + (r / m.h) * m.lsp + (r % m.h) * m.lrp);
        for (int x = x0; x < m.w; x += xs) {
            const long long v = (long long)row[x];
            hi = max(hi, v);
            lo = min(lo, v);
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        hi = max(hi, __shfl_down_sync(FULL, hi, o));
        lo = min(lo, __shfl_down_sync(FULL, lo, o));
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMax(largest, (unsigned long long)hi);
        atomicMin(smallest, lo);
    }
}

__global__ void init_kernel(sums s, int64_t n)
{
    for (int64_t l = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; l <= n; l += (int64_t)gridDim.x * blockDim.x) {
        s.area[l] = 0;
        for (int k = 0; k < 3; k++) s.lo[k][l] = INT_MAX, s.hi[k][l] = -1, s.sum[k][l] = 0;
        s.kmin[l] = 0xffffffffu, s.kmax[l] = 0, s.isum[l] = 0;
    }
}

// flags[l - 1] = whether label l has pixels
__global__ void present_kernel(sums s, int64_t n, uint32_t *flags)
{
    for (int64_t l = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; l < n; l += (int64_t)gridDim.x * blockDim.x)
        flags[l] = s.area[l + 1] != 0;
}

// The row of every label present, at its rank among them.
__global__ void table_kernel(sums s, int64_t n, const uint32_t *flags, const uint32_t *rank, int ndim, int vdtype,
                             bool with_values, char *table, int64_t pitch)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        if (!flags[i]) continue;
        const int64_t l = i + 1;
        double *row = (double *)(table + (int64_t)rank[i] * pitch);
        const double area = (double)s.area[l];
        int c = 0;
        row[c++] = (double)l;
        row[c++] = area;
        for (int k = ndim - 1; k >= 0; k--) row[c++] = (double)s.lo[k][l];
        for (int k = ndim - 1; k >= 0; k--) row[c++] = (double)s.hi[k][l] + 1;
        for (int k = ndim - 1; k >= 0; k--) row[c++] = (double)s.sum[k][l] / area;
        if (with_values) {
            row[c++] = key_value(s.kmin[l], vdtype);
            row[c++] = key_value(s.kmax[l], vdtype);
            row[c++] = (vdtype == PARAC_F32 ? __longlong_as_double((long long)s.isum[l]) : (double)(long long)s.isum[l]) /
                       area;
        }
    }
}

} // namespace
} // namespace regionsk

using namespace regionsk;

namespace {

// The accumulators for labels 0..n in one device buffer.
struct sums_buffer {
    int device = -1;
    void *base = nullptr;
    size_t bytes = 0;
    sums s{};
};

parac_status sums_alloc(sums_buffer &b, int device, int64_t n)
{
    const size_t count = (size_t)n + 1;
    // 8-byte arrays first, then the 4-byte ones
    b.bytes = count * (8 * 5 + 4 * 8);
    b.device = device;
    PARAC_TRY(parac__cuda_alloc(device, b.bytes, &b.base));
    char *p = (char *)b.base;
    unsigned long long **wide[5] = {&b.s.area, &b.s.sum[0], &b.s.sum[1], &b.s.sum[2], &b.s.isum};
    for (int i = 0; i < 5; i++, p += count * 8) *wide[i] = (unsigned long long *)p;
    int **narrow[6] = {&b.s.lo[0], &b.s.lo[1], &b.s.lo[2], &b.s.hi[0], &b.s.hi[1], &b.s.hi[2]};
    for (int i = 0; i < 6; i++, p += count * 4) *narrow[i] = (int *)p;
    b.s.kmin = (unsigned *)p;
    b.s.kmax = (unsigned *)(p + count * 4);
    return PARAC_OK;
}

images images_of(const parac_image *l, const parac_image *v)
{
    return images{(const char *)l->data, l->row_pitch, l->slice_pitch, (int)l->dtype,
                  v ? (const char *)v->data : nullptr, v ? v->row_pitch : 0, v ? v->slice_pitch : 0,
                  v ? (int)v->dtype : 0, (int)l->width, (int)l->height, (int)l->depth};
}

// Steps 1 and 2 for labels 0..n: the accumulators in b, summed.
parac_status accumulate(const images &m, int device, int64_t n, sums_buffer &b, cudaStream_t st)
{
    PARAC_TRY(sums_alloc(b, device, n));
    init_kernel<<<parac__grid_for(n + 1, 256), 256, 0, st>>>(b.s, n);
    PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    const int64_t rows = (int64_t)m.h * m.d, row_blocks = (rows + WARPS - 1) / WARPS;
    const dim3 grid((unsigned)((m.w + SPAN - 1) / SPAN), (unsigned)(row_blocks < 65535 ? row_blocks : 65535));
    switch (m.ldtype) {
    case PARAC_U8: accumulate_kernel<uint8_t><<<grid, 32 * WARPS, 0, st>>>(m, b.s, rows); break;
    case PARAC_U16: accumulate_kernel<uint16_t><<<grid, 32 * WARPS, 0, st>>>(m, b.s, rows); break;
    case PARAC_I32: accumulate_kernel<int32_t><<<grid, 32 * WARPS, 0, st>>>(m, b.s, rows); break;
    default: accumulate_kernel<int64_t><<<grid, 32 * WARPS, 0, st>>>(m, b.s, rows); break;
    }
    return PARAC_CUDA_LAUNCH_CHECK();
}

} // namespace

extern "C" parac_status parac__largest_label_cuda(const char *op, const parac_image *labels, int64_t *n, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    const images m = images_of(labels, nullptr);
    void *mem = nullptr;
    PARAC_TRY(parac__cuda_alloc(labels->device, 16, &mem));
    unsigned long long *largest = (unsigned long long *)mem;
    long long *smallest = (long long *)mem + 1;
    long long host[2] = {0, 0};
    // blocks of 256 along x (a narrow image's as wide as it, whole warps),
    // some 16k blocks in all, each striding over rows
    const int64_t rows = labels->height * labels->depth;
    const int threads = m.w >= 256 ? 256 : (m.w + 31) / 32 * 32;
    const int64_t bx = (m.w + threads - 1) / threads, by_want = 16384 / bx > 0 ? 16384 / bx : 1;
    const dim3 grid((unsigned)bx, (unsigned)(rows < by_want ? rows : by_want < 65535 ? by_want : 65535));
    parac_status rc = PARAC_CUDA_CHECK(cudaMemsetAsync(mem, 0, 16, st));
    if (rc == PARAC_OK && rows > 0 && m.w > 0) {
        switch (labels->dtype) {
        case PARAC_U8: extremes_kernel<uint8_t><<<grid, threads, 0, st>>>(m, rows, largest, smallest); break;
        case PARAC_U16: extremes_kernel<uint16_t><<<grid, threads, 0, st>>>(m, rows, largest, smallest); break;
        case PARAC_I32: extremes_kernel<int32_t><<<grid, threads, 0, st>>>(m, rows, largest, smallest); break;
        default: extremes_kernel<int64_t><<<grid, threads, 0, st>>>(m, rows, largest, smallest); break;
        }
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaMemcpyAsync(host, mem, 16, cudaMemcpyDeviceToHost, st));
    const parac_status sync = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    parac__cuda_release(labels->device, mem, 16);
    PARAC_TRY(rc);
    PARAC_TRY(sync);
    if (host[1] < 0)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: the labels have negative values; labels are 0 "
                           "(background) or positive", op);
    *n = host[0];
    // the accumulators are indexed by 32-bit labels
    if (*n >= INT32_MAX)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: the largest label is %lld; the CUDA method takes labels below "
                           "2^31 - 1 (use --device cpu)", op, (long long)*n);
    return PARAC_OK;
}

extern "C" parac_status parac__region_areas_cuda(const parac_image *labels, int64_t n, uint64_t *areas, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    sums_buffer b;
    parac_status rc = accumulate(images_of(labels, nullptr), labels->device, n, b, st);
    if (rc == PARAC_OK)
        rc = PARAC_CUDA_CHECK(cudaMemcpyAsync(areas, b.s.area, ((size_t)n + 1) * 8, cudaMemcpyDeviceToDevice, st));
    if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaMemsetAsync(areas, 0, 8, st));
    const parac_status sync = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    if (b.base) parac__cuda_release(labels->device, b.base, b.bytes);
    return rc != PARAC_OK ? rc : sync;
}

extern "C" parac_status parac__regions_cuda(const parac__regions_spec *sp, parac_image **table, int64_t *count,
                                            void *stream)
{
    *table = NULL;
    *count = 0;
    const parac_image *lab = sp->labels;
    if (lab->width >= INT32_MAX || lab->height >= INT32_MAX || lab->depth >= INT32_MAX)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: a side of 2^31 pixels or more", sp->op);
    cudaStream_t st = (cudaStream_t)stream;
    const images m = images_of(sp->labels, sp->intensity);
    int64_t n = 0;
    PARAC_TRY(parac__largest_label_cuda(sp->op, sp->labels, &n, stream));
    const int ndim = lab->depth > 1 ? 3 : 2;
    const bool with_values = sp->intensity != NULL;
    const int columns = parac__regions_columns(ndim, with_values, NULL, 0);
    const int device = lab->device;

    sums_buffer b;
    void *flags = nullptr, *rank = nullptr, *scratch = nullptr;
    const size_t flag_bytes = (size_t)(n > 0 ? n : 1) * sizeof(uint32_t);
    size_t scan_bytes = 0;
    parac_status rc = PARAC_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, (const uint32_t *)nullptr,
                                                            (uint32_t *)nullptr, (int)(n > 0 ? n : 1), st));
    if (rc == PARAC_OK) rc = parac__cuda_alloc(device, flag_bytes, &flags);
    if (rc == PARAC_OK) rc = parac__cuda_alloc(device, flag_bytes, &rank);
    if (rc == PARAC_OK) rc = parac__cuda_alloc(device, scan_bytes ? scan_bytes : 1, &scratch);
    if (rc == PARAC_OK) rc = accumulate(m, device, n, b, st);
    uint32_t tail[2] = {0, 0};
    if (rc == PARAC_OK && n > 0) {
        present_kernel<<<parac__grid_for(n, 256), 256, 0, st>>>(b.s, n, (uint32_t *)flags);
        rc = PARAC_CUDA_LAUNCH_CHECK();
        if (rc == PARAC_OK)
            rc = PARAC_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch, scan_bytes, (const uint32_t *)flags,
                                                                (uint32_t *)rank, (int)n, st));
        if (rc == PARAC_OK)
            rc = PARAC_CUDA_CHECK(cudaMemcpyAsync(&tail[0], (uint32_t *)rank + n - 1, 4, cudaMemcpyDeviceToHost, st));
        if (rc == PARAC_OK)
            rc = PARAC_CUDA_CHECK(cudaMemcpyAsync(&tail[1], (uint32_t *)flags + n - 1, 4, cudaMemcpyDeviceToHost, st));
        if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    }
    const int64_t present = (int64_t)tail[0] + tail[1];
    if (rc == PARAC_OK)
        rc = parac_image_create_zeroed(table, columns, present > 0 ? present : 1, 1, 1, PARAC_F64, PARAC_MEMORY_CUDA,
                                       device);
    if (rc == PARAC_OK && n > 0) {
        table_kernel<<<parac__grid_for(n, 256), 256, 0, st>>>(b.s, n, (const uint32_t *)flags, (const uint32_t *)rank,
                                                              ndim, m.vdtype, with_values, (char *)(*table)->data,
                                                              (*table)->row_pitch);
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    // the buffers go back to the pool: let the kernels finish first
    const parac_status sync = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    if (b.base) parac__cuda_release(device, b.base, b.bytes);
    if (flags) parac__cuda_release(device, flags, flag_bytes);
    if (rank) parac__cuda_release(device, rank, flag_bytes);
    if (scratch) parac__cuda_release(device, scratch, scan_bytes ? scan_bytes : 1);
    if (rc == PARAC_OK) rc = sync;
    if (rc != PARAC_OK) {
        parac_image_destroy(*table);
        *table = NULL;
        return rc;
    }
    *count = present;
    return PARAC_OK;
}
