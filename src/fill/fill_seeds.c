/* The paper's seeded parallel reverse fill on the CPU (method "seeds").
 *
 * Border seeds (label 1) and N inner seeds (labels 2..N+1) are filled
 * concurrently by a scanline fill, one seed at a time per thread. A pixel
 * is claimed with a compare-and-swap from 0 to the thread's label; a fill
 * that meets another label records the pair. Union-find over the pairs
 * joins labels; every label joined to 1 is outside, every other label and
 * every pixel still 0 is inside.
 *
 * The paper lets threads race on plain stores; in C11 that is undefined and
 * it can lose a pair when two threads overwrite one run. Relaxed atomic
 * loads and compare-and-swap make it defined and exact: for two adjacent
 * pixels with labels A and B, the thread that claimed the second one reads
 * the first with a load or a failed compare-and-swap after its claim, and
 * records the pair. The output never depends on the schedule.
 *
 * Labels are 16-bit (as the paper's GPU version): 0 unfilled, 1 border,
 * 0xffff contour, so up to 65532 inner seeds. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error_internal.h"
#include "fill_pixels.h"
#include "fill_seeds.h"
#include "fill_stack.h"
#include "fill_threads.h"

#define CONTOUR 0xffffu

typedef struct shared {
    const parac__fill_spec *s;
    const parac_image *in;
    parac_image *out;
    parac__fill_geom g;
    _Atomic uint64_t *W;        /* the labels, four 16-bit lanes per word */
    parac__fill_run *border;
    int64_t n_border, n_inner, n_seeds;
    atomic_llong next;          /* the next seed to take */
    const uint8_t *outside;     /* per label, after union-find */
} shared;

typedef struct worker {
    shared *sh;
    int index, threads;
    parac__fill_stack stack;
    uint32_t *pairs; /* (a << 16) | b */
    size_t n_pairs, cap_pairs;
    parac_status status;
} worker;

/* Label i lives in lane i % 4 of word i / 4 (little-endian lanes, so the
 * words are also a plain uint16_t array once the threads have joined).
 * Every access is a 64-bit relaxed atomic, so four pixels of one run can
 * be claimed with one compare-and-swap. */
static inline uint16_t load(_Atomic uint64_t *W, int64_t i)
{
    return (uint16_t)(atomic_load_explicit(&W[i >> 2], memory_order_relaxed) >> (16 * (i & 3)));
}

/* Claim pixel i for `label`; on failure *seen holds its label. */
static inline int claim(_Atomic uint64_t *W, int64_t i, uint16_t label, uint16_t *seen)
{
    _Atomic uint64_t *w = &W[i >> 2];
    const int shift = 16 * (int)(i & 3);
    uint64_t old = atomic_load_explicit(w, memory_order_relaxed);
    for (;;) {
        const uint16_t v = (uint16_t)(old >> shift);
        if (v != 0) {
            *seen = v;
            return 0;
        }
        if (atomic_compare_exchange_weak_explicit(w, &old, old | (uint64_t)label << shift, memory_order_relaxed,
                                                  memory_order_relaxed))
            return 1;
    }
}

/* Claim the four pixels of word j at once when all are 0. */
static inline int claim4(_Atomic uint64_t *W, int64_t j, uint16_t label)
{
    uint64_t expect = 0;
    return atomic_load_explicit(&W[j], memory_order_relaxed) == 0 &&
           atomic_compare_exchange_strong_explicit(&W[j], &expect, 0x0001000100010001ull * label,
                                                   memory_order_relaxed, memory_order_relaxed);
}

static void record(worker *wk, uint16_t label, uint16_t other)
{
    if (other == label || other == CONTOUR || other == 0) return;
    const uint32_t pair = (uint32_t)label << 16 | other;
    if (wk->n_pairs && wk->pairs[wk->n_pairs - 1] == pair) return;
    if (wk->n_pairs == wk->cap_pairs) {
        size_t cap = wk->cap_pairs ? 2 * wk->cap_pairs : 256;
        uint32_t *p = realloc(wk->pairs, cap * sizeof *p);
        if (!p) {
            wk->status = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "fill: %zu label pairs", cap);
            return;
        }
        wk->pairs = p;
        wk->cap_pairs = cap;
    }
    wk->pairs[wk->n_pairs++] = pair;
}

