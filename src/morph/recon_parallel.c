/* The parallel CPU method: the image's rows are cut into one strip per
 * thread; every strip is a grid of its own whose first and last frame rows
 * are halo rows holding the neighbouring strips' boundary rows. Phases:
 *   1. rounds of scans: every strip runs a raster and an anti-raster pass
 *      (the latter queueing, as the fast hybrid does, every pixel that can
 *      still raise a later neighbour), then the halo rows are brought up to
 *      date. Another round follows while the rounds change many pixels
 *      (below): scans carry fronts at streaming speed and in parallel, so
 *      long-range propagation (fill-holes, one seed) costs a few passes
 *      instead of FIFO work. Strips that are stable sit rounds out; a round
 *      after which every strip is stable is the end;
 *   2. every strip propagates from its queue with its FIFO (the fast
 *      hybrid's end; the halo rows are sources it reads but never changes);
 *   3. rounds of halo exchange: every strip raises its boundary rows from
 *      the new halo values and propagates with its FIFO; if no strip raised
 *      anything, the result is final.
 * Each phase is its own parallel loop, so a strip's pixels are never read
 * by one thread while another writes them. Values only rise and every round
 * uses values the final result bounds from below, so the fix point reached
 * is the reconstruction (the same bits as the other methods). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error_internal.h"
#include "recon_grid.h"

enum {
    MIN_STRIP_ROWS = 16,
    SCAN_ROUNDS_WHILE_DIV = 16 /* scan rounds go on while a round changes 1/(16 strips) of the pixels */
};

/* Every strip's halo rows from its neighbours' boundary rows; changed[i]
 * (when not NULL) says whether strip i's halos changed. Returns whether any
 * did. */
static int copy_halos(parac__grid *g, int64_t n, unsigned char *changed)
{
    int any = 0;
    if (n < 2) return 0;
#pragma omp parallel for schedule(static, 1) num_threads((int)n) reduction(| : any)
    for (int64_t i = 0; i < n; i++) {
        int c = 0;
        if (i > 0) c |= parac__grid_copy_halo(&g[i], 0, &g[i - 1], g[i - 1].h);
        if (i + 1 < n) c |= parac__grid_copy_halo(&g[i], g[i].h + 1, &g[i + 1], 1);
        if (changed) changed[i] = (unsigned char)c;
        any |= c;
    }
    return any;
}

/* Messages are per thread: say here which strip failed. */
static parac_status strips_status(const parac__recon_spec *s, const parac_status *st, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (st[i] != PARAC_OK)
            return parac__fail(st[i], "%s: strip %" PRId64 " of the parallel method: %s", s->op, i,
                               parac_status_string(st[i]));
    return PARAC_OK;
}

