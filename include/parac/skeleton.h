/* Curve skeletons of 3D objects by the potential-field method (Cornea et
 * al.; the paper 004 with pfSkel's constants): surface charges repel the
 * inside with force 1/r^M; the skeleton joins the field's critical points
 * by following the force from every saddle, plus traces from the voxels
 * where the field converges most (divergence seeds), one connected skeleton
 * per object.
 *
 * The registry operation is "skeleton" (parac/op.h); parac_skeleton() is
 * its typed form. docs/skeleton.md gives the stages, parameters, the
 * approximate field's error and measured speed. */
#ifndef PARAC_SKELETON_H
#define PARAC_SKELETON_H

#include "parac/context.h"
#include "parac/export.h"
#include "parac/image.h"
#include "parac/status.h"

PARAC_BEGIN_DECLS

typedef struct parac_skeleton_options {
    int has_threshold;     /* 0: the object is every nonzero voxel */
    double threshold;      /* else: the voxels >= threshold */
    int field_strength;    /* M, 1..10; 0: 6 */
    int charge_distance;   /* charges this many voxels outside the surface, 0..8; -1: 1 */
    const char *rules;     /* "paper" or "pfskel"; NULL: "paper" */
    double divergence;     /* level-2 seeds, 0..1 (0: the core skeleton only); negative: 0.5 */
    double spacing[3];     /* voxel size x, y, z; zeros: 1, 1, 1 */
    const char *graph;     /* NULL, or a .json, .obj or .swc file to write the graph to */
    const char *method;    /* NULL or "auto"; "exact", "approx", "tiled", "global", "constant" */
} parac_skeleton_options;

/* The options every field at its default. */
PARAC_API parac_skeleton_options parac_skeleton_defaults(void);

/* The skeleton of the volume `in` (u8, u16 or f32, one channel, depth >= 2)
 * as a new u8 volume *out of the same shape on the context's device, 255
 * on the skeleton. `options` may be NULL (the defaults). */
PARAC_API parac_status parac_skeleton(parac_context *ctx, const parac_image *in, parac_image **out,
                                      const parac_skeleton_options *options);

PARAC_END_DECLS

#endif
