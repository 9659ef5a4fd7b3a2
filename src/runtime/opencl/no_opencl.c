/* OpenCL in a build without it: device discovery and every entry point of
 * the runtime for generated code say so. */
#include "core/error_internal.h"
#include "parac/opencl.h"
#include "runtime/common/runtime_core.h"

static parac_status no_cl(void)
{
    return parac__fail(PARAC_ERR_UNSUPPORTED, "this build of parac has no OpenCL runtime");
}

parac_status parac_opencl_devices(parac_opencl_device_info *list, int capacity, int *count)
{
    (void)list, (void)capacity;
    if (count) *count = 0;
    return no_cl();
}

const char *parac_opencl_loader_note(void) { return "this build of parac has no OpenCL runtime"; }

struct parac_cl_session {
    parac__rt_session rt; /* never made */
};

#define PARAC__API(name) parac_cl_##name
#define PARAC__SESSION parac_cl_session
#define PARAC__PRESENT 0
#define PARAC__BACKEND ((const parac__rt_backend *)0)
#define PARAC__MISSING() no_cl()
#include "runtime/common/public_api.h"

parac_status parac_cl_session_open(parac_cl_session **s, const char *name, const char *source, const char *selector)
{
    (void)name, (void)source, (void)selector;
    if (s) *s = 0;
    return no_cl();
}

void parac_cl_session_close(parac_cl_session *s) { (void)s; }

parac_status parac_cl_reduce(parac_cl_session *s, const char *kernel, parac_cl_matrix *m, size_t acc_size,
                             void *result)
{
    (void)s, (void)kernel, (void)m, (void)acc_size, (void)result;
    return no_cl();
}
