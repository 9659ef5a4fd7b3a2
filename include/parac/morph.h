/* Morphological reconstruction and the operators built on it.
 *
 * Reconstruction by dilation of a marker f under a mask g (f <= g) is the
 * limit of dilating f with the unit neighbourhood and taking the pointwise
 * minimum with g, repeated until nothing changes; reconstruction by erosion
 * is its dual (f >= g). Results are exact: every method on every device gives
 * the same bits. docs/morphology.md gives the definitions, the conventions
 * against scikit-image, ITK and MATLAB, and the methods.
 *
 * The operations are registry operations (parac/op.h): "reconstruct",
 * "fill-holes", "h-maxima", "h-minima", "regional-maxima",
 * "regional-minima", "opening-by-reconstruction",
 * "closing-by-reconstruction" and "clear-border". The function below is the
 * typed form of "reconstruct". */
#ifndef PARAC_MORPH_H
#define PARAC_MORPH_H

#include "parac/context.h"
#include "parac/export.h"
#include "parac/image.h"
#include "parac/status.h"

PARAC_BEGIN_DECLS

typedef enum parac_recon_mode {
    PARAC_RECON_DILATION = 0, /* marker <= mask; values spread upwards */
    PARAC_RECON_EROSION       /* marker >= mask; the dual */
} parac_recon_mode;

typedef struct parac_reconstruct_options {
    parac_recon_mode mode;
    int connectivity;   /* 4 or 8 in 2D, 6, 18 or 26 in 3D; 0: full (8 / 26) */
    int clip;           /* nonzero: clip the marker to the mask instead of failing */
    const char *method; /* NULL or "auto": the operation chooses */
} parac_reconstruct_options;

/* Reconstruct `marker` under `mask` (same size and dtype: u8, u16 or f32; one
 * channel; 2D or 3D) into a new image *out of the same dtype, on the
 * context's device. `options` may be NULL (dilation, full connectivity,
 * no clipping, auto). A marker above the mask (below, for erosion) is an
 * error that names the first offending pixel, unless options->clip is set. */
PARAC_API parac_status parac_reconstruct(parac_context *ctx, const parac_image *marker,
                                         const parac_image *mask, parac_image **out,
                                         const parac_reconstruct_options *options);

PARAC_END_DECLS

#endif
