/* Kernel launches and two-level reductions for generated CUDA code. Every
 * launch goes on the session's stream; the host code waits only where it
 * reads a result (a download, a reduction). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device_runtime.h"
#include "core/error_internal.h"
#include "core/kernel_times.h"
#include "cuda_rt/runtime_internal.h"

/* PARAC_CU_PROFILE: all sessions' kernel time, in total and per kernel name */
static parac__kernel_times times = PARAC__KERNEL_TIMES_INIT;

unsigned long long parac_cu_profile_ns(void) { return parac__kernel_times_total(&times); }

int parac_cu_profile_kernel(int i, const char **name, unsigned long long *ns)
{
    return parac__kernel_times_get(&times, i, name, ns);
}

/* Profiling: a busy kernel (busy.cu) holds the stream while the host queues
 * the start event, the kernel and the end event, so that the events time the
 * kernel as it runs among other launches, not the host's time to launch it. */
enum { PROFILE_BUSY_NS = 50000 };

parac_status parac__cu_run(parac_cu_session *s, parac__cu_kernel_entry *k, const unsigned grid[3], const unsigned block[3],
                           void **args)
{
    dim3 g = {grid[0], grid[1], grid[2]}, b = {block[0], block[1], block[2]};
    cudaEvent_t e0 = NULL, e1 = NULL;
    if (s->profile) {
        PARAC_CU_TRY(cudaEventCreate(&e0), "cudaEventCreate");
        if (cudaEventCreate(&e1) != cudaSuccess) {
            cudaEventDestroy(e0);
            return parac__fail(PARAC_ERR_CUDA, "cudaEventCreate failed");
        }
        if (!parac__cu_busy(s->stream, PROFILE_BUSY_NS)) cudaGetLastError(); /* timed from an idle stream then */
        cudaEventRecord(e0, s->stream);
    }
    cudaError_t err = cudaLaunchKernel((const void *)k->kernel, g, b, args, 0, s->stream);
    if (s->profile) {
        float ms = 0;
        const cudaError_t recorded = err == cudaSuccess ? cudaEventRecord(e1, s->stream) : cudaSuccess;
        const cudaError_t synced = cudaStreamSynchronize(s->stream);
        if (err == cudaSuccess) err = recorded;
        if (err == cudaSuccess) err = synced;
        if (err == cudaSuccess) err = cudaEventElapsedTime(&ms, e0, e1);
        if (err == cudaSuccess) parac__kernel_times_add(&times, k->name, (unsigned long long)(ms * 1e6));
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
    }
    if (err != cudaSuccess)
        return parac__fail(PARAC_ERR_CUDA, "launching %s (%ux%ux%u blocks of %ux%ux%u) failed: %s", k->name, grid[0],
                           grid[1], grid[2], block[0], block[1], block[2], cudaGetErrorString(err));
    return PARAC_OK;
}

/* The argument values of one launch: each kernel parameter points into
 * `vals` (ints, pointers and the caller's values by address). */
typedef struct launch_args {
    void *ptr[96];
    int n;
    void *buffers[24];
    int ints[24 * 4 + 6];
    int nb, ni;
} launch_args;

static parac_status add(launch_args *a, void *p, const char *kernel)
{
    if (a->n >= (int)(sizeof a->ptr / sizeof *a->ptr))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "kernel %s: too many arguments", kernel);
    a->ptr[a->n++] = p;
    return PARAC_OK;
}

static parac_status add_int(launch_args *a, int v, const char *kernel)
{
    if (a->ni >= (int)(sizeof a->ints / sizeof *a->ints))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "kernel %s: too many arguments", kernel);
    a->ints[a->ni] = v;
    return add(a, &a->ints[a->ni++], kernel);
}

