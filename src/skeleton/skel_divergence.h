/* pfSkel's level-2 seeds: voxels where the normalised field converges most
 * (lowest divergence), one per cluster, as the MIPAV port of pfSkel picks
 * them. */
#ifndef PARAC_SKELETON_SKEL_DIVERGENCE_H
#define PARAC_SKELETON_SKEL_DIVERGENCE_H

#include <stdint.h>

#include "parac/status.h"
#include "skel_critical.h"

#define PARAC__SKEL_MAX_DIVERGENCE_SEEDS 5000

/* The divergence of the field by central differences at +-0.5 voxel, at
 * every interior voxel; the voxels at or below min + frac * (max - min),
 * at most 5000, lowest first (pfSkel's candidates; which of them start
 * traces is parac__skel_trace_seeds' choice). *seeds: 3 doubles per seed,
 * malloc'd. */
parac_status parac__skel_divergence_seeds(const parac__skel_field *f, double frac, int threads, double **seeds,
                                          int64_t *n_seeds);

#endif
