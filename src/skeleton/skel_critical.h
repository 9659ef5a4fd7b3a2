/* Stage 3 of the skeleton: critical points of the (normalised) field and
 * their classes, as pfSkel finds them. */
#ifndef PARAC_SKELETON_SKEL_CRITICAL_H
#define PARAC_SKELETON_SKEL_CRITICAL_H

#include <stdint.h>

#include "parac/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A vector field on the voxel grid: 3 floats per voxel, x fastest; cls
 * holds the voxel classes of skel.h (non-zero: inside the object). */
typedef struct parac__skel_field {
    int64_t w, h, d;
    const float *v;
    const uint8_t *cls;
} parac__skel_field;

/* Node kinds: the three classes of critical points, then the skeleton's
 * other graph nodes: a junction where a trace joined a segment, and the free
 * end where a divergence seed's trace started. */
enum {
    PARAC__SKEL_ATTRACTING = 0,
    PARAC__SKEL_REPELLING = 1,
    PARAC__SKEL_SADDLE = 2,
    PARAC__SKEL_JUNCTION = 3,
    PARAC__SKEL_END = 4
};

typedef struct parac__skel_critical {
    double p[3];        /* position, voxel units */
    int kind;           /* attracting, repelling or saddle */
    int n_out;          /* eigenvectors with a positive real eigenvalue (saddles: where to trace) */
    double out[3][3];   /* those eigenvectors, unit length */
} parac__skel_critical;

/* Unit length for every vector of an object voxel (zero stays zero). */
void parac__skel_normalize(float *v, const uint8_t *cls, int64_t n);

/* The field at any point, trilinear between voxels (clamped to the volume). */
void parac__skel_interpolate(const parac__skel_field *f, const double p[3], double out[3]);

/* Every critical point in the cells whose 8 corners are inside the object:
 * per-component sign change, 2x2x2 subdivision to depth 20, Newton (at most
 * 20 steps, kept only inside the cell), the Jacobian by central differences
 * at +-2^-21, classified by its eigenvalues. *out is malloc'd. Planes of
 * cells run on `threads` threads; the list is the same for any count. */
parac_status parac__skel_critical_points(const parac__skel_field *f, parac__skel_critical **out, int64_t *count,
                                         int threads);

/* Class of the field's zero near p (a pseudo critical point): its kind, or
 * -1 when the Jacobian has a zero eigenvalue. */
int parac__skel_classify_at(const parac__skel_field *f, const double p[3], int *n_out, double out[3][3]);

/* Eigen-classification of a 3x3 matrix (row-major): kind and the unit
 * eigenvectors of its positive real eigenvalues. Returns -1 when an
 * eigenvalue is zero (no class). */
int parac__skel_classify_jacobian(const double J[9], int *n_out, double out[3][3]);

#ifdef __cplusplus
}
#endif

#endif