/* Matrices as (pointer, pitch in elements, d0, d1, d2), values by address. */
static parac_status add_args(launch_args *a, int nargs, const parac_cu_arg *args, const char *kernel)
{
    for (int i = 0; i < nargs; i++) {
        if (args[i].kind != PARAC_CU_ARG_MATRIX) {
            PARAC_TRY(add(a, (void *)args[i].value, kernel));
            continue;
        }
        parac_cu_matrix *m = args[i].matrix;
        if (!m->buffer) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "kernel %s: matrix has no buffer", kernel);
        if (a->nb >= (int)(sizeof a->buffers / sizeof *a->buffers))
            return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "kernel %s: too many matrices", kernel);
        a->buffers[a->nb] = m->buffer;
        PARAC_TRY(add(a, &a->buffers[a->nb++], kernel));
        PARAC_TRY(add_int(a, (int)(m->device_pitch / m->elem_size), kernel));
        for (int d = 0; d < 3; d++) PARAC_TRY(add_int(a, (int)m->dims[d], kernel));
    }
    return PARAC_OK;
}

static parac_status launch_items(parac_cu_session *s, const char *kernel, int ndim, const long *lo, const long *hi,
                                 const int *wg, const int *items, int nargs, const parac_cu_arg *args, int tuned)
{
    PARAC_TRY(parac__cu_injected(kernel));
    size_t count[3];
    int empty;
    PARAC_TRY(parac__launch_counts(kernel, ndim, lo, hi, items, count, &empty));
    if (empty) return PARAC_OK;
    PARAC_TRY(parac__cu_use(s));
    parac__cu_kernel_entry *k;
    PARAC_TRY(parac__cu_kernel(s, kernel, &k));
    launch_args a;
    a.n = a.nb = a.ni = 0;
    for (int d = 0; d < ndim; d++) {
        PARAC_TRY(add_int(&a, (int)lo[d], kernel));
        PARAC_TRY(add_int(&a, (int)hi[d], kernel));
    }
    PARAC_TRY(add_args(&a, nargs, args, kernel));
    /* the block shape, halved along its longest axis until the kernel allows it */
    unsigned block[3] = {1, 1, 1}, grid[3] = {1, 1, 1};
    for (int d = 0; d < ndim; d++) {
        block[d] = wg && wg[d] > 0 ? (unsigned)wg[d] : 1;
        if (block[d] > (unsigned)s->max_dims[d]) block[d] = (unsigned)s->max_dims[d];
    }
    while ((int)(block[0] * block[1] * block[2]) > k->max_threads) {
        int big = block[0] >= block[1] ? (block[0] >= block[2] ? 0 : 2) : (block[1] >= block[2] ? 1 : 2);
        block[big] /= 2;
    }
    for (int d = 0; d < ndim; d++) /* no wider than the work itself */
        while (block[d] > 1 && block[d] / 2 >= count[d]) block[d] /= 2;
    /* small launches spread over more multiprocessors: on the H200 the
     * sharpening's column border (383 work-items) took 9.5 us in 2 blocks
     * of 256, 4.4 us in the smaller blocks the search found */
    size_t spread[3] = {block[0], block[1], block[2]};
    parac__spread_small_launch(ndim, count, (unsigned)s->sms, spread);
    for (int d = 0; d < 3; d++) block[d] = (unsigned)spread[d];
    if (tuned && s->search) PARAC_TRY(parac__cu_search_shape(s, k, ndim, count, a.ptr, block));
    for (int d = 0; d < ndim; d++) {
        size_t g = (count[d] + block[d] - 1) / block[d];
        if (g > (d == 0 ? 2147483647u : 65535u))
            return parac__fail(PARAC_ERR_OVERFLOW, "kernel %s: %zu blocks along axis %d", kernel, g, d);
        grid[d] = (unsigned)g;
    }
    return parac__cu_run(s, k, grid, block, a.ptr);
}

parac_status parac_cu_launch(parac_cu_session *s, const char *kernel, int ndim, const long *lo, const long *hi,
                             const int *wg, int nargs, const parac_cu_arg *args)
{
    return launch_items(s, kernel, ndim, lo, hi, wg, NULL, nargs, args, 0);
}

parac_status parac_cu_launch_items(parac_cu_session *s, const char *kernel, int ndim, const long *lo, const long *hi,
                                   const int *wg, const int *items, int nargs, const parac_cu_arg *args)
{
    return launch_items(s, kernel, ndim, lo, hi, wg, items, nargs, args, 0);
}

parac_status parac_cu_launch_tuned(parac_cu_session *s, const char *kernel, int ndim, const long *lo, const long *hi,
                                   const int *wg, const int *items, int nargs, const parac_cu_arg *args)
{
    return launch_items(s, kernel, ndim, lo, hi, wg, items, nargs, args, 1);
}

