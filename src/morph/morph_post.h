/* Pixel-wise steps around a reconstruction for the operators built on it,
 * on the CPU (morph_post_cpu.c) and on CUDA (cuda/morph_post.cu). Images
 * are single-channel, of equal size, resident where the function runs. */
#ifndef PARAC_MORPH_POST_H
#define PARAC_MORPH_POST_H

#include "parac/image.h"
#include "parac/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum parac__post_kind {
    PARAC__POST_HEXT = 0,  /* u8: 255 where f - R >= h (maxima) / R - f >= h (minima) */
    PARAC__POST_REGIONAL,  /* u8: 255 where f > R (maxima) / f < R (minima) */
    PARAC__POST_CLEAR,     /* f's dtype: 0 where R != 0, else f */
    PARAC__POST_NONZERO    /* u8: 255 where f != 0 (R unused) */
} parac__post_kind;

/* out = kind(f, R); `minima` selects the dual comparisons, h is for HEXT. */
parac_status parac__morph_post_cpu(parac__post_kind kind, int minima, double h,
                                   const parac_image *f, const parac_image *R, parac_image *out,
                                   int threads);

/* Flat square (cube in 3D) structuring element of side 2r+1: the minimum
 * (erosion) or maximum (dilation) over the part of the window inside the
 * image. */
parac_status parac__morph_minmax_cpu(const parac_image *in, parac_image *out, int64_t radius,
                                     int is_max, int threads);

/* The same on CUDA (builds without CUDA: morph_nocuda.c). */
parac_status parac__morph_post_cuda(parac__post_kind kind, int minima, double h,
                                    const parac_image *f, const parac_image *R, parac_image *out,
                                    void *stream);
parac_status parac__morph_minmax_cuda(const parac_image *in, parac_image *out, int64_t radius,
                                      int is_max, void *stream);

#ifdef __cplusplus
}
#endif

#endif
