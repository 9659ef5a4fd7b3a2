/* The CUDA runtime under the core: device discovery, a caching device memory
 * pool, pinned memory, streams and copies. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "core/alloc_internal.h"
#include "core/device_internal.h"
#include "parac/context.h"
#include "cuda_check.h"
#include "staged_copy.h"

parac_status parac__cuda_status(cudaError_t err, const char *call, const char *file, int line)
{
    if (err == cudaSuccess) return PARAC_OK;
    /* The runtime keeps a failed call's error as the thread's "last error"
     * until read: left there, the next call's launch check (or CUB's, which
     * reads it through cudaGetDevice) would report it again, so a call
     * retried after out of memory failed with the old error. Reported here,
     * it is cleared (sticky errors stay: they are the context's). */
    cudaGetLastError();
    parac_status st = err == cudaErrorMemoryAllocation ? PARAC_ERR_OUT_OF_MEMORY : PARAC_ERR_CUDA;
    return parac__fail(st, "%s failed at %s:%d: %s (%s)", call, file, line,
                       cudaGetErrorString(err), cudaGetErrorName(err));
}

static parac_status injected(size_t bytes, const char *call, const char *file, int line)
{
    return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s of %zu bytes failed at %s:%d: injected failure", call, bytes,
                       file, line);
}

parac_status parac__cuda_malloc(void **ptr, size_t bytes, const char *file, int line)
{
    *ptr = NULL;
    if (parac__alloc_injected()) return injected(bytes, "cudaMalloc", file, line);
    const cudaError_t err = cudaMalloc(ptr, bytes);
    if (err != cudaSuccess) {
        *ptr = NULL;
        cudaGetLastError(); /* an allocation failure is not sticky */
    }
    return parac__cuda_status(err, "cudaMalloc", file, line);
}

parac_status parac__cuda_malloc_async(void **ptr, size_t bytes, cudaStream_t stream, const char *file, int line)
{
    *ptr = NULL;
    if (parac__alloc_injected()) return injected(bytes, "cudaMallocAsync", file, line);
    const cudaError_t err = cudaMallocAsync(ptr, bytes, stream);
    if (err != cudaSuccess) {
        *ptr = NULL;
        cudaGetLastError();
    }
    return parac__cuda_status(err, "cudaMallocAsync", file, line);
}

int parac_has_cuda(void) { return 1; }

parac_status parac__cuda_probe(int *count, char *why, size_t why_size)
{
    *count = 0;
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        if (why)
            snprintf(why, why_size, "%s (%s)", cudaGetErrorString(err), cudaGetErrorName(err));
        cudaGetLastError(); /* clear the sticky error of a failed probe */
        return parac__fail(PARAC_ERR_NO_DEVICE, "no usable CUDA device: %s (%s)",
                           cudaGetErrorString(err), cudaGetErrorName(err));
    }
    if (n == 0) {
        if (why) snprintf(why, why_size, "the CUDA driver reports no GPU");
        return parac__fail(PARAC_ERR_NO_DEVICE, "no CUDA device found");
    }
    *count = n;
    return PARAC_OK;
}

parac_status parac_cuda_device_count(int *count) { return parac__cuda_probe(count, NULL, 0); }

