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

typedef struct parac__label_holes_spec {
    const char *op; /* for messages */
    int conn;       /* of the background: 4, 8 (2D); 6, 18, 26 (3D) */
    int threads;    /* CPU threads (the labelling's) */
} parac__label_holes_spec;

/* in and out (the same size and dtype: u8, u16 or i32) in host memory;
 * *filled: the pixels that took a label. */
parac_status parac__label_holes_cpu(const parac__label_holes_spec *s, const parac_image *in, parac_image *out,
                                    int64_t *filled);

#endif
