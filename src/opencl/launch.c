/* Kernel launches and two-level reductions for generated code. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device_runtime.h"
#include "core/error_internal.h"
#include "core/kernel_times.h"
#include "opencl/runtime_internal.h"

/* PARAC_CL_PROFILE: all sessions' kernel time, in total and per kernel name */
static parac__kernel_times times = PARAC__KERNEL_TIMES_INIT;

unsigned long long parac_cl_profile_ns(void) { return parac__kernel_times_total(&times); }

int parac_cl_profile_kernel(int i, const char **name, unsigned long long *ns)
{
    return parac__kernel_times_get(&times, i, name, ns);
}

static void add_kernel_time(cl_kernel k, unsigned long long ns)
{
    char name[120] = "?";
    clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
    name[sizeof name - 1] = 0;
    parac__kernel_times_add(&times, name, ns);
}

/* clEnqueueNDRangeKernel, timed by its event when the session profiles. */
static cl_int enqueue(parac_cl_session *s, cl_kernel k, cl_uint dims, const size_t *global, const size_t *local)
{
    if (!s->profile) return clEnqueueNDRangeKernel(s->queue, k, dims, NULL, global, local, 0, NULL, NULL);
    cl_event ev;
    cl_int err = clEnqueueNDRangeKernel(s->queue, k, dims, NULL, global, local, 0, NULL, &ev);
    if (err != CL_SUCCESS) return err;
    cl_ulong t0 = 0, t1 = 0;
    err = clWaitForEvents(1, &ev);
    if (err == CL_SUCCESS) err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
    if (err == CL_SUCCESS) err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    if (err == CL_SUCCESS && t1 > t0) add_kernel_time(k, (unsigned long long)(t1 - t0));
    clReleaseEvent(ev);
    return err;
}

static parac_status set_arg(cl_kernel k, cl_uint *i, size_t size, const void *v, const char *kn)
{
    cl_int err = clSetKernelArg(k, *i, size, v);
    if (err != CL_SUCCESS)
        return parac__fail(PARAC_ERR_OPENCL, "clSetKernelArg(%s, %u) failed (error %d)", kn, *i, (int)err);
    (*i)++;
    return PARAC_OK;
}

static parac_status set_matrix(cl_kernel k, cl_uint *i, parac_cl_matrix *m, const char *kn)
{
    if (!m->buffer) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "kernel %s: matrix has no buffer", kn);
    cl_mem b = (cl_mem)m->buffer;
    int pitch = (int)(m->device_pitch / m->elem_size);
    int d[3] = {(int)m->dims[0], (int)m->dims[1], (int)m->dims[2]};
    PARAC_TRY(set_arg(k, i, sizeof b, &b, kn));
    PARAC_TRY(set_arg(k, i, sizeof pitch, &pitch, kn));
    for (int j = 0; j < 3; j++) PARAC_TRY(set_arg(k, i, sizeof d[j], &d[j], kn));
    return PARAC_OK;
}

/* The generated code's arguments after the ones the launch sets itself. */
static parac_status set_args(cl_kernel k, cl_uint *ai, int nargs, const parac_cl_arg *args, const char *kernel)
{
    for (int i = 0; i < nargs; i++) {
        if (args[i].kind == PARAC_CL_ARG_MATRIX)
            PARAC_TRY(set_matrix(k, ai, args[i].matrix, kernel));
        else
            PARAC_TRY(set_arg(k, ai, args[i].size, args[i].value, kernel));
    }
    return PARAC_OK;
}

parac_status parac_cl_launch(parac_cl_session *s, const char *kernel, int ndim, const long *lo, const long *hi,
                             const int *wg, int nargs, const parac_cl_arg *args)
{
    return parac_cl_launch_items(s, kernel, ndim, lo, hi, wg, NULL, nargs, args);
}

static parac_status launch_items(parac_cl_session *s, const char *kernel, int ndim, const long *lo, const long *hi,
                                 const int *wg, const int *items, int nargs, const parac_cl_arg *args, int tuned);

parac_status parac_cl_launch_items(parac_cl_session *s, const char *kernel, int ndim, const long *lo, const long *hi,
                                   const int *wg, const int *items, int nargs, const parac_cl_arg *args)
{
    return launch_items(s, kernel, ndim, lo, hi, wg, items, nargs, args, 0);
}

parac_status parac_cl_launch_tuned(parac_cl_session *s, const char *kernel, int ndim, const long *lo, const long *hi,
                                   const int *wg, const int *items, int nargs, const parac_cl_arg *args)
{
    return launch_items(s, kernel, ndim, lo, hi, wg, items, nargs, args, 1);
}

