/* Method "ccl" on the CPU: the background as connected components of runs,
 * on every core (beyond the paper). Each thread takes a strip of rows:
 *   A. counts the background runs of its rows (a prefix sum then gives
 *      every run a global number);
 *   B. records the runs, each its own parent, flagged when it touches the
 *      image border;
 *   C. joins overlapping runs of neighbouring rows inside its strip
 *      (union-find, the smaller number is the root; a strip's runs belong
 *      to one thread, so no atomics);
 * then every run takes its strip-local root, one thread joins the runs that
 * meet across strip boundaries by those roots (D), and the final roots are
 * found without walking chains (E, core/union_find.h); every
 * thread marks the roots of its border runs outside, and writes its rows
 * (F). The work per pixel is a comparison and a store; everything else is
 * per run. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "../core/image_internal.h"
#include "fill_pixels.h"
#include "core/threads.h"
#include "core/union_find.h"

typedef struct ccl {
    const parac__fill_spec *s;
    const parac_image *in;
    parac_image *out;
    parac__fill_geom g;
    int64_t rows;            /* h * d */
    int64_t *first;          /* rows + 1: the first run of each row */
    int32_t *x0, *x1;
    uint32_t *parent, *root;
    parac__uf_links links;   /* D: the roots linked under another strip's tree */
    uint8_t *border;
    _Atomic uint8_t *outside;
    int n_back;              /* backward neighbour rows */
    parac__fill_row back[4]; /* those with dz < 0, or dz == 0 and dy < 0 */
    int threads;
} ccl;

static void strip(const ccl *c, int t, int64_t *r0, int64_t *r1)
{
    *r0 = c->rows * t / c->threads;
    *r1 = c->rows * (t + 1) / c->threads;
}

