/* The runs of a fusion choice, shared by the OpenCL and CUDA runtimes
 * (parac/fusion_choice.h): one alternative once, or every alternative timed
 * (a warm-up pass, then REPS timed passes, best of them), the fastest run
 * last. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "runtime/common/device_runtime.h"
#include "runtime/common/disk_cache.h"
#include "core/error_internal.h"

enum { REPS = 3 };

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

uint64_t parac__fusion_key(uint64_t program_key, const char *name, int nsizes, const long *sizes)
{
    char what[48];
    uint64_t h = parac__fnv(parac__fnv(program_key, "fusion choice"), name ? name : "");
    for (int i = 0; i < nsizes && sizes; i++) {
        snprintf(what, sizeof what, "%d:%ld", i, sizes[i]);
        h = parac__fnv(h, what);
    }
    return h;
}

parac_status parac__fusion_start(parac_fusion_choice *c, const char *name, uint64_t key, int nalts, int once)
{
    memset(c, 0, sizeof *c);
    if (nalts < 1 || nalts > PARAC_FUSION_MAX_ALTS)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "fusion choice %s: %d alternatives (1 to %d)", name ? name : "?",
                           nalts, (int)PARAC_FUSION_MAX_ALTS);
    c->name = name;
    c->key = key;
    c->nalts = nalts;
    c->timing = once < 0;
    c->alt = once < 0 ? 0 : once < nalts ? once : nalts - 1;
    for (int a = 0; a < nalts; a++) c->best[a] = -1;
    return PARAC_OK;
}

int parac__fusion_step(parac_fusion_choice *c, parac_status (*wait)(void *), void *ctx, int *decided)
{
    *decided = 0;
    if (c->status != PARAC_OK) return 0;
    if (!c->timing) return c->step++ == 0;
    const int passes = (REPS + 1) * c->nalts;
    if (c->step > passes) return 0; /* the chosen alternative ran last */
    const parac_status st = wait(ctx);
    if (st != PARAC_OK) {
        c->status = st;
        return 0;
    }
    const double t = now_s();
    if (c->step > 0) {
        const int done = c->step - 1, a = done % c->nalts;
        if (done >= c->nalts && (c->best[a] < 0 || t - c->start < c->best[a])) c->best[a] = t - c->start;
    }
    if (c->step == passes) { /* every pass ran: the fastest, run again unless it ran last */
        int best = 0;
        for (int a = 1; a < c->nalts; a++)
            if (c->best[a] < c->best[best]) best = a;
        *decided = 1;
        c->step++;
        if (best == c->nalts - 1) {
            c->alt = best;
            return 0;
        }
        c->alt = best;
        return 1;
    }
    c->alt = c->step % c->nalts;
    c->step++;
    c->start = now_s();
    return 1;
}

parac_status parac__fusion_plan(parac_fusion_choice *c, const char *name, uint64_t key, int nalts, int forced,
                                int search, int remembered, int *from_disk)
{
    *from_disk = 0;
    if (forced > 0) return parac__fusion_start(c, name, key, nalts, forced);
    if (!search || nalts == 1) return parac__fusion_start(c, name, key, nalts, 0);
    if (remembered >= 0) return parac__fusion_start(c, name, key, nalts, remembered);
    unsigned got[3], alt = 0;
    if (parac__search_cache_load(key, got, &alt) && (int)alt < nalts) {
        *from_disk = 1;
        return parac__fusion_start(c, name, key, nalts, (int)alt);
    }
    return parac__fusion_start(c, name, key, nalts, -1);
}

void parac__fusion_store(const parac_fusion_choice *c, const char *device)
{
    char comment[640];
    int n = snprintf(comment, sizeof comment, "fusion choice %.160s on %.200s: alternative %d (", c->name ? c->name : "?",
                     device, c->alt);
    for (int a = 0; a < c->nalts && n > 0 && n < (int)sizeof comment; a++)
        n += snprintf(comment + n, sizeof comment - (size_t)n, "%s%d: %.1f us", a ? ", " : "", a, c->best[a] * 1e6);
    if (n > 0 && n < (int)sizeof comment) snprintf(comment + n, sizeof comment - (size_t)n, ")");
    const unsigned no_shape[3] = {1, 1, 1}; /* the cache reads a zero shape as no entry */
    parac__search_cache_store(c->key, no_shape, (unsigned)c->alt, comment);
}
