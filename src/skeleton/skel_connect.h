/* Joining: one connected skeleton per connected object. The potential
 * field can leave a skeleton in pieces (a long cylinder whose field has no
 * saddle between two attracting nodes, a trace cut where it left the
 * object); each piece is joined to the nearest other piece of the same
 * object by the cheapest 26-connected path through the object, a step into
 * a voxel at depth t (steps from the exterior) costing its length / t^2, so
 * that the path keeps to the middle. */
#ifndef PARAC_SKELETON_SKEL_CONNECT_H
#define PARAC_SKELETON_SKEL_CONNECT_H

#include "skel_trace.h"

/* *n_paths: how many joining paths were added (may be NULL). */
parac_status parac__skel_connect(const parac__skel_field *f, parac__skel_graph *g, int64_t *n_paths);

#endif
