/* Internals of the CUDA backend of the runtime for generated code
 * (runtime/common/runtime_core.h has what both backends share). */
#ifndef PARAC_RUNTIME_CUDA_INTERNAL_H
#define PARAC_RUNTIME_CUDA_INTERNAL_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "parac/cuda.h"
#include "runtime/common/runtime_core.h"

struct parac_cu_session {
    parac__rt_session rt; /* first: the session is its core */
    int device;
    cudaStream_t stream;
    cudaLibrary_t library;
    int arch;             /* compute capability major * 10 + minor */
    int max_threads;      /* per block, of the device */
    unsigned long long *fold_slots; /* folded reductions' slots (fold.c), PARAC_CU_FOLD_SLOTS of 4 words */
};

/* The backend's operations (session.c, memory.c, launch.c). */
extern const parac__rt_backend parac__cu_backend;

/* PARAC_OK, or PARAC_ERR_CUDA naming what failed and CUDA's message. */
parac_status parac__cu_check(cudaError_t e, const char *what);
#define PARAC_CU_TRY(call, what) PARAC_TRY(parac__cu_check((call), (what)))

static inline parac_status parac__cu_injected(const char *what) { return parac__rt_injected(&parac__cu_backend, what); }
/* The session's device made current (each entry point calls it first). */
parac_status parac__cu_use(parac_cu_session *s);
/* Compile (or load from the disk cache) and load the program (program.c). */
parac_status parac__cu_load_program(parac_cu_session *s, const char *name, const char *source);
/* Keeps `stream` busy for `ns` nanoseconds (busy.cu): queued before a timed
 * kernel's start event. Returns 0 when the launch failed. */
int parac__cu_busy(void *stream, long long ns);

/* memory.c and launch.c: the backend's operations */
parac_status parac__cu_alloc(parac__rt_session *s, size_t bytes, void **buffer);
void parac__cu_free(parac__rt_session *s, void *buffer);
parac_status parac__cu_clear_padding(parac__rt_session *s, void *buffer, size_t pitch, size_t row_bytes, size_t rows);
parac_status parac__cu_fill_zeros(parac__rt_session *s, void *buffer, size_t bytes);
parac_status parac__cu_copy_rows(parac__rt_session *s, void *buffer, size_t device_pitch, void *host,
                                 size_t host_pitch, size_t width, size_t rows, int to_device);
parac_status parac__cu_wait(parac__rt_session *s);
parac_status parac__cu_run(parac__rt_session *s, parac__rt_kernel *k, int ndim, const size_t groups[3],
                           const size_t shape[3], const parac__rt_args *a);
double parac__cu_time(parac__rt_session *s, parac__rt_kernel *k, int ndim, const size_t groups[3],
                      const size_t shape[3], const parac__rt_args *a);

#endif
