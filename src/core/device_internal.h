/* What the core needs from the CUDA runtime. Implemented in src/cuda/runtime.c
 * when the CUDA backend is built and by src/core/no_cuda.c otherwise, so the
 * rest of the library never tests PARAC_HAVE_CUDA. */
#ifndef PARAC_DEVICE_INTERNAL_H
#define PARAC_DEVICE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "parac/image.h"
#include "parac/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Counts an image's worth of pixels moved between host and device outside
 * parac_image_copy (an algorithm that finishes on the host), for
 * parac_image_transfer_counts. */
void parac__count_transfer(int to_host, uint64_t bytes);

/* How many usable CUDA devices; on failure, `why` says what is missing. */
parac_status parac__cuda_probe(int *count, char *why, size_t why_size);

/* Device memory through a caching pool (cudaMalloc underneath). */
parac_status parac__cuda_alloc(int device, size_t bytes, void **ptr);
void parac__cuda_release(int device, void *ptr, size_t bytes);
void parac__cuda_pool_trim(void);
/* Blocks handed out by parac__cuda_alloc and not yet released (tests). */
long parac__cuda_blocks_out(void);
/* The FFT filters' cached cuFFT plans and kernel spectra released (fft2d.cu). */
void parac__cuda_fft_cache_clear(void);

/* Page-locked host memory. */
parac_status parac__pinned_alloc(size_t bytes, void **ptr);
void parac__pinned_free(void *ptr);

/* Streams (cudaStream_t as void *). */
parac_status parac__cuda_stream_create(int device, void **stream);
void parac__cuda_stream_destroy(void *stream);
parac_status parac__cuda_stream_sync(void *stream);
parac_status parac__cuda_set_device(int device);

/* Rectangular copy of `rows` rows of `row_bytes` bytes between any two
 * memories (host/pinned/cuda). Synchronous when `stream` is NULL or either
 * side is pageable host memory. */
parac_status parac__cuda_copy_rows(void *dst, int64_t dst_pitch, const void *src,
                                   int64_t src_pitch, size_t row_bytes, size_t rows,
                                   void *stream);
/* Element-wise strided copy on the device (both images on the same device,
 * same size, channels and dtype). */
parac_status parac__cuda_copy_strided(const parac_image *dst, const parac_image *src,
                                      void *stream);
/* Set `rows` rows of `row_bytes` bytes to zero on the device. */
parac_status parac__cuda_zero_rows(void *dst, int64_t pitch, size_t row_bytes, size_t rows,
                                   void *stream);

/* Runs call->method (resolved, with a row_reach) on the call's inputs in
 * host memory through the context's CUDA device in bands of `rows` rows
 * (slices of a volume), each computed from its rows and `reach` rows either
 * side, the copies in and out overlapping the computation; the outputs are
 * made in host memory (parac_call_output). stream_rows.c. */
typedef struct parac_op_call parac_op_call;
parac_status parac__cuda_stream_rows(parac_op_call *call, int64_t reach, int64_t rows);

#ifdef __cplusplus
}
#endif

#endif
