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
 *      after which every strip is stable is the end. Where the fronts are
 *      long (below), the rounds become pipelined rounds over column blocks
 *      of all strips at once (pipelined_round), which carry a front through
 *      the whole image in one pass; a last strip round then builds the
 *      queues;
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
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "recon_grid.h"

enum {
    MIN_STRIP_ROWS = 16,
    SCAN_ROUNDS_WHILE_DIV = 16, /* scan rounds go on while a round changes 1/(16 strips) of the pixels */
    GROUP_ROWS = 8,             /* rows of a strip a column block does between two looks at its neighbour */
    MIN_BLOCK_COLS = 64         /* pipelined rounds want column blocks at least this wide */
};

/* Pipelined rounds (2D images): one raster and one anti-raster pass over
 * every strip, in which thread j does column block j of every row of every
 * strip, in pass order, a group of GROUP_ROWS rows at a time. A strip's
 * first group (in pass order) starts by copying the block's part of the
 * neighbouring strip's boundary row into its halo. Thread j starts a group
 * once the thread ahead of it (j - 1 in a raster pass, j + 1 in an
 * anti-raster pass) has finished the next group as well: its left (right)
 * neighbour pixels and every earlier row of the block next to it are then
 * final for the pass, and the thread behind is two groups back, so no pixel
 * that j reads is being written. The one pixel of the block behind that a
 * row reads (the earlier row's pixel diagonally across the block edge)
 * still holds an earlier value, which bounds the result from below like
 * every value here: a front crossing there waits for the next pass. So a
 * front travels through the whole image in one pass on every core, where
 * strip rounds carry it across one strip boundary per round. */
typedef struct pipe_plan {
    int64_t blocks;    /* column blocks = threads */
    int64_t *bx;       /* block j: columns bx[j] .. bx[j+1] - 1 */
    int64_t groups;    /* groups of rows, raster order over all strips */
    int64_t *gs, *gy0, *gy1; /* strip, first and last row of each group */
    _Atomic int64_t *done; /* per thread, groups finished in the current pass (one cache line each) */
    void *scratch;     /* per thread, a scan row */
    size_t scratch_bytes;
} pipe_plan;

enum { DONE_STRIDE = 8 }; /* 64 bytes between two threads' counters */

static void pipe_plan_free(pipe_plan *p)
{
    free(p->bx), free(p->gs), free(p->gy0), free(p->gy1), free((void *)p->done), free(p->scratch);
    memset(p, 0, sizeof *p);
}

/* The column blocks (widths a multiple of 16, the last takes the rest) and
 * the row groups of n strips. 0: pipelining does not pay here (returns
 * without a plan); an allocation failure is reported. */
static parac_status pipe_plan_make(pipe_plan *p, const parac__grid *g, int64_t n, int *usable)
{
    memset(p, 0, sizeof *p);
    *usable = 0;
    const int64_t w = g[0].w;
    if (n < 2 || g[0].d != 1 || w < MIN_BLOCK_COLS * n) return PARAC_OK;
    int64_t groups = 0;
    for (int64_t i = 0; i < n; i++) groups += (g[i].h + GROUP_ROWS - 1) / GROUP_ROWS;
    const size_t es = parac_dtype_size(g[0].dtype);
    p->blocks = n;
    p->groups = groups;
    p->scratch_bytes = ((es * (size_t)(w + 2) + 63) / 64) * 64;
    p->bx = parac__malloc(sizeof *p->bx * (size_t)(n + 1));
    p->gs = parac__malloc(sizeof *p->gs * (size_t)groups);
    p->gy0 = parac__malloc(sizeof *p->gy0 * (size_t)groups);
    p->gy1 = parac__malloc(sizeof *p->gy1 * (size_t)groups);
    p->done = parac__calloc((size_t)(n * DONE_STRIDE), sizeof *p->done);
    p->scratch = parac__malloc(p->scratch_bytes * (size_t)n);
    if (!p->bx || !p->gs || !p->gy0 || !p->gy1 || !p->done || !p->scratch) {
        pipe_plan_free(p);
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "reconstruction: no memory for the pipelined scans");
    }
    for (int64_t j = 0; j < n; j++) p->bx[j] = 1 + (w * j / n) / 16 * 16;
    p->bx[n] = w + 1;
    for (int64_t i = 0, k = 0; i < n; i++)
        for (int64_t y = 1; y <= g[i].h; y += GROUP_ROWS, k++) {
            p->gs[k] = i;
            p->gy0[k] = y;
            p->gy1[k] = y + GROUP_ROWS - 1 < g[i].h ? y + GROUP_ROWS - 1 : g[i].h;
        }
    *usable = 1;
    return PARAC_OK;
}

/* Spin briefly, then give the core away: with more threads than free cores
 * a spinning thread would hold up the one it waits for. */
static void wait_for(_Atomic int64_t *counter, int64_t at_least)
{
    for (int spins = 0; atomic_load_explicit(counter, memory_order_acquire) < at_least; spins++) {
        if (spins < 256) {
#ifdef __SSE2__
            _mm_pause();
#endif
        } else {
            sched_yield();
        }
    }
}

