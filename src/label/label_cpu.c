/* Labelling on the CPU: connected components of runs, on every core. A run
 * is a maximal horizontal stretch of foreground pixels of one row (of one
 * value, with equal_values). Each thread takes a strip of rows:
 *   A. counts the runs of its rows (a prefix sum then numbers every run in
 *      raster order);
 *   B. records them, each its own parent;
 *   C. joins the runs of its rows with those of their backward neighbour
 *      rows inside the strip (union-find: the smaller number is the root,
 *      so a component's root is its first run in raster order; a strip's
 *      runs belong to one thread, so no atomics);
 * then the roots are found without walking chains: each thread, in run
 * order, gives every run its parent's strip-local root (E1: parents precede
 * their runs); one thread joins the runs that meet across strip boundaries
 * by their local roots (D), recording every local root it links under
 * another strip's; it resolves the recorded links in index order (E2);
 * each thread replaces every run's local root by that root's final root
 * (E3). Union by index builds chains as long as a spiral has turns, and
 * walking them from every run, or from every boundary run in D, costs the
 * square of that. A prefix sum over the strips numbers the
 * roots in raster order, each thread numbers its roots (F) and writes its
 * rows (G). Work per pixel: a comparison and a store; everything else is
 * per run.
 *
 * In 2D with 8-connectivity and nonzero pixels the units are pairs of rows,
 * not rows: a pair's runs are those of its two rows or-ed (label_bits.h),
 * half as many on walls and thin lines, 2.7 times fewer on noise at 50 %;
 * the join, the numbering and the output of pairs are in label_pairs.c. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc_internal.h"
#include "../core/error_internal.h"
#include "../core/image_internal.h"
#include "../core/neighbourhood.h"
#include "../core/threads.h"
#include "../core/union_find.h"
#include "label.h"
#include "label_bits.h"
#include "label_runs.h"

static void strip(const labeller *c, int t, int64_t *r0, int64_t *r1)
{
    *r0 = c->bounds[t];
    *r1 = c->bounds[t + 1];
}

static inline uint64_t load8(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* The runs of one row into x0/x1 (NULL: only counted). Foreground: v != 0,
 * or v != bg with equal values; with equal values a run also ends where the
 * value changes. */
#define RUNS_OF(NAME, T, IN_RANGE)                                                                        \
    static int64_t NAME(const void *row_, int64_t w, int equal, double bgd, int32_t *x0, int32_t *x1,     \
                        int *nan)                                                                         \
    {                                                                                                     \
        const T *p = row_;                                                                                \
        /* a background the dtype cannot hold: no pixel equals it */                                      \
        const int bg_exact = !equal || ((IN_RANGE) && (double)(T)bgd == bgd);                             \
        const T bg = equal && bg_exact ? (T)bgd : (T)0;                                                   \
        int64_t n = 0, x = 0;                                                                             \
        while (x < w) {                                                                                   \
            if (bg_exact) {                                                                               \
                if (sizeof(T) == 1 && !equal && bg == 0)                                                  \
                    while (x + 8 <= w && load8((const uint8_t *)p + x) == 0) x += 8;                      \
                while (x < w && p[x] == bg) x++;                                                          \
            }                                                                                             \
            if (x == w) break;                                                                            \
            const int64_t a = x;                                                                          \
            const T v = p[x++];                                                                           \
            if (equal) {                                                                                  \
                if (v != v) *nan = 1; /* no equal: refused by the caller */                               \
                while (x < w && p[x] == v) x++;                                                           \
            } else {                                                                                      \
                while (x < w && p[x] != 0) x++;                                                           \
            }                                                                                             \
            if (x0) x0[n] = (int32_t)a, x1[n] = (int32_t)(x - 1);                                         \
            n++;                                                                                          \
        }                                                                                                 \
        return n;                                                                                         \
    }
