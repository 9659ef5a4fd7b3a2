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

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "fill_pixels.h"
#include "fill_seeds.h"
#include "fill_stack.h"
#include "core/threads.h"

#define CONTOUR 0xffffu

typedef struct shared {
    const parac__fill_spec *s;
    const parac_image *in;
    parac_image *out;
    parac__fill_geom g;
    uint16_t *L;                /* the labels, plain memory outside the fill phase */
    _Atomic uint64_t *W;        /* the same memory as words of four labels, during the fill */
    parac__fill_run *border;
    int64_t n_border, n_inner, n_seeds;
    atomic_llong next;          /* the next seed to take */
    const uint16_t *value;      /* per label (and CONTOUR): the output value; other entries unused */
} shared;

typedef struct worker {
    shared *sh;
    int index, threads;
    parac__fill_stack stack;
    uint32_t *pairs; /* (a << 16) | b */
    size_t n_pairs, cap_pairs;
    parac_status status;
} worker;

/* During the fill, label i lives in lane i % 4 of word i / 4 (little-endian
 * lanes, the same bytes as the plain uint16_t array the other phases use;
 * the phases are separated by the thread pool's locks). Every access in the
 * fill is a 64-bit relaxed atomic, so up to four pixels of a run are claimed
 * with one compare-and-swap. */
_Static_assert(sizeof(_Atomic uint64_t) == sizeof(uint64_t), "words of four labels");

static inline uint16_t lane(uint64_t word, int k) { return (uint16_t)(word >> (16 * k)); }

static inline uint16_t load(_Atomic uint64_t *W, int64_t i)
{
    return lane(atomic_load_explicit(&W[i >> 2], memory_order_relaxed), (int)(i & 3));
}

/* Lanes lo..hi of a word. */
static inline uint64_t lanes(int lo, int hi) { return (~0ull >> (16 * (3 - hi))) & (~0ull << (16 * lo)); }

/* Claim for `pattern` (the label in every lane) the unbroken 0 pixels from i
 * upward, within i's word and up to `last`. Returns how many; *seen is the
 * pixel that stopped it (0 when the word or `last` did). */
static inline int claim_up(_Atomic uint64_t *W, int64_t i, int64_t last, uint64_t pattern, uint16_t *seen)
{
    _Atomic uint64_t *w = &W[i >> 2];
    const int lo = (int)(i & 3), hi = last - i < 3 - lo ? lo + (int)(last - i) : 3;
    uint64_t old = atomic_load_explicit(w, memory_order_relaxed);
    for (;;) {
        int k = lo;
        while (k <= hi && lane(old, k) == 0) k++;
        *seen = k <= hi ? lane(old, k) : 0;
        if (k == lo) return 0;
        if (atomic_compare_exchange_weak_explicit(w, &old, old | (pattern & lanes(lo, k - 1)), memory_order_relaxed,
                                                  memory_order_relaxed))
            return k - lo;
    }
}

/* The same downward from i, down to `first`. */
static inline int claim_down(_Atomic uint64_t *W, int64_t i, int64_t first, uint64_t pattern, uint16_t *seen)
{
    _Atomic uint64_t *w = &W[i >> 2];
    const int hi = (int)(i & 3), lo = i - first < hi ? hi - (int)(i - first) : 0;
    uint64_t old = atomic_load_explicit(w, memory_order_relaxed);
    for (;;) {
        int k = hi;
        while (k >= lo && lane(old, k) == 0) k--;
        *seen = k >= lo ? lane(old, k) : 0;
        if (k == hi) return 0;
        if (atomic_compare_exchange_weak_explicit(w, &old, old | (pattern & lanes(k + 1, hi)), memory_order_relaxed,
                                                  memory_order_relaxed))
            return hi - k;
    }
}

static void record(worker *wk, uint16_t label, uint16_t other)
{
    if (other == label || other == CONTOUR || other == 0) return;
    const uint32_t pair = (uint32_t)label << 16 | other;
    if (wk->n_pairs && wk->pairs[wk->n_pairs - 1] == pair) return;
    if (wk->n_pairs == wk->cap_pairs) {
        size_t cap = wk->cap_pairs ? 2 * wk->cap_pairs : 256;
        uint32_t *p = parac__realloc(wk->pairs, cap * sizeof *p);
        if (!p) {
            wk->status = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "fill: %zu label pairs", cap);
            return;
        }
        wk->pairs = p;
        wk->cap_pairs = cap;
    }
    wk->pairs[wk->n_pairs++] = pair;
}

/* Read pixels a..b of a neighbour row (starting at index nbase) a word at a
 * time: record the other labels met, push the runs of 0 pixels. */
