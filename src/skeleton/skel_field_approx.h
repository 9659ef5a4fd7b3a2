/* The approximate potential field: a two-level cell tree of the charges,
 * evaluated as Barnes and Hut do. A cell far enough from a block of
 * targets acts through its monopole and quadrupole (the second-order Taylor
 * expansion of (p - c)/|p - c|^(M+1) about its centroid); a nearer cell
 * opens into its children; the charges of near L1 cells are summed exactly.
 *   L1 cells: side `cell`; used from a distance of cell / theta;
 *   L2 cells: 4x4x4 L1 cells; used from a distance of 4 cell / theta;
 * distances from the cell's centroid to the nearest point of the box
 * around the block's targets (the targets of one L1 cell), so every thread
 * of a block takes the same path. Built on the host (moments in double);
 * evaluated on the CPU (double) or CUDA (fp32). */
#ifndef PARAC_SKELETON_SKEL_FIELD_APPROX_H
#define PARAC_SKELETON_SKEL_FIELD_APPROX_H

#include <stdint.h>

#include "parac/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PARAC__SKEL_L2_SPAN 4        /* L1 cells per L2 cell side */
#define PARAC__SKEL_MOMENT_FLOATS 12 /* cx cy cz n, Qxx Qxy Qxz Qyy, Qyz Qzz - - */
#define PARAC__SKEL_THETA 0.25       /* cell side / distance from which a cell's expansion is used */

typedef struct parac__skel_tree {
    float cell, open1, open2; /* L1 side; distances from which L1 and L2 expansions are used */
    float *charges;           /* sorted by L2 cell, then L1 cell; 3 floats each */
    int64_t nc;
    float *l1, *l2;           /* moments of the non-empty cells, L1 in the charges' order */
    int64_t *l1_range;        /* per L1 cell: its charges [first, end) */
    int64_t *l2_range;        /* per L2 cell: its L1 cells [first, end) */
    int64_t n_l1, n_l2;
    float *targets;           /* sorted by L1 cell */
    int64_t nt, *order;       /* order[i]: the caller's index of sorted target i */
    int64_t *block_start;     /* per block (the targets of one L1 cell): first sorted target; one more at the end */
    float *block_box;         /* per block: lo x y z, hi x y z of its targets */
    int64_t n_blocks;
} parac__skel_tree;

/* Positions must be >= 0 (the pipeline's framed voxel grid, times
 * spacing); theta: PARAC__SKEL_THETA unless measuring. */
parac_status parac__skel_tree_build(const float *targets, int64_t nt, const float *charges, int64_t nc, float cell,
                                    double theta, parac__skel_tree *tree);
void parac__skel_tree_free(parac__skel_tree *tree);

/* The field at every target, in the caller's order; F: 3*nt floats. */
parac_status parac__skel_field_approx_cpu(const parac__skel_tree *tree, int M, float *F, int threads);
/* The same on the current CUDA device; F in host memory. kernel_ms (may be
 * NULL): the kernel's own time, without the transfers. */
parac_status parac__skel_field_approx_cuda(const parac__skel_tree *tree, int M, float *F, void *stream,
                                           float *kernel_ms);

#ifdef __cplusplus
}
#endif

#endif