RUNS_OF(runs_u8, uint8_t, bgd >= 0 && bgd <= 255)
RUNS_OF(runs_u16, uint16_t, bgd >= 0 && bgd <= 65535)
RUNS_OF(runs_i32, int32_t, bgd >= INT32_MIN && bgd <= INT32_MAX)
RUNS_OF(runs_i64, int64_t, bgd >= -0x1p63 && bgd < 0x1p63) /* INT64_MAX is no double */
RUNS_OF(runs_f32, float, bgd >= -FLT_MAX && bgd <= FLT_MAX)

/* runs_u8 for nonzero pixels, 64 pixels at a time (label_bits.h). */
static int64_t runs_u8_nonzero(const uint8_t *p, int64_t w, int32_t *x0, int32_t *x1)
{
    int64_t j = 0;
    uint64_t carry = 0;
    for (int64_t x = 0; x < w; x += 64) {
        const int k = w - x < 64 ? (int)(w - x) : 64;
        j = parac__runs_of_word(parac__nonzero_bits_u8(p + x, k), x, k, &carry, x0, x1, j);
    }
    return parac__runs_closed(j, w, x1);
}

static int64_t runs(const labeller *c, int64_t r, int32_t *x0, int32_t *x1, int *nan)
{
    const void *row = row_of(c->in, r, c->h);
    const int eq = c->s->equal_values;
    const double bg = c->s->background;
    switch (c->in->dtype) {
    case PARAC_U8: return eq ? runs_u8(row, c->w, eq, bg, x0, x1, nan) : runs_u8_nonzero(row, c->w, x0, x1);
    case PARAC_U16: return runs_u16(row, c->w, eq, bg, x0, x1, nan);
    case PARAC_I32: return runs_i32(row, c->w, eq, bg, x0, x1, nan);
    case PARAC_I64: return runs_i64(row, c->w, eq, bg, x0, x1, nan);
    default: return runs_f32(row, c->w, eq, bg, x0, x1, nan);
    }
}

/* Whether pixel xa of row ra and pixel xb of row rb hold the same value
 * (compared in the dtype: i64 values do not all fit a double; NaN is
 * refused before, -0 equals 0). */
static int same_value(const labeller *c, int64_t ra, int64_t xa, int64_t rb, int64_t xb)
{
    const void *a = row_of(c->in, ra, c->h), *b = row_of(c->in, rb, c->h);
    switch (c->in->dtype) {
    case PARAC_U8: return ((const uint8_t *)a)[xa] == ((const uint8_t *)b)[xb];
    case PARAC_U16: return ((const uint16_t *)a)[xa] == ((const uint16_t *)b)[xb];
    case PARAC_I32: return ((const int32_t *)a)[xa] == ((const int32_t *)b)[xb];
    case PARAC_I64: return ((const int64_t *)a)[xa] == ((const int64_t *)b)[xb];
    default: return ((const float *)a)[xa] == ((const float *)b)[xb];
    }
}

static void phase_count(void *arg, int t, int threads)
{
    (void)threads;
    labeller *c = arg;
    int64_t r0, r1;
    strip(c, t, &r0, &r1);
    int nan = 0;
    if (c->pairs) {
        for (int64_t r = 2 * r0; r < 2 * r1 && r < c->h; r++)
            parac__bit_row(row_of(c->in, r, c->h), c->in->dtype, c->w, c->bits + r * c->words);
        for (int64_t p = r0; p < r1; p++)
            c->first[p + 1] = parac__runs_of_bits(pair_top(c, p), pair_bottom(c, p), c->w, NULL, NULL);
    } else {
        for (int64_t r = r0; r < r1; r++) c->first[r + 1] = runs(c, r, NULL, NULL, &nan);
    }
    c->nan[t] = nan;
}

static void phase_record(void *arg, int t, int threads)
{
    (void)threads;
    labeller *c = arg;
    int64_t r0, r1;
    strip(c, t, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t k = c->first[r];
        int nan = 0;
        if (c->pairs) parac__runs_of_bits(pair_top(c, r), pair_bottom(c, r), c->w, c->x0 + k, c->x1 + k);
        else runs(c, r, c->x0 + k, c->x1 + k, &nan);
        for (int64_t i = k; i < c->first[r + 1]; i++) c->parent[i] = (uint32_t)i;
    }
}

