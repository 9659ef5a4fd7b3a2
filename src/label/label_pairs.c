/* The CPU labelling's steps for pairs of rows (label_bits.h says why
 * pairs): the join of two pairs, the numbering of the roots in raster
 * order, the output. */
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "label_bits.h"
#include "label_runs.h"

/* Whether a bit row has a pixel in columns [x0, x1]. */
static int any_bits(const uint64_t *row, int64_t words, int64_t x0, int64_t x1)
{
    for (int64_t s = x0; s <= x1; s += 64)
        if (parac__bits_at(row, words, s) & parac__bit_range(0, x1 - s)) return 1;
    return 0;
}

/* Whether run a of pair p touches run k of pair p - 1, where `touch` marks
 * the pixels of p's top row with a pixel above them or beside that. Where
 * their columns overlap a marked pixel's neighbour above is k's own: the
 * columns just past k are empty in both of its rows. Past k's ends (a
 * diagonal) only k's end pixel counts. */
static int touches(const labeller *c, const uint64_t *touch, const uint64_t *top, const uint64_t *above, int64_t a,
                   int64_t k)
{
    const int64_t ax0 = c->x0[a], ax1 = c->x1[a], kx0 = c->x0[k], kx1 = c->x1[k];
    const int64_t lo = ax0 > kx0 ? ax0 : kx0, hi = ax1 < kx1 ? ax1 : kx1;
    if (lo <= hi && any_bits(touch, c->words, lo, hi)) return 1;
    if (kx0 - 1 >= ax0 && kx0 - 1 <= ax1 && parac__bit(top, kx0 - 1) && parac__bit(above, kx0)) return 1;
    return kx1 + 1 >= ax0 && kx1 + 1 <= ax1 && parac__bit(top, kx1 + 1) && parac__bit(above, kx1);
}

/* Join the runs of pair p with those of pair p - 1 that touch them. A
 * row of bits marks the pixels of p's top row that touch a pixel of the
 * row above; a run of p with such a pixel joins the one run of p - 1 that
 * its columns widened by one overlap, or, where they overlap several, those
 * it touches. Finding each single row's runs instead took a third more
 * instructions on a spiral. `touch`: room for `words` words. */
void parac__label_join_pair(labeller *c, int64_t p, int across, uint64_t *touch)
{
    const int64_t words = c->words;
    const uint64_t *top = pair_top(c, p), *above = top - words;
    for (int64_t i = 0; i < words; i++) {
        const uint64_t a = above[i], before = i ? above[i - 1] >> 63 : 0, after = i + 1 < words ? above[i + 1] << 63 : 0;
        touch[i] = top[i] & (a | a << 1 | before | a >> 1 | after);
    }
    const int32_t *restrict x0 = c->x0, *restrict x1 = c->x1;
    int64_t b = c->first[p - 1];
    const int64_t be = c->first[p];
    for (int64_t a = c->first[p]; a < c->first[p + 1]; a++) {
        if (!any_bits(touch, words, x0[a], x1[a])) continue;
        while (x1[b] + 1 < x0[a]) b++; /* a pixel above touches run a: some run of p - 1 lies past b */
        if (b + 1 == be || x0[b + 1] > x1[a] + 1) {
            join_runs(c, a, b, across);
            continue;
        }
        for (int64_t k = b; k < be && x0[k] <= x1[a] + 1; k++)
            if (touches(c, touch, top, above, a, k)) join_runs(c, a, k, across);
    }
}

/* Pairs: the components whose first pair is p (their roots are p's runs)
 * in raster order of their first pixel: those with a pixel in p's top row
 * by the first such pixel, then the others by their first run (run order
 * alone would put a component that starts in the bottom row before one to
 * its right that starts in the top row). `done` marks the roots numbered,
 * a byte for each of a pair's runs. */
void parac__label_number_pairs(labeller *c, int64_t p0, int64_t p1, uint32_t next, uint8_t *done)
{
    const uint32_t *root = c->root;
    for (int64_t p = p0; p < p1; p++) {
        const int64_t k0 = c->first[p], k1 = c->first[p + 1];
        memset(done, 0, (size_t)(k1 - k0));
        for (int top = 1; top >= 0; top--)
            for (int64_t k = k0; k < k1; k++) {
                const uint32_t r = root[k];
                if (r < k0 || done[r - k0]) continue;
                if (top && !any_bits(pair_top(c, p), c->words, c->x0[k], c->x1[k])) continue;
                done[r - k0] = 1;
                c->parent[r] = ++next;
            }
    }
}

