/* Integer label images (u8, u16, i32, i64; one channel) read and
 * written as int64: what the CPU methods that take labels share. */
#ifndef PARAC_LABEL_LABEL_VALUES_H
#define PARAC_LABEL_LABEL_VALUES_H

#include <stdint.h>

#include "parac/image.h"

/* Element x of a row of labels of dtype t. */
static inline int64_t parac__label_in_row(parac_dtype t, const void *row, int64_t x)
{
    switch (t) {
    case PARAC_U8: return ((const uint8_t *)row)[x];
    case PARAC_U16: return ((const uint16_t *)row)[x];
    case PARAC_I32: return ((const int32_t *)row)[x];
    default: return ((const int64_t *)row)[x];
    }
}

static inline int64_t parac__label_at(const parac_image *m, int64_t x, int64_t y, int64_t z)
{
    return parac__label_in_row(m->dtype, parac_image_at(m, x, y, z), 0);
}

static inline void parac__label_set(parac_image *m, int64_t x, int64_t y, int64_t z, int64_t v)
{
    void *p = parac_image_at(m, x, y, z);
    switch (m->dtype) {
    case PARAC_U8: *(uint8_t *)p = (uint8_t)v; break;
    case PARAC_U16: *(uint16_t *)p = (uint16_t)v; break;
    case PARAC_I32: *(int32_t *)p = (int32_t)v; break;
    default: *(int64_t *)p = v; break;
    }
}

#endif
