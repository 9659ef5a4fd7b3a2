/* The OpenCL backend's launches: one launch (its arguments set, then
 * enqueued, timed by its event when the session profiles); the search's
 * timing of a shape; and the two-level reductions. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/error_internal.h"
#include "runtime/opencl/runtime_internal.h"

static parac_cl_session *cl(parac__rt_session *s) { return (parac_cl_session *)s; }

static parac_status set_args(cl_kernel k, const parac__rt_args *a, const char *name)
{
    for (int i = 0; i < a->n; i++) {
        const cl_int err = clSetKernelArg(k, (cl_uint)i, a->size[i], a->ptr[i]);
        if (err != CL_SUCCESS)
            return parac__fail(PARAC_ERR_OPENCL, "clSetKernelArg(%s, %d) failed (error %d)", name, i, (int)err);
    }
    return PARAC_OK;
}

/* clEnqueueNDRangeKernel, timed by its event when the session profiles. */
static cl_int enqueue(parac__rt_session *s, parac__rt_kernel *k, int ndim, const size_t *global, const size_t *local)
{
    cl_command_queue q = cl(s)->queue;
    if (!s->knobs.profile) return clEnqueueNDRangeKernel(q, (cl_kernel)k->handle, (cl_uint)ndim, NULL, global, local, 0, NULL, NULL);
    cl_event ev;
    cl_int err = clEnqueueNDRangeKernel(q, (cl_kernel)k->handle, (cl_uint)ndim, NULL, global, local, 0, NULL, &ev);
    if (err != CL_SUCCESS) return err;
    cl_ulong t0 = 0, t1 = 0;
    err = clWaitForEvents(1, &ev);
    if (err == CL_SUCCESS) err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
    if (err == CL_SUCCESS) err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    if (err == CL_SUCCESS && t1 > t0) parac__kernel_times_add(&s->backend->stats->times, k->name, (unsigned long long)(t1 - t0));
    clReleaseEvent(ev);
    return err;
}

static void global_size(int ndim, const size_t groups[3], const size_t shape[3], size_t global[3])
{
    for (int d = 0; d < 3; d++) global[d] = d < ndim ? groups[d] * shape[d] : 1;
}

parac_status parac__cl_run(parac__rt_session *s, parac__rt_kernel *k, int ndim, const size_t groups[3],
                           const size_t shape[3], const parac__rt_args *a)
{
    PARAC_TRY(set_args((cl_kernel)k->handle, a, k->name));
    size_t global[3];
    global_size(ndim, groups, shape, global);
    const cl_int err = enqueue(s, k, ndim, global, shape);
    if (err != CL_SUCCESS)
        return parac__fail(PARAC_ERR_OPENCL, "launching %s (%zux%zux%zu in groups of %zux%zux%zu) failed (error %d)",
                           k->name, global[0], global[1], global[2], shape[0], shape[1], shape[2], (int)err);
    return PARAC_OK;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double parac__cl_time(parac__rt_session *s, parac__rt_kernel *k, int ndim, const size_t groups[3],
                      const size_t shape[3], const parac__rt_args *a)
{
    if (set_args((cl_kernel)k->handle, a, k->name) != PARAC_OK) return -1;
    cl_command_queue q = cl(s)->queue;
    size_t global[3];
    global_size(ndim, groups, shape, global);
    if (clEnqueueNDRangeKernel(q, (cl_kernel)k->handle, (cl_uint)ndim, NULL, global, shape, 0, NULL, NULL) != CL_SUCCESS ||
        clFinish(q) != CL_SUCCESS)
        return -1; /* e.g. too many resources for this shape */
    double best = -1;
    for (int r = 0; r < 3; r++) {
        const double t0 = now_s();
        if (clEnqueueNDRangeKernel(q, (cl_kernel)k->handle, (cl_uint)ndim, NULL, global, shape, 0, NULL, NULL) !=
                CL_SUCCESS ||
            clFinish(q) != CL_SUCCESS)
            return -1;
        const double t = now_s() - t0;
        if (best < 0 || t < best) best = t;
    }
    return best;
}

parac_status parac_cl_reduce(parac_cl_session *s, const char *kernel, parac_cl_matrix *m, size_t acc_size,
                             void *result)
{
    if (!s || !kernel || !m || !result)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "parac_cl_reduce: NULL argument");
    PARAC_TRY(parac__cl_injected(kernel));
    parac__rt_kernel *k1, *k2;
    char final_name[512];
    snprintf(final_name, sizeof final_name, "%s_final", kernel);
    PARAC_TRY(parac__rt_kernel_get(&s->rt, kernel, &k1));
    PARAC_TRY(parac__rt_kernel_get(&s->rt, final_name, &k2));
    size_t wg = 256;
    if (k1->max_items < wg) wg = k1->max_items;
    if (k2->max_items < wg) wg = k2->max_items;
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
    /* each kernel's partial sums in local memory: an argument of that size without a value */
    int n = (int)groups;
    const size_t g1[3] = {groups, 1, 1}, shape[3] = {wg, 1, 1}, one[3] = {1, 1, 1};
    parac__rt_args a1, a2;
    a1.n = a1.nb = a1.ni = a2.n = a2.nb = a2.ni = 0;
    const parac_cl_arg marg = PARAC_CL_MATRIX(m);
    parac_status st = parac__rt_args_program(&a1, 1, &marg, kernel);
    if (st == PARAC_OK) st = parac__rt_arg(&a1, &partial, sizeof partial, kernel);
    if (st == PARAC_OK) st = parac__rt_arg(&a1, NULL, wg * acc_size, kernel);
    if (st == PARAC_OK) st = parac__cl_run(&s->rt, k1, 1, g1, shape, &a1);
    if (st == PARAC_OK) st = parac__rt_arg(&a2, &partial, sizeof partial, final_name);
    if (st == PARAC_OK) st = parac__rt_arg(&a2, &n, sizeof n, final_name);
    if (st == PARAC_OK) st = parac__rt_arg(&a2, &res, sizeof res, final_name);
    if (st == PARAC_OK) st = parac__rt_arg(&a2, NULL, wg * acc_size, final_name);
    if (st == PARAC_OK) st = parac__cl_run(&s->rt, k2, 1, one, shape, &a2);
    if (st == PARAC_OK) {
        err = clEnqueueReadBuffer(s->queue, res, CL_TRUE, 0, acc_size, result, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            st = parac__fail(PARAC_ERR_OPENCL, "reading the reduction result failed (error %d)", (int)err);
    }
    clReleaseMemObject(partial);
    clReleaseMemObject(res);
    return st;
}
