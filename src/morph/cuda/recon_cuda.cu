// CUDA reconstruction: load marker and mask into framed grids in the
// dilation domain (checking marker <= mask and NaN on the way), run the
// chosen engine, store the result in the original domain.
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "core/device_internal.h"
#include "cuda/cuda_check.h"
#include "morph/recon_grid.h"
#include "recon_cuda.cuh"

namespace parac_morph {

size_t grid_bytes(parac_dtype dt, const grid_d &g) { return parac_dtype_size(dt) * (size_t)g.total(); }

int grid_offsets(int conn, const grid_d &g, int64_t off[26])
{
    int d[26][3];
    const int n = parac__recon_neighbours(conn, g.d > 1, d);
    for (int k = 0; k < n; k++) off[k] = d[k][2] * g.sz + d[k][1] * g.sy + d[k][0];
    return n;
}

} // namespace parac_morph

using namespace parac_morph;

namespace {

struct img_desc {
    const char *data;
    int64_t ps, rp, sp; // pixel stride, row pitch, slice pitch (bytes)
};

img_desc desc(const parac_image *im)
{
    return img_desc{(const char *)im->data, im->pixel_stride, im->row_pitch, im->slice_pitch};
}

struct spec_d {
    int erosion, clip, rule;
    double h;
    int64_t border;
    int64_t W, H, D; // image size
};

template <typename T>
__device__ T px(const img_desc &im, int64_t x, int64_t y, int64_t z)
{
    return *(const T *)(im.data + z * im.sp + y * im.rp + x * im.ps);
}

// Pixels per thread in the load and store kernels: their loads are issued
// together, so a thread has that many in flight instead of one (with one
// pixel per thread the kernels wait on memory latency, not bandwidth).
constexpr int PX = 8;

// The marker value of a pixel whose (flipped) mask is m, by the spec's rule.
template <typename T>
__device__ __forceinline__ T marker_value(const spec_d &s, T m, T raw_marker, int64_t x, int64_t y,
                                          int64_t z)
{
    switch (s.rule) {
    case PARAC__MARKER_IMAGE: return num<T>::flip(raw_marker, s.erosion);
    case PARAC__MARKER_SUB_H:
        if (num<T>::is_float) return (T)((float)m - (float)s.h);
        return (double)m > s.h ? (T)(m - (T)s.h) : num<T>::lo();
    case PARAC__MARKER_PRED:
        if (num<T>::is_float) return m == num<T>::lo() ? m : (T)nextafterf((float)m, -INFINITY);
        return m > num<T>::lo() ? (T)(m - 1) : m;
    default: {
        const int64_t b = s.border;
        const bool edge = x < b || y < b || x >= s.W - b || y >= s.H - b ||
                          (s.D > 1 && (z < b || z >= s.D - b));
        return edge ? m : num<T>::lo();
    }
    }
}

// Fill the framed grids; record the first problem pixel as index*4 + kind
// (0 NaN in the mask, 1 NaN in the marker, 2 marker above the mask). A block
// covers PX * blockDim.x pixels of a row at a time.
template <typename T>
__global__ void load_kernel(img_desc marker, img_desc mask, spec_d s, grid_d g, T *I, T *J,
                            unsigned long long *bad)
{
    const int64_t W2 = g.w + 2, rows = (g.h + 2) * (g.d > 1 ? g.d + 2 : 1);
    const bool with_marker = s.rule == PARAC__MARKER_IMAGE;
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const int64_t gz = r / (g.h + 2), gy = r % (g.h + 2);
        const int64_t z = gz - g.z0, y = gy - 1;
        const bool row_in = y >= 0 && y < g.h && z >= 0 && z < g.d;
        for (int64_t base = blockIdx.x * (int64_t)blockDim.x * PX; base < W2;
             base += (int64_t)gridDim.x * blockDim.x * PX) {
            T raw[PX], rmk[PX];
#pragma unroll
            for (int k = 0; k < PX; k++) { // the loads first, all in flight together
                const int64_t x = base + k * blockDim.x + threadIdx.x - 1;
                const bool in = row_in && x >= 0 && x < g.w;
                raw[k] = in ? px<T>(mask, x, y, z) : num<T>::lo();
                rmk[k] = in && with_marker ? px<T>(marker, x, y, z) : num<T>::lo();
            }
#pragma unroll
            for (int k = 0; k < PX; k++) {
                const int64_t gx = base + k * blockDim.x + threadIdx.x, x = gx - 1;
                if (gx >= W2) break;
                const int64_t p = gz * g.sz + gy * g.sy + gx;
                if (!row_in || x < 0 || x >= g.w) {
                    I[p] = J[p] = num<T>::lo();
                    continue;
                }
                const T m = num<T>::flip(raw[k], s.erosion);
                T mk = marker_value<T>(s, m, rmk[k], x, y, z);
                int kind = -1;
                if (raw[k] != raw[k]) kind = 0;
                else if (mk != mk) kind = 1;
                else if (mk > m && !s.clip) kind = 2;
                if (kind >= 0) {
                    atomicMin(bad, (unsigned long long)(((z * s.H + y) * s.W + x) * 4 + kind));
                    mk = m;
                }
                if (mk > m) mk = m;
                I[p] = mk;
                J[p] = m;
            }
        }
    }
}

