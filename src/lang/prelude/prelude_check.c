/* The prelude that paracc copies into generated host code, compiled as C
 * with the project's warnings in the order a generated file has it: once as
 * the C target has it, once for each device runtime (PARAC_CHECK_RT). */
#define PARAC__OUT_OF_MEMORY 3
#define PARAC__INVALID_ARGUMENT 1
#include "helpers.h"
#include "failures.h"

#if defined(PARAC_CHECK_RT_CUDA) || defined(PARAC_CHECK_RT_OPENCL)
#include "parac/status.h"
#if defined(PARAC_CHECK_RT_CUDA)
#include "parac/cuda.h"
#define PARAC__RT(name) parac_cu_##name
#define PARAC__API "CUDA"
#else
#include "parac/opencl.h"
#define PARAC__RT(name) parac_cl_##name
#define PARAC__API "OpenCL"
#endif
#define PARAC__FILE "check.c"
#define PARAC__PROGRAM "check"
static const char parac__kernel_source[] = "";
#include "device.h"
#endif

/* something for the object to hold */
int parac_prelude_check(void);
int parac_prelude_check(void) { return (int)parac__count(0, 10, 3); }
