/* The search over work-group shapes (PARAC_CL_SEARCH=1).
 *
 * For a kernel that gives the same result however often it runs (the
 * compiler launches only those through parac_cl_launch_tuned), the first
 * launch with a new (program, device, kernel, work size) runs the kernel
 * once with each candidate shape that the device and the kernel allow,
 * times each candidate's best of three runs, and keeps the fastest. The
 * choice is kept in the parac_cl_session (s->shapes) and written to the disk cache
 * (search-KEY.txt beside the program binaries, keyed by the program cache's
 * key, which covers source, options, device and driver, plus the kernel and
 * the work size), so later processes read it instead of searching. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/alloc_internal.h"
#include "core/device_runtime.h"
#include "core/disk_cache.h"
#include "core/error_internal.h"
#include "opencl/runtime_internal.h"

struct parac__cl_shape {
    uint64_t key;
    size_t local[3];
    int variant;
};

static long searched_count, reused_count; /* since the process started, for tests */

void parac_cl_search_counts(long *searched, long *reused)
{
    if (searched) *searched = searched_count;
    if (reused) *reused = reused_count;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Seconds for the best of three runs with this shape, or a negative value
 * when the device refuses it. */
static double time_shape(parac_cl_session *s, cl_kernel k, cl_uint ndim, const size_t count[3],
                         const size_t local[3])
{
    size_t global[3];
    for (cl_uint d = 0; d < ndim; d++) global[d] = (count[d] + local[d] - 1) / local[d] * local[d];
    if (clEnqueueNDRangeKernel(s->queue, k, ndim, NULL, global, local, 0, NULL, NULL) != CL_SUCCESS ||
        clFinish(s->queue) != CL_SUCCESS)
        return -1; /* e.g. too many resources for this shape */
    double best = -1;
    for (int r = 0; r < 3; r++) {
        const double t0 = now_s();
        if (clEnqueueNDRangeKernel(s->queue, k, ndim, NULL, global, local, 0, NULL, NULL) != CL_SUCCESS ||
            clFinish(s->queue) != CL_SUCCESS)
            return -1;
        const double t = now_s() - t0;
        if (best < 0 || t < best) best = t;
    }
    return best;
}

static int usable(const size_t local[3], cl_uint ndim, const size_t count[3], size_t kmax, const size_t dev_max[3])
{
    size_t total = 1;
    for (cl_uint d = 0; d < ndim; d++) {
        if (local[d] > dev_max[d]) return 0;
        if (local[d] > 1 && local[d] / 2 >= count[d]) return 0; /* wider than the work */
        total *= local[d];
    }
    for (cl_uint d = ndim; d < 3; d++)
        if (local[d] != 1) return 0;
    return total <= kmax;
}

static parac_status remember(parac_cl_session *s, uint64_t key, const size_t local[3], int variant)
{
    struct parac__cl_shape *n = parac__realloc(s->shapes, sizeof *n * (size_t)(s->nshapes + 1));
    if (!n) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "work-group search: no memory");
    s->shapes = n;
    s->shapes[s->nshapes].key = key;
    memcpy(s->shapes[s->nshapes].local, local, sizeof s->shapes[0].local);
    s->shapes[s->nshapes].variant = variant;
    s->nshapes++;
    return PARAC_OK;
}

