/* Checking CUDA runtime calls: every call goes through PARAC_CUDA_TRY or
 * parac__cuda_status, which turn an error into a parac status with the call,
 * file and line in the message. */
#ifndef PARAC_CUDA_CHECK_H
#define PARAC_CUDA_CHECK_H

#include <cuda_runtime_api.h>

#include "core/error_internal.h"

#ifdef __cplusplus
extern "C" {
#endif
parac_status parac__cuda_status(cudaError_t err, const char *call, const char *file, int line);
/* cudaMalloc and cudaMallocAsync for the library's own buffers, which the
 * allocation countdown (core/alloc_internal.h) can make fail as out of
 * memory; errors as parac__cuda_status's. */
parac_status parac__cuda_malloc(void **ptr, size_t bytes, const char *file, int line);
parac_status parac__cuda_malloc_async(void **ptr, size_t bytes, cudaStream_t stream, const char *file, int line);
#ifdef __cplusplus
}
#endif

#define PARAC_CUDA_CHECK(call) parac__cuda_status((call), #call, __FILE__, __LINE__)
#define PARAC_CUDA_TRY(call) PARAC_TRY(PARAC_CUDA_CHECK(call))
#define PARAC_CUDA_MALLOC(ptr, bytes) parac__cuda_malloc((void **)(ptr), (bytes), __FILE__, __LINE__)
#define PARAC_CUDA_MALLOC_ASYNC(ptr, bytes, stream) \
    parac__cuda_malloc_async((void **)(ptr), (bytes), (stream), __FILE__, __LINE__)
/* After a kernel launch: launch-configuration errors. */
#define PARAC_CUDA_LAUNCH_CHECK() parac__cuda_status(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

#endif