static parac_status launch_items(parac_cl_session *s, const char *kernel, int ndim, const long *lo, const long *hi,
                                 const int *wg, const int *items, int nargs, const parac_cl_arg *args, int tuned)
{
    PARAC_TRY(parac__cl_injected(kernel));
    size_t count[3];
    int empty;
    PARAC_TRY(parac__launch_counts(kernel, ndim, lo, hi, items, count, &empty));
    if (empty) return PARAC_OK;
    cl_kernel k;
    PARAC_TRY(parac__cl_kernel(s, kernel, &k));
    cl_uint ai = 0;
    for (int d = 0; d < ndim; d++) {
        int l = (int)lo[d], h = (int)hi[d];
        PARAC_TRY(set_arg(k, &ai, sizeof l, &l, kernel));
        PARAC_TRY(set_arg(k, &ai, sizeof h, &h, kernel));
    }
    PARAC_TRY(set_args(k, &ai, nargs, args, kernel));
    /* the work-group shape, shrunk until it fits the kernel's limit */
    size_t kmax = s->max_wg;
    size_t kwg = 0;
    if (clGetKernelWorkGroupInfo(k, s->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg, NULL) == CL_SUCCESS &&
        kwg > 0 && kwg < kmax)
        kmax = kwg;
    size_t local[3] = {1, 1, 1}, global[3];
    for (int d = 0; d < ndim; d++) local[d] = wg && wg[d] > 0 ? (size_t)wg[d] : 1;
    for (;;) {
        size_t total = local[0] * local[1] * local[2];
        if (total <= kmax) break;
        int big = local[0] >= local[1] ? (local[0] >= local[2] ? 0 : 2) : (local[1] >= local[2] ? 1 : 2);
        local[big] /= 2;
    }
    /* no wider than the work itself */
    for (int d = 0; d < ndim; d++)
        while (local[d] > 1 && local[d] / 2 >= count[d]) local[d] /= 2;
    parac__spread_small_launch(ndim, count, s->units, local); /* small launches over more compute units */
    if (tuned && s->search) PARAC_TRY(parac__cl_search_shape(s, k, kernel, (cl_uint)ndim, count, kmax, local));
    for (int d = 0; d < ndim; d++) global[d] = (count[d] + local[d] - 1) / local[d] * local[d];
    cl_int err = enqueue(s, k, (cl_uint)ndim, global, local);
    if (err != CL_SUCCESS)
        return parac__fail(PARAC_ERR_OPENCL, "launching %s (%zux%zux%zu in groups of %zux%zux%zu) failed (error %d)",
                           kernel, global[0], global[1], global[2], local[0], local[1], local[2], (int)err);
    return PARAC_OK;
}

/* A one-launch kernel's work-group for wg: halved along its longer axis
 * until the kernel allows it, then no wider than the interior's work. */
static parac_status one_launch_shape(parac_cl_session *s, cl_kernel k, int ndim, const int *wg, const size_t count[3],
                                     int empty, size_t local[3], size_t *kmax_out)
{
    size_t kmax = s->max_wg, kwg = 0;
    if (clGetKernelWorkGroupInfo(k, s->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg, NULL) == CL_SUCCESS &&
        kwg > 0 && kwg < kmax)
        kmax = kwg;
    local[0] = wg && wg[0] > 0 ? (size_t)wg[0] : 1;
    local[1] = ndim == 2 && wg && wg[1] > 0 ? (size_t)wg[1] : 1;
    local[2] = 1;
    while (local[0] * local[1] > kmax) local[local[0] >= local[1] ? 0 : 1] /= 2;
    for (int d = 0; d < ndim && !empty; d++)
        while (local[d] > 1 && local[d] / 2 >= count[d]) local[d] /= 2;
    *kmax_out = kmax;
    return PARAC_OK;
}

/* The arguments of a one-launch kernel; *ib_arg: the index of the number
 * of the interior's rows of work-groups, set to every row while searching. */
static parac_status one_launch_args(cl_kernel k, const char *kernel, int ndim, const long *lo, const long *hi,
                                    const parac__boxes *boxes, int nargs, const parac_cl_arg *args, cl_uint *ib_arg)
{
    cl_uint ai = 0;
    for (int d = 0; d < ndim; d++) {
        int l = (int)lo[d], h = (int)hi[d];
        PARAC_TRY(set_arg(k, &ai, sizeof l, &l, kernel));
        PARAC_TRY(set_arg(k, &ai, sizeof h, &h, kernel));
    }
    PARAC_TRY(set_arg(k, &ai, sizeof *boxes, boxes, kernel));
    *ib_arg = ai;
    int ib = 2147483647; /* while the search times shapes: every work-group is the interior's */
    PARAC_TRY(set_arg(k, &ai, sizeof ib, &ib, kernel));
    return set_args(k, &ai, nargs, args, kernel);
}