/* A one-launch kernel's block for wg: halved along its longer axis until
 * the kernel allows it, then no wider than the interior's work. */
static void one_launch_block(const parac__cu_kernel_entry *k, int ndim, const int *wg, const size_t count[3], int empty,
                             unsigned block[3])
{
    block[0] = wg && wg[0] > 0 ? (unsigned)wg[0] : 1;
    block[1] = ndim == 2 && wg && wg[1] > 0 ? (unsigned)wg[1] : 1;
    block[2] = 1;
    while ((int)(block[0] * block[1]) > k->max_threads) block[block[0] >= block[1] ? 0 : 1] /= 2;
    for (int d = 0; d < ndim && !empty; d++)
        while (block[d] > 1 && block[d] / 2 >= count[d]) block[d] /= 2;
}

parac_status parac_cu_launch_variants(parac_cu_session *s, int nvar, const parac_kernel_variant *v, int ndim,
                                      const long *lo, const long *hi, int nbox, const long *boxes, int nargs,
                                      const parac_cu_arg *args, int tuned)
{
    PARAC_TRY(parac__check_variants(nvar, v));
    const char *kernel = v[0].kernel;
    PARAC_TRY(parac__cu_injected(kernel));
    if (ndim > 2)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "kernel %s: one launch is for regions of one or two axes", kernel);
    parac__boxes bx;
    long total = 0;
    PARAC_TRY(parac__pack_boxes(kernel, ndim, nbox, boxes, &bx, &total));
    parac__cu_candidate c[PARAC__MAX_VARIANTS];
    int empty = 0;
    for (int i = 0; i < nvar; i++) {
        c[i].fixed = v[i].fixed_shape;
        PARAC_TRY(parac__launch_counts(v[i].kernel, ndim, lo, hi, v[i].items, c[i].count, &empty));
    }
    if (empty && total == 0) return PARAC_OK;
    PARAC_TRY(parac__cu_use(s));
    const int search = tuned && s->search && !empty;
    /* without the search: the model's kernel, or the one PARAC_CU_VARIANT names */
    const int forced = s->variant > 0 && s->variant < nvar ? s->variant : 0;
    for (int i = 0; i < nvar; i++) {
        if (!search && i != forced) continue;
        PARAC_TRY(parac__cu_kernel(s, v[i].kernel, &c[i].k));
        one_launch_block(c[i].k, ndim, v[i].wg, c[i].count, empty, c[i].block);
    }
    launch_args a;
    a.n = a.nb = a.ni = 0;
    for (int d = 0; d < ndim; d++) {
        PARAC_TRY(add_int(&a, (int)lo[d], kernel));
        PARAC_TRY(add_int(&a, (int)hi[d], kernel));
    }
    PARAC_TRY(add(&a, &bx, kernel));
    /* while the search times shapes, every block is the interior's */
    PARAC_TRY(add_int(&a, 2147483647, kernel));
    int *ib = &a.ints[a.ni - 1];
    PARAC_TRY(add_args(&a, nargs, args, kernel));
    int chosen = search ? 0 : forced;
    unsigned block[3] = {c[chosen].block[0], c[chosen].block[1], c[chosen].block[2]};
    if (search && nvar > 1) PARAC_TRY(parac__cu_search_variants(s, ndim, nvar, c, a.ptr, &chosen, block));
    else if (search && !c[0].fixed) PARAC_TRY(parac__cu_search_shape(s, c[0].k, ndim, c[0].count, a.ptr, block));
    const size_t *count = c[chosen].count;
    /* the interior's blocks, then rows of them for the border work-items */
    const size_t gx = empty ? 1 : (count[0] + block[0] - 1) / block[0];
    const size_t iblocks = empty ? 0 : ndim == 2 ? (count[1] + block[1] - 1) / block[1] : 1;
    const size_t per_row = gx * block[0] * block[1], extra = ((size_t)total + per_row - 1) / per_row;
    if (gx > 2147483647u || iblocks + extra > 65535u)
        return parac__fail(PARAC_ERR_OVERFLOW, "kernel %s: %zu x %zu blocks", v[chosen].kernel, gx, iblocks + extra);
    *ib = (int)iblocks;
    const unsigned grid[3] = {(unsigned)gx, (unsigned)(iblocks + extra), 1};
    return parac__cu_run(s, c[chosen].k, grid, block, a.ptr);
}

