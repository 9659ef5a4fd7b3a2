/* Launches of generated kernels, for every backend: the work per axis, the
 * work-group shape, the search's choice where the kernel allows it, and
 * the grid; the backend runs the launch. */
#include <limits.h>
#include <string.h>

#include "core/error_internal.h"
#include "runtime/common/runtime_core.h"

/* The shape for wg: at most the device's per axis, halved along its
 * longest axis until the kernel allows it, no wider than the work itself;
 * a small launch spread over more multiprocessors (on the H200 the
 * sharpening's column border, 383 work-items, took 9.5 us in 2 blocks of
 * 256 and 4.4 us in the smaller blocks the search found). */
static void group_shape(const parac__rt_session *s, const parac__rt_kernel *k, int ndim, const int *wg,
                        const size_t count[3], size_t shape[3])
{
    for (int d = 0; d < 3; d++) {
        shape[d] = d < ndim && wg && wg[d] > 0 ? (size_t)wg[d] : 1;
        if (d < ndim && shape[d] > s->max_dims[d]) shape[d] = s->max_dims[d];
    }
    while (shape[0] * shape[1] * shape[2] > k->max_items) {
        const int big = shape[0] >= shape[1] ? (shape[0] >= shape[2] ? 0 : 2) : (shape[1] >= shape[2] ? 1 : 2);
        shape[big] /= 2;
    }
    for (int d = 0; d < ndim; d++)
        while (shape[d] > 1 && shape[d] / 2 >= count[d]) shape[d] /= 2;
    parac__spread_small_launch(ndim, count, s->units, shape);
}

/* The most work-groups along axis d for this shape. */
static size_t max_groups(const parac__rt_backend *b, int d, const size_t shape[3])
{
    size_t most = b->max_groups[d];
    if (b->items_in_int && most > INT_MAX / shape[d]) most = INT_MAX / shape[d];
    return most;
}

static parac_status groups_for(const parac__rt_backend *b, const char *kernel, int ndim, const size_t count[3],
                               const size_t shape[3], size_t groups[3])
{
    for (int d = 0; d < 3; d++) {
        groups[d] = d < ndim ? (count[d] + shape[d] - 1) / shape[d] : 1;
        if (groups[d] > max_groups(b, d, shape))
            return parac__fail(PARAC_ERR_OVERFLOW, "kernel %s: %zu work-groups along axis %d", kernel, groups[d], d);
    }
    return PARAC_OK;
}

parac_status parac__rt_launch_items(parac__rt_session *s, const char *kernel, int ndim, const long *lo,
                                    const long *hi, const int *wg, const int *items, int nargs,
                                    const parac_device_arg *args, int tuned)
{
    const parac__rt_backend *b = s->backend;
    PARAC_TRY(parac__rt_injected(b, kernel));
    size_t count[3];
    int empty;
    PARAC_TRY(parac__launch_counts(kernel, ndim, lo, hi, items, count, &empty));
    if (empty) return PARAC_OK;
    PARAC_TRY(parac__rt_use(s));
    parac__rt_kernel *k;
    PARAC_TRY(parac__rt_kernel_get(s, kernel, &k));
    parac__rt_args a;
    a.n = a.nb = a.ni = 0;
    PARAC_TRY(parac__rt_args_box(&a, ndim, lo, hi, kernel));
    PARAC_TRY(parac__rt_args_program(&a, nargs, args, kernel));
    size_t shape[3], groups[3];
    group_shape(s, k, ndim, wg, count, shape);
    if (tuned && s->knobs.search) {
        parac__rt_candidate c = {k, {count[0], count[1], count[2]}, {shape[0], shape[1], shape[2]}, 0};
        int chosen = 0;
        PARAC_TRY(parac__rt_search(s, ndim, 1, &c, &a, &chosen, shape));
    }
    PARAC_TRY(groups_for(b, kernel, ndim, count, shape, groups));
    return b->run(s, k, ndim, groups, shape, &a);
}

/* A one-launch kernel's shape for wg: halved along its longer axis until
 * the kernel allows it, then no wider than the interior's work. */
static void one_launch_shape(const parac__rt_kernel *k, int ndim, const int *wg, const size_t count[3], int empty,
                             size_t shape[3])
{
    shape[0] = wg && wg[0] > 0 ? (size_t)wg[0] : 1;
    shape[1] = ndim == 2 && wg && wg[1] > 0 ? (size_t)wg[1] : 1;
    shape[2] = 1;
    while (shape[0] * shape[1] > k->max_items) shape[shape[0] >= shape[1] ? 0 : 1] /= 2;
    for (int d = 0; d < ndim && !empty; d++)
        while (shape[d] > 1 && shape[d] / 2 >= count[d]) shape[d] /= 2;
}