static int scan_row(worker *wk, uint16_t label, uint64_t pattern, int32_t y, int32_t z, int64_t nbase, int64_t a,
                    int64_t b)
{
    _Atomic uint64_t *W = wk->sh->W;
    int64_t start = -1;
    for (int64_t i = a; i <= b;) {
        const int64_t p = nbase + i;
        const uint64_t word = atomic_load_explicit(&W[p >> 2], memory_order_relaxed);
        const int k0 = (int)(p & 3), k1 = b - i < 3 - k0 ? k0 + (int)(b - i) : 3;
        if (word == pattern) { /* all this fill's own */
            if (start >= 0) {
                wk->status = parac__fill_push(&wk->stack, (parac__fill_run){y, z, (int32_t)start, (int32_t)(i - 1)});
                start = -1;
            }
            i += k1 - k0 + 1;
            continue;
        }
        for (int k = k0; k <= k1; k++, i++) {
            const uint16_t v = lane(word, k);
            if (v == 0) {
                if (start < 0) start = i;
                continue;
            }
            if (start >= 0) {
                wk->status = parac__fill_push(&wk->stack, (parac__fill_run){y, z, (int32_t)start, (int32_t)(i - 1)});
                start = -1;
            }
            record(wk, label, v);
        }
        if (wk->status != PARAC_OK) return 0;
    }
    if (start >= 0) wk->status = parac__fill_push(&wk->stack, (parac__fill_run){y, z, (int32_t)start, (int32_t)b});
    return wk->status == PARAC_OK;
}

/* Every pixel of a popped run is either claimed or, when another label holds
 * it, recorded against this one. Pixels of neighbour rows are read after the
 * run is claimed; one that is still 0 is pushed and later claimed or recorded.
 * So every pair of adjacent labels is recorded by one of its two threads. */