parac_status parac_cl_launch_variants(parac_cl_session *s, int nvar, const parac_kernel_variant *v, int ndim,
                                      const long *lo, const long *hi, int nbox, const long *boxes, int nargs,
                                      const parac_cl_arg *args, int tuned)
{
    PARAC_TRY(parac__check_variants(nvar, v));
    PARAC_TRY(parac__cl_injected(v[0].kernel));
    parac__one_launch w[PARAC__MAX_VARIANTS];
    parac__cl_candidate c[PARAC__MAX_VARIANTS];
    int nothing = 0;
    for (int i = 0; i < nvar; i++) {
        PARAC_TRY(parac__one_launch_work(v[i].kernel, ndim, lo, hi, v[i].items, nbox, boxes, &w[i], &nothing));
        if (nothing) return PARAC_OK;
        c[i].name = v[i].kernel;
        c[i].fixed = v[i].fixed_shape;
        memcpy(c[i].count, w[i].count, sizeof c[i].count);
    }
    const int empty = w[0].empty;
    const int search = tuned && s->search && !empty;
    cl_uint ib_arg = 0;
    /* without the search: the model's kernel, or the one PARAC_CL_VARIANT names */
    const int forced = s->variant > 0 && s->variant < nvar ? s->variant : 0;
    for (int i = 0; i < nvar; i++) {
        if (!search && i != forced) continue;
        PARAC_TRY(parac__cl_kernel(s, v[i].kernel, &c[i].k));
        PARAC_TRY(one_launch_shape(s, c[i].k, ndim, v[i].wg, c[i].count, empty, c[i].local, &c[i].kmax));
        PARAC_TRY(one_launch_args(c[i].k, v[i].kernel, ndim, lo, hi, &w[i].boxes, nargs, args, &ib_arg));
    }
    int chosen = search ? 0 : forced;
    size_t local[3] = {c[chosen].local[0], c[chosen].local[1], 1};
    if (search && nvar > 1) PARAC_TRY(parac__cl_search_variants(s, (cl_uint)ndim, nvar, c, &chosen, local));
    else if (search && !c[0].fixed)
        PARAC_TRY(parac__cl_search_shape(s, c[0].k, v[0].kernel, (cl_uint)ndim, c[0].count, c[0].kmax, local));
    const char *kernel = v[chosen].kernel;
    cl_kernel k = c[chosen].k;
    /* the interior's work-groups, then rows of them for the border work-items */
    size_t gx, iblocks, rows;
    PARAC_TRY(parac__one_launch_grid(kernel, ndim, &w[chosen], local, 2147483647u / local[1], &gx, &iblocks, &rows));
    int ib = (int)iblocks;
    cl_uint ib_again = ib_arg;
    PARAC_TRY(set_arg(k, &ib_again, sizeof ib, &ib, kernel));
    size_t global[2] = {gx * local[0], rows * local[1]};
    cl_int err = enqueue(s, k, 2, global, local);
    if (err != CL_SUCCESS)
        return parac__fail(PARAC_ERR_OPENCL, "launching %s (%zux%zu in groups of %zux%zu) failed (error %d)", kernel,
                           global[0], global[1], local[0], local[1], (int)err);
    return PARAC_OK;
}

parac_status parac_cl_launch_all(parac_cl_session *s, const char *kernel, int ndim, const long *lo, const long *hi,
                                 const int *wg, const int *items, int nbox, const long *boxes, int nargs,
                                 const parac_cl_arg *args, int tuned)
{
    const parac_kernel_variant v = parac__one_variant(kernel, ndim, wg, items);
    return parac_cl_launch_variants(s, 1, &v, ndim, lo, hi, nbox, boxes, nargs, args, tuned);
}

