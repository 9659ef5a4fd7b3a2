/* Rows as bits (label_bits.h): the bits of a row of any dtype and the runs
 * of one row's bits or of a pair's. */
#include "label_bits.h"

/* Nonzero as scipy takes it: NaN is foreground, -0.0 is not. */
#define BITS_OF(NAME, T)                                                                   \
    static void NAME(const T *p, int64_t w, uint64_t *words)                               \
    {                                                                                      \
        for (int64_t x = 0; x < w; x += 64) {                                              \
            const int k = w - x < 64 ? (int)(w - x) : 64;                                  \
            uint64_t m = 0;                                                                \
            for (int i = 0; i < k; i++) m |= (uint64_t)(p[x + i] != 0) << i;               \
            words[x >> 6] = m;                                                             \
        }                                                                                  \
    }
BITS_OF(bits_u16, uint16_t)
BITS_OF(bits_i32, int32_t)
BITS_OF(bits_i64, int64_t)
BITS_OF(bits_f32, float)

void parac__bit_row(const void *row, parac_dtype t, int64_t w, uint64_t *words)
{
    switch (t) {
    case PARAC_U8:
        for (int64_t x = 0; x < w; x += 64)
            words[x >> 6] = parac__nonzero_bits_u8((const uint8_t *)row + x, w - x < 64 ? (int)(w - x) : 64);
        break;
    case PARAC_U16: bits_u16(row, w, words); break;
    case PARAC_I32: bits_i32(row, w, words); break;
    case PARAC_I64: bits_i64(row, w, words); break;
    default: bits_f32(row, w, words); break;
    }
}

int64_t parac__runs_of_bits(const uint64_t *a, const uint64_t *b, int64_t w, int32_t *x0, int32_t *x1)
{
    int64_t j = 0;
    uint64_t carry = 0;
    for (int64_t x = 0; x < w; x += 64) {
        const int64_t i = x >> 6;
        j = parac__runs_of_word(b ? a[i] | b[i] : a[i], x, w - x < 64 ? (int)(w - x) : 64, &carry, x0, x1, j);
    }
    return parac__runs_closed(j, w, x1);
}
