/* Stage 4 of the skeleton: force following from the saddles, after pfSkel's
 * StreamLn, and the skeleton as polylines and voxels. */
#ifndef PARAC_SKELETON_SKEL_TRACE_H
#define PARAC_SKELETON_SKEL_TRACE_H

#include <stdint.h>

#include "parac/status.h"
#include "skel_critical.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One polyline: n points (x, y, z), its ends at critical points where
 * start/end >= 0 (indices into the critical point list). */
typedef struct parac__skel_segment {
    double *p;
    int64_t n;
    int64_t start, end;
} parac__skel_segment;

typedef struct parac__skel_graph {
    parac__skel_segment *seg;
    int64_t n_seg;
} parac__skel_graph;

/* Trace from every saddle along + and - each eigenvector of a positive
 * eigenvalue: RK4 on the normalised trilinear field, adaptive step
 * 0.05..0.4 voxel (doubled under a 10 degree turn, halved over 70), until
 * within a step of another critical point, a reversal (a pseudo critical
 * point there), 6000 steps, leaving the object (cut) or the volume (the
 * segment is dropped). */
parac_status parac__skel_trace(const parac__skel_field *f, const parac__skel_critical *cp, int64_t n_cp,
                               parac__skel_graph *g);

void parac__skel_graph_free(parac__skel_graph *g);

/* Voxels of the skeleton: every segment drawn as a 26-connected line
 * through its samples, and every attracting node no segment reached (an
 * object with no saddle, a ball, has a one-voxel skeleton). out: w*h*d
 * bytes, 255 on the skeleton. */
void parac__skel_voxelize(const parac__skel_graph *g, const parac__skel_critical *cp, int64_t n_cp, int64_t w,
                          int64_t h, int64_t d, uint8_t *out);

#ifdef __cplusplus
}
#endif

#endif