parac_status parac_cuda_device_query(int ordinal, parac_cuda_device_info *info)
{
    int n = 0;
    PARAC_TRY(parac__cuda_probe(&n, NULL, 0));
    if (ordinal < 0 || ordinal >= n)
        return parac__fail(PARAC_ERR_NO_DEVICE, "CUDA device %d does not exist (%d found)",
                           ordinal, n);
    struct cudaDeviceProp p;
    PARAC_CUDA_TRY(cudaGetDeviceProperties(&p, ordinal));
    memset(info, 0, sizeof *info);
    info->ordinal = ordinal;
    snprintf(info->name, sizeof info->name, "%s", p.name);
    info->total_memory = p.totalGlobalMem;
    info->compute_major = p.major;
    info->compute_minor = p.minor;
    info->multiprocessors = p.multiProcessorCount;
    info->l2_cache_bytes = p.l2CacheSize;
    int clock_khz = 0, bus = 0;
    if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, ordinal) == cudaSuccess &&
        cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, ordinal) == cudaSuccess) {
        info->memory_bus_width = bus;
        info->peak_bandwidth_gbs = 2.0 * clock_khz * 1e3 * (bus / 8.0) / 1e9;
    }
    cudaGetLastError();
    int current = 0;
    PARAC_CUDA_TRY(cudaGetDevice(&current));
    PARAC_CUDA_TRY(cudaSetDevice(ordinal));
    size_t free_b = 0, total_b = 0;
    parac_status st = PARAC_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    cudaSetDevice(current);
    PARAC_TRY(st);
    info->free_memory = free_b;
    cudaDriverGetVersion(&info->driver_version);
    cudaRuntimeGetVersion(&info->runtime_version);
    return PARAC_OK;
}

parac_status parac_cuda_pointer_device(const void *ptr, int *device)
{
    *device = -1;
    struct cudaPointerAttributes a;
    PARAC_CUDA_TRY(cudaPointerGetAttributes(&a, ptr));
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "address %p is not CUDA device memory", ptr);
    *device = a.device;
    return PARAC_OK;
}

parac_status parac__cuda_set_device(int device) { return PARAC_CUDA_CHECK(cudaSetDevice(device)); }

/* ---- device memory pool -------------------------------------------------------
 * Blocks released by images are kept and handed out again for requests of up
 * to the same size (and at least half of it), which makes repeated
 * operations on same-sized images allocation-free. */
enum { POOL_SLOTS = 64 };

typedef struct pool_block {
    void *ptr;
    size_t bytes;
    int device;
} pool_block;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic long blocks_out; /* handed out by parac__cuda_alloc and not yet released: tests check it */

long parac__cuda_blocks_out(void) { return atomic_load(&blocks_out); }
static pool_block pool[POOL_SLOTS];
static int pool_used;

static void *pool_take(int device, size_t bytes)
{
    void *ptr = NULL;
    pthread_mutex_lock(&pool_lock);
    int best = -1;
    for (int i = 0; i < pool_used; i++)
        if (pool[i].device == device && pool[i].bytes >= bytes && pool[i].bytes / 2 <= bytes &&
            (best < 0 || pool[i].bytes < pool[best].bytes))
            best = i;
    if (best >= 0) {
        ptr = pool[best].ptr;
        pool[best] = pool[--pool_used];
    }
    pthread_mutex_unlock(&pool_lock);
    return ptr;
}

void parac__cuda_pool_trim(void)
{
    pthread_mutex_lock(&pool_lock);
    int current = 0;
    cudaGetDevice(&current);
    for (int i = 0; i < pool_used; i++) {
        cudaSetDevice(pool[i].device);
        cudaFree(pool[i].ptr);
    }
    pool_used = 0;
    cudaSetDevice(current);
    pthread_mutex_unlock(&pool_lock);
}

parac_status parac__cuda_alloc(int device, size_t bytes, void **ptr)
{
    *ptr = NULL;
    int n = 0;
    PARAC_TRY(parac__cuda_probe(&n, NULL, 0));
    if (device < 0 || device >= n)
        return parac__fail(PARAC_ERR_NO_DEVICE, "CUDA device %d does not exist (%d found)",
                           device, n);
    if (bytes == 0) bytes = 1;
    /* every request counts, whether the pool holds a block or not, so that
     * the k-th is the same in every run */
    if (parac__alloc_injected()) return injected(bytes, "cudaMalloc (pool)", __FILE__, __LINE__);
    /* Round up so blocks are reusable across near-equal requests. */
    size_t rounded = (bytes + 511) & ~(size_t)511;
    if ((*ptr = pool_take(device, rounded))) {
        atomic_fetch_add(&blocks_out, 1);
        return PARAC_OK;
    }
    PARAC_CUDA_TRY(cudaSetDevice(device));
    cudaError_t err = cudaMalloc(ptr, rounded);
    if (err == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        parac__cuda_pool_trim(); /* cached blocks may be what is missing */
        err = cudaMalloc(ptr, rounded);
    }
    if (err != cudaSuccess) {
        *ptr = NULL;
        return parac__cuda_status(err, "cudaMalloc", __FILE__, __LINE__);
    }
    atomic_fetch_add(&blocks_out, 1);
    return PARAC_OK;
}

