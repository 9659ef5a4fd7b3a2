/* Contexts: which device operations run on, on which stream, with which
 * progress callback.
 *
 * Device strings: "auto" (a CUDA device when one is usable, else the CPU),
 * "cpu", "cuda" (= "cuda:0") or "cuda:N". A NULL device string reads the
 * environment variable PARAC_DEVICE, then falls back to "auto". "auto" never
 * fails: without a driver or a GPU it picks the CPU and records why
 * (parac_context_reason). Asking for "cuda:N" explicitly fails when that
 * device is not usable.
 *
 * Thread safety: use one context per thread. */
#ifndef PARAC_CONTEXT_H
#define PARAC_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "parac/export.h"
#include "parac/status.h"

PARAC_BEGIN_DECLS

typedef enum parac_backend { PARAC_BACKEND_CPU = 0, PARAC_BACKEND_CUDA = 1 } parac_backend;

typedef struct parac_context parac_context;

/* Called with the fraction done (0..1); return non-zero to cancel. */
typedef int (*parac_progress_fn)(void *user, double fraction);

PARAC_API parac_status parac_context_create(parac_context **out, const char *device);
PARAC_API void parac_context_destroy(parac_context *ctx); /* NULL is accepted */

PARAC_API parac_backend parac_context_backend(const parac_context *ctx);
PARAC_API const char *parac_backend_name(parac_backend backend); /* "cpu", "cuda" */
/* CUDA device ordinal, or -1 on the CPU backend. */
PARAC_API int parac_context_cuda_device(const parac_context *ctx);
/* "cpu", "cuda:N" or a list "cuda:0,cuda:1". */
PARAC_API const char *parac_context_device(const parac_context *ctx);
/* The CUDA devices of a context made with "cuda:all" or a list such as
 * "cuda:0,cuda:1" (a device may repeat: two workers on one GPU). Operations
 * that can spread over several GPUs use them all (docs/morphology.md); the
 * others use the first, which parac_context_cuda_device() returns. Writes up
 * to `max` ordinals and returns the count: 0 on the CPU, 1 for one device. */
PARAC_API int parac_context_cuda_workers(const parac_context *ctx, int *devices, int max);
/* Why this device was chosen, e.g. "auto: no CUDA driver (...); using the CPU". */
PARAC_API const char *parac_context_reason(const parac_context *ctx);

/* The CUDA stream operations are queued on (a cudaStream_t); NULL = the
 * context's own stream. The caller keeps a stream it sets alive. */
PARAC_API parac_status parac_context_set_stream(parac_context *ctx, void *stream);
PARAC_API void *parac_context_stream(const parac_context *ctx);
/* Wait for all work queued on the context's stream. */
PARAC_API parac_status parac_context_synchronize(parac_context *ctx);

/* Number of CPU threads (0 = all cores, the default). */
PARAC_API void parac_context_set_threads(parac_context *ctx, int threads);
PARAC_API int parac_context_threads(const parac_context *ctx);

PARAC_API void parac_context_set_progress(parac_context *ctx, parac_progress_fn fn, void *user);

/* What the build contains. */
PARAC_API int parac_has_cuda(void);   /* the CUDA backend was compiled in */
PARAC_API int parac_has_opencl(void); /* the OpenCL runtime was compiled in */
PARAC_API const char *parac_version_string(void);

/* CUDA devices. parac_cuda_device_count() fails (PARAC_ERR_NO_DEVICE or
 * PARAC_ERR_UNSUPPORTED) with a message saying why when there are none. */
typedef struct parac_cuda_device_info {
    int ordinal;
    char name[256];
    uint64_t total_memory;      /* bytes */
    uint64_t free_memory;       /* bytes, at the time of the query */
    int compute_major, compute_minor;
    int multiprocessors;
    int l2_cache_bytes;
    int memory_bus_width;       /* bits */
    double peak_bandwidth_gbs;  /* from clock and bus width; 0 when unknown */
    int driver_version, runtime_version;
} parac_cuda_device_info;

PARAC_API parac_status parac_cuda_device_count(int *count);
PARAC_API parac_status parac_cuda_device_query(int ordinal, parac_cuda_device_info *info);
/* The CUDA device that holds the memory at `ptr` (memory of another
 * library, a CuPy array or a tensor, wrapped with parac_image_wrap). Fails
 * with PARAC_ERR_INVALID_ARGUMENT when `ptr` is not device memory. */
PARAC_API parac_status parac_cuda_pointer_device(const void *ptr, int *device);

PARAC_END_DECLS

#endif
