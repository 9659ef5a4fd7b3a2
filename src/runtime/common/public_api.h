/* The public entry points of a runtime for generated device code
 * (parac/cuda.h, parac/opencl.h), written once: a backend's api.c defines
 *   PARAC__API(name)   its public name for name (parac_cu_##name),
 *   PARAC__SESSION     its session type,
 *   PARAC__PRESENT     1, or 0 in a build without the backend,
 *   PARAC__BACKEND     its table's address (any pointer where not present),
 *   PARAC__MISSING()   the status of a call in such a build,
 * then includes this file once. The backend itself writes session_open,
 * session_close and what only it has (reductions, folded reductions). */
#ifndef PARAC__API
#error "define PARAC__API, PARAC__SESSION, PARAC__PRESENT, PARAC__BACKEND and PARAC__MISSING first"
#endif

#include "core/error_internal.h"
#include "runtime/common/runtime_core.h"

#define PARAC__STR2(x) #x
#define PARAC__STR(x) PARAC__STR2(x)
#define PARAC__NAME(name) PARAC__STR(PARAC__API(name))
/* In a build without the backend every call that returns a status says so. */
#define PARAC__REQUIRE()                                 \
    do {                                                 \
        if (!PARAC__PRESENT) return PARAC__MISSING();    \
    } while (0)
#define PARAC__CORE(s) ((parac__rt_session *)(void *)(s))

const char *PARAC__API(session_device)(const PARAC__SESSION *s)
{
    return s ? ((const parac__rt_session *)(const void *)s)->label : "";
}

int PARAC__API(session_from_cache)(const PARAC__SESSION *s)
{
    return s ? ((const parac__rt_session *)(const void *)s)->from_cache : 0;
}

parac_status PARAC__API(matrix_bind)(PARAC__SESSION *s, parac_device_matrix *m, void *host, size_t elem_size,
                                     int ndim, long d0, long d1, long d2, size_t host_pitch)
{
    PARAC__REQUIRE();
    if (!m || !s) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: NULL argument", PARAC__NAME(matrix_bind));
    return parac__rt_matrix_bind(PARAC__CORE(s), m, host, elem_size, ndim, d0, d1, d2, host_pitch);
}

parac_status PARAC__API(to_device)(parac_device_matrix *m)
{
    PARAC__REQUIRE();
    if (!m || !m->session) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: unbound matrix", PARAC__NAME(to_device));
    return parac__rt_to_device(m);
}

parac_status PARAC__API(to_host)(parac_device_matrix *m)
{
    PARAC__REQUIRE();
    if (!m || !m->session) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: unbound matrix", PARAC__NAME(to_host));
    return parac__rt_to_host(m);
}

void PARAC__API(host_modified)(parac_device_matrix *m)
{
    if (m) m->state = PARAC_DEVICE_HOST_NEWER;
}

void PARAC__API(device_modified)(parac_device_matrix *m)
{
    if (m) m->state = PARAC_DEVICE_NEWER;
}

void PARAC__API(matrix_overwritten)(parac_device_matrix *m)
{
    if (m && (m->state == PARAC_DEVICE_HOST_NEWER || m->state == PARAC_DEVICE_ZEROS)) m->state = PARAC_DEVICE_SAME;
}

void PARAC__API(matrix_zeroed)(parac_device_matrix *m)
{
    if (m && m->state == PARAC_DEVICE_HOST_NEWER && !m->buffer) m->state = PARAC_DEVICE_ZEROS;
}

void PARAC__API(matrix_release)(parac_device_matrix *m)
{
    if (m && PARAC__PRESENT) parac__rt_matrix_release(m);
}

void PARAC__API(transfer_counts)(parac_device_transfers *out)
{
    if (!out) return;
    if (PARAC__PRESENT)
        parac__rt_transfer_counts(PARAC__BACKEND, out);
    else
        *out = (parac_device_transfers){0, 0, 0, 0, 0};
}

void PARAC__API(fail_after)(long n)
{
    if (PARAC__PRESENT) parac__countdown_set(n);
}

void PARAC__API(search_counts)(long *searched, long *reused)
{
    if (searched) *searched = PARAC__PRESENT ? PARAC__BACKEND->stats->searched : 0;
    if (reused) *reused = PARAC__PRESENT ? PARAC__BACKEND->stats->reused : 0;
}