void parac__cuda_release(int device, void *ptr, size_t bytes)
{
    if (!ptr) return;
    atomic_fetch_sub(&blocks_out, 1);
    size_t rounded = ((bytes ? bytes : 1) + 511) & ~(size_t)511;
    pthread_mutex_lock(&pool_lock);
    if (pool_used < POOL_SLOTS) {
        pool[pool_used++] = (pool_block){ptr, rounded, device};
        ptr = NULL;
    }
    pthread_mutex_unlock(&pool_lock);
    if (ptr) {
        int current = 0;
        cudaGetDevice(&current);
        cudaSetDevice(device);
        cudaFree(ptr);
        cudaSetDevice(current);
    }
}

/* ---- pinned memory, streams, copies ------------------------------------------ */
parac_status parac__pinned_alloc(size_t bytes, void **ptr)
{
    int n = 0;
    PARAC_TRY(parac__cuda_probe(&n, NULL, 0));
    *ptr = NULL;
    if (parac__alloc_injected()) return injected(bytes, "cudaMallocHost", __FILE__, __LINE__);
    return PARAC_CUDA_CHECK(cudaMallocHost(ptr, bytes ? bytes : 1));
}

void parac__pinned_free(void *ptr)
{
    if (ptr) cudaFreeHost(ptr);
}

parac_status parac__cuda_stream_create(int device, void **stream)
{
    PARAC_CUDA_TRY(cudaSetDevice(device));
    cudaStream_t s;
    PARAC_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    *stream = s;
    return PARAC_OK;
}

void parac__cuda_stream_destroy(void *stream)
{
    if (stream) cudaStreamDestroy((cudaStream_t)stream);
}

parac_status parac__cuda_stream_sync(void *stream)
{
    return PARAC_CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)stream));
}

parac_status parac__cuda_copy_rows(void *dst, int64_t dst_pitch, const void *src,
                                   int64_t src_pitch, size_t row_bytes, size_t rows, void *stream)
{
    /* large copies between pageable host memory and a device: pinned
     * staging, several threads, pipelined (staged_copy.c) */
    if (parac__staged_copy_wanted(dst, src, row_bytes * rows)) {
        int done = 0;
        PARAC_TRY(parac__staged_copy_rows(dst, dst_pitch, src, src_pitch, row_bytes, rows, stream, &done));
        if (done) return PARAC_OK;
    }
    /* cudaMemcpyDefault: unified addressing tells host from device pointers,
     * and pageable host memory makes the copy synchronous by itself. */
    PARAC_CUDA_TRY(cudaMemcpy2DAsync(dst, (size_t)dst_pitch, src, (size_t)src_pitch, row_bytes,
                                     rows, cudaMemcpyDefault, (cudaStream_t)stream));
    if (!stream) PARAC_CUDA_TRY(cudaStreamSynchronize(0));
    return PARAC_OK;
}

parac_status parac__cuda_zero_rows(void *dst, int64_t pitch, size_t row_bytes, size_t rows,
                                   void *stream)
{
    PARAC_CUDA_TRY(cudaMemset2DAsync(dst, (size_t)pitch, 0, row_bytes, rows, (cudaStream_t)stream));
    if (!stream) PARAC_CUDA_TRY(cudaStreamSynchronize(0));
    return PARAC_OK;
}
