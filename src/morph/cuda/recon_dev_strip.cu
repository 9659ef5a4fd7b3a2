// A strip of an image's rows that lives on one CUDA device for a whole
// reconstruction (recon_split.c): its framed grids, its stream, and buffers
// for the boundary rows its neighbours send it.
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <new>

#include "core/device_internal.h"
#include "cuda/cuda_check.h"
#include "morph/recon_devices.h"
#include "recon_cuda.cuh"

using namespace parac_morph;

struct parac__dev_strip {
    int dev;
    cudaStream_t st;
    parac_dtype dt;
    int conn;
    int link_copy;   // PARAC_SPLIT_LINK=copy: no reads or writes across the link from kernels
    int batch;       // the wavefront's rounds per look (0: adaptive)
    int64_t y0;
    grid_d g;
    pooled I, J;
    pooled incoming; // the neighbours' boundary rows: d rows for the top halo, then d for the bottom
    pooled flags;    // per halo: 1 when the last exchange raised a pixel of it
};

namespace {

// Raise halo row `row` of I to the incoming rows (one per slice); a raised
// pixel sets *flag. Values only rise, so the incoming row is never lower.
// J takes the same values: a halo pixel is a fixed source (J = I), as the
// host engines expect when a stalled wavefront finishes there.
template <typename T>
__global__ void merge_halo(T *I, T *J, grid_d g, int64_t row, const T *in, unsigned *flag)
{
    const int64_t n = (g.w + 2) * g.d;
    bool raised = false;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t x = i % (g.w + 2), z = g.z0 + i / (g.w + 2);
        const int64_t p = z * g.sz + row * g.sy + x;
        if (in[i] != I[p]) {
            I[p] = J[p] = in[i];
            raised = true;
        }
    }
    if (raised) *flag = 1u;
}

typedef CUresult(CUDAAPI *pointer_attribute_fn)(void *, CUpointer_attribute, CUdeviceptr);

// The access `device` has to the memory at p (CU_POINTER_ATTRIBUTE_ACCESS_FLAGS
// asked in its context): peer access covers cudaMalloc's memory, but memory
// from a pool or mapped by the virtual memory calls needs access granted on
// its own, and a kernel that reads it without faults.
unsigned access_from(int device, const void *p)
{
    static const pointer_attribute_fn get = [] {
        void *fn = nullptr;
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuPointerGetAttribute", &fn, 12000, cudaEnableDefault, &q) !=
                cudaSuccess || q != cudaDriverEntryPointSuccess) {
            (void)cudaGetLastError();
            fn = nullptr;
        }
        return (pointer_attribute_fn)fn;
    }();
    if (!get) return CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE;
    // a pool's memory: the access the pool grants the device (the pointer's
    // access flags do not tell it: measured on H200s)
    cudaMemPool_t pool = nullptr;
    if (get(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, (CUdeviceptr)p) != CUDA_SUCCESS) return 0;
    if (pool) {
        cudaMemLocation at;
        at.type = cudaMemLocationTypeDevice;
        at.id = device;
        cudaMemAccessFlags f = cudaMemAccessFlagsProtNone;
        if (cudaMemPoolGetAccess(&f, pool, &at) != cudaSuccess) {
            (void)cudaGetLastError();
            return CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE;
        }
        return f == cudaMemAccessFlagsProtReadWrite ? CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE
               : f == cudaMemAccessFlagsProtRead    ? CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READ
                                                    : CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE;
    }
    unsigned flags = CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE;
    if (cudaSetDevice(device) != cudaSuccess ||
        get(&flags, CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, (CUdeviceptr)p) != CUDA_SUCCESS) {
        (void)cudaGetLastError();
        return CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE;
    }
    return flags;
}

// Whether a worker on `device` reads its rows of `im` (or writes its result
// there) across the peer link from its own kernels, with no staging copy and
// no second pass; PARAC_SPLIT_LINK=copy keeps the copies (measurements).
bool link_direct(int device, const parac_image *im, bool write, bool copy_only)
{
    if (im->memory != PARAC_MEMORY_CUDA || im->device == device || copy_only) return false;
    const unsigned need = write ? CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE : CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READ;
    return (access_from(device, im->data) & need) == need;
}

