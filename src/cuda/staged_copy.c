/* Copies between pageable host memory and a GPU through pinned staging
 * buffers, pipelined: the CPU's threads copy one piece of rows into a pinned
 * buffer while the copy engine moves the piece before it.
 *
 * Why: on an H200 host the driver's own pageable copies move 9 GB/s to the
 * device and 16 GB/s back, pinned memory 55 GB/s both ways, and a new NumPy
 * array's pages fault in at 6.6 GB/s on one thread (bench/morph/host_link.py).
 * Staging through a few pinned buffers with several threads gets most of the
 * pinned rate without pinning the caller's memory, and the destination's
 * first-touch faults are spread over the threads too.
 *
 * The staging buffers (STAGE_SLOTS of 32 MiB, portable pinned memory) are made on first use and kept for the life of the process; two
 * sets serve two copies at once, and a third caller copies directly. */
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "core/alloc_internal.h"
#include "parac/image.h"
#include "cuda_check.h"
#include "staged_copy.h"

#define STAGE_SETS 2
#define STAGE_SLOTS 3
#define STAGE_THREADS 8

typedef struct {
    void *buf[STAGE_SLOTS];
    int busy;
} stage_set;

static pthread_mutex_t stage_lock = PTHREAD_MUTEX_INITIALIZER;
static stage_set sets[STAGE_SETS];

/* PARAC_STAGED_COPY_MIN: copies of at least this many bytes are staged
 * (default 16 MiB; 0 turns staging off). PARAC_STAGED_COPY_SLOT: the size
 * of a staging buffer (default 32 MiB; tests make it small, so that small
 * images take many pieces). */
static size_t staged_min = (size_t)16 << 20;
static size_t slot_bytes = (size_t)32 << 20;
static pthread_once_t staged_once = PTHREAD_ONCE_INIT;

static double env_bytes(const char *name, double fallback)
{
    const char *v = getenv(name);
    if (!v || !*v) return fallback;
    char *end;
    double x = strtod(v, &end);
    if (*end == 'K' || *end == 'k') x *= 1024.0;
    else if (*end == 'M' || *end == 'm') x *= 1048576.0;
    return x;
}

static void read_staged_env(void)
{
    const double m = env_bytes("PARAC_STAGED_COPY_MIN", (double)staged_min);
    staged_min = m > 0 ? (size_t)m : (size_t)-1; /* 0 (or junk): never */
    const double b = env_bytes("PARAC_STAGED_COPY_SLOT", (double)slot_bytes);
    if (b >= 64 && b <= (double)((size_t)1 << 30)) slot_bytes = (size_t)b;
}

int parac__staged_copy_wanted(const void *dst, const void *src, size_t bytes)
{
    pthread_once(&staged_once, read_staged_env);
    if (bytes < staged_min) return 0;
    struct cudaPointerAttributes a, b;
    if (cudaPointerGetAttributes(&a, dst) != cudaSuccess || cudaPointerGetAttributes(&b, src) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    const int dst_pageable = a.type == cudaMemoryTypeUnregistered;
    const int src_pageable = b.type == cudaMemoryTypeUnregistered;
    /* exactly one side pageable host memory, the other on a device */
    return (dst_pageable && b.type == cudaMemoryTypeDevice) || (src_pageable && a.type == cudaMemoryTypeDevice);
}

/* A free set of staging buffers (made on first use), or NULL when both are in use. */
static stage_set *take_set(parac_status *st)
{
    *st = PARAC_OK;
    stage_set *got = NULL;
    pthread_mutex_lock(&stage_lock);
    for (int i = 0; i < STAGE_SETS && !got; i++)
        if (!sets[i].busy) {
            got = &sets[i];
            got->busy = 1;
        }
    pthread_mutex_unlock(&stage_lock);
    if (!got) return NULL;
    for (int k = 0; k < STAGE_SLOTS; k++) {
        if (got->buf[k]) continue;
        if (parac__alloc_injected()) {
            *st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "cudaHostAlloc of %zu bytes failed: injected failure",
                              slot_bytes);
        } else {
            cudaError_t e = cudaHostAlloc(&got->buf[k], slot_bytes, cudaHostAllocPortable);
            if (e != cudaSuccess) {
                got->buf[k] = NULL;
                cudaGetLastError();
                *st = parac__cuda_status(e, "cudaHostAlloc", __FILE__, __LINE__);
            }
        }
        if (*st != PARAC_OK) break;
    }
    if (*st != PARAC_OK) {
        pthread_mutex_lock(&stage_lock);
        got->busy = 0;
        pthread_mutex_unlock(&stage_lock);
        return NULL;
    }
    return got;
}

static void give_set(stage_set *s)
{
    pthread_mutex_lock(&stage_lock);
    s->busy = 0;
    pthread_mutex_unlock(&stage_lock);
}