static inline uint64_t load8(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline int has_zero_byte(uint64_t v)
{
    return ((v - 0x0101010101010101ull) & ~v & 0x8080808080808080ull) != 0;
}

/* Background runs of row r: calls emit(x0, x1) for each. */
#define FOR_RUNS(c, r, BODY)                                                                    \
    do {                                                                                        \
        const int64_t w_ = (c)->g.w;                                                            \
        const void *row_ = parac__fill_row_in((c)->in, (r) % (c)->g.h, (r) / (c)->g.h);          \
        const uint32_t t_ = (c)->s->threshold;                                                  \
        int64_t x_ = 0;                                                                         \
        if ((c)->in->dtype == PARAC_U8) {                                                       \
            const uint8_t *p_ = row_;                                                           \
            const int fast_ = t_ == 1; /* contour = nonzero: eight bytes at a time */           \
            while (x_ < w_) {                                                                   \
                if (fast_)                                                                      \
                    while (x_ + 8 <= w_ && !has_zero_byte(load8(p_ + x_))) x_ += 8;             \
                while (x_ < w_ && p_[x_] >= t_) x_++;                                            \
                if (x_ == w_) break;                                                            \
                const int64_t a_ = x_;                                                          \
                if (fast_)                                                                      \
                    while (x_ + 8 <= w_ && load8(p_ + x_) == 0) x_ += 8;                        \
                while (x_ < w_ && p_[x_] < t_) x_++;                                             \
                const int64_t run_x0 = a_, run_x1 = x_ - 1;                                     \
                BODY;                                                                           \
            }                                                                                   \
        } else {                                                                                \
            const uint16_t *p_ = row_;                                                          \
            while (x_ < w_) {                                                                   \
                while (x_ < w_ && p_[x_] >= t_) x_++;                                            \
                if (x_ == w_) break;                                                            \
                const int64_t a_ = x_;                                                          \
                while (x_ < w_ && p_[x_] < t_) x_++;                                             \
                const int64_t run_x0 = a_, run_x1 = x_ - 1;                                     \
                BODY;                                                                           \
            }                                                                                   \
        }                                                                                       \
    } while (0)

static void phase_count(void *arg, int t, int threads)
{
    (void)threads;
    ccl *c = arg;
    int64_t r0, r1;
    strip(c, t, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        int64_t n = 0;
        FOR_RUNS(c, r, { (void)run_x0; (void)run_x1; n++; });
        c->first[r + 1] = n;
    }
}

static void phase_record(void *arg, int t, int threads)
{
    (void)threads;
    ccl *c = arg;
    int64_t r0, r1;
    strip(c, t, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t y = r % c->g.h, z = r / c->g.h;
        const int whole = y == 0 || y == c->g.h - 1 || (c->g.z_border && (z == 0 || z == c->g.d - 1));
        int64_t k = c->first[r];
        FOR_RUNS(c, r, {
            c->x0[k] = (int32_t)run_x0;
            c->x1[k] = (int32_t)run_x1;
            c->parent[k] = (uint32_t)k;
            c->border[k] = (uint8_t)(whole || run_x0 == 0 || run_x1 == w_ - 1);
            k++;
        });
    }
}

/* Join the runs of row r with those of its backward neighbour rows that lie
 * in [lo, hi) (rows of one strip, or earlier strips for the boundary). */
static void join_row(ccl *c, int64_t r, int64_t lo, int64_t hi, int across)
{
    const int64_t y = r % c->g.h, z = r / c->g.h;
    for (int k = 0; k < c->n_back; k++) {
        const parac__fill_row *nb = &c->back[k];
        const int64_t ny = y + nb->dy, nz = z + nb->dz;
        if (ny < 0 || ny >= c->g.h || nz < 0) continue;
        const int64_t q = nz * c->g.h + ny;
        if (q < lo || q >= hi) continue;
        int64_t a = c->first[r], ae = c->first[r + 1], b = c->first[q], be = c->first[q + 1];
        const int grow = nb->grow;
        while (a < ae && b < be) {
            /* overlap, widened by one pixel where diagonals connect */
            if (c->x0[a] > c->x1[b] + grow || c->x0[b] > c->x1[a] + grow) {
                /* no overlap */
            } else if (across) {
                parac__uf_unite_recorded(c->parent, c->root, (uint32_t)a, (uint32_t)b, &c->links);
            } else {
                parac__uf_unite(c->parent, (uint32_t)a, (uint32_t)b);
            }
            if (c->x1[a] < c->x1[b]) a++;
            else b++;
        }
    }
}

static void phase_join(void *arg, int t, int threads)
{
    (void)threads;
    ccl *c = arg;
    int64_t r0, r1;
    strip(c, t, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) join_row(c, r, r0, r1, 0);
}

static void phase_local_roots(void *arg, int t, int threads)
{
    (void)threads;
    ccl *c = arg;
    int64_t r0, r1;
    strip(c, t, &r0, &r1);
    parac__uf_local_roots(c->parent, c->root, c->first[r0], c->first[r1]);
}

static void phase_roots(void *arg, int t, int threads)
{
    (void)threads;
    ccl *c = arg;
    int64_t r0, r1;
    strip(c, t, &r0, &r1);
    parac__uf_final_roots(c->root, c->first[r0], c->first[r1]);
    for (int64_t k = c->first[r0]; k < c->first[r1]; k++)
        if (c->border[k]) atomic_store_explicit(&c->outside[c->root[k]], 1, memory_order_relaxed);
}

static void phase_output(void *arg, int t, int threads)
{
    (void)threads;
    ccl *c = arg;
    const parac__fill_spec *s = c->s;
    int64_t r0, r1;
    strip(c, t, &r0, &r1);
    const int keep = s->contour == PARAC_FILL_CONTOUR_KEEP;
    const uint32_t cv = s->contour == PARAC_FILL_CONTOUR_OUTSIDE ? s->outside : s->inside;
    for (int64_t r = r0; r < r1; r++) {
        const int64_t y = r % c->g.h, z = r / c->g.h;
        void *dst = (char *)c->out->data + z * c->out->slice_pitch + y * c->out->row_pitch;
        const void *src = parac__fill_row_in(c->in, y, z);
        int64_t x = 0;
        for (int64_t k = c->first[r]; k <= c->first[r + 1]; k++) {
            const int64_t gap_end = k < c->first[r + 1] ? c->x0[k] : c->g.w; /* contour pixels before run k */
            if (c->out->dtype == PARAC_U8) {
                uint8_t *o = dst;
                if (keep) for (; x < gap_end; x++) o[x] = (uint8_t)parac__fill_pixel(c->in, src, x);
                else memset(o + x, (int)cv, (size_t)(gap_end - x));
            } else {
                uint16_t *o = dst;
                for (; x < gap_end; x++) o[x] = (uint16_t)(keep ? parac__fill_pixel(c->in, src, x) : cv);
            }
            x = gap_end;
            if (k == c->first[r + 1]) break;
            const uint32_t v = atomic_load_explicit(&c->outside[c->root[k]], memory_order_relaxed) ? s->outside
                                                                                                    : s->inside;
            const int64_t e = c->x1[k] + 1;
            if (c->out->dtype == PARAC_U8) memset((uint8_t *)dst + x, (int)v, (size_t)(e - x));
            else for (int64_t i = x; i < e; i++) ((uint16_t *)dst)[i] = (uint16_t)v;
            x = e;
        }
    }
}

parac_status parac__fill_ccl_cpu(const parac__fill_spec *s, const parac_image *in, parac_image *out)
{
    ccl c = {.s = s, .in = in, .out = out};
    PARAC_TRY(parac__fill_geometry(s, in, &c.g));
    c.rows = c.g.h * c.g.d;
    c.threads = parac__thread_count(s->threads);
    if (c.threads > c.rows) c.threads = (int)c.rows;
    for (int k = 0; k < c.g.n_rows; k++)
        if (c.g.rows[k].dz < 0 || (c.g.rows[k].dz == 0 && c.g.rows[k].dy < 0)) c.back[c.n_back++] = c.g.rows[k];
    c.first = parac__calloc((size_t)c.rows + 1, sizeof *c.first);
    if (!c.first) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: run index of %lld rows", s->op, (long long)c.rows);
    parac__run_threads(c.threads, phase_count, &c);
    for (int64_t r = 0; r < c.rows; r++) c.first[r + 1] += c.first[r];
    const int64_t n = c.first[c.rows];
    size_t m = 0; /* runs in the scratch arrays (kept between calls: parac__kept_block_take) */
    parac_status rc = PARAC_OK;
    if (n >= UINT32_MAX) {
        rc = parac__fail(PARAC_ERR_UNSUPPORTED, "%s: %lld background runs; method 'ccl' takes fewer than 2^32",
                         s->op, (long long)n);
    } else {
        m = (size_t)(n ? n : 1);
        c.x0 = parac__kept_block_take(m * sizeof *c.x0);
        c.x1 = parac__kept_block_take(m * sizeof *c.x1);
        c.parent = parac__kept_block_take(m * sizeof *c.parent);
        c.root = parac__kept_block_take(m * sizeof *c.root);
        c.border = parac__kept_block_take(m);
        c.outside = parac__kept_block_take(m * sizeof *c.outside);
        if (!c.x0 || !c.x1 || !c.parent || !c.root || !c.border || !c.outside)
            rc = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: %lld background runs", s->op, (long long)n);
        else {
            int64_t bounds[PARAC__MAX_THREADS + 1]; /* the strips' first rows, as strip() cuts them */
            for (int t = 0; t <= c.threads; t++) bounds[t] = c.rows * t / c.threads;
            rc = parac__uf_links_alloc(&c.links, c.first, bounds, c.threads, c.g.z_border ? c.g.h + 1 : 1);
        }
    }
    if (rc == PARAC_OK) {
        for (int64_t k = 0; k < n; k++) atomic_init(&c.outside[k], 0);
        parac__run_threads(c.threads, phase_record, &c);
        parac__run_threads(c.threads, phase_join, &c);
        parac__run_threads(c.threads, phase_local_roots, &c);
        /* D: the rows of each strip whose neighbours lie in an earlier strip */
        for (int t = 1; t < c.threads; t++) {
            int64_t r0, r1;
            strip(&c, t, &r0, &r1);
            const int64_t reach = c.g.z_border ? c.g.h + 1 : 1; /* the farthest backward neighbour */
            for (int64_t r = r0; r < r1 && r < r0 + reach; r++) join_row(&c, r, 0, r0, 1);
        }
        parac__uf_resolve_links(c.parent, c.root, &c.links);
        parac__run_threads(c.threads, phase_roots, &c);
        parac__run_threads(c.threads, phase_output, &c);
    }
    free(c.first);
    parac__kept_block_give(c.x0, m * sizeof *c.x0);
    parac__kept_block_give(c.x1, m * sizeof *c.x1);
    parac__kept_block_give(c.parent, m * sizeof *c.parent);
    parac__kept_block_give(c.root, m * sizeof *c.root);
    parac__kept_block_give(c.border, m);
    parac__kept_block_give(c.outside, m * sizeof *c.outside);
    parac__uf_links_free(&c.links);
    return rc;
}
