#include <string.h>
#include "core/error_internal.h"
#include "parac/opencl.h"

parac_status parac_opencl_devices(parac_opencl_device_info *list, int capacity, int *count)
{
    *count = 0;
    return parac__fail(PARAC_ERR_UNSUPPORTED, "this build of parac has no OpenCL runtime");
}

const char *parac_opencl_loader_note(void)
{
    return "this build of parac has no OpenCL runtime";
}

/* The runtime for generated OpenCL code: unavailable in this build. */
static parac_status no_cl(void)
{
    return parac__fail(PARAC_ERR_UNSUPPORTED, "this build of parac has no OpenCL runtime");
}

parac_status parac_cl_session_open(parac_cl_session **s, const char *name, const char *source,
                                   const char *selector)
{
    if (s) *s = 0;
    return no_cl();
}
void parac_cl_session_close(parac_cl_session *s) {}
const char *parac_cl_session_device(const parac_cl_session *s) { return ""; }
int parac_cl_session_from_cache(const parac_cl_session *s) { return 0; }
parac_status parac_cl_matrix_bind(parac_cl_session *s, parac_cl_matrix *m, void *host, size_t elem_size,
                                  int ndim, long d0, long d1, long d2, size_t host_pitch)
{
    return no_cl();
}
parac_status parac_cl_to_device(parac_cl_matrix *m) { return no_cl(); }
parac_status parac_cl_to_host(parac_cl_matrix *m) { return no_cl(); }
void parac_cl_host_modified(parac_cl_matrix *m) {}
void parac_cl_device_modified(parac_cl_matrix *m) {}
void parac_cl_matrix_release(parac_cl_matrix *m) {}
void parac_cl_matrix_zeroed(parac_cl_matrix *m) {}
void parac_cl_fail_after(long n) {}
void parac_cl_matrix_overwritten(parac_cl_matrix *m) {}
void parac_cl_transfer_counts(parac_cl_transfers *out) { memset(out, 0, sizeof *out); }
parac_status parac_cl_launch(parac_cl_session *s, const char *kernel, int ndim, const long *lo, const long *hi,
                             const int *wg, int nargs, const parac_cl_arg *args)
{
    return no_cl();
}
parac_status parac_cl_launch_items(parac_cl_session *s, const char *kernel, int ndim, const long *lo, const long *hi,
                                   const int *wg, const int *items, int nargs, const parac_cl_arg *args)
{
    return no_cl();
}
parac_status parac_cl_launch_tuned(parac_cl_session *s, const char *kernel, int ndim, const long *lo, const long *hi,
                                   const int *wg, const int *items, int nargs, const parac_cl_arg *args)
{
    return no_cl();
}
void parac_cl_search_counts(long *searched, long *reused)
{
    if (searched) *searched = 0;
    if (reused) *reused = 0;
}
parac_status parac_cl_launch_boxes(parac_cl_session *s, const char *kernel, int ndim, int nbox, const long *boxes,
                                   int nargs, const parac_cl_arg *args)
{
    return no_cl();
}
unsigned long long parac_cl_profile_ns(void) { return 0; }
int parac_cl_profile_kernel(int i, const char **name, unsigned long long *ns) { return 0; }
parac_status parac_cl_reduce(parac_cl_session *s, const char *kernel, parac_cl_matrix *m, size_t acc_size,
                             void *result)
{
    return no_cl();
}
parac_status parac_cl_launch_all(parac_cl_session *s, const char *kernel, int ndim, const long *lo, const long *hi,
                                 const int *wg, const int *items, int nbox, const long *boxes, int nargs,
                                 const parac_cl_arg *args, int tuned)
{
    (void)s, (void)kernel, (void)ndim, (void)lo, (void)hi, (void)wg, (void)items, (void)nbox, (void)boxes;
    (void)nargs, (void)args, (void)tuned;
    return no_cl();
}
parac_status parac_cl_launch_variants(parac_cl_session *s, int nvar, const parac_kernel_variant *variants, int ndim,
                                     const long *lo, const long *hi, int nbox, const long *boxes, int nargs,
                                     const parac_cl_arg *args, int tuned)
{
    (void)s, (void)nvar, (void)variants, (void)ndim, (void)lo, (void)hi, (void)nbox, (void)boxes;
    (void)nargs, (void)args, (void)tuned;
    return no_cl();
}
parac_status parac_cl_fusion_begin(parac_cl_session *s, const char *name, int nalts, int nsizes, const long *sizes,
                                   parac_fusion_choice *c)
{
    (void)s, (void)name, (void)nalts, (void)nsizes, (void)sizes, (void)c;
    return no_cl();
}
int parac_cl_fusion_next(parac_cl_session *s, parac_fusion_choice *c)
{
    (void)s, (void)c;
    return 0;
}
