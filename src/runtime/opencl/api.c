/* The public entry points of the OpenCL runtime (parac/opencl.h) that every
 * backend shares, written once in runtime/common/public_api.h. */
#include "runtime/opencl/runtime_internal.h"

#define PARAC__API(name) parac_cl_##name
#define PARAC__SESSION parac_cl_session
#define PARAC__PRESENT 1
#define PARAC__BACKEND (&parac__cl_backend)
#define PARAC__MISSING() PARAC_OK
#include "runtime/common/public_api.h"