parac_status parac_cu_launch_all(parac_cu_session *s, const char *kernel, int ndim, const long *lo, const long *hi,
                                 const int *wg, const int *items, int nbox, const long *boxes, int nargs,
                                 const parac_cu_arg *args, int tuned)
{
    const parac_kernel_variant v = parac__one_variant(kernel, ndim, wg, items);
    return parac_cu_launch_variants(s, 1, &v, ndim, lo, hi, nbox, boxes, nargs, args, tuned);
}

parac_status parac_cu_launch_boxes(parac_cu_session *s, const char *kernel, int ndim, int nbox, const long *boxes,
                                   int nargs, const parac_cu_arg *args)
{
    PARAC_TRY(parac__cu_injected(kernel));
    parac__boxes bx; /* the kernel's parac_boxes */
    long total = 0;
    PARAC_TRY(parac__pack_boxes(kernel, ndim, nbox, boxes, &bx, &total));
    if (total == 0) return PARAC_OK;
    PARAC_TRY(parac__cu_use(s));
    parac__cu_kernel_entry *k;
    PARAC_TRY(parac__cu_kernel(s, kernel, &k));
    launch_args a;
    a.n = a.nb = a.ni = 0;
    PARAC_TRY(add(&a, &bx, kernel));
    PARAC_TRY(add_args(&a, nargs, args, kernel));
    unsigned block[3] = {256, 1, 1}, grid[3] = {1, 1, 1};
    if ((int)block[0] > k->max_threads) block[0] = (unsigned)k->max_threads;
    grid[0] = (unsigned)(((size_t)total + block[0] - 1) / block[0]);
    return parac__cu_run(s, k, grid, block, a.ptr);
}

parac_status parac_cu_reduce(parac_cu_session *s, const char *kernel, parac_cu_matrix *m, size_t acc_size,
                             void *result)
{
    PARAC_TRY(parac__cu_injected(kernel));
    PARAC_TRY(parac__cu_use(s));
    char final_name[512];
    snprintf(final_name, sizeof final_name, "%s_final", kernel);
    parac__cu_kernel_entry *k1, *k2;
    PARAC_TRY(parac__cu_kernel(s, kernel, &k1));
    PARAC_TRY(parac__cu_kernel(s, final_name, &k2));
    /* blocks of whole warps: the kernels reduce each warp by shuffles, then
     * the warps' results in shared memory */
    int threads = 256;
    if (k1->max_threads < threads) threads = k1->max_threads;
    if (k2->max_threads < threads) threads = k2->max_threads;
    threads &= ~31;
    if (threads < 32) return parac__fail(PARAC_ERR_CUDA, "kernel %s allows fewer than 32 threads", kernel);
    double total = (double)m->dims[0] * (double)m->dims[1] * (double)m->dims[2];
    size_t groups = (size_t)((total + threads - 1) / threads);
    if (groups > 1024) groups = 1024;
    if (groups < 1) groups = 1;
    void *partial = NULL, *res = NULL;
    parac_status st = parac__cu_check(cudaMalloc(&partial, groups * acc_size), "cudaMalloc (reduction partials)");
    if (st == PARAC_OK) st = parac__cu_check(cudaMalloc(&res, acc_size), "cudaMalloc (reduction result)");
    if (st == PARAC_OK) {
        launch_args a;
        a.n = a.nb = a.ni = 0;
        parac_cu_arg marg = PARAC_CU_MATRIX(m);
        st = add_args(&a, 1, &marg, kernel);
        if (st == PARAC_OK) st = add(&a, &partial, kernel);
        unsigned g1[3] = {(unsigned)groups, 1, 1}, b[3] = {(unsigned)threads, 1, 1};
        if (st == PARAC_OK) st = parac__cu_run(s, k1, g1, b, a.ptr);
        int n = (int)groups;
        void *a2[3] = {&partial, &n, &res};
        unsigned one[3] = {1, 1, 1};
        if (st == PARAC_OK) st = parac__cu_run(s, k2, one, b, a2);
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
