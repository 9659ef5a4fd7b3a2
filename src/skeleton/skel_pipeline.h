/* The whole skeleton pipeline on one volume, stage by stage, with the time
 * each stage took: the registry operation and the benchmarks both call it. */
#ifndef PARAC_SKELETON_SKEL_PIPELINE_H
#define PARAC_SKELETON_SKEL_PIPELINE_H

#include "parac/context.h"
#include "skel.h"
#include "skel_trace.h"

typedef struct parac__skel_params {
    double threshold;       /* the object is value >= threshold; NaN: nonzero */
    int field_strength;     /* M, 1..10 */
    int charge_distance;    /* pfSkel's -dc: charges this many layers outside the object */
    parac__skel_rules rules;
    double divergence;      /* level-2 seeds: fraction of the divergence range; 0: none */
    double spacing[3];      /* voxel size; the field is computed in these units */
    const char *field;      /* "exact" (CPU, double), "approx" (the cell tree, on ctx's device) or a CUDA
                             * kernel of parac__skel_field_cuda */
    parac_context *ctx;     /* its device and stream for a CUDA field; its thread count for the CPU */
} parac__skel_params;

typedef struct parac__skel_stats {
    /* seconds_seeds: divergence seeds, their traces and the joining of pieces */
    double seconds_classify, seconds_field, seconds_critical, seconds_trace, seconds_seeds, seconds_total;
    int64_t targets, charges, critical, seeds, segments, joins; /* joins: paths joining pieces */
} parac__skel_stats;

/* The skeleton of the volume `in` (host memory, one channel, u8/u16/f32,
 * depth >= 2): the graph, in the input's voxel coordinates, and its voxels
 * (w*h*d bytes, 255 on the skeleton). stats may be NULL. */
parac_status parac__skel_pipeline(const parac_image *in, const parac__skel_params *prm, parac__skel_graph *g,
                                  uint8_t *voxels, parac__skel_stats *stats);

#endif
