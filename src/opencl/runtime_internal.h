/* Internals of the OpenCL runtime for generated code. */
#ifndef PARAC_OPENCL_RUNTIME_INTERNAL_H
#define PARAC_OPENCL_RUNTIME_INTERNAL_H

#include <CL/cl.h>
#include <stddef.h>
#include <stdint.h>

#include "parac/opencl.h"

typedef struct parac__cl_named_kernel {
    char *name;
    cl_kernel kernel;
} parac__cl_named_kernel;

enum { PARAC__CL_SPARE_BUFFERS = 16 };
/* at most this many bytes of spare buffers per session */
#define PARAC__CL_SPARE_BYTES ((size_t)2 << 30)

struct parac_cl_session {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    char label[600];      /* "platform / device" */
    size_t max_wg;
    unsigned units;       /* compute units of the device */
    int from_cache;
    parac__cl_named_kernel *kernels;
    int nkernels;
    int profile;          /* PARAC_CL_PROFILE set: kernels timed by events (launch.c) */
    uint64_t program_key; /* the program cache's key: source, options, device, driver */
    int search;           /* PARAC_CL_SEARCH set: work-group shapes searched (search.c) */
    int variant;          /* PARAC_CL_VARIANT=k: candidate k of every region that has it (tests, benchmarks) */
    int fusion;           /* PARAC_CL_FUSION=k: alternative k of every fusion choice (tests, benchmarks) */
    struct parac__cl_shape *shapes; /* shapes chosen so far through this handle */
    int nshapes;
    /* buffers of released matrices, kept for the next matrix of the same
     * size (matrices.c): a pipeline called again, or a fusion choice's
     * alternative run again, allocates nothing */
    struct parac__cl_spare {
        void *buffer;
        size_t bytes;
    } spare[PARAC__CL_SPARE_BUFFERS];
    int nspare;
    size_t spare_bytes;
    int no_spares; /* PARAC_CL_NO_SPARES=1: every released buffer freed at once (for comparisons) */
};
/* Releases the session's spare buffers (matrices.c). */
void parac__cl_free_spares(parac_cl_session *s);

#define PARAC_CL_TRY(call, what)                                                          \
    do {                                                                                  \
        cl_int parac__e = (call);                                                         \
        if (parac__e != CL_SUCCESS)                                                       \
            return parac__fail(PARAC_ERR_OPENCL, "%s failed (OpenCL error %d)", what, (int)parac__e); \
    } while (0)

/* Build (or load from the cache) the session's program. */
/* Before the first OpenCL call: drivers no ICD file names (loader.c). */
void parac__opencl_prepare_loader(void);

parac_status parac__cl_build_program(parac_cl_session *s, const char *name, const char *source,
                                     const char *options);
/* PARAC_OK, or the failure parac_cl_fail_after() asked for (inject.c). */
parac_status parac__cl_injected(const char *what);
parac_status parac__cl_kernel(parac_cl_session *s, const char *name, cl_kernel *out);


/* The work-group shape for a launch of kernel k over count work-items per
 * dimension (search.c): local holds the model's shape on entry and the
 * fastest measured one on return, from the shapes s already holds, the disk
 * cache, or a search that runs the kernel with each candidate. Only for
 * kernels that give the same result however often they run. */
parac_status parac__cl_search_shape(parac_cl_session *s, cl_kernel k, const char *kernel, cl_uint ndim,
                                    const size_t count[3], size_t kmax, size_t local[3]);
/* One candidate kernel of a region for the search over variants (its
 * arguments set): work-items per axis, its model's shape, whether fixed. */
typedef struct parac__cl_candidate {
    cl_kernel k;
    const char *name;
    size_t count[3];
    size_t local[3];
    size_t kmax;
    int fixed;
} parac__cl_candidate;
/* The fastest candidate (*chosen) and its shape, over the candidates' own
 * shapes and, where not fixed, the search's shapes. */
parac_status parac__cl_search_variants(parac_cl_session *s, cl_uint ndim, int ncand, const parac__cl_candidate *c,
                                       int *chosen, size_t local[3]);

#endif