parac_status parac__rt_launch_variants(parac__rt_session *s, int nvar, const parac_kernel_variant *v, int ndim,
                                       const long *lo, const long *hi, int nbox, const long *boxes, int nargs,
                                       const parac_device_arg *args, int tuned)
{
    const parac__rt_backend *b = s->backend;
    PARAC_TRY(parac__check_variants(nvar, v));
    PARAC_TRY(parac__rt_injected(b, v[0].kernel));
    parac__one_launch w[PARAC__MAX_VARIANTS];
    parac__rt_candidate c[PARAC__MAX_VARIANTS];
    int nothing = 0;
    for (int i = 0; i < nvar; i++) {
        PARAC_TRY(parac__one_launch_work(v[i].kernel, ndim, lo, hi, v[i].items, nbox, boxes, &w[i], &nothing));
        if (nothing) return PARAC_OK;
        c[i].k = NULL;
        c[i].fixed = v[i].fixed_shape;
        memcpy(c[i].count, w[i].count, sizeof c[i].count);
    }
    PARAC_TRY(parac__rt_use(s));
    const int empty = w[0].empty, search = tuned && s->knobs.search && !empty;
    /* without the search: the model's kernel, or the one the VARIANT knob names */
    const int forced = s->knobs.variant > 0 && s->knobs.variant < nvar ? s->knobs.variant : 0;
    for (int i = 0; i < nvar; i++) {
        if (!search && i != forced) continue;
        PARAC_TRY(parac__rt_kernel_get(s, v[i].kernel, &c[i].k));
        one_launch_shape(c[i].k, ndim, v[i].wg, c[i].count, empty, c[i].shape);
    }
    /* the counter box, the border boxes, the interior's rows of work-groups
     * (every row while the search times shapes), the program's arguments */
    const char *kernel = v[0].kernel;
    parac__rt_args a;
    a.n = a.nb = a.ni = 0;
    int *interior_rows = NULL;
    PARAC_TRY(parac__rt_args_box(&a, ndim, lo, hi, kernel));
    PARAC_TRY(parac__rt_arg(&a, &w[0].boxes, sizeof w[0].boxes, kernel));
    PARAC_TRY(parac__rt_arg_int(&a, INT_MAX, kernel, &interior_rows));
    PARAC_TRY(parac__rt_args_program(&a, nargs, args, kernel));
    int chosen = search ? 0 : forced;
    size_t shape[3] = {c[chosen].shape[0], c[chosen].shape[1], 1};
    if (search && (nvar > 1 || !c[0].fixed)) PARAC_TRY(parac__rt_search(s, ndim, nvar, c, &a, &chosen, shape));
    /* the interior's work-groups, then rows of them for the border work-items */
    size_t gx, iblocks, rows;
    PARAC_TRY(parac__one_launch_grid(v[chosen].kernel, ndim, &w[chosen], shape, max_groups(b, 1, shape), &gx,
                                     &iblocks, &rows));
    *interior_rows = (int)iblocks;
    const size_t groups[3] = {gx, rows, 1};
    return b->run(s, c[chosen].k, 2, groups, shape, &a);
}

parac_status parac__rt_launch_boxes(parac__rt_session *s, const char *kernel, int ndim, int nbox, const long *boxes,
                                    int nargs, const parac_device_arg *args)
{
    const parac__rt_backend *b = s->backend;
    PARAC_TRY(parac__rt_injected(b, kernel));
    parac__boxes bx; /* the kernel's parac_boxes */
    long total = 0;
    PARAC_TRY(parac__pack_boxes(kernel, ndim, nbox, boxes, &bx, &total));
    if (total == 0) return PARAC_OK;
    PARAC_TRY(parac__rt_use(s));
    parac__rt_kernel *k;
    PARAC_TRY(parac__rt_kernel_get(s, kernel, &k));
    parac__rt_args a;
    a.n = a.nb = a.ni = 0;
    PARAC_TRY(parac__rt_arg(&a, &bx, sizeof bx, kernel));
    PARAC_TRY(parac__rt_args_program(&a, nargs, args, kernel));
    const size_t shape[3] = {k->max_items < 256 ? k->max_items : 256, 1, 1};
    const size_t groups[3] = {((size_t)total + shape[0] - 1) / shape[0], 1, 1};
    return b->run(s, k, 1, groups, shape, &a);
}