/* Join the runs of row r with those of its backward neighbour rows that lie
 * in [lo, hi) (rows of one strip, or earlier strips at a strip boundary:
 * `across`). */
static void join_row(labeller *c, int64_t r, int64_t lo, int64_t hi, int across)
{
    const int64_t y = r % c->h, z = r / c->h;
    const int equal = c->s->equal_values;
    const int32_t *restrict x0 = c->x0, *restrict x1 = c->x1;
    for (int k = 0; k < c->n_back; k++) {
        const back_row *nb = &c->back[k];
        const int64_t ny = y + nb->dy, nz = z + nb->dz;
        if (ny < 0 || ny >= c->h || nz < 0 || nz >= c->d) continue;
        const int64_t q = nz * c->h + ny;
        if (q < lo || q >= hi) continue;
        /* every pair of runs that overlap, widened by one pixel where
         * diagonals connect; with equal values runs of a row may touch, so
         * a run of q can meet several of r and the other way round: each
         * run of r scans from the first run of q that reaches it */
        const int grow = nb->grow;
        int64_t b0 = c->first[q];
        const int64_t be = c->first[q + 1];
        for (int64_t a = c->first[r]; a < c->first[r + 1]; a++) {
            while (b0 < be && x1[b0] + grow < x0[a]) b0++;
            for (int64_t b = b0; b < be && x0[b] <= x1[a] + grow; b++) {
                if (equal && !same_value(c, r, x0[a], q, x0[b])) continue;
                join_runs(c, a, b, across);
            }
        }
    }
}

static void phase_join(void *arg, int t, int threads)
{
    (void)threads;
    labeller *c = arg;
    int64_t r0, r1;
    strip(c, t, &r0, &r1);
    uint64_t *touch = c->pairs ? pair_scratch(c, t) : NULL;
    for (int64_t r = r0; r < r1; r++) {
        if (!c->pairs) join_row(c, r, r0, r1, 0);
        else if (r > r0) parac__label_join_pair(c, r, 0, touch);
    }
}

/* Strips of equal work after A: a unit costs its runs and its pixels'
 * share (the output's stores; a run's joins and roots cost about as much as
 * 16 pixels' stores), so that a spiral, whose middle rows cross every turn
 * and whose top rows cross few, does not leave most strips waiting on the
 * middle ones. Each strip keeps at least one unit. (A pair's run costs
 * more, about 48 pixels on one core, but weighing it so was not faster on
 * the 16 threads of the H200 machine.) */
static void balance_strips(labeller *c)
{
    const double per_row = (double)c->w * (c->pairs ? 2 : 1) / 16;
    const double total = (double)c->first[c->rows] + per_row * (double)c->rows;
    int64_t r = 0;
    for (int t = 1; t < c->threads; t++) {
        const double goal = total * t / c->threads;
        while (r < c->rows && (double)c->first[r] + per_row * (double)r < goal) r++;
        const int64_t lo = c->bounds[t - 1] + 1, hi = c->rows - (c->threads - t);
        c->bounds[t] = r < lo ? lo : r > hi ? hi : r;
        r = c->bounds[t];
    }
    c->bounds[c->threads] = c->rows;
}

/* The local roots that D linked under another strip's are roots no more:
 * each leaves its strip's count. */
static void uncount_links(labeller *c)
{
    for (int64_t i = 0; i < c->links.n; i++) {
        const int64_t x = c->links.at[i];
        int t = 0;
        for (int lo = 0, hi = c->threads - 1; lo <= hi;) { /* the last strip whose first run is <= x */
            const int mid = (lo + hi) / 2;
            int64_t r0, r1;
            strip(c, mid, &r0, &r1);
            if (c->first[r0] <= x) t = mid, lo = mid + 1;
            else hi = mid - 1;
        }
        c->roots[t]--;
    }
}

/* E1 and E3 (core/union_find.h). */
static void phase_local_roots(void *arg, int t, int threads)
{
    (void)threads;
    labeller *c = arg;
    int64_t r0, r1;
    strip(c, t, &r0, &r1);
    c->roots[t] = parac__uf_local_roots(c->parent, c->root, c->first[r0], c->first[r1]);
}

