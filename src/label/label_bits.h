/* Rows as bits, for the CPU labelling of pairs of rows (label_cpu.c): bit x
 * of a row (word x / 64, bit x % 64) is set where pixel x is nonzero; bits
 * past the row's end are 0.
 *
 * Under 8-connectivity a maximal stretch of columns in which either row of
 * a pair has a pixel is one component of the pair (a pixel touches every
 * pixel of its own and the next column, in both rows), so a pair's runs are
 * the runs of its two rows' bits or-ed, and labelling them halves the runs
 * of walls and thin lines and takes 2.7 times fewer on noise at 50 %. Two
 * runs of neighbouring pairs join only where a pixel of the lower pair's
 * top row touches one of the upper pair's bottom row: the runs of those two
 * single rows say where (label_pairs.c). */
#ifndef PARAC_LABEL_LABEL_BITS_H
#define PARAC_LABEL_LABEL_BITS_H

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "parac/image.h"

/* Bit i: pixel i of p (n <= 64 of them) is nonzero: with SSE2 (every
 * x86-64) sixteen bytes compared at once, their sign bits gathered; else
 * eight at a time, bit 7 of each byte set where the byte is nonzero, then
 * those bits packed. */
static inline uint64_t parac__nonzero_bits_u8(const uint8_t *p, int n)
{
    uint64_t m = 0;
    int i = 0;
#ifdef __SSE2__
    for (; i + 16 <= n; i += 16) {
        const __m128i zero = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i)), _mm_setzero_si128());
        m |= (uint64_t)(uint16_t)~_mm_movemask_epi8(zero) << i;
    }
#endif
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7full, high = 0x8080808080808080ull;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, p + i, 8);
        const uint64_t hi = (((v & low7) + low7) | v) & high;
        m |= ((hi >> 7) * 0x0102040810204080ull >> 56) << i;
    }
    for (; i < n; i++) m |= (uint64_t)(p[i] != 0) << i;
    return m;
}

/* The runs that word m (bits of columns x .. x + k - 1) starts and ends,
 * counted as transitions: starts and ends alternate, so transition j is
 * run j / 2's start (j even) or end (j odd), which writes it without a
 * branch on which it is (noise, where a run starts at nearly every other
 * pixel, mispredicts that branch half the time). *carry: the column before
 * the word has a pixel (a run is open). x0/x1 NULL: only counted. Returns
 * the transitions so far; the caller ends a run still open after the row's
 * last word (parac__runs_closed). */
static inline int64_t parac__runs_of_word(uint64_t m, int64_t x, int k, uint64_t *carry, int32_t *x0, int32_t *x1,
                                          int64_t j)
{
    uint64_t t = m ^ ((m << 1) | *carry); /* bit i: pixel x + i differs from the one before */
    if (k < 64) t &= (1ull << k) - 1;
    *carry = m >> (k - 1) & 1;
    if (!x0) return j + __builtin_popcountll(t);
    for (; t; t &= t - 1, j++) {
        const int end = (int)(j & 1);
        (end ? x1 : x0)[j >> 1] = (int32_t)(x + __builtin_ctzll(t) - end);
    }
    return j;
}

/* The runs of a row of w pixels after its last word: j transitions, the
 * last run ended at the row's end if still open. */
static inline int64_t parac__runs_closed(int64_t j, int64_t w, int32_t *x1)
{
    if (j & 1) {
        if (x1) x1[j >> 1] = (int32_t)(w - 1);
        j++;
    }
    return j / 2;
}

/* The bits of one row of w pixels of dtype t into words[(w + 63) / 64]. */
void parac__bit_row(const void *row, parac_dtype t, int64_t w, uint64_t *words);

/* The runs of a's bits or b's (b may be NULL) into x0/x1, first and last
 * column (NULL: only counted); returns how many. */
int64_t parac__runs_of_bits(const uint64_t *a, const uint64_t *b, int64_t w, int32_t *x0, int32_t *x1);

/* Columns [s, s + 64) of a bit row of `words` words (s >= 0); columns
 * past the row read 0. */
static inline uint64_t parac__bits_at(const uint64_t *row, int64_t words, int64_t s)
{
    const int64_t i = s >> 6;
    const int sh = (int)(s & 63);
    const uint64_t lo = i < words ? row[i] >> sh : 0;
    const uint64_t hi = sh && i + 1 < words ? row[i + 1] << (64 - sh) : 0;
    return lo | hi;
}

/* Bits a..b of a word (clipped to 0..63; none when the range misses it). */
static inline uint64_t parac__bit_range(int64_t a, int64_t b)
{
    if (a < 0) a = 0;
    if (b > 63) b = 63;
    if (a > b) return 0;
    const uint64_t upto_b = b == 63 ? ~0ull : (2ull << b) - 1;
    return upto_b & ~((1ull << a) - 1);
}

/* Pixel x of a bit row. */
static inline int parac__bit(const uint64_t *row, int64_t x) { return (int)(row[x >> 6] >> (x & 63) & 1); }

#endif