template <typename T>
__global__ void store_kernel(const T *I, grid_d g, int erosion, char *out, int64_t ps, int64_t rp,
                             int64_t sp)
{
    const int64_t rows = g.h * g.d;
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const int64_t z = r / g.h, y = r % g.h;
        const T *row = I + (z + g.z0) * g.sz + (y + 1) * g.sy + 1;
        for (int64_t base = blockIdx.x * (int64_t)blockDim.x * PX; base < g.w;
             base += (int64_t)gridDim.x * blockDim.x * PX) {
            T v[PX];
#pragma unroll
            for (int k = 0; k < PX; k++) {
                const int64_t x = base + k * blockDim.x + threadIdx.x;
                v[k] = x < g.w ? row[x] : num<T>::lo();
            }
#pragma unroll
            for (int k = 0; k < PX; k++) {
                const int64_t x = base + k * blockDim.x + threadIdx.x;
                if (x < g.w) *(T *)(out + z * sp + y * rp + x * ps) = num<T>::flip(v[k], erosion);
            }
        }
    }
}

struct grids {
    int dev = -1;
    size_t bytes = 0;
    void *I = nullptr, *J = nullptr, *bad = nullptr;
    ~grids()
    {
        if (I) parac__cuda_release(dev, I, bytes);
        if (J) parac__cuda_release(dev, J, bytes);
        if (bad) parac__cuda_release(dev, bad, 8);
    }
};

template <typename T>
parac_status run(const char *method, const parac__recon_spec *s, const parac_image *marker,
                 const parac_image *mask, parac_image *out, cudaStream_t st)
{
    const bool is3d = mask->depth > 1;
    const grid_d g{mask->width, mask->height, mask->depth, mask->width + 2,
                   (mask->width + 2) * (mask->height + 2), is3d ? 1 : 0};
    grids b;
    b.dev = mask->device;
    b.bytes = grid_bytes(mask->dtype, g);
    PARAC_TRY(parac__cuda_alloc(b.dev, b.bytes, &b.I));
    PARAC_TRY(parac__cuda_alloc(b.dev, b.bytes, &b.J));
    PARAC_TRY(parac__cuda_alloc(b.dev, 8, &b.bad));
    unsigned long long *bad = (unsigned long long *)b.bad;
    PARAC_CUDA_TRY(cudaMemsetAsync(bad, 0xff, 8, st));
    const spec_d sd{s->erosion, s->clip, (int)s->rule, s->h, s->border, mask->width, mask->height, mask->depth};
    const img_desc mk = marker ? desc(marker) : desc(mask);
    const int64_t rows = (g.h + 2) * (is3d ? g.d + 2 : 1);
    const dim3 lg((unsigned)((g.sy + 256 * PX - 1) / (256 * PX)), (unsigned)(rows < 65535 ? rows : 65535));
    load_kernel<T><<<lg, 256, 0, st>>>(mk, desc(mask), sd, g, (T *)b.I, (T *)b.J, bad);
    PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    unsigned long long first_bad = 0;
    PARAC_CUDA_TRY(cudaMemcpyAsync(&first_bad, bad, 8, cudaMemcpyDeviceToHost, st));
    PARAC_CUDA_TRY(cudaStreamSynchronize(st));
    if (first_bad != ~0ull) {
        parac__recon_violation v = {};
        const unsigned long long idx = first_bad / 4, W = (unsigned long long)mask->width,
                                 H = (unsigned long long)mask->height;
        const int kind = (int)(first_bad % 4);
        v.found = 1;
        v.x = (int64_t)(idx % W);
        v.y = (int64_t)(idx / W % H);
        v.z = (int64_t)(idx / W / H);
        v.nan_in = kind == 0 ? 2 : kind == 1 ? 1 : 0;
        if (kind == 2) {
            T a, c;
            PARAC_CUDA_TRY(cudaMemcpy(&a, parac_image_at(marker, v.x, v.y, v.z), sizeof a, cudaMemcpyDeviceToHost));
            PARAC_CUDA_TRY(cudaMemcpy(&c, parac_image_at(mask, v.x, v.y, v.z), sizeof c, cudaMemcpyDeviceToHost));
            v.marker = (double)a;
            v.mask = (double)c;
        }
        return parac__recon_violation_error(s, &v);
    }
    if (strcmp(method, "heap") == 0)
        PARAC_TRY(heap_run(mask->dtype, s->conn, g, b.I, b.J, b.dev, s->heaps, s->node_size, s->heap_updates, st));
    else
        PARAC_TRY(wavefront_run(mask->dtype, s->conn, g, b.I, b.J, b.dev, st));
    const dim3 sg((unsigned)((g.w + 256 * PX - 1) / (256 * PX)), (unsigned)(g.h * g.d < 65535 ? g.h * g.d : 65535));
    store_kernel<T><<<sg, 256, 0, st>>>((const T *)b.I, g, s->erosion, (char *)out->data,
                                        out->pixel_stride, out->row_pitch, out->slice_pitch);
    PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    // the grids go back to the pool when this returns: let the kernels finish
    PARAC_CUDA_TRY(cudaStreamSynchronize(st));
    return PARAC_OK;
}

} // namespace