/* rows of row_bytes from src (pitch sp) to dst (pitch dp), on several threads */
static void copy_rows_host(char *dst, size_t dp, const char *src, size_t sp, size_t row_bytes, size_t rows)
{
    const int set = parac_copy_threads(); /* the caller's choice, else OpenMP's count up to 8 */
    const int threads = set > 0 ? set : omp_get_max_threads() < STAGE_THREADS ? omp_get_max_threads() : STAGE_THREADS;
    if (dp == row_bytes && sp == row_bytes) { /* one block: cut it into equal parts */
        const size_t total = row_bytes * rows;
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int t = 0; t < threads; t++) {
            const size_t a = total * (size_t)t / (size_t)threads, b = total * (size_t)(t + 1) / (size_t)threads;
            memcpy(dst + a, src + a, b - a);
        }
        return;
    }
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t r = 0; r < (int64_t)rows; r++) memcpy(dst + (size_t)r * dp, src + (size_t)r * sp, row_bytes);
}

parac_status parac__staged_copy_rows(void *dst, int64_t dst_pitch, const void *src, int64_t src_pitch,
                                     size_t row_bytes, size_t rows, void *stream, int *done)
{
    *done = 0;
    pthread_once(&staged_once, read_staged_env);
    const size_t per_piece = slot_bytes / row_bytes;
    if (per_piece == 0) return PARAC_OK; /* a row larger than a buffer: copied directly */
    struct cudaPointerAttributes a, b;
    PARAC_CUDA_TRY(cudaPointerGetAttributes(&a, dst));
    PARAC_CUDA_TRY(cudaPointerGetAttributes(&b, src));
    const int to_device = a.type == cudaMemoryTypeDevice;
    int current = 0;
    PARAC_CUDA_TRY(cudaGetDevice(&current));
    parac_status st;
    stage_set *set = take_set(&st);
    if (st != PARAC_OK) return st;
    if (!set) return PARAC_OK; /* both sets in use: copied directly */
    /* the events on the device that the stream and the device memory belong to */
    st = PARAC_CUDA_CHECK(cudaSetDevice(to_device ? a.device : b.device));
    cudaStream_t s = (cudaStream_t)stream;
    cudaEvent_t ev[STAGE_SLOTS] = {0};
    for (int k = 0; k < STAGE_SLOTS && st == PARAC_OK; k++)
        st = PARAC_CUDA_CHECK(cudaEventCreateWithFlags(&ev[k], cudaEventDisableTiming));
    const size_t pieces = (rows + per_piece - 1) / per_piece;
    char *d = dst;
    const char *sp = src;
    if (st == PARAC_OK && to_device) {
        for (size_t i = 0; i < pieces && st == PARAC_OK; i++) {
            const int k = (int)(i % STAGE_SLOTS);
            const size_t r0 = i * per_piece, n = rows - r0 < per_piece ? rows - r0 : per_piece;
            if (i >= STAGE_SLOTS) st = PARAC_CUDA_CHECK(cudaEventSynchronize(ev[k])); /* the slot's last move done */
            if (st != PARAC_OK) break;
            copy_rows_host(set->buf[k], row_bytes, sp + r0 * (size_t)src_pitch, (size_t)src_pitch, row_bytes, n);
            st = PARAC_CUDA_CHECK(cudaMemcpy2DAsync(d + r0 * (size_t)dst_pitch, (size_t)dst_pitch, set->buf[k],
                                                    row_bytes, row_bytes, n, cudaMemcpyDefault, s));
            if (st == PARAC_OK) st = PARAC_CUDA_CHECK(cudaEventRecord(ev[k], s));
        }
    } else if (st == PARAC_OK) {
        /* device to host: up to STAGE_SLOTS pieces in flight, each copied out when it lands */
        size_t issued = 0;
        for (size_t i = 0; i < pieces && st == PARAC_OK; i++) {
            while (issued < pieces && issued < i + STAGE_SLOTS && st == PARAC_OK) {
                const int k = (int)(issued % STAGE_SLOTS);
                const size_t r0 = issued * per_piece, n = rows - r0 < per_piece ? rows - r0 : per_piece;
                st = PARAC_CUDA_CHECK(cudaMemcpy2DAsync(set->buf[k], row_bytes, sp + r0 * (size_t)src_pitch,
                                                        (size_t)src_pitch, row_bytes, n, cudaMemcpyDefault, s));
                if (st == PARAC_OK) st = PARAC_CUDA_CHECK(cudaEventRecord(ev[k], s));
                issued++;
            }
            if (st != PARAC_OK) break;
            const int k = (int)(i % STAGE_SLOTS);
            const size_t r0 = i * per_piece, n = rows - r0 < per_piece ? rows - r0 : per_piece;
            st = PARAC_CUDA_CHECK(cudaEventSynchronize(ev[k]));
            if (st == PARAC_OK)
                copy_rows_host(d + r0 * (size_t)dst_pitch, (size_t)dst_pitch, set->buf[k], row_bytes, row_bytes, n);
        }
    }
    /* the buffers go back only once nothing reads or writes them */
    for (int k = 0; k < STAGE_SLOTS; k++)
        if (ev[k]) {
            parac_status w = PARAC_CUDA_CHECK(cudaEventSynchronize(ev[k]));
            if (st == PARAC_OK) st = w;
            cudaEventDestroy(ev[k]);
        }
    give_set(set);
    parac_status back = PARAC_CUDA_CHECK(cudaSetDevice(current));
    if (st == PARAC_OK) st = back;
    if (st == PARAC_OK) *done = 1;
    return st;
}
