/* The potential-field curve skeleton (Cornea et al.; the paper 004): the
 * stages, each its own function. This part holds stages 1 and 2:
 *   1. classify the voxels of the object (value >= threshold) into exterior,
 *      surface (the charges), boundary and interior;
 *   2. the potential field F(p) = sum over charges c of (p - c) / |p - c|^(M+1)
 *      at every target voxel, exactly, on the CPU (double) and on CUDA (fp32,
 *      three kernels: the paper's plain global-memory and constant-memory
 *      versions, and charges tiled through shared memory as in the N-body
 *      sample), and boundary vectors as the mean of their neighbours'.
 * Critical points, force following and the registry operation come next. */
#ifndef PARAC_SKELETON_SKEL_H
#define PARAC_SKELETON_SKEL_H

#include <stdint.h>

#include "parac/image.h"
#include "parac/status.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { PARAC__SKEL_EXTERIOR = 0, PARAC__SKEL_SURFACE = 1, PARAC__SKEL_BOUNDARY = 2, PARAC__SKEL_INTERIOR = 3 };

typedef enum parac__skel_rules {
    /* the paper: surface = object voxel with an exterior voxel among its 26
     * neighbours; boundary = other object voxel with a surface voxel among its
     * 26 neighbours; interior = the rest */
    PARAC__SKEL_RULES_PAPER = 0,
    /* pfSkel: surface = object voxel with an exterior 6-neighbour; no boundary layer */
    PARAC__SKEL_RULES_PFSKEL
} parac__skel_rules;

/* Classes of the w*h*d voxels of `in` (one channel, u8/u16/f32; object =
 * value >= threshold, or nonzero when threshold is NaN; outside the volume
 * is exterior) into cls (w*h*d bytes,
 * x fastest). */
parac_status parac__skel_classify(const parac_image *in, double threshold, parac__skel_rules rules, uint8_t *cls);

/* Positions (x, y, z as floats, 3 per point) and voxel indices of the voxels
 * of class `which`; malloc'd, the caller frees both. */
parac_status parac__skel_collect(const uint8_t *cls, int64_t w, int64_t h, int64_t d, int which, float **xyz,
                                 int64_t **index, int64_t *count);

/* Exact field at nt targets from nc charges, field strength M (1..10), in
 * double on `threads` threads; F: 3*nt floats (x, y, z). */
parac_status parac__skel_field_cpu(const float *targets, int64_t nt, const float *charges, int64_t nc, int M,
                                   float *F, int threads);

/* The same on the current CUDA device, targets/charges/F in device memory.
 * method: "tiled" (shared-memory tiles), "global" (the paper's plain kernel),
 * "constant" (the paper's charges in constant memory). */
parac_status parac__skel_field_cuda(const char *method, const float *targets, int64_t nt, const float *charges,
                                    int64_t nc, int M, float *F, void *stream);

/* Vectors of the voxels of class `which` as the mean of the vectors of their
 * 26-neighbours of the classes in the bit mask `from` (1 << class): the
 * paper's boundary points from interior ones, pfSkel's surface points.
 * field: 3 floats per voxel of the volume. */
void parac__skel_neighbour_means(const uint8_t *cls, int64_t w, int64_t h, int64_t d, int which, int from,
                                 float *field);

#ifdef __cplusplus
}
#endif

#endif