parac_status parac_cl_launch_boxes(parac_cl_session *s, const char *kernel, int ndim, int nbox, const long *boxes,
                                   int nargs, const parac_cl_arg *args)
{
    PARAC_TRY(parac__cl_injected(kernel));
    parac__boxes bx; /* the kernel's parac_boxes: cl_int is int */
    long total = 0;
    PARAC_TRY(parac__pack_boxes(kernel, ndim, nbox, boxes, &bx, &total));
    if (total == 0) return PARAC_OK;
    cl_kernel k;
    PARAC_TRY(parac__cl_kernel(s, kernel, &k));
    cl_uint ai = 0;
    PARAC_TRY(set_arg(k, &ai, sizeof bx, &bx, kernel));
    PARAC_TRY(set_args(k, &ai, nargs, args, kernel));
    size_t local = 256, kwg = 0;
    if (local > s->max_wg) local = s->max_wg;
    if (clGetKernelWorkGroupInfo(k, s->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg, NULL) == CL_SUCCESS &&
        kwg > 0 && kwg < local)
        local = kwg;
    size_t global = ((size_t)total + local - 1) / local * local;
    cl_int err = enqueue(s, k, 1, &global, &local);
    if (err != CL_SUCCESS)
        return parac__fail(PARAC_ERR_OPENCL, "launching %s (%zu in groups of %zu) failed (error %d)", kernel, global,
                           local, (int)err);
    return PARAC_OK;
}

parac_status parac_cl_reduce(parac_cl_session *s, const char *kernel, parac_cl_matrix *m, size_t acc_size,
                             void *result)
{
    PARAC_TRY(parac__cl_injected(kernel));
    cl_kernel k1, k2;
    char final_name[512];
    snprintf(final_name, sizeof final_name, "%s_final", kernel);
    PARAC_TRY(parac__cl_kernel(s, kernel, &k1));
    PARAC_TRY(parac__cl_kernel(s, final_name, &k2));
    size_t wg = 256;
    size_t kw = 0;
    if (clGetKernelWorkGroupInfo(k1, s->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kw, &kw, NULL) == CL_SUCCESS &&
        kw > 0 && kw < wg)
        wg = kw;
    if (clGetKernelWorkGroupInfo(k2, s->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kw, &kw, NULL) == CL_SUCCESS &&
        kw > 0 && kw < wg)
        wg = kw;
    while (wg & (wg - 1)) wg &= wg - 1; /* a power of two for the tree */
    double total = (double)m->dims[0] * (double)m->dims[1] * (double)m->dims[2];
    size_t groups = (size_t)((total + (double)wg - 1) / (double)wg);
    if (groups > 1024) groups = 1024;
    if (groups < 1) groups = 1;
    cl_int err;
    cl_mem partial = clCreateBuffer(s->context, CL_MEM_READ_WRITE, groups * acc_size, NULL, &err);
    PARAC_CL_TRY(err, "clCreateBuffer (reduction partials)");
    cl_mem res = clCreateBuffer(s->context, CL_MEM_READ_WRITE, acc_size, NULL, &err);
    if (err != CL_SUCCESS) {
        clReleaseMemObject(partial);
        return parac__fail(PARAC_ERR_OPENCL, "clCreateBuffer (reduction result) failed (error %d)", (int)err);
    }
    parac_status st = PARAC_OK;
    cl_uint ai = 0;
    int n = (int)groups;
    size_t g1 = groups * wg;
    if ((st = set_matrix(k1, &ai, m, kernel)) != PARAC_OK) goto done;
    if ((st = set_arg(k1, &ai, sizeof partial, &partial, kernel)) != PARAC_OK) goto done;
    if ((st = set_arg(k1, &ai, wg * acc_size, NULL, kernel)) != PARAC_OK) goto done;
    err = enqueue(s, k1, 1, &g1, &wg);
    if (err != CL_SUCCESS) {
        st = parac__fail(PARAC_ERR_OPENCL, "launching %s failed (error %d)", kernel, (int)err);
        goto done;
    }
    ai = 0;
    if ((st = set_arg(k2, &ai, sizeof partial, &partial, final_name)) != PARAC_OK) goto done;
    if ((st = set_arg(k2, &ai, sizeof n, &n, final_name)) != PARAC_OK) goto done;
    if ((st = set_arg(k2, &ai, sizeof res, &res, final_name)) != PARAC_OK) goto done;
    if ((st = set_arg(k2, &ai, wg * acc_size, NULL, final_name)) != PARAC_OK) goto done;
    err = enqueue(s, k2, 1, &wg, &wg);
    if (err != CL_SUCCESS) {
        st = parac__fail(PARAC_ERR_OPENCL, "launching %s failed (error %d)", final_name, (int)err);
        goto done;
    }
    err = clEnqueueReadBuffer(s->queue, res, CL_TRUE, 0, acc_size, result, 0, NULL, NULL);
    if (err != CL_SUCCESS) st = parac__fail(PARAC_ERR_OPENCL, "reading the reduction result failed (error %d)", (int)err);
done:
    clReleaseMemObject(partial);
    clReleaseMemObject(res);
    return st;
}
