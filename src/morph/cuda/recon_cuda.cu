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
#include "morph/recon_devices.h"
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


struct spec_d {
    int erosion, clip, rule;
    double h;
    int64_t border;
    int64_t W, H, D; // image size
    int64_t y0;      // the image row of the grid's first interior row
};

template <typename T>
__device__ T px(const image_rows &im, int64_t x, int64_t y, int64_t z)
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
                                          int64_t z) // y: the image row
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

// Fill the framed grids from the rows of marker and mask that start at the
// grid's first interior row; record the first problem pixel as index*4 + kind
// (0 NaN in the mask, 1 NaN in the marker, 2 marker above the mask; the
// index in the whole image). A block covers PX * blockDim.x pixels of a row
// at a time.
template <typename T>
__global__ void load_kernel(image_rows marker, image_rows mask, spec_d s, grid_d g, T *I, T *J,
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
                T mk = marker_value<T>(s, m, rmk[k], x, y + s.y0, z);
                int kind = -1;
                if (raw[k] != raw[k]) kind = 0;
                else if (mk != mk) kind = 1;
                else if (mk > m && !s.clip) kind = 2;
                if (kind >= 0) {
                    atomicMin(bad, (unsigned long long)(((z * s.H + y + s.y0) * s.W + x) * 4 + kind));
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

template <typename T>
parac_status load_t(const parac__recon_spec *s, image_rows marker, image_rows mask, int64_t W, int64_t H,
                    int64_t D, int64_t y0, const grid_d &g, void *I, void *J, unsigned long long *bad,
                    cudaStream_t st)
{
    const spec_d sd{s->erosion, s->clip, (int)s->rule, s->h, s->border, W, H, D, y0};
    const int64_t rows = (g.h + 2) * (g.d > 1 ? g.d + 2 : 1);
    const dim3 lg((unsigned)((g.sy + 256 * PX - 1) / (256 * PX)), (unsigned)(rows < 65535 ? rows : 65535));
    load_kernel<T><<<lg, 256, 0, st>>>(marker, mask, sd, g, (T *)I, (T *)J, bad);
    return PARAC_CUDA_LAUNCH_CHECK();
}

template <typename T>
parac_status store_t(const void *I, const grid_d &g, int erosion, image_rows out, cudaStream_t st)
{
    const dim3 sg((unsigned)((g.w + 256 * PX - 1) / (256 * PX)), (unsigned)(g.h * g.d < 65535 ? g.h * g.d : 65535));
    store_kernel<T><<<sg, 256, 0, st>>>((const T *)I, g, erosion, (char *)out.data, out.ps, out.rp, out.sp);
    return PARAC_CUDA_LAUNCH_CHECK();
}

} // namespace

namespace parac_morph {

image_rows rows_of(const parac_image *im, int64_t y0)
{
    return image_rows{(const char *)im->data + y0 * im->row_pitch, im->pixel_stride, im->row_pitch,
                      im->slice_pitch};
}

grid_d grid_for(int64_t w, int64_t h, int64_t d)
{
    return grid_d{w, h, d, w + 2, (w + 2) * (h + 2), d > 1 ? 1 : 0};
}

parac_status load_grids(const parac__recon_spec *s, const parac_image *mask, image_rows marker_rows,
                        image_rows mask_rows, int64_t y0, const grid_d &g, void *I, void *J,
                        unsigned long long *bad, cudaStream_t st)
{
    const int64_t W = mask->width, H = mask->height, D = mask->depth;
    switch (mask->dtype) {
    case PARAC_U8: return load_t<uint8_t>(s, marker_rows, mask_rows, W, H, D, y0, g, I, J, bad, st);
    case PARAC_U16: return load_t<uint16_t>(s, marker_rows, mask_rows, W, H, D, y0, g, I, J, bad, st);
    default: return load_t<float>(s, marker_rows, mask_rows, W, H, D, y0, g, I, J, bad, st);
    }
}

parac_status store_grid(parac_dtype dt, const void *I, const grid_d &g, int erosion, image_rows out,
                        cudaStream_t st)
{
    switch (dt) {
    case PARAC_U8: return store_t<uint8_t>(I, g, erosion, out, st);
    case PARAC_U16: return store_t<uint16_t>(I, g, erosion, out, st);
    default: return store_t<float>(I, g, erosion, out, st);
    }
}

parac_status violation_error(const parac__recon_spec *s, unsigned long long code, const parac_image *marker,
                             const parac_image *mask)
{
    parac__recon_violation v = {};
    const unsigned long long idx = code / 4, W = (unsigned long long)mask->width,
                             H = (unsigned long long)mask->height;
    const int kind = (int)(code % 4);
    v.found = 1;
    v.x = (int64_t)(idx % W);
    v.y = (int64_t)(idx / W % H);
    v.z = (int64_t)(idx / W / H);
    v.nan_in = kind == 0 ? 2 : kind == 1 ? 1 : 0;
    if (kind == 2) { // the values as the images hold them (host or any device)
        union { uint8_t u8; uint16_t u16; float f; } a, c;
        const size_t es = parac_dtype_size(mask->dtype);
        PARAC_CUDA_TRY(cudaMemcpy(&a, parac_image_at(marker, v.x, v.y, v.z), es, cudaMemcpyDefault));
        PARAC_CUDA_TRY(cudaMemcpy(&c, parac_image_at(mask, v.x, v.y, v.z), es, cudaMemcpyDefault));
        v.marker = mask->dtype == PARAC_U8 ? a.u8 : mask->dtype == PARAC_U16 ? a.u16 : a.f;
        v.mask = mask->dtype == PARAC_U8 ? c.u8 : mask->dtype == PARAC_U16 ? c.u16 : c.f;
    }
    return parac__recon_violation_error(s, &v);
}

} // namespace parac_morph

namespace {

parac_status run(const char *method, const parac__recon_spec *s, const parac_image *marker,
                 const parac_image *mask, parac_image *out, cudaStream_t st)
{
    const grid_d g = grid_for(mask->width, mask->height, mask->depth);
    const int dev = mask->device;
    pooled I, J, bad;
    PARAC_TRY(I.alloc(dev, grid_bytes(mask->dtype, g)));
    PARAC_TRY(J.alloc(dev, grid_bytes(mask->dtype, g)));
    PARAC_TRY(bad.alloc(dev, 8));
    PARAC_CUDA_TRY(cudaMemsetAsync(bad.p, 0xff, 8, st));
    PARAC_TRY(load_grids(s, mask, rows_of(marker ? marker : mask, 0), rows_of(mask, 0), 0, g, I.p, J.p,
                         (unsigned long long *)bad.p, st));
    unsigned long long first_bad = 0;
    PARAC_CUDA_TRY(cudaMemcpyAsync(&first_bad, bad.p, 8, cudaMemcpyDeviceToHost, st));
    PARAC_CUDA_TRY(cudaStreamSynchronize(st));
    if (first_bad != ~0ull) return violation_error(s, first_bad, marker, mask);
    if (strcmp(method, "heap") == 0)
        PARAC_TRY(heap_run(mask->dtype, s->conn, g, I.p, J.p, dev, s->heaps, s->node_size, s->heap_updates, st));
    else
        PARAC_TRY(wavefront_run(mask->dtype, s->conn, g, I.p, J.p, dev, 0, s->tuning->wavefront_batch, st));
    PARAC_TRY(store_grid(mask->dtype, I.p, g, s->erosion, rows_of(out, 0), st));
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
    return run(method, s, marker, mask, out, st);
}

extern "C" parac_status parac__recon_cuda_strip(parac__grid *h, int conn, int device, unsigned start,
                                               int batch, void *stream)
{
    PARAC_CUDA_TRY(cudaSetDevice(device));
    cudaStream_t st = (cudaStream_t)stream;
    const grid_d g{h->w, h->h, h->d, h->sy, h->sz, h->z0};
    const size_t bytes = grid_bytes(h->dtype, g);
    pooled I, J;
    PARAC_TRY(I.alloc(device, bytes));
    PARAC_TRY(J.alloc(device, bytes));
    parac__count_transfer(0, bytes); /* a host strip's marker and mask up, its result back */
    parac__count_transfer(0, bytes);
    parac__count_transfer(1, bytes);
    PARAC_CUDA_TRY(cudaMemcpyAsync(I.p, h->I, bytes, cudaMemcpyHostToDevice, st));
    PARAC_CUDA_TRY(cudaMemcpyAsync(J.p, h->J, bytes, cudaMemcpyHostToDevice, st));
    PARAC_TRY(wavefront_run(h->dtype, conn, g, I.p, J.p, device, start, batch, st));
    PARAC_CUDA_TRY(cudaMemcpyAsync(h->I, I.p, bytes, cudaMemcpyDeviceToHost, st));
    PARAC_CUDA_TRY(cudaStreamSynchronize(st));
    return PARAC_OK;
}

/* The memory one device may use: its free memory, or less when capped
 * (PARAC_CUDA_MEMORY_CAP; 0: no cap). */
static parac_status budget(int device, double cap, double *bytes)
{
    size_t fr = 0, total = 0;
    PARAC_CUDA_TRY(cudaSetDevice(device));
    PARAC_CUDA_TRY(cudaMemGetInfo(&fr, &total));
    *bytes = 0.9 * (double)fr;
    if (cap > 0 && cap < *bytes) *bytes = cap;
    return PARAC_OK;
}

/* Bytes of the working grids of `rows` rows of the mask (two grids, and
 * about 1 % for the wavefront's tile lists). */
static double grids_bytes(const parac_image *mask, double rows)
{
    const double es = (double)parac_dtype_size(mask->dtype);
    return 2.02 * es * (double)(mask->width + 2) * (double)(mask->depth > 1 ? mask->depth + 2 : 1) * (rows + 2);
}

static double image_bytes(const parac_image *mask, double rows)
{
    return (double)parac_dtype_size(mask->dtype) * (double)mask->width * (double)mask->depth * rows;
}

/* Whether each worker's device holds its strip (grids, and the strip's rows
 * of marker and mask when the images are on another device) and the first
 * device the n_images images too. budget[k]: worker k's device's budget. */
static bool fits_split(const parac_image *mask, int n_images, const int *workers, int n, const double *budget,
                       const parac__tuning *tuning)
{
    const double H = (double)mask->height;
    int64_t y0[17];
    parac__split_rows(workers, n, workers[0], NULL, mask->height, tuning, y0);
    for (int k = 0; k < n; k++) {
        bool first = true; // the first worker on its device sums for it
        for (int j = 0; j < k; j++) first = first && workers[j] != workers[k];
        if (!first) continue;
        double need = workers[k] == workers[0] ? n_images * image_bytes(mask, H) : 0.0;
        for (int j = 0; j < n; j++) {
            if (workers[j] != workers[k]) continue;
            const double rows = (double)(y0[j + 1] - y0[j]);
            need += grids_bytes(mask, rows) + (workers[j] != workers[0] ? 2 * image_bytes(mask, rows) : 0.0);
        }
        if (need > budget[k]) return false;
    }
    return true;
}

extern "C" parac_status parac__recon_cuda_plan(const parac_image *mask, int n_images,
                                               const int *workers, int n_workers,
                                               const parac__tuning *tuning, parac__cuda_layout *layout,
                                               int64_t *strips)
{
    const int n = n_workers < 16 ? n_workers : 16;
    double budgets[16], cap = 0;
    int pays = 1;
    *layout = PARAC__CUDA_WHOLE;
    *strips = 0;
    PARAC_TRY(parac__split_pays(mask, tuning, &pays));
    for (int attempt = 0; attempt < 2; attempt++) {
        if (attempt) parac__cuda_pool_trim(); /* blocks cached by the pool count as free */
        for (int k = 0; k < n; k++) {
            PARAC_TRY(budget(workers[k], tuning->cuda_memory_cap, &budgets[k]));
            cap = k == 0 || budgets[k] < cap ? budgets[k] : cap;
        }
        const double whole = n_images * image_bytes(mask, (double)mask->height) + grids_bytes(mask, (double)mask->height);
        if ((n == 1 || !pays) && whole <= budgets[0]) return PARAC_OK;
        if (n > 1 && mask->height >= n && fits_split(mask, n_images, workers, n, budgets, tuning)) {
            *layout = PARAC__CUDA_SPLIT;
            *strips = n;
            return PARAC_OK;
        }
    }
    /* strips from host memory: a strip on a device is two grids of its rows plus halos */
    const double per_row = grids_bytes(mask, 1) - grids_bytes(mask, 0);
    const double rows = floor(cap / per_row) - 2;
    if (rows < 1)
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY,
                           "reconstruct: one row of %lld x %lld pixels needs more than the %.0f bytes "
                           "a device may use", (long long)mask->width, (long long)mask->depth, cap);
    int64_t k = (int64_t)ceil((double)mask->height / rows);
    if (k < n) k = n;
    if (k > mask->height) k = mask->height;
    *layout = PARAC__CUDA_HOST_STRIPS;
    *strips = k;
    return PARAC_OK;
}
