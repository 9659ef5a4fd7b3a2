/* Connected-component labelling: what the operation (label_op.c) and its
 * methods on the CPU (label_cpu.c) and CUDA (cuda/label_cuda.cu) share.
 *
 * A pixel is foreground when it is nonzero (scipy.ndimage.label), or, with
 * equal_values, when it differs from `background`; two neighbouring
 * foreground pixels join when they are both foreground (nonzero) or hold
 * the same value (equal_values: skimage.measure.label). Components are
 * numbered 1..n in the raster order (z, then y, then x) of their first
 * pixel, as scipy and scikit-image number them; background pixels get 0. */
#ifndef PARAC_LABEL_LABEL_H
#define PARAC_LABEL_LABEL_H

#include <stdint.h>

#include "parac/context.h"
#include "parac/image.h"
#include "parac/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct parac__label_spec {
    const char *op;      /* for messages */
    int conn;            /* 4, 8 (2D); 6, 18, 26 (3D) */
    int equal_values;    /* 0: nonzero pixels; 1: regions of equal value */
    double background;   /* equal_values: pixels of this value are background */
    int threads;         /* CPU threads */
    /* When the count passes 2^31 - 1 and the output is i32: replaces *out
     * by an i64 image of its size and place, or says why not (NULL: the
     * count is an error). */
    parac_status (*widen)(void *arg, parac_image **out);
    void *widen_arg;
} parac__label_spec;

/* The input (dtype, channels, size, connectivity; NaN under equal_values)
 * and the output (i32 or i64, the input's size) against the spec. */
parac_status parac__label_check(const parac__label_spec *s, const parac_image *in, const parac_image *out);

/* The most components an i32 output takes: 2^31 - 1, lowered by tests
 * (parac__label_set_i32_max; 0 restores it) to reach the widening on small
 * images. */
int64_t parac__label_i32_max(void);
void parac__label_set_i32_max(int64_t max);

/* `count` components (more than parac__label_i32_max) and an i32 output:
 * *out widened by s->widen, or the overflow error. */
parac_status parac__label_widen(const parac__label_spec *s, int64_t count, parac_image **out);

/* CPU: in and out in host memory; *count: the number of components. */
parac_status parac__label_cpu(const parac__label_spec *s, const parac_image *in, parac_image *out, int64_t *count);

/* CUDA: in and out on the same device (builds without CUDA: label_nocuda.c). */
parac_status parac__label_cuda(const parac__label_spec *s, const parac_image *in, parac_image *out, int64_t *count,
                               void *stream);

/* The demos of the operations that take labels: the label demo's cells
 * labelled on ctx's device, *labels in host memory (the demo draws its
 * inputs from there), *count their number. */
parac_status parac__labelled_cells(parac_context *ctx, parac_image **labels, int64_t *count);

#ifdef __cplusplus
}
#endif

#endif