/* One pipelined round (a raster, then an anti-raster pass); returns how
 * many pixels changed. */
static int64_t pipelined_round(parac__grid *g, int64_t n, const parac__engine *e, pipe_plan *p)
{
    int64_t changed = 0;
    int got = 0;
    const int64_t G = p->groups, B = p->blocks;
#pragma omp parallel num_threads((int)B) reduction(+ : changed)
    {
        const int64_t j = omp_get_thread_num();
        if (j == 0) got = omp_get_num_threads();
        if (omp_get_num_threads() == B) { /* else the runtime gave fewer threads: strip rounds instead */
            void *a = (char *)p->scratch + p->scratch_bytes * (size_t)j;
            _Atomic int64_t *mine = &p->done[j * DONE_STRIDE];
            for (int backward = 0; backward <= 1; backward++) {
                atomic_store_explicit(mine, 0, memory_order_relaxed);
#pragma omp barrier
                const int64_t lead = backward ? j + 1 : j - 1;
                const int64_t x0 = p->bx[j], x1 = p->bx[j + 1] - 1;
                for (int64_t k = 0; k < G; k++) {
                    const int64_t q = backward ? G - 1 - k : k; /* the group, raster numbering */
                    const int64_t i = p->gs[q];
                    if (lead >= 0 && lead < B) wait_for(&p->done[lead * DONE_STRIDE], k + 2 < G ? k + 2 : G);
                    if (!backward && p->gy0[q] == 1 && i > 0) /* the strip's first group: its top halo */
                        parac__grid_copy_halo_cols(&g[i], 0, &g[i - 1], g[i - 1].h, x0, x1);
                    if (backward && p->gy1[q] == g[i].h && i + 1 < n) /* its bottom halo */
                        parac__grid_copy_halo_cols(&g[i], g[i].h + 1, &g[i + 1], 1, x0, x1);
                    changed += backward ? e->scan_block(&g[i], 1, p->gy1[q], p->gy0[q], x0, x1, a)
                                        : e->scan_block(&g[i], 0, p->gy0[q], p->gy1[q], x0, x1, a);
                    atomic_store_explicit(mine, k + 1, memory_order_release);
                }
#pragma omp barrier
            }
        }
    }
    return got == B ? changed : -1;
}

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
    parac__grid *g = parac__calloc((size_t)n, sizeof *g);
    parac__queue *q = parac__calloc((size_t)n, sizeof *q);
    parac__recon_violation *v = parac__calloc((size_t)n, sizeof *v);
    parac_status *st = parac__calloc((size_t)n, sizeof *st);
    int64_t *raised = parac__calloc((size_t)n, sizeof *raised);
    unsigned char *active = parac__malloc((size_t)n), *halo_changed = parac__calloc((size_t)n, 1);
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
    int stable = 0, pipe_usable = 0, pipe_now = 0, pipe_done = 0;
    /* PARAC_PARALLEL_ROUNDS: 0 "strips" (never pipelined rounds), 2
     * "pipelined" (from the first round), 1 the rule below */
    const int setting = s->tuning->parallel_rounds;
    pipe_plan plan;
    if (result == PARAC_OK && setting) result = pipe_plan_make(&plan, g, n, &pipe_usable);
    else memset(&plan, 0, sizeof plan);
    pipe_now = pipe_usable && setting == 2;
    int64_t before = -1;
    memset(active, 1, (size_t)n);
    for (int round = 0; result == PARAC_OK; round++) {
        if (pipe_now) {
            /* Pipelined rounds while they change many pixels; then one strip
             * round below rebuilds the strips' queues for the FIFO phase. */
            int64_t prev = -1, c;
            while ((c = pipelined_round(g, n, e, &plan)) > 0) {
                if (c * SCAN_ROUNDS_WHILE_DIV * n < pixels || (prev >= 0 && c * 4 < prev)) break;
                prev = c;
            }
            copy_halos(g, n, NULL);
            if (c == 0) { /* a round that changed nothing: the fix point */
                stable = 1;
                break;
            }
            pipe_now = 0;
            pipe_done = 1;
            memset(active, 1, (size_t)n);
        }
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
        int64_t n_active = 0;
        for (int64_t i = 0; i < n; i++) {
            active[i] = q[i].count > 0 || halo_changed[i];
            stable &= !active[i];
            n_active += active[i];
        }
        if (stable || pipe_done || changed * SCAN_ROUNDS_WHILE_DIV * n < pixels ||
            (before >= 0 && changed * 4 < before))
            break;
        /* Long fronts go to pipelined rounds, which carry them through every
         * strip in one pass where strip rounds cross one strip boundary per
         * round: a first round that changed many pixels in a few strips only
         * (a front from one seed), or fronts still growing after two rounds
         * (fill-holes). */
        if (pipe_usable && ((round == 0 && n_active * 4 <= n) || (round >= 1 && changed * 2 >= before)))
            pipe_now = 1;
        before = changed;
    }
    pipe_plan_free(&plan);

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
