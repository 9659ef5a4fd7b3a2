/* The 2D labelling on the GPU (label2d_cuda.cu), which label_cuda.cu hands
 * every 2D image. */
#ifndef PARAC_LABEL_CUDA_LABEL2D_H
#define PARAC_LABEL_CUDA_LABEL2D_H

#include <stdint.h>

#include "label/label.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether a w x h image fits the kernels' grids and 32-bit nodes; why not
 * in `why` otherwise. */
int parac__label2d_fits(int64_t w, int64_t h, const char **why);

/* Checked input and output on one device; *count: the components. */
parac_status parac__label2d_cuda(const parac__label_spec *s, const parac_image *in, parac_image *out, int64_t *count,
                                 void *stream);

#ifdef __cplusplus
}
#endif

#endif
