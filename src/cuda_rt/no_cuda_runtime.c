/* The runtime for generated CUDA code in a build without CUDA: every entry
 * point says so. */
#include "core/error_internal.h"
#include "parac/cuda.h"

static parac_status no_cuda(void)
{
    return parac__fail(PARAC_ERR_UNSUPPORTED, "this build of parac has no CUDA runtime (built without nvcc)");
}

parac_status parac_cu_session_open(parac_cu_session **s, const char *name, const char *source, const char *selector)
{
    (void)name, (void)source, (void)selector;
    if (s) *s = 0;
    return no_cuda();
}
void parac_cu_session_close(parac_cu_session *s) { (void)s; }
const char *parac_cu_session_device(const parac_cu_session *s) { return (void)s, ""; }
int parac_cu_session_from_cache(const parac_cu_session *s) { return (void)s, 0; }
parac_status parac_cu_matrix_bind(parac_cu_session *s, parac_cu_matrix *m, void *host, size_t elem_size, int ndim,
                                  long d0, long d1, long d2, size_t host_pitch)
{
    (void)s, (void)m, (void)host, (void)elem_size, (void)ndim, (void)d0, (void)d1, (void)d2, (void)host_pitch;
    return no_cuda();
}
parac_status parac_cu_to_device(parac_cu_matrix *m) { return (void)m, no_cuda(); }
parac_status parac_cu_to_host(parac_cu_matrix *m) { return (void)m, no_cuda(); }
void parac_cu_host_modified(parac_cu_matrix *m) { (void)m; }
void parac_cu_device_modified(parac_cu_matrix *m) { (void)m; }
void parac_cu_matrix_release(parac_cu_matrix *m) { (void)m; }
void parac_cu_matrix_zeroed(parac_cu_matrix *m) { (void)m; }
void parac_cu_matrix_overwritten(parac_cu_matrix *m) { (void)m; }
void parac_cu_transfer_counts(parac_cu_transfers *out)
{
    if (out) *out = (parac_cu_transfers){0, 0, 0, 0, 0};
}
void parac_cu_fail_after(long n) { (void)n; }
parac_status parac_cu_launch(parac_cu_session *s, const char *kernel, int ndim, const long *lo, const long *hi,
                             const int *wg, int nargs, const parac_cu_arg *args)
{
    (void)s, (void)kernel, (void)ndim, (void)lo, (void)hi, (void)wg, (void)nargs, (void)args;
    return no_cuda();
}
parac_status parac_cu_launch_items(parac_cu_session *s, const char *kernel, int ndim, const long *lo, const long *hi,
                                   const int *wg, const int *items, int nargs, const parac_cu_arg *args)
{
    (void)items;
    return parac_cu_launch(s, kernel, ndim, lo, hi, wg, nargs, args);
}
parac_status parac_cu_launch_tuned(parac_cu_session *s, const char *kernel, int ndim, const long *lo, const long *hi,
                                   const int *wg, const int *items, int nargs, const parac_cu_arg *args)
{
    (void)items;
    return parac_cu_launch(s, kernel, ndim, lo, hi, wg, nargs, args);
}
void parac_cu_search_counts(long *searched, long *reused)
{
    if (searched) *searched = 0;
    if (reused) *reused = 0;
}
parac_status parac_cu_launch_boxes(parac_cu_session *s, const char *kernel, int ndim, int nbox, const long *boxes,
                                   int nargs, const parac_cu_arg *args)
{
    (void)s, (void)kernel, (void)ndim, (void)nbox, (void)boxes, (void)nargs, (void)args;
    return no_cuda();
}
unsigned long long parac_cu_profile_ns(void) { return 0; }
int parac_cu_profile_kernel(int i, const char **name, unsigned long long *ns)
{
    (void)i, (void)name, (void)ns;
    return 0;
}
parac_status parac_cu_reduce(parac_cu_session *s, const char *kernel, parac_cu_matrix *m, size_t acc_size,
                             void *result)
{
    (void)s, (void)kernel, (void)m, (void)acc_size, (void)result;
    return no_cuda();
}
parac_status parac_cu_fold_slot(parac_cu_session *s, int id, void **slot)
{
    (void)s, (void)id, (void)slot;
    return no_cuda();
}
parac_status parac_cu_fold_result(parac_cu_session *s, int id, size_t acc_size, void *result)
{
    (void)s, (void)id, (void)acc_size, (void)result;
    return no_cuda();
}
parac_status parac_cu_launch_all(parac_cu_session *s, const char *kernel, int ndim, const long *lo, const long *hi,
                                 const int *wg, const int *items, int nbox, const long *boxes, int nargs,
                                 const parac_cu_arg *args, int tuned)
{
    (void)s, (void)kernel, (void)ndim, (void)lo, (void)hi, (void)wg, (void)items, (void)nbox, (void)boxes;
    (void)nargs, (void)args, (void)tuned;
    return no_cuda();
}
parac_status parac_cu_launch_variants(parac_cu_session *s, int nvar, const parac_kernel_variant *variants, int ndim,
                                     const long *lo, const long *hi, int nbox, const long *boxes, int nargs,
                                     const parac_cu_arg *args, int tuned)
{
    (void)s, (void)nvar, (void)variants, (void)ndim, (void)lo, (void)hi, (void)nbox, (void)boxes;
    (void)nargs, (void)args, (void)tuned;
    return no_cuda();
}
parac_status parac_cu_fusion_begin(parac_cu_session *s, const char *name, int nalts, int nsizes, const long *sizes,
                                   parac_fusion_choice *c)
{
    (void)s, (void)name, (void)nalts, (void)nsizes, (void)sizes, (void)c;
    return no_cuda();
}
int parac_cu_fusion_next(parac_cu_session *s, parac_fusion_choice *c)
{
    (void)s, (void)c;
    return 0;
}