// Rows between an image and a strip buffer: a peer copy between two
// devices' memory (which a pool's memory without access granted needs: the
// copy engines reach it where kernels and plain copies cannot), else a plain
// copy (host memory, or the same device).
parac_status copy_rows(void *dst, int dst_dev, int64_t dst_pitch, const void *src, int src_dev,
                       int64_t src_pitch, size_t row_bytes, size_t rows, cudaStream_t st)
{
    if (dst_dev < 0 || src_dev < 0 || dst_dev == src_dev)
        return parac__cuda_copy_rows(dst, dst_pitch, src, src_pitch, row_bytes, rows, st);
    cudaMemcpy3DPeerParms c;
    memset(&c, 0, sizeof c);
    c.srcPtr = make_cudaPitchedPtr((void *)src, (size_t)src_pitch, row_bytes, rows);
    c.srcDevice = src_dev;
    c.dstPtr = make_cudaPitchedPtr(dst, (size_t)dst_pitch, row_bytes, rows);
    c.dstDevice = dst_dev;
    c.extent = make_cudaExtent(row_bytes, rows, 1);
    PARAC_CUDA_TRY(cudaMemcpy3DPeerAsync(&c, st));
    return PARAC_OK;
}

int device_of(const parac_image *im)
{
    return im->memory == PARAC_MEMORY_CUDA ? im->device : -1;
}

// The rows of `im` from image row y0 as the load kernel reads them on
// `device`: in place when the image is there or reachable over a peer link,
// else copied into `staging` (each row as the image lays it out: pixel
// stride kept, rows packed).
parac_status rows_on(const parac_image *im, int64_t y0, int64_t h, int device, bool copy_only, pooled &staging,
                     cudaStream_t st, image_rows *out)
{
    if ((im->memory == PARAC_MEMORY_CUDA && im->device == device) || link_direct(device, im, false, copy_only)) {
        *out = rows_of(im, y0);
        return PARAC_OK;
    }
    const size_t es = parac_dtype_size(im->dtype);
    const int64_t row_bytes = (im->width - 1) * im->pixel_stride + (int64_t)es;
    PARAC_TRY(staging.alloc(device, (size_t)(row_bytes * h * im->depth)));
    for (int64_t z = 0; z < im->depth; z++)
        PARAC_TRY(copy_rows((char *)staging.p + z * row_bytes * h, device, row_bytes, parac_image_at(im, 0, y0, z),
                            device_of(im), im->row_pitch, (size_t)row_bytes, (size_t)h, st));
    *out = image_rows{(const char *)staging.p, im->pixel_stride, row_bytes, row_bytes * h};
    return PARAC_OK;
}

parac_status load(parac__dev_strip *t, const parac__recon_spec *s, const parac_image *marker,
                  const parac_image *mask, unsigned long long *bad)
{
    const int64_t h = t->g.h;
    PARAC_TRY(parac__cuda_stream_create(t->dev, (void **)&t->st));
    PARAC_CUDA_TRY(cudaSetDevice(t->dev));
    const size_t bytes = grid_bytes(t->dt, t->g), row = parac_dtype_size(t->dt) * (size_t)(t->g.w + 2);
    PARAC_TRY(t->I.alloc(t->dev, bytes));
    PARAC_TRY(t->J.alloc(t->dev, bytes));
    PARAC_TRY(t->incoming.alloc(t->dev, 2 * row * (size_t)t->g.d));
    PARAC_TRY(t->flags.alloc(t->dev, 2 * sizeof(unsigned) + sizeof(unsigned long long)));
    unsigned long long *dbad = (unsigned long long *)((char *)t->flags.p + 2 * sizeof(unsigned));
    PARAC_CUDA_TRY(cudaMemsetAsync(t->flags.p, 0, 2 * sizeof(unsigned), t->st)); // an edge strip's outer halo never rises
    PARAC_CUDA_TRY(cudaMemsetAsync(dbad, 0xff, sizeof *dbad, t->st));
    pooled stage_mask, stage_marker;
    image_rows mask_rows, marker_rows;
    PARAC_TRY(rows_on(mask, t->y0, h, t->dev, t->link_copy, stage_mask, t->st, &mask_rows));
    marker_rows = mask_rows;
    if (s->rule == PARAC__MARKER_IMAGE)
        PARAC_TRY(rows_on(marker, t->y0, h, t->dev, t->link_copy, stage_marker, t->st, &marker_rows));
    PARAC_TRY(load_grids(s, mask, marker_rows, mask_rows, t->y0, t->g, t->I.p, t->J.p, dbad, t->st));
    PARAC_CUDA_TRY(cudaMemcpyAsync(bad, dbad, sizeof *bad, cudaMemcpyDeviceToHost, t->st));
    // the staging buffers go back to the pool on return
    PARAC_CUDA_TRY(cudaStreamSynchronize(t->st));
    return PARAC_OK;
}

} // namespace