static void fill_seed(worker *wk, parac__fill_run first, uint16_t label)
{
    const parac__fill_geom *g = &wk->sh->g;
    _Atomic uint64_t *W = wk->sh->W;
    if ((wk->status = parac__fill_push(&wk->stack, first)) != PARAC_OK) return;
    parac__fill_run r;
    while (wk->status == PARAC_OK && parac__fill_pop(&wk->stack, &r)) {
        const int64_t base = ((int64_t)r.z * g->h + r.y) * g->w;
        for (int64_t x = r.x0; x <= r.x1; x++) {
            uint16_t v = load(W, base + x);
            if (v != 0 || !claim(W, base + x, label, &v)) {
                record(wk, label, v);
                continue;
            }
            int64_t l = x, e = x;
            while (l > 0) {
                const int64_t i = base + l - 1;
                if ((i & 3) == 3 && l >= 4 && claim4(W, i >> 2, label)) { l -= 4; continue; }
                if (claim(W, i, label, &v)) { l--; continue; }
                record(wk, label, v);
                break;
            }
            while (e < g->w - 1) {
                const int64_t i = base + e + 1;
                if ((i & 3) == 0 && e + 4 <= g->w - 1 && claim4(W, i >> 2, label)) { e += 4; continue; }
                if (claim(W, i, label, &v)) { e++; continue; }
                record(wk, label, v);
                break;
            }
            for (int k = 0; k < g->n_rows; k++) {
                const parac__fill_row *nb = &g->rows[k];
                const int64_t ny = r.y + nb->dy, nz = r.z + nb->dz;
                if (ny < 0 || ny >= g->h || nz < 0 || nz >= g->d) continue;
                const int64_t nbase = (nz * g->h + ny) * g->w;
                int64_t a = l - nb->grow, b = e + nb->grow;
                if (a < 0) a = 0;
                if (b > g->w - 1) b = g->w - 1;
                for (int64_t i = a; i <= b; i++) {
                    v = load(W, nbase + i);
                    if (v != 0) {
                        record(wk, label, v);
                        continue;
                    }
                    const int64_t j = i;
                    while (i < b && load(W, nbase + i + 1) == 0) i++;
                    wk->status = parac__fill_push(&wk->stack, (parac__fill_run){(int32_t)ny, (int32_t)nz,
                                                                               (int32_t)j, (int32_t)i});
                    if (wk->status != PARAC_OK) return;
                }
            }
            x = e;
        }
    }
}

/* ---- the phases, each split over the threads ------------------------------------ */
static void rows_of(const worker *wk, int64_t *r0, int64_t *r1)
{
    const int64_t rows = wk->sh->g.h * wk->sh->g.d;
    *r0 = rows * wk->index / wk->threads;
    *r1 = rows * (wk->index + 1) / wk->threads;
}

static void phase_labels(void *arg, int index, int threads)
{
    (void)threads;
    worker *wk = (worker *)arg + index;
    const shared *sh = wk->sh;
    /* whole words per thread, so no word is written by two threads */
    const int64_t n = sh->g.w * sh->g.h * sh->g.d, words = (n + 3) / 4;
    const int64_t j0 = words * wk->index / wk->threads, j1 = words * (wk->index + 1) / wk->threads;
    int64_t i = 4 * j0, y = (i / sh->g.w) % sh->g.h, z = i / (sh->g.w * sh->g.h), x = i % sh->g.w;
    const void *src = parac__fill_row_in(sh->in, y, z);
    for (int64_t j = j0; j < j1; j++) {
        uint64_t word = 0;
        for (int lane = 0; lane < 4 && i < n; lane++, i++) {
            if (parac__fill_pixel(sh->in, src, x) >= sh->s->threshold) word |= (uint64_t)CONTOUR << (16 * lane);
            if (++x == sh->g.w) {
                x = 0;
                if (++y == sh->g.h) y = 0, z++;
                if (i + 1 < n) src = parac__fill_row_in(sh->in, y, z);
            }
        }
        atomic_store_explicit(&sh->W[j], word, memory_order_relaxed);
    }
}

static void phase_fill(void *arg, int index, int threads)
{
    (void)threads;
    worker *wk = (worker *)arg + index;
    shared *sh = wk->sh;
    for (;;) {
        const long long k = atomic_fetch_add_explicit(&sh->next, 1, memory_order_relaxed);
        if (k >= sh->n_seeds || wk->status != PARAC_OK) break;
        if (k < sh->n_border) {
            fill_seed(wk, sh->border[k], 1);
        } else {
            int64_t x, y, z;
            parac__fill_inner_seed(&sh->g, k - sh->n_border, sh->n_inner, &x, &y, &z);
            fill_seed(wk, (parac__fill_run){(int32_t)y, (int32_t)z, (int32_t)x, (int32_t)x},
                      (uint16_t)(k - sh->n_border + 2));
        }
    }
}

static void phase_output(void *arg, int index, int threads)
{
    (void)threads;
    worker *wk = (worker *)arg + index;
    const shared *sh = wk->sh;
    uint8_t *cls = malloc((size_t)sh->g.w);
    if (!cls) {
        wk->status = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "fill: a row of %lld pixels", (long long)sh->g.w);
        return;
    }
    int64_t r0, r1;
    rows_of(wk, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        for (int64_t x = 0; x < sh->g.w; x++) {
            const uint16_t v = load(sh->W, r * sh->g.w + x);
            cls[x] = v == CONTOUR ? 2 : sh->outside[v];
        }
        parac__fill_write_row(sh->s, sh->in, sh->out, r % sh->g.h, r / sh->g.h, cls);
    }
    free(cls);
}