static void fill_seed(worker *wk, parac__fill_run first, uint16_t label)
{
    const parac__fill_geom *g = &wk->sh->g;
    _Atomic uint64_t *W = wk->sh->W;
    const uint64_t pattern = 0x0001000100010001ull * label;
    if ((wk->status = parac__fill_push(&wk->stack, first)) != PARAC_OK) return;
    parac__fill_run r;
    while (wk->status == PARAC_OK && parac__fill_pop(&wk->stack, &r)) {
        const int64_t base = ((int64_t)r.z * g->h + r.y) * g->w, last = base + g->w - 1;
        for (int64_t x = r.x0; x <= r.x1; x++) {
            uint16_t seen = 0;
            int64_t e = x - 1, l = x;
            while (e < g->w - 1) { /* x and what follows it */
                e += claim_up(W, base + e + 1, last, pattern, &seen);
                if (seen) break;
            }
            record(wk, label, seen);
            if (e < x) continue; /* x was taken */
            while (l > 0) {
                l -= claim_down(W, base + l - 1, base, pattern, &seen);
                if (seen) break;
            }
            record(wk, label, seen);
            for (int k = 0; k < g->n_rows; k++) {
                const parac__fill_row *nb = &g->rows[k];
                const int64_t ny = r.y + nb->dy, nz = r.z + nb->dz;
                if (ny < 0 || ny >= g->h || nz < 0 || nz >= g->d) continue;
                const int64_t nbase = (nz * g->h + ny) * g->w;
                int64_t a = l - nb->grow, b = e + nb->grow;
                if (a < 0) a = 0;
                if (b > g->w - 1) b = g->w - 1;
                if (!scan_row(wk, label, pattern, (int32_t)ny, (int32_t)nz, nbase, a, b)) return;
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
    const int64_t w = sh->g.w;
    const uint32_t t = sh->s->threshold;
    int64_t r0, r1;
    rows_of(wk, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const void *src = parac__fill_row_in(sh->in, r % sh->g.h, r / sh->g.h);
        uint16_t *o = sh->L + r * w;
        if (sh->in->dtype == PARAC_U8) {
            const uint8_t *p = src;
            for (int64_t x = 0; x < w; x++) o[x] = (uint32_t)p[x] >= t ? CONTOUR : 0;
        } else {
            const uint16_t *p = src;
            for (int64_t x = 0; x < w; x++) o[x] = (uint32_t)p[x] >= t ? CONTOUR : 0;
        }
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

/* Contour pixels take their input value when the spec keeps them, otherwise
 * every label (CONTOUR included) maps to its output value through a table. */
#define WRITE_ROW(OUT_T, IN_T)                                                                       \
    do {                                                                                             \
        OUT_T *o = dst;                                                                              \
        const IN_T *p = src;                                                                         \
        if (keep)                                                                                    \
            for (int64_t x = 0; x < w; x++) o[x] = (OUT_T)(l[x] == CONTOUR ? p[x] : value[l[x]]);     \
        else                                                                                         \
            for (int64_t x = 0; x < w; x++) o[x] = (OUT_T)value[l[x]];                               \
    } while (0)

static void phase_output(void *arg, int index, int threads)
{
    (void)threads;
    worker *wk = (worker *)arg + index;
    const shared *sh = wk->sh;
    const int64_t w = sh->g.w;
    const int keep = sh->s->contour == PARAC_FILL_CONTOUR_KEEP;
    const uint16_t *value = sh->value;
    int64_t r0, r1;
    rows_of(wk, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t y = r % sh->g.h, z = r / sh->g.h;
        const void *src = parac__fill_row_in(sh->in, y, z);
        void *dst = (char *)sh->out->data + z * sh->out->slice_pitch + y * sh->out->row_pitch;
        const uint16_t *l = sh->L + r * w;
        if (sh->out->dtype == PARAC_U8) {
            if (sh->in->dtype == PARAC_U8) WRITE_ROW(uint8_t, uint8_t);
            else WRITE_ROW(uint8_t, uint16_t);
        } else {
            if (sh->in->dtype == PARAC_U8) WRITE_ROW(uint16_t, uint8_t);
            else WRITE_ROW(uint16_t, uint16_t);
        }
    }
}

static parac_status run_phase(worker *wk, int threads, void (*fn)(void *, int, int))
{
    parac__run_threads(threads, fn, wk);
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
    uint32_t *parent = parac__malloc((size_t)labels * sizeof *parent);
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
    const int threads = parac__thread_count(s->threads);
    const int64_t words = (n + 3) / 4;
    uint64_t *mem = parac__malloc((size_t)words * sizeof *mem);
    uint16_t *value = parac__malloc(65536 * sizeof *value);
    worker *wk = parac__calloc((size_t)threads, sizeof *wk);
    parac_status rc = PARAC_OK;
    if (mem) mem[words - 1] = 0; /* lanes past the last pixel */
    sh.L = (uint16_t *)mem;
    sh.W = (_Atomic uint64_t *)mem;
    if (!mem || !value || !wk) rc = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: labels of %lld pixels", s->op, (long long)n);
    if (rc == PARAC_OK) rc = parac__fill_border_runs(&sh.g, &sh.border, &sh.n_border);
    sh.n_seeds = sh.n_border + sh.n_inner;
    atomic_init(&sh.next, 0);
    for (int i = 0; wk && i < threads; i++) wk[i] = (worker){.sh = &sh, .index = i, .threads = threads};
    if (rc == PARAC_OK) rc = run_phase(wk, threads, phase_labels);
    if (rc == PARAC_OK) rc = run_phase(wk, threads, phase_fill);
    if (rc == PARAC_OK) {
        size_t total = 0;
        for (int i = 0; i < threads; i++) total += wk[i].n_pairs;
        uint32_t *all = parac__malloc((total ? total : 1) * sizeof *all);
        if (!all) rc = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: %zu label pairs", s->op, total);
        size_t at = 0;
        for (int i = 0; all && i < threads; at += wk[i].n_pairs, i++)
            if (wk[i].n_pairs) memcpy(all + at, wk[i].pairs, wk[i].n_pairs * sizeof *all);
        if (all) rc = parac__fill_union_pairs(all, total, (uint32_t)sh.n_inner + 2, outside);
        free(all);
    }
    if (rc == PARAC_OK && out) {
        const uint32_t labels = (uint32_t)sh.n_inner + 2;
        for (uint32_t v = 0; v < labels; v++) value[v] = (uint16_t)parac__fill_value(s, outside[v], 0);
        value[CONTOUR] = (uint16_t)parac__fill_value(s, 2, 0);
        sh.value = value;
        rc = run_phase(wk, threads, phase_output);
    }
    for (int i = 0; wk && i < threads; i++) {
        parac__fill_stack_free(&wk[i].stack);
        free(wk[i].pairs);
    }
    free(wk);
    free(value);
    free(sh.border);
    if (rc == PARAC_OK && labels_out) *labels_out = sh.L;
    else free(mem);
    return rc;
}

parac_status parac__fill_seeds_cpu(const parac__fill_spec *s, const parac_image *in, parac_image *out)
{
    uint8_t *outside = parac__malloc(65536);
    if (!outside) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: a label table", s->op);
    parac_status rc = parac__fill_seeds_labels(s, in, out, NULL, outside);
    free(outside);
    return rc;
}
