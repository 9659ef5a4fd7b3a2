/* Filling the holes of every label of a label image (the operation
 * "fill-label-holes"): what the operation (label_holes_op.c) and its CPU
 * method (label_holes_cpu.c) share.
 *
 * A hole of label v is a connected region (under `conn`, the background's
 * connectivity) of pixels other than v that does not touch the image's
 * border: binary_fill_holes(labels == v). Its zero pixels take v; pixels of
 * other labels inside stay as they are. Where holes of several labels hold
 * one zero pixel (labels nested in others' holes) the innermost label, the
 * one with the smallest bounding box, fills it. */
#ifndef PARAC_LABEL_HOLES_H
#define PARAC_LABEL_HOLES_H

#include <stdint.h>

#include "parac/image.h"
#include "parac/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct parac__label_holes_spec {
    const char *op; /* for messages */
    int conn;       /* of the background: 4, 8 (2D); 6, 18, 26 (3D) */
    int threads;    /* CPU threads (the labelling's) */
} parac__label_holes_spec;

/* in and out (the same size and dtype: u8, u16, i32 or i64) in host memory;
 * *filled: the pixels that took a label. */
parac_status parac__label_holes_cpu(const parac__label_holes_spec *s, const parac_image *in, parac_image *out,
                                    int64_t *filled);

/* The same on a CUDA device (cuda/label_holes_cuda.cu; without CUDA,
 * label_nocuda.c). */
parac_status parac__label_holes_cuda(const parac__label_holes_spec *s, const parac_image *in, parac_image *out,
                                     int64_t *filled, void *stream);

/* What both methods know of a label (its bounding box, x y z) and of a
 * region of equal value (its box and first pixel; for a cavity, a region of
 * zeros: the smallest and largest label beside it, whether it touches the
 * image's border, and the label that fills it with that label's box volume). */
typedef struct parac__holes_box {
    int64_t lo[3], hi[3];
} parac__holes_box;

typedef struct parac__cavity {
    int64_t lo[3], hi[3];
    int64_t first;        /* its first pixel's raster index; -1: a region of nonzero labels */
    int64_t nb_min, nb_max;
    int64_t fill;         /* the label that fills it, 0: none */
    int64_t fill_volume;  /* the box volume of that label */
    int border;
} parac__cavity;

/* The neighbour steps (dx, dy, dz) of a connectivity, 26 at most; their count. */
static inline int parac__holes_steps(int conn, int is_3d, int steps[26][3])
{
    int n = 0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                const int k = (dx != 0) + (dy != 0) + (dz != 0);
                if (k == 0 || (!is_3d && dz != 0)) continue;
                if ((conn == 4 || conn == 6) && k > 1) continue;
                if (conn == 18 && k > 2) continue;
                steps[n][0] = dx, steps[n][1] = dy, steps[n][2] = dz, n++;
            }
    return n;
}

/* A cavity off the border beside several labels is a hole of label v when
 * it is not connected to the border through pixels other than v: for each
 * label 1..n_labels whose box strictly holds one of the cavities
 * cav[ambiguous[0..n_ambiguous-1]], a queue marks what its box's border
 * reaches through pixels other than v; of the labels that enclose a cavity
 * the innermost (smallest box, then smallest label) becomes its fill. `in`
 * in host memory. */
parac_status parac__label_holes_enclose(const char *op, const parac_image *in, int conn, int64_t n_labels,
                                        const parac__holes_box *boxes, parac__cavity *cav, const int64_t *ambiguous,
                                        int64_t n_ambiguous);

#ifdef __cplusplus
}
#endif

#endif