static void phase_final_roots(void *arg, int t, int threads)
{
    (void)threads;
    labeller *c = arg;
    int64_t r0, r1;
    strip(c, t, &r0, &r1);
    parac__uf_final_roots(c->root, c->first[r0], c->first[r1]);
}

/* Roots are numbered in run order, which is raster order (of rows; pairs:
 * number_pairs). */
static void phase_number(void *arg, int t, int threads)
{
    (void)threads;
    labeller *c = arg;
    int64_t r0, r1;
    strip(c, t, &r0, &r1);
    uint32_t next = (uint32_t)c->roots[t];
    if (c->pairs) {
        parac__label_number_pairs(c, r0, r1, next, (uint8_t *)pair_scratch(c, t));
        return;
    }
    for (int64_t k = c->first[r0]; k < c->first[r1]; k++)
        if (c->parent[k] == (uint32_t)k) c->parent[k] = ++next;
}

static void phase_output(void *arg, int t, int threads)
{
    (void)threads;
    labeller *c = arg;
    int64_t r0, r1;
    strip(c, t, &r0, &r1);
    if (c->pairs) {
        parac__label_output_pairs(c, r0, r1);
        return;
    }
    if (c->out->dtype == PARAC_I64) {
        for (int64_t r = r0; r < r1; r++) {
            int64_t *o = out_row_wide(c, r);
            memset(o, 0, (size_t)c->w * sizeof *o);
            for (int64_t k = c->first[r]; k < c->first[r + 1]; k++) {
                const int64_t v = c->parent[c->root[k]];
                for (int64_t x = c->x0[k], x1 = c->x1[k]; x <= x1; x++) o[x] = v;
            }
        }
        return;
    }
    for (int64_t r = r0; r < r1; r++) {
        int32_t *o = out_row(c, r);
        /* the row cleared at once, then the runs: zeros written gap by gap
         * became a call to memset per gap (compilers turn the loop into one),
         * 8 million calls for 8K noise */
        memset(o, 0, (size_t)c->w * sizeof *o);
        for (int64_t k = c->first[r]; k < c->first[r + 1]; k++) {
            const int32_t v = (int32_t)c->parent[c->root[k]];
            for (int64_t x = c->x0[k], x1 = c->x1[k]; x <= x1; x++) o[x] = v;
        }
    }
}

