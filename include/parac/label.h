/* Connected-component labelling.
 *
 * The components of the nonzero pixels (scipy.ndimage.label), or with
 * equal_values of the regions of equal value that differ from the
 * background (skimage.measure.label), numbered 1..n in the raster order of
 * their first pixel (z, then y, then x), as scipy and scikit-image number
 * them, so results compare bit for bit; background pixels are 0. 4 or 8
 * neighbours in 2D, 6, 18 or 26 in 3D. Input u8, u16, i32, i64 or f32, one
 * channel (on CUDA, i64 regions of equal value need values spanning less
 * than 2^32); output i32, or i64 as parac_label_options.wide says.
 *
 * The registry operation is "label" (parac/op.h; its result "count" is n);
 * parac_label() is its typed form. docs/labels.md gives the methods and
 * their measured speed. */
#ifndef PARAC_LABEL_H
#define PARAC_LABEL_H

#include <stdint.h>

#include "parac/context.h"
#include "parac/export.h"
#include "parac/image.h"
#include "parac/status.h"

PARAC_BEGIN_DECLS

typedef struct parac_label_options {
    int connectivity;   /* 4 or 8 (2D), 6, 18 or 26 (3D); 0: full (8 / 26) */
    int equal_values;   /* 0: every nonzero pixel is foreground; 1: regions of equal value */
    double background;  /* equal_values: the value of background pixels (label 0) */
    const char *method; /* NULL or "auto": the operation chooses */
    int wide;           /* 0: i32 labels, i64 where the count needs it; 1: i64 always; -1: i32 always
                           (more components than 2^31 - 1 are then an error) */
} parac_label_options;

/* Label `in` into a new image *out on the context's device (i32, or i64 as
 * options->wide says); *count (may be NULL) receives the number of
 * components. `options` may be NULL (nonzero pixels, full connectivity). */
PARAC_API parac_status parac_label(parac_context *ctx, const parac_image *in, parac_image **out, int64_t *count,
                                   const parac_label_options *options);

/* Statistics of the regions of a label image (u8, u16, i32 or i64; 0 is
 * background; a region is every pixel of one label): *table, a new f64 image
 * on the context's device with one row per label present, in increasing
 * order, and *count (may be NULL) such rows; the image has max(count, 1)
 * rows. The columns, scikit-image's regionprops_table names:
 *   label, area, bbox-0..bbox-(2 ndim - 1), centroid-0..centroid-(ndim - 1)
 * and with an intensity image (NULL: none; the labels' size; u8, u16, i32 or
 * f32) intensity_min, intensity_max, intensity_mean. The registry operation
 * is "regionprops"; its table_columns names the columns. The work is
 * indexed by label, so the largest label must be at most 2^31 - 1 or the
 * pixel count (CUDA: below 2^31 - 1). */
PARAC_API parac_status parac_regionprops(parac_context *ctx, const parac_image *labels, const parac_image *intensity,
                                         parac_image **table, int64_t *count);

/* out = table[index] per pixel (NumPy's table[index]): *out, a new image on
 * the context's device of index's size and table's dtype; index u8, u16, i32
 * or i64, one channel, 2D or 3D; table one row of one channel (its entries
 * along x, any dtype). An index below 0 or at or past the table's width is
 * an error naming the first such pixel. The registry operation "lookup". */
PARAC_API parac_status parac_lookup(parac_context *ctx, const parac_image *index, const parac_image *table,
                                    parac_image **out);

PARAC_END_DECLS

#endif
