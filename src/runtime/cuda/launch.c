/* The CUDA backend's launches: one launch on the session's stream, timed
 * when the session profiles; the search's timing of a shape; and the
 * two-level reductions. The host code waits only where it reads a result
 * (a download, a reduction). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "runtime/cuda/runtime_internal.h"

static parac_cu_session *cu(parac__rt_session *s) { return (parac_cu_session *)s; }

static dim3 dims_of(int ndim, const size_t v[3])
{
    dim3 d = {1, 1, 1};
    if (ndim > 0) d.x = (unsigned)v[0];
    if (ndim > 1) d.y = (unsigned)v[1];
    if (ndim > 2) d.z = (unsigned)v[2];
    return d;
}

/* Profiling: a busy kernel (busy.cu) holds the stream while the host queues
 * the start event, the kernel and the end event, so that the events time the
 * kernel as it runs among other launches, not the host's time to launch it. */
enum { PROFILE_BUSY_NS = 50000 };

parac_status parac__cu_run(parac__rt_session *rs, parac__rt_kernel *k, int ndim, const size_t groups[3],
                           const size_t shape[3], const parac__rt_args *a)
{
    parac_cu_session *s = cu(rs);
    const dim3 g = dims_of(ndim, groups), b = dims_of(ndim, shape);
    const int profile = rs->knobs.profile;
    cudaEvent_t e0 = NULL, e1 = NULL;
    if (profile) {
        PARAC_CU_TRY(cudaEventCreate(&e0), "cudaEventCreate");
        if (cudaEventCreate(&e1) != cudaSuccess) {
            cudaEventDestroy(e0);
            return parac__fail(PARAC_ERR_CUDA, "cudaEventCreate failed");
        }
        if (!parac__cu_busy(s->stream, PROFILE_BUSY_NS)) cudaGetLastError(); /* timed from an idle stream then */
        cudaEventRecord(e0, s->stream);
    }
    cudaError_t err = cudaLaunchKernel((const void *)k->handle, g, b, (void **)a->ptr, 0, s->stream);
    if (profile) {
        float ms = 0;
        const cudaError_t recorded = err == cudaSuccess ? cudaEventRecord(e1, s->stream) : cudaSuccess;
        const cudaError_t synced = cudaStreamSynchronize(s->stream);
        if (err == cudaSuccess) err = recorded;
        if (err == cudaSuccess) err = synced;
        if (err == cudaSuccess) err = cudaEventElapsedTime(&ms, e0, e1);
        if (err == cudaSuccess) parac__kernel_times_add(&rs->backend->stats->times, k->name, (unsigned long long)(ms * 1e6));
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
    }
    if (err != cudaSuccess)
        return parac__fail(PARAC_ERR_CUDA, "launching %s (%ux%ux%u blocks of %ux%ux%u) failed: %s", k->name, g.x, g.y,
                           g.z, b.x, b.y, b.z, cudaGetErrorString(err));
    return PARAC_OK;
}

/* Each run starts behind a busy kernel (busy.cu), so that the host's time to
 * launch it is not counted; the first run warms up. */
enum { SEARCH_BUSY_NS = 30000 };

double parac__cu_time(parac__rt_session *rs, parac__rt_kernel *k, int ndim, const size_t groups[3],
                      const size_t shape[3], const parac__rt_args *a)
{
    parac_cu_session *s = cu(rs);
    const dim3 g = dims_of(ndim, groups), b = dims_of(ndim, shape);
    cudaEvent_t e0, e1;
    if (cudaEventCreate(&e0) != cudaSuccess) return -1;
    if (cudaEventCreate(&e1) != cudaSuccess) {
        cudaEventDestroy(e0);
        return -1;
    }
    double best = -1;
    for (int r = 0; r < 4; r++) {
        float ms = 0;
        if (!parac__cu_busy(s->stream, SEARCH_BUSY_NS) || cudaEventRecord(e0, s->stream) != cudaSuccess ||
            cudaLaunchKernel((const void *)k->handle, g, b, (void **)a->ptr, 0, s->stream) != cudaSuccess ||
            cudaEventRecord(e1, s->stream) != cudaSuccess || cudaEventSynchronize(e1) != cudaSuccess ||
            cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess) {
            cudaGetLastError(); /* a refused shape is not an error of the program */
            best = -1;
            break;
        }
        if (r > 0 && (best < 0 || ms * 1e-3 < best)) best = ms * 1e-3;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return best;
}

parac_status parac_cu_reduce(parac_cu_session *s, const char *kernel, parac_cu_matrix *m, size_t acc_size,
                             void *result)
{
    if (!s || !kernel || !m || !result)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "parac_cu_reduce: NULL argument");
    PARAC_TRY(parac__cu_injected(kernel));
    PARAC_TRY(parac__cu_use(s));
    char final_name[512];
    snprintf(final_name, sizeof final_name, "%s_final", kernel);
    parac__rt_kernel *k1, *k2;
    PARAC_TRY(parac__rt_kernel_get(&s->rt, kernel, &k1));
    PARAC_TRY(parac__rt_kernel_get(&s->rt, final_name, &k2));
    /* blocks of whole warps: the kernels reduce each warp by shuffles, then
     * the warps' results in shared memory */
    size_t threads = 256;
    if (k1->max_items < threads) threads = k1->max_items;
    if (k2->max_items < threads) threads = k2->max_items;
    threads &= ~(size_t)31;
    if (threads < 32) return parac__fail(PARAC_ERR_CUDA, "kernel %s allows fewer than 32 threads", kernel);
    double total = (double)m->dims[0] * (double)m->dims[1] * (double)m->dims[2];
    size_t groups = (size_t)((total + (double)threads - 1) / (double)threads);
    if (groups > 1024) groups = 1024;
    if (groups < 1) groups = 1;
    void *partial = NULL, *res = NULL;
    parac_status st = parac__cu_check(cudaMalloc(&partial, groups * acc_size), "cudaMalloc (reduction partials)");
    if (st == PARAC_OK) st = parac__cu_check(cudaMalloc(&res, acc_size), "cudaMalloc (reduction result)");
    if (st == PARAC_OK) {
        parac__rt_args a;
        a.n = a.nb = a.ni = 0;
        const parac_cu_arg marg = PARAC_CU_MATRIX(m);
        st = parac__rt_args_program(&a, 1, &marg, kernel);
        if (st == PARAC_OK) st = parac__rt_arg(&a, &partial, sizeof partial, kernel);
        const size_t g1[3] = {groups, 1, 1}, b[3] = {threads, 1, 1}, one[3] = {1, 1, 1};
        if (st == PARAC_OK) st = parac__cu_run(&s->rt, k1, 1, g1, b, &a);
        int n = (int)groups;
        parac__rt_args a2;
        a2.n = a2.nb = a2.ni = 0;
        if (st == PARAC_OK) st = parac__rt_arg(&a2, &partial, sizeof partial, final_name);
        if (st == PARAC_OK) st = parac__rt_arg(&a2, &n, sizeof n, final_name);
        if (st == PARAC_OK) st = parac__rt_arg(&a2, &res, sizeof res, final_name);
        if (st == PARAC_OK) st = parac__cu_run(&s->rt, k2, 1, one, b, &a2);
    }
    if (st == PARAC_OK) {
        cudaError_t e = cudaMemcpyAsync(result, res, acc_size, cudaMemcpyDeviceToHost, s->stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(s->stream);
        st = parac__cu_check(e, "reading the reduction result");
    }
    cudaFree(partial);
    cudaFree(res);
    return st;
}