parac_status parac__recon_parallel(const parac__recon_spec *s, const parac_image *marker,
                                   const parac_image *mask, parac_image *out, int threads)
{
    const parac__engine *e = parac__engine_for(mask->dtype);
    const int64_t H = mask->height;
    int64_t n = threads > 0 ? threads : 1;
    if (n > H / MIN_STRIP_ROWS) n = H / MIN_STRIP_ROWS;
    if (n < 1) n = 1;
    parac__grid *g = calloc((size_t)n, sizeof *g);
    parac__queue *q = calloc((size_t)n, sizeof *q);
    parac__recon_violation *v = calloc((size_t)n, sizeof *v);
    parac_status *st = calloc((size_t)n, sizeof *st);
    int64_t *raised = calloc((size_t)n, sizeof *raised);
    unsigned char *active = malloc((size_t)n), *halo_changed = calloc((size_t)n, 1);
    if (!g || !q || !v || !st || !raised || !active || !halo_changed) {
        free(g), free(q), free(v), free(st), free(raised), free(active), free(halo_changed);
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: no memory for %" PRId64 " strips", s->op, n);
    }
#define STRIP_Y0(i) (H * (i) / n)

    /* Load. */
#pragma omp parallel for schedule(static, 1) num_threads((int)n)
    for (int64_t i = 0; i < n; i++) {
        const int64_t y0 = STRIP_Y0(i), h = STRIP_Y0(i + 1) - y0;
        st[i] = parac__grid_alloc(&g[i], mask->dtype, s->conn, mask->width, h, mask->depth);
        if (st[i] == PARAC_OK) e->load(&g[i], s, marker, mask, y0, &v[i]);
    }
    parac_status result = PARAC_OK;
    parac__recon_violation first = {0};
    /* messages are per thread: say here what failed */
    for (int64_t i = 0; i < n; i++) {
        if (st[i] != PARAC_OK && result == PARAC_OK)
            result = parac__fail(st[i], "%s: strip %" PRId64 " of the parallel method: %s", s->op, i,
                                 parac_status_string(st[i]));
        if (v[i].found && parac__violation_earlier(&v[i], &first)) first = v[i];
    }
    if (result == PARAC_OK && first.found) result = parac__recon_violation_error(s, &first);

    /* Rounds of scans while they change many pixels; every round's
     * anti-raster pass queues what the FIFO would start from. The halo rows
     * start as the neighbours' first values and are brought up to date after
     * every round. A strip whose last round left its queue empty (it is
     * stable with the halo rows it read) and whose halo rows did not change
     * since sits the next round out; when every strip does, the result is
     * final. Rounds stop once one changes less than 1/(16 n) of the pixels
     * (a round costs about 1/n of the image's scans, the FIFO work left does
     * not spread as evenly), or less than a quarter of the round before (the
     * fronts left are short: the h-maxima class after two or three rounds). */
    const int64_t pixels = H * mask->depth * mask->width;
    int stable = 0;
    int64_t before = -1;
    memset(active, 1, (size_t)n);
    while (result == PARAC_OK) {
        int64_t changed = 0;
#pragma omp parallel for schedule(static, 1) num_threads((int)n) reduction(+ : changed)
        for (int64_t i = 0; i < n; i++) {
            if (!active[i]) continue;
            q[i].head = q[i].count = 0;
            changed += e->scan(&g[i], 0) + e->scan_queue(&g[i], &q[i], &st[i]);
        }
        result = strips_status(s, st, n);
        copy_halos(g, n, halo_changed);
        stable = 1;
        for (int64_t i = 0; i < n; i++) {
            active[i] = q[i].count > 0 || halo_changed[i];
            stable &= !active[i];
        }
        if (stable || changed * SCAN_ROUNDS_WHILE_DIV * n < pixels || (before >= 0 && changed * 4 < before)) break;
        before = changed;
    }

    /* FIFO propagation in every strip from its queue (the fast hybrid's end). */
    if (result == PARAC_OK && !stable) {
#pragma omp parallel for schedule(static, 1) num_threads((int)n)
        for (int64_t i = 0; i < n; i++) e->propagate(&g[i], &q[i], &st[i]);
        result = strips_status(s, st, n);
    }

    /* Halo exchange rounds until no strip changes. */
    while (result == PARAC_OK && !stable && n > 1) {
        copy_halos(g, n, NULL); /* the FIFO phase may have changed boundary rows since the last copy */
        int64_t total = 0;
#pragma omp parallel for schedule(static, 1) num_threads((int)n) reduction(+ : total)
        for (int64_t i = 0; i < n; i++) {
            raised[i] = e->seed_from_halo(&g[i], &q[i], &st[i]);
            total += raised[i];
        }
        result = strips_status(s, st, n);
        if (total == 0) break;
    }

    if (result == PARAC_OK) {
#pragma omp parallel for schedule(static, 1) num_threads((int)n)
        for (int64_t i = 0; i < n; i++) e->store(&g[i], s->erosion, out, STRIP_Y0(i));
    }
#undef STRIP_Y0
    for (int64_t i = 0; i < n; i++) {
        parac__grid_free(&g[i]);
        parac__queue_free(&q[i]);
    }
    free(g), free(q), free(v), free(st), free(raised), free(active), free(halo_changed);
    return result;
}