/* Eight pixels: v where the input is nonzero, else 0. */
#define LABEL_EIGHT(T)                                                                    \
    static inline void label_eight_##T(const T *restrict in, int32_t *restrict o, int32_t v) \
    {                                                                                     \
        for (int i = 0; i < 8; i++) o[i] = in[i] != 0 ? v : 0;                            \
    }
#ifdef __SSE2__
/* u8, the common input, in SSE2 (every x86-64): the bytes' zero masks
 * widened to 32 bits clear v where the input is 0. */
static inline void label_eight_uint8_t(const uint8_t *restrict in, int32_t *restrict o, int32_t v)
{
    const __m128i zero8 = _mm_cmpeq_epi8(_mm_loadl_epi64((const __m128i *)in), _mm_setzero_si128());
    const __m128i zero16 = _mm_unpacklo_epi8(zero8, zero8), label = _mm_set1_epi32(v);
    _mm_storeu_si128((__m128i *)o, _mm_andnot_si128(_mm_unpacklo_epi16(zero16, zero16), label));
    _mm_storeu_si128((__m128i *)(o + 4), _mm_andnot_si128(_mm_unpackhi_epi16(zero16, zero16), label));
}
#else
LABEL_EIGHT(uint8_t)
#endif
LABEL_EIGHT(uint16_t)
LABEL_EIGHT(int32_t)
LABEL_EIGHT(int64_t)
LABEL_EIGHT(float)
#define label_eight(in, o, v)                                   \
    _Generic((in), const uint8_t *: label_eight_uint8_t,         \
             const uint16_t *: label_eight_uint16_t,             \
             const int32_t *: label_eight_int32_t,               \
             const int64_t *: label_eight_int64_t,               \
             const float *: label_eight_float)(in, o, v)

/* A pair's run covers both rows' pixels in its columns, and some are
 * background: each pixel takes the run's label or 0 from its input. Eight
 * pixels at a time, the gaps' zeros too; a store past a run's end is right
 * for the gap after it (0 either way) and for the next run if that has the
 * same label, which then goes on from there, and is written again if not.
 * Noise's runs and gaps are a few pixels long, and a loop to each one's own
 * end mispredicts its exit; a spiral's walls, a pixel wide two apart, would
 * store each pixel four times. The rows are not cleared first; *x: the
 * columns before it are written, with the label `last`. */
#define LABEL_RUN(T)                                                                                         \
    static inline void label_run_##T(int32_t *restrict o, const T *restrict in, int64_t w, int64_t *x_,    \
                                     int64_t x0, int64_t x1, int32_t v, int32_t last)                      \
    {                                                                                                       \
        int64_t x = *x_;                                                                                    \
        const int go_on = (x > x0) & (v == last); /* [x0, x) holds this run's values */                     \
        for (; x < x0 && x + 8 <= w; x += 8) memset(o + x, 0, 8 * sizeof *o);                               \
        for (; x < x0; x++) o[x] = 0;                                                                       \
        x = go_on ? x : x0;                                                                                 \
        for (; x <= x1 && x + 8 <= w; x += 8) label_eight(in + x, o + x, v);                                \
        for (; x <= x1; x++) o[x] = in[x] != 0 ? v : 0;                                                     \
        *x_ = x;                                                                                            \
    }
LABEL_RUN(uint8_t)
LABEL_RUN(uint16_t)
LABEL_RUN(int32_t)
LABEL_RUN(int64_t)
LABEL_RUN(float)