extern "C" parac_status parac__recon_cuda(const char *method, const parac__recon_spec *s,
                                          const parac_image *marker, const parac_image *mask,
                                          parac_image *out, void *stream)
{
    PARAC_TRY(parac__recon_check(s, marker, mask));
    if (strcmp(method, "wavefront") != 0 && strcmp(method, "heap") != 0)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: unknown CUDA method '%s'", s->op, method);
    PARAC_CUDA_TRY(cudaSetDevice(mask->device));
    cudaStream_t st = (cudaStream_t)stream;
    switch (mask->dtype) {
    case PARAC_U8: return run<uint8_t>(method, s, marker, mask, out, st);
    case PARAC_U16: return run<uint16_t>(method, s, marker, mask, out, st);
    default: return run<float>(method, s, marker, mask, out, st);
    }
}

extern "C" parac_status parac__recon_cuda_strip(parac__grid *h, int conn, int device, void *stream)
{
    PARAC_CUDA_TRY(cudaSetDevice(device));
    cudaStream_t st = (cudaStream_t)stream;
    const grid_d g{h->w, h->h, h->d, h->sy, h->sz, h->z0};
    grids b;
    b.dev = device;
    b.bytes = grid_bytes(h->dtype, g);
    PARAC_TRY(parac__cuda_alloc(b.dev, b.bytes, &b.I));
    PARAC_TRY(parac__cuda_alloc(b.dev, b.bytes, &b.J));
    PARAC_CUDA_TRY(cudaMemcpyAsync(b.I, h->I, b.bytes, cudaMemcpyHostToDevice, st));
    PARAC_CUDA_TRY(cudaMemcpyAsync(b.J, h->J, b.bytes, cudaMemcpyHostToDevice, st));
    PARAC_TRY(wavefront_run(h->dtype, conn, g, b.I, b.J, device, st));
    PARAC_CUDA_TRY(cudaMemcpyAsync(h->I, b.I, b.bytes, cudaMemcpyDeviceToHost, st));
    PARAC_CUDA_TRY(cudaStreamSynchronize(st));
    return PARAC_OK;
}

/* The memory one device may use: its free memory, or less when
 * PARAC_CUDA_MEMORY_CAP (bytes; K, M or G suffix) says so. */
static parac_status budget(int device, double *bytes)
{
    size_t fr = 0, total = 0;
    PARAC_CUDA_TRY(cudaSetDevice(device));
    PARAC_CUDA_TRY(cudaMemGetInfo(&fr, &total));
    *bytes = 0.9 * (double)fr;
    const char *cap = getenv("PARAC_CUDA_MEMORY_CAP");
    if (cap && *cap) {
        char *end;
        double v = strtod(cap, &end);
        if (*end == 'K' || *end == 'k') v *= 1024.0;
        else if (*end == 'M' || *end == 'm') v *= 1048576.0;
        else if (*end == 'G' || *end == 'g') v *= 1073741824.0;
        if (v > 0 && v < *bytes) *bytes = v;
    }
    return PARAC_OK;
}

/* Whole on one device: the images, two grids and the tile lists (~1 %). */
static bool fits_whole(const parac_image *mask, int n_images, int n_workers, double cap)
{
    const double es = (double)parac_dtype_size(mask->dtype);
    const double image = es * (double)parac_image_pixel_count(mask);
    const double grid = es * (double)(mask->width + 2) * (double)(mask->depth > 1 ? mask->depth + 2 : 1) *
                        (double)(mask->height + 2);
    return n_workers == 1 && n_images * image + 2.02 * grid <= cap;
}

extern "C" parac_status parac__recon_cuda_plan(const parac_image *mask, int n_images,
                                               const int *workers, int n_workers, int64_t *strips)
{
    double cap = 0;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (attempt) parac__cuda_pool_trim(); /* blocks cached by the pool count as free */
        PARAC_TRY(budget(workers[0], &cap));
        for (int w = 1; w < n_workers; w++) {
            double c = 0;
            PARAC_TRY(budget(workers[w], &c));
            if (c < cap) cap = c;
        }
        if (fits_whole(mask, n_images, n_workers, cap)) {
            *strips = 0;
            return PARAC_OK;
        }
    }
    const double es = (double)parac_dtype_size(mask->dtype);
    const double row_grid = es * (double)(mask->width + 2) * (double)(mask->depth > 1 ? mask->depth + 2 : 1);
    /* a strip on a device: two grids of its rows plus halos */
    const double rows = floor(cap / (2.02 * row_grid)) - 2;
    if (rows < 1)
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY,
                           "reconstruct: one row of %lld x %lld pixels needs more than the %.0f bytes "
                           "a device may use", (long long)mask->width, (long long)mask->depth, cap);
    int64_t n = (int64_t)ceil((double)mask->height / rows);
    if (n < n_workers) n = n_workers;
    if (n > mask->height) n = mask->height;
    *strips = n;
    return PARAC_OK;
}
