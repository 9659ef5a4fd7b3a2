/* The public entry points of the CUDA runtime (parac/cuda.h) that every
 * backend shares, written once in runtime/common/public_api.h. */
#include "runtime/cuda/runtime_internal.h"

#define PARAC__API(name) parac_cu_##name
#define PARAC__SESSION parac_cu_session
#define PARAC__PRESENT 1
#define PARAC__BACKEND (&parac__cu_backend)
#define PARAC__MISSING() PARAC_OK
#include "runtime/common/public_api.h"