enum { MAX_DEVICES = 64 };
std::atomic<bool> peer_enabled[MAX_DEVICES][MAX_DEVICES];

extern "C" {

parac_status parac__dev_strips_connect(const int *devices, int n)
{
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            if (devices[a] == devices[b]) continue;
            int can = 0;
            PARAC_CUDA_TRY(cudaDeviceCanAccessPeer(&can, devices[a], devices[b]));
            if (!can) continue; // copies between them go through the host
            // once per pair and process (a second call is an error that
            // compute-sanitizer reports)
            const int da = devices[a], db = devices[b];
            if (da < MAX_DEVICES && db < MAX_DEVICES && peer_enabled[da][db].load()) continue;
            PARAC_CUDA_TRY(cudaSetDevice(da));
            const cudaError_t e = cudaDeviceEnablePeerAccess(db, 0);
            if (e == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();
            else PARAC_CUDA_TRY(e);
            if (da < MAX_DEVICES && db < MAX_DEVICES) peer_enabled[da][db].store(true);
        }
    return PARAC_OK;
}

/* A worker on another device than the images' receives its rows before it
 * can start (2 bytes a pixel for u8 with a marker image: 2.5 GB, about 6 ms
 * at 395 GB/s over NVLink between H200s, for half of a 51200² image, against
 * about 109 ms of wavefront for the whole image), and its result goes back
 * after the last exchange. Measured best (51200², docs/morphology.md): 0.95
 * of the other worker's rows when its kernels read and write across the link
 * (link_direct), 0.89 when the rows are staged by copies. Without peer
 * access the copies go through the host, at about a fifth of the speed.
 * PARAC_SPLIT_SHARE sets the share (measurements). */
double parac__dev_strip_share(int images_device, int device, const parac_image *im, const parac__tuning *tuning)
{
    if (device == images_device) return 1.0;
    if (tuning->split_share > 0.0) return tuning->split_share;
    int can = 0;
    if (cudaDeviceCanAccessPeer(&can, device, images_device) != cudaSuccess) {
        (void)cudaGetLastError();
        can = 0;
    }
    if (!can) return 0.5;
    return !im || link_direct(device, im, false, tuning->split_link_copy) ? 0.95 : 0.89;
}

int parac__dev_strip_direct(int device, const parac_image *im, int write)
{
    return link_direct(device, im, write != 0, false);
}

parac_status parac__dev_strip_load(parac__dev_strip **out, const parac__recon_spec *s,
                                   const parac_image *marker, const parac_image *mask, int64_t y0,
                                   int64_t h, int device, unsigned long long *bad)
{
    *out = nullptr;
    *bad = ~0ull;
    parac__dev_strip *t = new (std::nothrow) parac__dev_strip();
    if (!t) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: no host memory for a strip", s->op);
    t->dev = device;
    t->st = nullptr;
    t->dt = mask->dtype;
    t->conn = s->conn;
    t->link_copy = s->tuning->split_link_copy;
    t->batch = s->tuning->wavefront_batch;
    t->y0 = y0;
    t->g = grid_for(mask->width, h, mask->depth);
    *out = t;
    return load(t, s, marker, mask, bad);
}

parac_status parac__dev_strip_run(parac__dev_strip *t, unsigned start)
{
    PARAC_CUDA_TRY(cudaSetDevice(t->dev));
    return wavefront_run(t->dt, t->conn, t->g, t->I.p, t->J.p, t->dev, start, t->batch, t->st);
}

parac_status parac__dev_strip_take_halo(parac__dev_strip *t, int bottom, const parac__dev_strip *from)
{
    PARAC_CUDA_TRY(cudaSetDevice(t->dev));
    const size_t es = parac_dtype_size(t->dt), row = es * (size_t)(t->g.w + 2);
    char *in = (char *)t->incoming.p + (bottom ? row * (size_t)t->g.d : 0);
    const int64_t src_row = bottom ? 1 : from->g.h;
    const char *src = (const char *)from->I.p + es * (size_t)(from->g.z0 * from->g.sz + src_row * from->g.sy);
    // one row per slice: a 2D copy whose "rows" are the slices
    PARAC_TRY(parac__cuda_copy_rows(in, (int64_t)row, src, (int64_t)(es * from->g.sz), row, (size_t)t->g.d, t->st));
    unsigned *flag = (unsigned *)t->flags.p + bottom;
    PARAC_CUDA_TRY(cudaMemsetAsync(flag, 0, sizeof *flag, t->st));
    const int64_t n = (t->g.w + 2) * t->g.d, halo = bottom ? t->g.h + 1 : 0;
    const unsigned blocks = (unsigned)((n + 255) / 256 < 1024 ? (n + 255) / 256 : 1024);
    switch (t->dt) {
    case PARAC_U8: merge_halo<<<blocks, 256, 0, t->st>>>((uint8_t *)t->I.p, (uint8_t *)t->J.p, t->g, halo, (const uint8_t *)in, flag); break;
    case PARAC_U16: merge_halo<<<blocks, 256, 0, t->st>>>((uint16_t *)t->I.p, (uint16_t *)t->J.p, t->g, halo, (const uint16_t *)in, flag); break;
    default: merge_halo<<<blocks, 256, 0, t->st>>>((float *)t->I.p, (float *)t->J.p, t->g, halo, (const float *)in, flag); break;
    }
    return PARAC_CUDA_LAUNCH_CHECK();
}

parac_status parac__dev_strip_raised(parac__dev_strip *t, unsigned *start)
{
    unsigned f[2] = {0, 0};
    PARAC_CUDA_TRY(cudaSetDevice(t->dev));
    PARAC_CUDA_TRY(cudaMemcpyAsync(f, t->flags.p, sizeof f, cudaMemcpyDeviceToHost, t->st));
    PARAC_CUDA_TRY(cudaStreamSynchronize(t->st));
    *start = (f[0] ? (unsigned)PARAC__HALO_TOP : 0u) | (f[1] ? (unsigned)PARAC__HALO_BOTTOM : 0u);
    return PARAC_OK;
}

parac_status parac__dev_strip_store(parac__dev_strip *t, int erosion, parac_image *out)
{
    PARAC_CUDA_TRY(cudaSetDevice(t->dev));
    const int64_t es = (int64_t)parac_dtype_size(t->dt);
    if ((out->memory == PARAC_MEMORY_CUDA && out->device == t->dev) || link_direct(t->dev, out, true, t->link_copy)) {
        PARAC_TRY(store_grid(t->dt, t->I.p, t->g, erosion, rows_of(out, t->y0), t->st));
    } else { // through J, packed (the mask is no longer needed), then copied there
        if (out->pixel_stride != es)
            return parac__fail(PARAC_ERR_UNSUPPORTED, "reconstruction: an output with a pixel stride of "
                               "%lld bytes on another device", (long long)out->pixel_stride);
        const int64_t rp = es * t->g.w, sp = rp * t->g.h;
        PARAC_TRY(store_grid(t->dt, t->I.p, t->g, erosion, image_rows{(const char *)t->J.p, es, rp, sp}, t->st));
        for (int64_t z = 0; z < t->g.d; z++)
            PARAC_TRY(copy_rows(parac_image_at(out, 0, t->y0, z), device_of(out), out->row_pitch,
                                (const char *)t->J.p + z * sp, t->dev, rp, (size_t)rp, (size_t)t->g.h, t->st));
    }
    PARAC_CUDA_TRY(cudaStreamSynchronize(t->st));
    return PARAC_OK;
}

void parac__dev_strip_free(parac__dev_strip *t)
{
    if (!t) return;
    if (t->st) {
        (void)cudaSetDevice(t->dev);
        (void)cudaStreamSynchronize(t->st);
    }
    void *st = t->st;
    delete t; // gives the buffers back to the pool
    parac__cuda_stream_destroy(st);
}

parac_status parac__recon_cuda_violation(const parac__recon_spec *s, unsigned long long code,
                                         const parac_image *marker, const parac_image *mask)
{
    return violation_error(s, code, marker, mask);
}

} // extern "C"
