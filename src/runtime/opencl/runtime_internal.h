/* Internals of the OpenCL backend of the runtime for generated code
 * (runtime/common/runtime_core.h has what both backends share). */
#ifndef PARAC_RUNTIME_OPENCL_INTERNAL_H
#define PARAC_RUNTIME_OPENCL_INTERNAL_H

#include <CL/cl.h>
#include <stddef.h>
#include <stdint.h>

#include "parac/opencl.h"
#include "runtime/common/runtime_core.h"

struct parac_cl_session {
    parac__rt_session rt; /* first: the session is its core */
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    size_t max_wg; /* work-items per group, of the device */
};

/* The backend's operations (session.c, memory.c, launch.c). */
extern const parac__rt_backend parac__cl_backend;

#define PARAC_CL_TRY(call, what)                                                          \
    do {                                                                                  \
        cl_int parac__e = (call);                                                         \
        if (parac__e != CL_SUCCESS)                                                       \
            return parac__fail(PARAC_ERR_OPENCL, "%s failed (OpenCL error %d)", what, (int)parac__e); \
    } while (0)

/* Before the first OpenCL call: drivers no ICD file names (loader.c). */
void parac__opencl_prepare_loader(void);
/* Build (or load from the cache) the session's program (program_cache.c). */
parac_status parac__cl_build_program(parac_cl_session *s, const char *name, const char *source,
                                     const char *options);
static inline parac_status parac__cl_injected(const char *what) { return parac__rt_injected(&parac__cl_backend, what); }

/* memory.c and launch.c: the backend's operations */
parac_status parac__cl_alloc(parac__rt_session *s, size_t bytes, void **buffer);
void parac__cl_free(parac__rt_session *s, void *buffer);
parac_status parac__cl_fill_zeros(parac__rt_session *s, void *buffer, size_t bytes);
parac_status parac__cl_copy_rows(parac__rt_session *s, void *buffer, size_t device_pitch, void *host,
                                 size_t host_pitch, size_t width, size_t rows, int to_device);
parac_status parac__cl_wait(parac__rt_session *s);
parac_status parac__cl_run(parac__rt_session *s, parac__rt_kernel *k, int ndim, const size_t groups[3],
                           const size_t shape[3], const parac__rt_args *a);
double parac__cl_time(parac__rt_session *s, parac__rt_kernel *k, int ndim, const size_t groups[3],
                      const size_t shape[3], const parac__rt_args *a);

#endif
