/* The search over block shapes (PARAC_CU_SEARCH=1), as the OpenCL runtime's
 * over work-group shapes: the first launch of a kernel that gives the same
 * result however often it runs, with a new work size, runs it once per
 * candidate shape, times each candidate's best of three by CUDA events and
 * keeps the fastest, in the session and in the disk cache (search-KEY.txt,
 * keyed by the program cache's key, the kernel and the work size). A
 * region that paracc planned several ways (parac_cu_launch_variants) has
 * each candidate kernel timed the same way, and the choice names the
 * kernel with its shape. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "core/device_runtime.h"
#include "core/disk_cache.h"
#include "core/error_internal.h"
#include "cuda_rt/runtime_internal.h"

struct parac__cu_shape {
    uint64_t key;
    unsigned block[3];
    int variant;
};

static long searched_count, reused_count; /* since the process started, for tests */

void parac_cu_search_counts(long *searched, long *reused)
{
    if (searched) *searched = searched_count;
    if (reused) *reused = reused_count;
}

/* Milliseconds for the best of three runs with this shape, or a negative
 * value when the kernel cannot run with it. Each run starts behind a busy
 * kernel (busy.cu), so that the host's time to launch it is not counted. */
enum { SEARCH_BUSY_NS = 30000 };
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
        if (!parac__cu_busy(s->stream, SEARCH_BUSY_NS) || cudaEventRecord(e0, s->stream) != cudaSuccess ||
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

static parac_status remember(parac_cu_session *s, uint64_t key, const unsigned block[3], int variant)
{
    struct parac__cu_shape *n = parac__realloc(s->shapes, sizeof *n * (size_t)(s->nshapes + 1));
    if (!n) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "block-shape search: no memory");
    s->shapes = n;
    s->shapes[s->nshapes].key = key;
    memcpy(s->shapes[s->nshapes].block, block, sizeof s->shapes[0].block);
    s->shapes[s->nshapes].variant = variant;
    s->nshapes++;
    return PARAC_OK;
}

parac_status parac__cu_search_variants(parac_cu_session *s, int ndim, int ncand, const parac__cu_candidate *c,
                                       void **args, int *chosen, unsigned block[3])
{
    char what[160];
    snprintf(what, sizeof what, "cuda %d:%zux%zux%zu", ndim, c[0].count[0], c[0].count[1], c[0].count[2]);
    const uint64_t key = parac__fnv(parac__fnv(s->program_key, c[0].k->name), what);
    for (int i = 0; i < s->nshapes; i++)
        if (s->shapes[i].key == key) {
            memcpy(block, s->shapes[i].block, sizeof s->shapes[i].block);
            *chosen = s->shapes[i].variant;
            return PARAC_OK;
        }
    unsigned got[3], pick_v = 0;
    if (parac__search_cache_load(key, got, &pick_v) && (int)pick_v < ncand &&
        (c[pick_v].fixed ? !memcmp(got, c[pick_v].block, sizeof got)
                         : usable(got, ndim, c[pick_v].count, c[pick_v].k->max_threads, s->max_dims))) {
        memcpy(block, got, sizeof got);
        *chosen = (int)pick_v;
        reused_count++;
        return remember(s, key, block, *chosen);
    }
    int ncs = 0;
    const unsigned(*cs)[3] = parac__search_candidates(ndim, &ncs);
    int best_v = 0;
    unsigned best[3];
    memcpy(best, c[0].block, sizeof best);
    double best_t = -1;
    for (int v = 0; v < ncand; v++) {
        const parac__cu_candidate *cv = &c[v];
        for (int i = -1; i < (cv->fixed ? 0 : ncs); i++) { /* -1: the candidate's own block */
            const unsigned *b = i < 0 ? cv->block : cs[i];
            if (i >= 0 && (!usable(b, ndim, cv->count, cv->k->max_threads, s->max_dims) || !memcmp(b, cv->block, sizeof best)))
                continue;
            const double t = time_shape(s, cv->k, ndim, cv->count, b, args);
            if (t >= 0 && (best_t < 0 || t < best_t)) {
                best_t = t;
                best_v = v;
                memcpy(best, b, sizeof best);
            }
        }
    }
    memcpy(block, best, sizeof best);
    *chosen = best_v;
    searched_count++;
    char comment[512];
    snprintf(comment, sizeof comment, "%.160s %.60s on %.200s: %.1f us", c[best_v].k->name, what, s->label, best_t * 1e3);
    parac__search_cache_store(key, best, (unsigned)best_v, comment);
    return remember(s, key, block, best_v);
}

parac_status parac__cu_search_shape(parac_cu_session *s, parac__cu_kernel_entry *k, int ndim, const size_t count[3],
                                    void **args, unsigned block[3])
{
    parac__cu_candidate c = {k, {count[0], count[1], count[2]}, {block[0], block[1], block[2]}, 0};
    int chosen = 0;
    return parac__cu_search_variants(s, ndim, 1, &c, args, &chosen, block);
}

/* ---- fusion choices (parac/fusion_choice.h) -------------------------------- */

static parac_status wait_idle(void *ctx)
{
    parac_cu_session *s = ctx;
    return parac__cu_check(cudaStreamSynchronize(s->stream), "fusion choice: cudaStreamSynchronize");
}

parac_status parac_cu_fusion_begin(parac_cu_session *s, const char *name, int nalts, int nsizes, const long *sizes,
                                   parac_fusion_choice *c)
{
    if (!s || !c || nsizes < 0 || (nsizes && !sizes))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "parac_cu_fusion_begin: no session, choice or sizes");
    const uint64_t key = parac__fusion_key(s->program_key, name, nsizes, sizes);
    int remembered = -1, from_disk = 0;
    for (int i = 0; i < s->nshapes && remembered < 0; i++)
        if (s->shapes[i].key == key) remembered = s->shapes[i].variant;
    PARAC_TRY(parac__fusion_plan(c, name, key, nalts, s->fusion, s->search, remembered, &from_disk));
    if (!from_disk) return PARAC_OK;
    reused_count++;
    const unsigned no_shape[3] = {1, 1, 1};
    return remember(s, key, no_shape, c->alt);
}

int parac_cu_fusion_next(parac_cu_session *s, parac_fusion_choice *c)
{
    if (!s || !c) return 0;
    int decided = 0;
    const int run = parac__fusion_step(c, wait_idle, s, &decided);
    if (decided) {
        searched_count++;
        parac__fusion_store(c, s->label);
        const unsigned no_shape[3] = {1, 1, 1};
        const parac_status st = remember(s, c->key, no_shape, c->alt);
        if (st != PARAC_OK) c->status = st;
    }
    return run && c->status == PARAC_OK;
}
