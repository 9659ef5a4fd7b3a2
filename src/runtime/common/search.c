/* The search over work-group shapes and candidate kernels (the SEARCH
 * knob), and the fusion choices' runs, for every backend.
 *
 * For a kernel that gives the same result however often it runs (the
 * compiler launches only those as tuned), the first launch with a new
 * (program, device, kernel, work size) runs the kernel once with each
 * candidate shape that the device and the kernel allow, times each
 * candidate's best of three runs, and keeps the fastest. A region that
 * paracc planned several ways has each candidate kernel timed the same
 * way, and the choice names the kernel with its shape. The choice is kept
 * in the session and in the disk cache (search-KEY.txt beside the program
 * binaries, keyed by the program cache's key, which covers source,
 * options, device and driver, plus the kernel and the work size), so later
 * processes read it instead of searching. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "core/error_internal.h"
#include "runtime/common/disk_cache.h"
#include "runtime/common/runtime_core.h"

struct parac__rt_shape {
    uint64_t key;
    size_t shape[3];
    int variant;
};

static int usable(const size_t b[3], int ndim, const size_t count[3], size_t kmax, const size_t dev_max[3])
{
    size_t total = 1;
    for (int d = 0; d < 3; d++) {
        if (d >= ndim && b[d] != 1) return 0;
        if (d < ndim && (b[d] > dev_max[d] || (b[d] > 1 && b[d] / 2 >= count[d]))) return 0; /* wider than the work */
        total *= b[d];
    }
    return total <= kmax;
}

static parac_status remember(parac__rt_session *s, uint64_t key, const size_t shape[3], int variant)
{
    struct parac__rt_shape *n = parac__realloc(s->shapes, sizeof *n * (size_t)(s->nshapes + 1));
    if (!n) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "work-group search: no memory");
    s->shapes = n;
    s->shapes[s->nshapes].key = key;
    memcpy(s->shapes[s->nshapes].shape, shape, sizeof s->shapes[0].shape);
    s->shapes[s->nshapes].variant = variant;
    s->nshapes++;
    return PARAC_OK;
}

static double time_shape(parac__rt_session *s, const parac__rt_candidate *c, int ndim, const size_t shape[3],
                         const parac__rt_args *args)
{
    size_t groups[3] = {1, 1, 1};
    for (int d = 0; d < ndim; d++) groups[d] = (c->count[d] + shape[d] - 1) / shape[d];
    return s->backend->time(s, c->k, ndim, groups, shape, args);
}

parac_status parac__rt_search(parac__rt_session *s, int ndim, int ncand, const parac__rt_candidate *c,
                              const parac__rt_args *args, int *chosen, size_t shape[3])
{
    parac__rt_stats *stats = s->backend->stats;
    char what[160];
    snprintf(what, sizeof what, "%s%d:%zux%zux%zu", s->backend->search_tag, ndim, c[0].count[0], c[0].count[1],
             c[0].count[2]);
    const uint64_t key = parac__fnv(parac__fnv(s->program_key, c[0].k->name), what);
    for (int i = 0; i < s->nshapes; i++)
        if (s->shapes[i].key == key) {
            memcpy(shape, s->shapes[i].shape, sizeof s->shapes[i].shape);
            *chosen = s->shapes[i].variant;
            return PARAC_OK;
        }
    unsigned got[3], pick = 0;
    if (parac__search_cache_load(key, got, &pick) && (int)pick < ncand) {
        const parac__rt_candidate *cp = &c[pick];
        const size_t b[3] = {got[0], got[1], got[2]};
        if (cp->fixed ? !memcmp(b, cp->shape, sizeof b) : usable(b, ndim, cp->count, cp->k->max_items, s->max_dims)) {
            memcpy(shape, b, sizeof b);
            *chosen = (int)pick;
            stats->reused++;
            return remember(s, key, shape, *chosen);
        }
    }
    int ncs = 0;
    const unsigned(*cs)[3] = parac__search_candidates(ndim, &ncs);
    int best_v = 0;
    size_t best[3] = {c[0].shape[0], c[0].shape[1], c[0].shape[2]};
    double best_t = -1;
    for (int v = 0; v < ncand; v++) {
        const parac__rt_candidate *cv = &c[v];
        for (int i = -1; i < (cv->fixed ? 0 : ncs); i++) { /* -1: the candidate's own shape */
            const size_t b[3] = {i < 0 ? cv->shape[0] : cs[i][0], i < 0 ? cv->shape[1] : cs[i][1],
                                 i < 0 ? cv->shape[2] : cs[i][2]};
            if (i >= 0 && (!usable(b, ndim, cv->count, cv->k->max_items, s->max_dims) || !memcmp(b, cv->shape, sizeof b)))
                continue;
            const double t = time_shape(s, cv, ndim, b, args);
            if (t >= 0 && (best_t < 0 || t < best_t)) {
                best_t = t;
                best_v = v;
                memcpy(best, b, sizeof best);
            }
        }
    }
    memcpy(shape, best, sizeof best);
    *chosen = best_v;
    stats->searched++;
    char comment[512];
    snprintf(comment, sizeof comment, "%.160s %.60s on %.200s: %.1f us", c[best_v].k->name, what, s->label, best_t * 1e6);
    const unsigned stored[3] = {(unsigned)best[0], (unsigned)best[1], (unsigned)best[2]};
    parac__search_cache_store(key, stored, (unsigned)best_v, comment);
    return remember(s, key, shape, best_v);
}

/* ---- fusion choices (parac/fusion_choice.h) -------------------------------- */

static parac_status wait_idle(void *ctx)
{
    parac__rt_session *s = ctx;
    return s->backend->wait(s);
}

static const size_t no_shape[3] = {1, 1, 1};

parac_status parac__rt_fusion_begin(parac__rt_session *s, const char *name, int nalts, int nsizes, const long *sizes,
                                    parac_fusion_choice *c)
{
    const uint64_t key = parac__fusion_key(s->program_key, name, nsizes, sizes);
    int remembered = -1, from_disk = 0;
    for (int i = 0; i < s->nshapes && remembered < 0; i++)
        if (s->shapes[i].key == key) remembered = s->shapes[i].variant;
    PARAC_TRY(parac__fusion_plan(c, name, key, nalts, s->knobs.fusion, s->knobs.search, remembered, &from_disk));
    if (!from_disk) return PARAC_OK;
    s->backend->stats->reused++;
    return remember(s, key, no_shape, c->alt);
}

int parac__rt_fusion_next(parac__rt_session *s, parac_fusion_choice *c)
{
    int decided = 0;
    const int run = parac__fusion_step(c, wait_idle, s, &decided);
    if (decided) {
        s->backend->stats->searched++;
        parac__fusion_store(c, s->label);
        const parac_status st = remember(s, c->key, no_shape, c->alt);
        if (st != PARAC_OK) c->status = st;
    }
    return run && c->status == PARAC_OK;
}
