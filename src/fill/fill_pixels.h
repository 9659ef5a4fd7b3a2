/* Reading the input as contour / background and writing the output, row by
 * row, for the CPU methods: one place that knows pitches and dtypes. */
#ifndef PARAC_FILL_PIXELS_H
#define PARAC_FILL_PIXELS_H

#include <stdint.h>

#include "fill.h"

/* Row (y, z) of an image. */
static inline const void *parac__fill_row_in(const parac_image *im, int64_t y, int64_t z)
{
    return (const char *)im->data + z * im->slice_pitch + y * im->row_pitch;
}

static inline uint32_t parac__fill_pixel(const parac_image *im, const void *row, int64_t x)
{
    return im->dtype == PARAC_U8 ? ((const uint8_t *)row)[x] : ((const uint16_t *)row)[x];
}

/* Write one output row from per-pixel classes (0 inside, 1 outside, 2 contour). */
static inline void parac__fill_write_row(const parac__fill_spec *s, const parac_image *in,
                                         parac_image *out, int64_t y, int64_t z, const uint8_t *cls)
{
    const void *src = parac__fill_row_in(in, y, z);
    void *dst = (char *)out->data + z * out->slice_pitch + y * out->row_pitch;
    if (out->dtype == PARAC_U8) {
        uint8_t *o = dst;
        for (int64_t x = 0; x < in->width; x++)
            o[x] = (uint8_t)parac__fill_value(s, cls[x], parac__fill_pixel(in, src, x));
    } else {
        uint16_t *o = dst;
        for (int64_t x = 0; x < in->width; x++)
            o[x] = (uint16_t)parac__fill_value(s, cls[x], parac__fill_pixel(in, src, x));
    }
}

#endif