/* Both rows of each pair in one pass over its runs. */
#define OUTPUT_PAIRS(NAME, T)                                                                                \
    static void NAME(const labeller *c, int64_t p0, int64_t p1)                                             \
    {                                                                                                       \
        const int64_t w = c->w;                                                                             \
        for (int64_t p = p0; p < p1; p++) {                                                                 \
            const int two = 2 * p + 1 < c->h;                                                               \
            int32_t *o0 = out_row(c, 2 * p), *o1 = two ? out_row(c, 2 * p + 1) : NULL;                      \
            const T *in0 = row_of(c->in, 2 * p, c->h), *in1 = two ? row_of(c->in, 2 * p + 1, c->h) : NULL;  \
            int64_t x_0 = 0, x_1 = 0;                                                                       \
            int32_t last = 0;                                                                               \
            for (int64_t k = c->first[p]; k < c->first[p + 1]; k++) {                                       \
                const int32_t v = (int32_t)c->parent[c->root[k]];                                           \
                label_run_##T(o0, in0, w, &x_0, c->x0[k], c->x1[k], v, last);                               \
                if (two) label_run_##T(o1, in1, w, &x_1, c->x0[k], c->x1[k], v, last);                      \
                last = v;                                                                                   \
            }                                                                                               \
            if (x_0 < w) memset(o0 + x_0, 0, (size_t)(w - x_0) * sizeof *o0);                               \
            if (two && x_1 < w) memset(o1 + x_1, 0, (size_t)(w - x_1) * sizeof *o1);                        \
        }                                                                                                   \
    }
OUTPUT_PAIRS(output_pairs_u8, uint8_t)
OUTPUT_PAIRS(output_pairs_u16, uint16_t)
OUTPUT_PAIRS(output_pairs_i32, int32_t)
OUTPUT_PAIRS(output_pairs_i64, int64_t)
OUTPUT_PAIRS(output_pairs_f32, float)

/* i64 labels (more components than an i32 holds, or asked for): rows
 * cleared, then each run's foreground pixels take its label. Plain loops:
 * such images are rare and the output's bytes, twice the i32's, dominate. */
#define OUTPUT_PAIRS_WIDE(NAME, T)                                                                           \
    static void NAME(const labeller *c, int64_t p0, int64_t p1)                                             \
    {                                                                                                       \
        const int64_t w = c->w;                                                                             \
        for (int64_t p = p0; p < p1; p++) {                                                                 \
            const int two = 2 * p + 1 < c->h;                                                               \
            int64_t *o0 = out_row_wide(c, 2 * p), *o1 = two ? out_row_wide(c, 2 * p + 1) : NULL;            \
            const T *in0 = row_of(c->in, 2 * p, c->h), *in1 = two ? row_of(c->in, 2 * p + 1, c->h) : NULL;  \
            memset(o0, 0, (size_t)w * sizeof *o0);                                                          \
            if (two) memset(o1, 0, (size_t)w * sizeof *o1);                                                 \
            for (int64_t k = c->first[p]; k < c->first[p + 1]; k++) {                                       \
                const int64_t v = c->parent[c->root[k]];                                                    \
                for (int64_t x = c->x0[k]; x <= c->x1[k]; x++) {                                            \
                    o0[x] = in0[x] != 0 ? v : 0;                                                            \
                    if (two) o1[x] = in1[x] != 0 ? v : 0;                                                   \
                }                                                                                           \
            }                                                                                               \
        }                                                                                                   \
    }
OUTPUT_PAIRS_WIDE(output_pairs_wide_u8, uint8_t)
OUTPUT_PAIRS_WIDE(output_pairs_wide_u16, uint16_t)
OUTPUT_PAIRS_WIDE(output_pairs_wide_i32, int32_t)
OUTPUT_PAIRS_WIDE(output_pairs_wide_i64, int64_t)
OUTPUT_PAIRS_WIDE(output_pairs_wide_f32, float)

void parac__label_output_pairs(const labeller *c, int64_t p0, int64_t p1)
{
    if (c->out->dtype == PARAC_I64) {
        switch (c->in->dtype) {
        case PARAC_U8: output_pairs_wide_u8(c, p0, p1); break;
        case PARAC_U16: output_pairs_wide_u16(c, p0, p1); break;
        case PARAC_I32: output_pairs_wide_i32(c, p0, p1); break;
        case PARAC_I64: output_pairs_wide_i64(c, p0, p1); break;
        default: output_pairs_wide_f32(c, p0, p1); break;
        }
        return;
    }
    switch (c->in->dtype) {
    case PARAC_U8: output_pairs_u8(c, p0, p1); break;
    case PARAC_U16: output_pairs_u16(c, p0, p1); break;
    case PARAC_I32: output_pairs_i32(c, p0, p1); break;
    case PARAC_I64: output_pairs_i64(c, p0, p1); break;
    default: output_pairs_f32(c, p0, p1); break;
    }
}