parac_status parac__label_cpu(const parac__label_spec *s, const parac_image *in, parac_image *out, int64_t *count)
{
    labeller c = {.s = s, .in = in, .out = out, .w = in->width, .h = in->height, .d = in->depth};
    c.pairs = c.d == 1 && !s->equal_values && parac__conn_reaches(s->conn, 1, -1, 0);
    c.rows = c.pairs ? (c.h + 1) / 2 : c.h * c.d;
    c.threads = parac__thread_count(s->threads);
    if (c.threads > c.rows) c.threads = (int)c.rows;
    for (int t = 0; t <= c.threads; t++) c.bounds[t] = c.rows * t / c.threads; /* A: rows of equal pixels */
    /* the backward neighbour rows of the connectivity */
    for (int dz = -1; dz <= 0; dz++)
        for (int dy = -1; dy <= 1; dy++) {
            if (dz == 0 && dy >= 0) continue;
            if (!parac__conn_reaches(s->conn, 0, dy, dz) && !parac__conn_reaches(s->conn, 1, dy, dz)) continue;
            if (dz != 0 && !parac__conn_is_3d(s->conn)) continue;
            c.back[c.n_back++] = (back_row){dy, dz, parac__conn_reaches(s->conn, 1, dy, dz)};
        }
    c.first = parac__calloc((size_t)c.rows + 1, sizeof *c.first);
    if (!c.first) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: run index of %lld rows", s->op, (long long)c.rows);
    c.words = (c.w + 63) / 64;
    c.scratch_words = c.words + (c.w + 16) / 16; /* pair_scratch: the touching bits, or (w + 1) / 2 marks */
    const size_t bits_size = c.pairs ? (size_t)(c.h * c.words) * sizeof *c.bits : 0,
                 scratch_size = c.pairs ? (size_t)c.threads * (size_t)c.scratch_words * sizeof *c.scratch : 0;
    if (c.pairs &&
        (!(c.bits = parac__kept_block_take(bits_size)) || !(c.scratch = parac__kept_block_take(scratch_size)))) {
        free(c.first);
        parac__kept_block_give(c.bits, bits_size);
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: the bits of %lld rows", s->op, (long long)c.h);
    }
    parac__run_threads(c.threads, phase_count, &c);
    for (int64_t r = 0; r < c.rows; r++) c.first[r + 1] += c.first[r];
    balance_strips(&c);
    const int64_t n = c.first[c.rows];
    size_t m = 0; /* runs in the scratch arrays (kept between calls: parac__kept_block_take) */
    parac_status rc = PARAC_OK;
    int nan = 0;
    for (int t = 0; t < c.threads; t++) nan |= c.nan[t];
    if (nan) {
        rc = parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: the image has NaN values; regions of equal value are "
                         "undefined there (replace them first)", s->op);
    } else if (n >= UINT32_MAX) {
        rc = parac__fail(PARAC_ERR_UNSUPPORTED, "%s: %lld runs of foreground; the CPU method takes fewer than 2^32",
                         s->op, (long long)n);
    } else {
        m = (size_t)(n ? n : 1);
        c.x0 = parac__kept_block_take(m * sizeof *c.x0);
        c.x1 = parac__kept_block_take(m * sizeof *c.x1);
        c.parent = parac__kept_block_take(m * sizeof *c.parent);
        c.root = parac__kept_block_take(m * sizeof *c.root);
        if (!c.x0 || !c.x1 || !c.parent || !c.root)
            rc = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: %lld runs of foreground", s->op, (long long)n);
        else
            rc = parac__uf_links_alloc(&c.links, c.first, c.bounds, c.threads, c.d > 1 ? c.h + 1 : 1);
    }
    if (rc == PARAC_OK) {
        parac__run_threads(c.threads, phase_record, &c);
        parac__run_threads(c.threads, phase_join, &c);
        parac__run_threads(c.threads, phase_local_roots, &c);
        /* D: the rows of each strip whose backward neighbours lie in an earlier strip */
        for (int t = 1; t < c.threads; t++) {
            int64_t r0, r1;
            strip(&c, t, &r0, &r1);
            const int64_t reach = c.d > 1 ? c.h + 1 : 1; /* the farthest backward neighbour row */
            if (c.pairs) parac__label_join_pair(&c, r0, 1, pair_scratch(&c, 0));
            else
                for (int64_t r = r0; r < r1 && r < r0 + reach; r++) join_row(&c, r, 0, r0, 1);
        }
        uncount_links(&c);
        parac__uf_resolve_links(c.parent, c.root, &c.links);
        parac__run_threads(c.threads, phase_final_roots, &c);
        int64_t total = 0;
        for (int t = 0; t < c.threads; t++) {
            const int64_t k = c.roots[t];
            c.roots[t] = total;
            total += k;
        }
        if (total > parac__label_i32_max() && c.out->dtype == PARAC_I32) rc = parac__label_widen(s, total, &c.out);
        if (rc == PARAC_OK) {
            parac__run_threads(c.threads, phase_number, &c);
            parac__run_threads(c.threads, phase_output, &c);
            *count = total;
        }
    }
    free(c.first);
    parac__kept_block_give(c.bits, bits_size);
    parac__kept_block_give(c.scratch, scratch_size);
    parac__kept_block_give(c.x0, m * sizeof *c.x0);
    parac__kept_block_give(c.x1, m * sizeof *c.x1);
    parac__kept_block_give(c.parent, m * sizeof *c.parent);
    parac__kept_block_give(c.root, m * sizeof *c.root);
    parac__uf_links_free(&c.links);
    return rc;
}