parac_status parac__cl_search_variants(parac_cl_session *s, cl_uint ndim, int ncand, const parac__cl_candidate *c,
                                       int *chosen, size_t local[3])
{
    char what[160];
    snprintf(what, sizeof what, "%u:%zux%zux%zu", (unsigned)ndim, c[0].count[0], c[0].count[1], c[0].count[2]);
    const uint64_t key = parac__fnv(parac__fnv(s->program_key, c[0].name), what);
    for (int i = 0; i < s->nshapes; i++)
        if (s->shapes[i].key == key) {
            memcpy(local, s->shapes[i].local, sizeof s->shapes[i].local);
            *chosen = s->shapes[i].variant;
            return PARAC_OK;
        }
    unsigned got[3], pick_v = 0;
    if (parac__search_cache_load(key, got, &pick_v) && (int)pick_v < ncand) {
        const size_t shape[3] = {got[0], got[1], got[2]};
        if (c[pick_v].fixed ? !memcmp(shape, c[pick_v].local, sizeof shape) : usable(shape, ndim, c[pick_v].count, c[pick_v].kmax, shape)) {
            memcpy(local, shape, sizeof shape);
            *chosen = (int)pick_v;
            reused_count++;
            return remember(s, key, local, *chosen);
        }
    }
    /* search: each candidate's own shape first, then the search's shapes */
    size_t dev_max[3] = {1, 1, 1};
    size_t items[3] = {0, 0, 0};
    if (clGetDeviceInfo(s->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, NULL) == CL_SUCCESS)
        for (int d = 0; d < 3; d++) dev_max[d] = items[d] ? items[d] : 1;
    int ncs = 0;
    const unsigned(*cs)[3] = parac__search_candidates((int)ndim, &ncs);
    size_t best[3] = {c[0].local[0], c[0].local[1], c[0].local[2]};
    int best_v = 0;
    double best_t = -1;
    for (int v = 0; v < ncand; v++) {
        const parac__cl_candidate *cv = &c[v];
        for (int i = -1; i < (cv->fixed ? 0 : ncs); i++) { /* -1: the candidate's own shape */
            const size_t shape[3] = {i < 0 ? cv->local[0] : cs[i][0], i < 0 ? cv->local[1] : cs[i][1],
                                     i < 0 ? cv->local[2] : cs[i][2]};
            if (i >= 0 && (!usable(shape, ndim, cv->count, cv->kmax, dev_max) || !memcmp(shape, cv->local, sizeof best)))
                continue;
            const double t = time_shape(s, cv->k, ndim, cv->count, shape);
            if (t >= 0 && (best_t < 0 || t < best_t)) {
                best_t = t;
                best_v = v;
                memcpy(best, shape, sizeof best);
            }
        }
    }
    memcpy(local, best, sizeof best);
    *chosen = best_v;
    searched_count++;
    char comment[512];
    snprintf(comment, sizeof comment, "%.160s %.60s on %.200s: %.1f us", c[best_v].name, what, s->label, best_t * 1e6);
    const unsigned pick[3] = {(unsigned)best[0], (unsigned)best[1], (unsigned)best[2]};
    parac__search_cache_store(key, pick, (unsigned)best_v, comment);
    return remember(s, key, local, best_v);
}

parac_status parac__cl_search_shape(parac_cl_session *s, cl_kernel k, const char *kernel, cl_uint ndim,
                                    const size_t count[3], size_t kmax, size_t local[3])
{
    parac__cl_candidate c = {k, kernel, {count[0], count[1], count[2]}, {local[0], local[1], local[2]}, kmax, 0};
    int chosen = 0;
    return parac__cl_search_variants(s, ndim, 1, &c, &chosen, local);
}

/* ---- fusion choices (parac/fusion_choice.h) -------------------------------- */

static parac_status wait_idle(void *ctx)
{
    parac_cl_session *s = ctx;
    PARAC_CL_TRY(clFinish(s->queue), "fusion choice: clFinish");
    return PARAC_OK;
}

parac_status parac_cl_fusion_begin(parac_cl_session *s, const char *name, int nalts, int nsizes, const long *sizes,
                                   parac_fusion_choice *c)
{
    if (!s || !c || nsizes < 0 || (nsizes && !sizes))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "parac_cl_fusion_begin: no session, choice or sizes");
    const uint64_t key = parac__fusion_key(s->program_key, name, nsizes, sizes);
    int remembered = -1, from_disk = 0;
    for (int i = 0; i < s->nshapes && remembered < 0; i++)
        if (s->shapes[i].key == key) remembered = s->shapes[i].variant;
    PARAC_TRY(parac__fusion_plan(c, name, key, nalts, s->fusion, s->search, remembered, &from_disk));
    if (!from_disk) return PARAC_OK;
    reused_count++;
    const size_t no_shape[3] = {1, 1, 1};
    return remember(s, key, no_shape, c->alt);
}

int parac_cl_fusion_next(parac_cl_session *s, parac_fusion_choice *c)
{
    if (!s || !c) return 0;
    int decided = 0;
    const int run = parac__fusion_step(c, wait_idle, s, &decided);
    if (decided) {
        searched_count++;
        parac__fusion_store(c, s->label);
        const size_t no_shape[3] = {1, 1, 1};
        const parac_status st = remember(s, c->key, no_shape, c->alt);
        if (st != PARAC_OK) c->status = st;
    }
    return run && c->status == PARAC_OK;
}