unsigned long long PARAC__API(profile_ns)(void)
{
    return PARAC__PRESENT ? parac__kernel_times_total(&PARAC__BACKEND->stats->times) : 0;
}

int PARAC__API(profile_kernel)(int i, const char **name, unsigned long long *ns)
{
    return PARAC__PRESENT ? parac__kernel_times_get(&PARAC__BACKEND->stats->times, i, name, ns) : 0;
}

parac_status PARAC__API(launch)(PARAC__SESSION *s, const char *kernel, int ndim, const long *lo, const long *hi,
                                const int *wg, int nargs, const parac_device_arg *args)
{
    PARAC__REQUIRE();
    if (!s || !kernel) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: NULL argument", PARAC__NAME(launch));
    return parac__rt_launch_items(PARAC__CORE(s), kernel, ndim, lo, hi, wg, NULL, nargs, args, 0);
}

parac_status PARAC__API(launch_items)(PARAC__SESSION *s, const char *kernel, int ndim, const long *lo,
                                      const long *hi, const int *wg, const int *items, int nargs,
                                      const parac_device_arg *args)
{
    PARAC__REQUIRE();
    if (!s || !kernel) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: NULL argument", PARAC__NAME(launch_items));
    return parac__rt_launch_items(PARAC__CORE(s), kernel, ndim, lo, hi, wg, items, nargs, args, 0);
}

parac_status PARAC__API(launch_tuned)(PARAC__SESSION *s, const char *kernel, int ndim, const long *lo,
                                      const long *hi, const int *wg, const int *items, int nargs,
                                      const parac_device_arg *args)
{
    PARAC__REQUIRE();
    if (!s || !kernel) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: NULL argument", PARAC__NAME(launch_tuned));
    return parac__rt_launch_items(PARAC__CORE(s), kernel, ndim, lo, hi, wg, items, nargs, args, 1);
}

parac_status PARAC__API(launch_boxes)(PARAC__SESSION *s, const char *kernel, int ndim, int nbox, const long *boxes,
                                      int nargs, const parac_device_arg *args)
{
    PARAC__REQUIRE();
    if (!s || !kernel) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: NULL argument", PARAC__NAME(launch_boxes));
    return parac__rt_launch_boxes(PARAC__CORE(s), kernel, ndim, nbox, boxes, nargs, args);
}

parac_status PARAC__API(launch_variants)(PARAC__SESSION *s, int nvar, const parac_kernel_variant *v, int ndim,
                                         const long *lo, const long *hi, int nbox, const long *boxes, int nargs,
                                         const parac_device_arg *args, int tuned)
{
    PARAC__REQUIRE();
    if (!s || !v) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: NULL argument", PARAC__NAME(launch_variants));
    return parac__rt_launch_variants(PARAC__CORE(s), nvar, v, ndim, lo, hi, nbox, boxes, nargs, args, tuned);
}

parac_status PARAC__API(launch_all)(PARAC__SESSION *s, const char *kernel, int ndim, const long *lo, const long *hi,
                                    const int *wg, const int *items, int nbox, const long *boxes, int nargs,
                                    const parac_device_arg *args, int tuned)
{
    const parac_kernel_variant v = parac__one_variant(kernel, ndim, wg, items);
    return PARAC__API(launch_variants)(s, 1, &v, ndim, lo, hi, nbox, boxes, nargs, args, tuned);
}

parac_status PARAC__API(fusion_begin)(PARAC__SESSION *s, const char *name, int nalts, int nsizes, const long *sizes,
                                      parac_fusion_choice *c)
{
    PARAC__REQUIRE();
    if (!s || !c || nsizes < 0 || (nsizes && !sizes))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: no session, choice or sizes", PARAC__NAME(fusion_begin));
    return parac__rt_fusion_begin(PARAC__CORE(s), name, nalts, nsizes, sizes, c);
}

int PARAC__API(fusion_next)(PARAC__SESSION *s, parac_fusion_choice *c)
{
    if (!PARAC__PRESENT || !s || !c) return 0;
    return parac__rt_fusion_next(PARAC__CORE(s), c);
}
