/* Stage 4 of the skeleton: force following from the saddles and from
 * divergence seeds, after pfSkel's StreamLn, and the skeleton as polylines
 * and voxels. */
#ifndef PARAC_SKELETON_SKEL_TRACE_H
#define PARAC_SKELETON_SKEL_TRACE_H

#include <stdint.h>

#include "parac/status.h"
#include "skel_critical.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One polyline: n points (x, y, z), its ends at graph nodes where
 * start/end >= 0 (indices into the node list), open where -1. */
typedef struct parac__skel_segment {
    double *p;
    int64_t n;
    int64_t start, end;
} parac__skel_segment;

/* The skeleton as a graph: the nodes (critical points first, then pseudo
 * critical points, junctions and free ends added while tracing) and the
 * segments between them. */
typedef struct parac__skel_graph {
    parac__skel_critical *node;
    int64_t n_node, node_cap;
    parac__skel_segment *seg;
    int64_t n_seg, seg_cap;
} parac__skel_graph;

/* The core skeleton: from every saddle along + and - each eigenvector of a
 * positive eigenvalue, RK4 on the normalised trilinear field, adaptive step
 * 0.05..0.4 voxel (doubled under a 10 degree turn, halved over 70), until
 * within a step of another critical point, a reversal (a pseudo critical
 * point there), 6000 steps, leaving the object (cut) or the volume (the
 * segment is dropped). The graph takes ownership of cp (malloc'd). Traces
 * run on `threads` threads; the graph is the same for any count. */
parac_status parac__skel_trace(const parac__skel_field *f, parac__skel_critical *cp, int64_t n_cp, int threads,
                               parac__skel_graph *g);

/* pfSkel's level 2: traces from seeds (x, y, z voxels) along the field until
 * they meet the skeleton (ending there: on the node within 5 samples of the
 * hit, else the segment hit is split by a junction) or a critical point; a
 * trace that ends elsewhere, or has fewer than 5 samples, is dropped. Each
 * kept trace starts at a new free-end node. The seeds farthest from the
 * core skeleton go first; a seed within 2 voxels of it, or of a trace kept
 * before (Chebyshev), starts none. */
parac_status parac__skel_trace_seeds(const parac__skel_field *f, const double *seeds, int64_t n_seeds, int threads,
                                     parac__skel_graph *g);

void parac__skel_graph_free(parac__skel_graph *g);

/* Voxels of the skeleton: every segment drawn as a 26-connected line
 * through its samples, and every attracting node no segment reached (an
 * object with no saddle, a ball, has a one-voxel skeleton). out: w*h*d
 * bytes, 255 on the skeleton. */
void parac__skel_voxelize(const parac__skel_graph *g, int64_t w, int64_t h, int64_t d, uint8_t *out);

#ifdef __cplusplus
}
#endif

#endif
