/* Points bucketed by the voxel they round to, for "is there a point within
 * r < 1 voxel of here" queries during tracing: each query looks at the 27
 * voxels around the position. Open addressing on the voxel key, chains
 * through the points. */
#ifndef PARAC_SKELETON_SKEL_POINT_GRID_H
#define PARAC_SKELETON_SKEL_POINT_GRID_H

#include <stdint.h>

typedef struct parac__skel_point_grid {
    int64_t *key, *head;  /* slots: voxel key (-1 empty), first point */
    int64_t n_slots;      /* a power of two */
    int64_t *next;        /* per point: the next point of its voxel, -1 at the end */
    double *xyz;          /* per point: position */
    int64_t n, cap, used; /* points; slots in use */
} parac__skel_point_grid;

/* 0 on success, -1 when out of memory (the grid is then unchanged). Point
 * ids are 0, 1, 2, ... in the order of insertion. */
int parac__skel_grid_add(parac__skel_point_grid *g, const double p[3]);

/* The id of the nearest point strictly closer than r (< 1) to p, or -1. */
int64_t parac__skel_grid_near(const parac__skel_point_grid *g, const double p[3], double r);

void parac__skel_grid_free(parac__skel_point_grid *g);

#endif
