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
#ifdef __cplusplus
}
#endif

#define PARAC_CUDA_CHECK(call) parac__cuda_status((call), #call, __FILE__, __LINE__)
#define PARAC_CUDA_TRY(call) PARAC_TRY(PARAC_CUDA_CHECK(call))
/* After a kernel launch: launch-configuration errors. */
#define PARAC_CUDA_LAUNCH_CHECK() parac__cuda_status(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

#endif
