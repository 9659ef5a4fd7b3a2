/* Contract between the morphology operations (the C files of src/morph) and
 * the reconstruction engines on the CPU (recon_engine.inc and friends) and
 * on CUDA (the .cu files of src/morph/cuda).
 *
 * Every engine computes reconstruction by dilation. Erosion is the same
 * problem on inverted values: u8/u16 v -> max - v, f32 v -> -v. Both maps
 * are exact and order-reversing, and engines apply them while loading the
 * inputs and storing the result, so they cost no extra pass.
 *
 * The marker is either an image or derived from the mask pixel by pixel (in
 * the dilation domain, after inversion):
 *   IMAGE   the marker image (clipped to the mask when `clip`, else a marker
 *           above the mask is an error naming the first such pixel);
 *   SUB_H   mask - h, saturating at the dtype's minimum (h-maxima/minima);
 *   PRED    the next lower value of the mask (v - 1 for integers, the next
 *           float below for f32), the dtype's minimum staying as it is
 *           (regional maxima/minima);
 *   BORDER  the mask on pixels less than `border` pixels from an image edge,
 *           the dtype's minimum elsewhere (fill holes, clear border). */
#ifndef PARAC_MORPH_RECON_H
#define PARAC_MORPH_RECON_H

#include <stdint.h>

#include "core/tuning.h"
#include "parac/image.h"
#include "parac/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum parac__marker_rule {
    PARAC__MARKER_IMAGE = 0,
    PARAC__MARKER_SUB_H,
    PARAC__MARKER_PRED,
    PARAC__MARKER_BORDER
} parac__marker_rule;

enum { PARAC__HEAP_AUTO, PARAC__HEAP_PIPELINED, PARAC__HEAP_SERIAL }; /* heap_updates */
/* A strip's halo rows: the first (top) and the last (bottom) frame row. */
enum { PARAC__HALO_TOP = 1, PARAC__HALO_BOTTOM = 2 };

typedef struct parac__recon_spec {
    int erosion;   /* 0: by dilation, 1: by erosion */
    int conn;      /* 4, 8 (2D); 6, 18, 26 (3D) */
    int clip;      /* MARKER_IMAGE: clip instead of failing */
    parac__marker_rule rule;
    double h;      /* SUB_H: for integer dtypes a whole number >= 0 */
    int64_t border; /* BORDER: width of the band, >= 1 */
    const char *op; /* operation name for messages */
    int heaps;      /* CUDA heap method: heaps in the cluster, 0 = default */
    int node_size;  /* CUDA heap method: elements per heap node r, 0 = default */
    int heap_updates; /* CUDA heap method: PARAC__HEAP_AUTO, _PIPELINED or _SERIAL */
    const parac__tuning *tuning; /* the context's knobs (core/tuning.h); never NULL */
} parac__recon_spec;

/* Neighbour offsets of a connectivity, as (dx, dy, dz) triples in raster
 * order (the first half precede the centre). Returns the count, or 0 when
 * `conn` is not valid for the dimensionality. */
int parac__recon_neighbours(int conn, int is_3d, int d[26][3]);

/* Checks shapes, dtypes and the connectivity of a call; marker may be NULL
 * when the rule derives it. Returns a clear error naming what differs. */
parac_status parac__recon_check(const parac__recon_spec *s, const parac_image *marker,
                                const parac_image *mask);

/* CPU engines. `marker` (NULL unless rule IMAGE) and `mask` are host images;
 * `out` is a host image of the mask's size and dtype that receives the
 * reconstruction in the original domain. `method`: sequential, hybrid,
 * downhill or parallel; `threads` is used by parallel only. */
parac_status parac__recon_cpu(const char *method, const parac__recon_spec *s,
                              const parac_image *marker, const parac_image *mask,
                              parac_image *out, int threads);

/* The first pixel, in raster order (z, then y, then x), where the marker
 * crosses the mask or an input is NaN. */

typedef struct parac__recon_violation {
    int found;
    int64_t x, y, z;
    double marker, mask;
    int nan_in; /* 1: NaN in the marker, 2: NaN in the mask */
} parac__recon_violation;

/* The message for a violation found by an engine. */
parac_status parac__recon_violation_error(const parac__recon_spec *s,
                                          const parac__recon_violation *v);

/* The CUDA engines: marker/mask/out on the same device. `method`: "wavefront"
 * or "heap". (Builds without CUDA: morph_nocuda.c.) */
parac_status parac__recon_cuda(const char *method, const parac__recon_spec *s,
                               const parac_image *marker, const parac_image *mask,
                               parac_image *out, void *stream);

#ifdef __cplusplus
}
#endif

#endif
