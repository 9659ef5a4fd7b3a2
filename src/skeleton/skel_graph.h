/* Building the skeleton graph: nodes, segments, and an index of the
 * segments' samples for joining a new trace to the skeleton. */
#ifndef PARAC_SKELETON_SKEL_GRAPH_H
#define PARAC_SKELETON_SKEL_GRAPH_H

#include "skel_point_grid.h"
#include "skel_trace.h"

/* Index of the new node or segment (copied in), -1 when out of memory. */
int64_t parac__skel_add_node(parac__skel_graph *g, const parac__skel_critical *c);
int64_t parac__skel_add_segment(parac__skel_graph *g, const parac__skel_segment *s);

/* A node that is not a critical point of the search: kind < 0 classifies
 * the field's zero at p (a pseudo critical point; unclassifiable: an end). */
int64_t parac__skel_add_point_node(parac__skel_graph *g, const parac__skel_field *f, const double p[3], int kind);

/* Every node of g into a point grid (ids = node indices). */
parac_status parac__skel_grid_of_nodes(const parac__skel_graph *g, parac__skel_point_grid *nodes);

/* The skeleton's samples: a point grid, and the segment and sample index of
 * each grid point. */
typedef struct parac__skel_sample_index {
    parac__skel_point_grid grid;
    int64_t *seg, *idx, cap;
} parac__skel_sample_index;

/* 0, or -1 when out of memory. */
int parac__skel_index_sample(parac__skel_sample_index *s, int64_t seg, int64_t idx, const double p[3]);
int parac__skel_index_segment(parac__skel_sample_index *s, const parac__skel_graph *g, int64_t seg);
void parac__skel_sample_index_free(parac__skel_sample_index *s);

/* The node where something that reached sample `hit` attaches: an end node
 * of its segment when within 5 samples of it (pfSkel's
 * SP_CLOSE_TO_SEGMENT_ENDPOINT), else a new junction splitting the segment
 * in two. -1 when out of memory. */
int64_t parac__skel_join(parac__skel_graph *g, parac__skel_sample_index *si, int64_t hit);

#endif