static parac_status run_phase(worker *wk, int threads, void (*fn)(void *, int, int))
{
    parac__fill_threads(threads, fn, wk);
    for (int i = 0; i < threads; i++)
        if (wk[i].status != PARAC_OK) return wk[i].status;
    return PARAC_OK;
}

/* ---- union-find over the recorded pairs: the smaller root wins ------------------- */
static uint32_t find(uint32_t *parent, uint32_t a)
{
    uint32_t r = a;
    while (parent[r] != r) r = parent[r];
    while (parent[a] != r) { /* path compression */
        uint32_t next = parent[a];
        parent[a] = r;
        a = next;
    }
    return r;
}

parac_status parac__fill_union_pairs(const uint32_t *pairs, size_t n, uint32_t labels, uint8_t *outside)
{
    uint32_t *parent = malloc((size_t)labels * sizeof *parent);
    if (!parent) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "fill: union-find over %u labels", labels);
    for (uint32_t i = 0; i < labels; i++) parent[i] = i;
    for (size_t i = 0; i < n; i++) {
        uint32_t a = find(parent, pairs[i] >> 16), b = find(parent, pairs[i] & 0xffffu);
        if (a == b) continue;
        if (a < b) parent[b] = a;
        else parent[a] = b;
    }
    /* 0 (never filled) is inside; a label is outside when its root is 1 */
    for (uint32_t i = 0; i < labels; i++) outside[i] = i > 0 && find(parent, i) == 1;
    free(parent);
    return PARAC_OK;
}

parac_status parac__fill_seeds_labels(const parac__fill_spec *s, const parac_image *in, parac_image *out,
                                      uint16_t **labels_out, uint8_t *outside)
{
    shared sh = {.s = s, .in = in, .out = out};
    PARAC_TRY(parac__fill_geometry(s, in, &sh.g));
    const int64_t n = sh.g.w * sh.g.h * sh.g.d;
    sh.n_inner = s->seeds > 0 ? s->seeds : PARAC__FILL_CPU_SEEDS;
    if (sh.n_inner > PARAC__FILL_MAX_SEEDS)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: at most %d inner seeds (16-bit labels), got %lld",
                           s->op, PARAC__FILL_MAX_SEEDS, (long long)sh.n_inner);
    const int threads = parac__fill_thread_count(s->threads);
    sh.W = malloc((size_t)((n + 3) / 4) * sizeof *sh.W);
    worker *wk = calloc((size_t)threads, sizeof *wk);
    parac_status rc = PARAC_OK;
    if (!sh.W || !wk) rc = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: labels of %lld pixels", s->op, (long long)n);
    if (rc == PARAC_OK) rc = parac__fill_border_runs(&sh.g, &sh.border, &sh.n_border);
    sh.n_seeds = sh.n_border + sh.n_inner;
    atomic_init(&sh.next, 0);
    for (int i = 0; wk && i < threads; i++) wk[i] = (worker){.sh = &sh, .index = i, .threads = threads};
    if (rc == PARAC_OK) rc = run_phase(wk, threads, phase_labels);
    if (rc == PARAC_OK) rc = run_phase(wk, threads, phase_fill);
    if (rc == PARAC_OK) {
        size_t total = 0;
        for (int i = 0; i < threads; i++) total += wk[i].n_pairs;
        uint32_t *all = malloc((total ? total : 1) * sizeof *all);
        if (!all) rc = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: %zu label pairs", s->op, total);
        size_t at = 0;
        for (int i = 0; all && i < threads; at += wk[i].n_pairs, i++)
            if (wk[i].n_pairs) memcpy(all + at, wk[i].pairs, wk[i].n_pairs * sizeof *all);
        if (all) rc = parac__fill_union_pairs(all, total, (uint32_t)sh.n_inner + 2, outside);
        free(all);
    }
    sh.outside = outside;
    if (rc == PARAC_OK && out) rc = run_phase(wk, threads, phase_output);
    for (int i = 0; wk && i < threads; i++) {
        parac__fill_stack_free(&wk[i].stack);
        free(wk[i].pairs);
    }
    free(wk);
    free(sh.border);
    /* handed over once every thread has joined: plain memory from here on */
    if (rc == PARAC_OK && labels_out) *labels_out = (uint16_t *)sh.W;
    else free(sh.W);
    return rc;
}

parac_status parac__fill_seeds_cpu(const parac__fill_spec *s, const parac_image *in, parac_image *out)
{
    uint8_t *outside = malloc(65536);
    if (!outside) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: a label table", s->op);
    parac_status rc = parac__fill_seeds_labels(s, in, out, NULL, outside);
    free(outside);
    return rc;
}
