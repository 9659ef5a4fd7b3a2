/* The search over block shapes (PARAC_CU_SEARCH=1), as the OpenCL runtime's
 * over work-group shapes: the first launch of a kernel that gives the same
 * result however often it runs, with a new work size, runs it once per
 * candidate shape, times each candidate's best of three by CUDA events and
 * keeps the fastest, in the session and in the disk cache (search-KEY.txt,
 * keyed by the program cache's key, the kernel and the work size). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device_runtime.h"
#include "core/disk_cache.h"
#include "core/error_internal.h"
#include "cuda_rt/runtime_internal.h"

struct parac__cu_shape {
    uint64_t key;
    unsigned block[3];
};

static long searched_count, reused_count; /* since the process started, for tests */

void parac_cu_search_counts(long *searched, long *reused)
{
    if (searched) *searched = searched_count;
    if (reused) *reused = reused_count;
}

/* Milliseconds for the best of three runs with this shape, or a negative
 * value when the kernel cannot run with it. */
static double time_shape(parac_cu_session *s, parac__cu_kernel_entry *k, int ndim, const size_t count[3],
                         const unsigned block[3], void **args)
{
    dim3 g = {1, 1, 1}, b = {block[0], block[1], block[2]};
    unsigned *gp[3] = {&g.x, &g.y, &g.z};
    for (int d = 0; d < ndim; d++) *gp[d] = (unsigned)((count[d] + block[d] - 1) / block[d]);
    cudaEvent_t e0, e1;
    if (cudaEventCreate(&e0) != cudaSuccess) return -1;
    if (cudaEventCreate(&e1) != cudaSuccess) {
        cudaEventDestroy(e0);
        return -1;
    }
    double best = -1;
    for (int r = 0; r < 4; r++) { /* the first run warms up */
        float ms = 0;
        if (cudaEventRecord(e0, s->stream) != cudaSuccess ||
            cudaLaunchKernel((const void *)k->kernel, g, b, args, 0, s->stream) != cudaSuccess ||
            cudaEventRecord(e1, s->stream) != cudaSuccess || cudaEventSynchronize(e1) != cudaSuccess ||
            cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess) {
            cudaGetLastError(); /* a refused shape is not an error of the program */
            best = -1;
            break;
        }
        if (r > 0 && (best < 0 || ms < best)) best = ms;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return best;
}

static int usable(const unsigned b[3], int ndim, const size_t count[3], int kmax, const int dev_max[3])
{
    long total = 1;
    for (int d = 0; d < 3; d++) {
        if (d >= ndim && b[d] != 1) return 0;
        if (d < ndim && ((int)b[d] > dev_max[d] || (b[d] > 1 && b[d] / 2 >= count[d]))) return 0;
        total *= b[d];
    }
    return total <= kmax;
}

static parac_status remember(parac_cu_session *s, uint64_t key, const unsigned block[3])
{
    struct parac__cu_shape *n = realloc(s->shapes, sizeof *n * (size_t)(s->nshapes + 1));
    if (!n) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "block-shape search: no memory");
    s->shapes = n;
    s->shapes[s->nshapes].key = key;
    memcpy(s->shapes[s->nshapes].block, block, sizeof s->shapes[0].block);
    s->nshapes++;
    return PARAC_OK;
}

parac_status parac__cu_search_shape(parac_cu_session *s, parac__cu_kernel_entry *k, int ndim, const size_t count[3],
                                    void **args, unsigned block[3])
{
    char what[160];
    snprintf(what, sizeof what, "cuda %d:%zux%zux%zu", ndim, count[0], count[1], count[2]);
    const uint64_t key = parac__fnv(parac__fnv(s->program_key, k->name), what);
    for (int i = 0; i < s->nshapes; i++)
        if (s->shapes[i].key == key) {
            memcpy(block, s->shapes[i].block, sizeof s->shapes[i].block);
            return PARAC_OK;
        }
    unsigned got[3];
    if (parac__search_cache_load(key, got) && usable(got, ndim, count, k->max_threads, s->max_dims)) {
        memcpy(block, got, sizeof got);
        reused_count++;
        return remember(s, key, block);
    }
    int ncand = 0;
    const unsigned(*cand)[3] = parac__search_candidates(ndim, &ncand);
    unsigned best[3] = {block[0], block[1], block[2]};
    double best_t = time_shape(s, k, ndim, count, block, args);
    for (int c = 0; c < ncand; c++) {
        if (!usable(cand[c], ndim, count, k->max_threads, s->max_dims) || !memcmp(cand[c], block, sizeof best))
            continue;
        const double t = time_shape(s, k, ndim, count, cand[c], args);
        if (t >= 0 && (best_t < 0 || t < best_t)) {
            best_t = t;
            memcpy(best, cand[c], sizeof best);
        }
    }
    memcpy(block, best, sizeof best);
    searched_count++;
    char comment[512];
    snprintf(comment, sizeof comment, "%.160s %.60s on %.200s: %.1f us", k->name, what, s->label, best_t * 1e3);
    parac__search_cache_store(key, best, comment);
    return remember(s, key, block);
}
