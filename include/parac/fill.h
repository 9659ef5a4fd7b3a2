/* Region filling: the inside of closed contours, and seeded flood fill.
 *
 * "fill" needs no seed: pixels >= threshold are the contour; background
 * pixels connected to the image border through background (with the fill's
 * connectivity) are outside, every other background pixel is inside. The
 * output is a u8 mask: inside -> inside_value, outside -> outside_value,
 * contour pixels as `contour` says. With the default connectivity (4 in 2D,
 * 6 in 3D) and contour = inside, this is scipy.ndimage.binary_fill_holes.
 *
 * "floodfill" is the classic seeded fill: the region connected to a seed
 * whose values lie within `tolerance` of the seed's value takes `value`, as
 * skimage.segmentation.flood_fill and cv2.floodFill with a fixed range.
 *
 * Both are registry operations (parac/op.h): "fill" and "floodfill"; the
 * functions below are their typed forms. docs/fill.md gives the definitions,
 * the methods and measured crossovers. */
#ifndef PARAC_FILL_H
#define PARAC_FILL_H

#include "parac/context.h"
#include "parac/export.h"
#include "parac/image.h"
#include "parac/status.h"

PARAC_BEGIN_DECLS

typedef enum parac_fill_contour {
    PARAC_FILL_CONTOUR_INSIDE = 0, /* contour pixels take the inside value: the filled object */
    PARAC_FILL_CONTOUR_OUTSIDE,    /* contour pixels take the outside value: the holes only */
    PARAC_FILL_CONTOUR_KEEP        /* contour pixels keep their input value */
} parac_fill_contour;

typedef struct parac_fill_options {
    int connectivity;      /* of the background: 4 or 8 (2D; on a volume: each slice on its
                              own), 6, 18 or 26 (3D); 0: 4 in 2D, 6 in 3D */
    double threshold;      /* contour pixels are >= threshold; 0 is taken as 1 */
    parac_fill_contour contour;
    int inside_value;      /* 0..255; -1: 255 */
    int outside_value;     /* 0..255; -1: 0 */
    const char *method;    /* NULL or "auto": the operation chooses */
} parac_fill_options;

/* Fill the closed contours of `in` (u8 or u16, one channel, 2D or 3D) into a
 * new u8 image *out on the context's device (u16 when contour = KEEP and the
 * input is u16, so contour values survive). `options` may be NULL. */
PARAC_API parac_status parac_fill(parac_context *ctx, const parac_image *in, parac_image **out,
                                  const parac_fill_options *options);

/* Seeded flood fill of `in` (u8, u16 or f32, one channel, 2D or 3D) into a
 * new image of the same dtype: every pixel connected to one of the n_seeds
 * seeds (x, y, z triples; z = 0 in 2D) through pixels within `tolerance` of
 * that seed's value becomes `value`. connectivity 0: 4 (6 in 3D). */
PARAC_API parac_status parac_floodfill(parac_context *ctx, const parac_image *in, parac_image **out,
                                       const int64_t *seeds, int n_seeds, double value,
                                       double tolerance, int connectivity);

PARAC_END_DECLS

#endif
