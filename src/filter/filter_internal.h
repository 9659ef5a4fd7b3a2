/* Contract between the filter operations (the C files of src/filter: parameters,
 * kernel construction, method choice, CPU methods) and the CUDA methods
 * (the .cu files of src/filter/cuda). All CUDA launchers:
 *   - take `in` and `out` on the same CUDA device, same width/height/depth and
 *     channels (1-4, interleaved); in->dtype and out->dtype each u8, u16 or f32
 *     (they may differ);
 *   - accumulate in float32, round to nearest and saturate integer outputs;
 *   - apply the border rule on every axis they filter;
 *   - queue work on `stream` and check every CUDA call (no synchronisation
 *     needed before returning, except to free temporaries).
 * Kernels are correlations: out[x] = sum_i taps[i] * in[x + i - radius]
 * (Gaussians are symmetric, so this equals convolution). */
#ifndef PARAC_FILTER_INTERNAL_H
#define PARAC_FILTER_INTERNAL_H

#include "parac/filter.h"
#include "parac/image.h"
#include "parac/status.h"
#include "iir_coefs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct parac__border_rule {
    parac_border mode;
    float value; /* for PARAC_BORDER_CONSTANT */
} parac__border_rule;

/* A 1D FIR kernel of 2*radius+1 taps; radius 0 = identity (axis not filtered). */
typedef struct parac__fir1d {
    int radius;
    const float *taps;
} parac__fir1d;

/* Map an out-of-range index into 0..n-1 for the non-constant modes
 * (returns -1 for PARAC_BORDER_CONSTANT outside). Shared by CPU and GPU code
 * through filter_border.h (parac__border_index, parac__border_index32). */

/* direct: the full 2D kernel (2*rx+1 columns x 2*ry+1 rows, row-major);
 * 3D images are filtered slice by slice with it unless kz->radius > 0, in
 * which case a z pass follows. */
parac_status parac__cuda_direct2d(const parac_image *in, parac_image *out, const float *k2d,
                                  int rx, int ry, const parac__fir1d *kz,
                                  parac__border_rule border, void *stream);
/* separable: x pass, y pass (and z pass when depth > 1 and k[2].radius > 0). */
parac_status parac__cuda_separable(const parac_image *in, parac_image *out,
                                   const parac__fir1d k[3], parac__border_rule border,
                                   void *stream);
/* texture: the separable filter reading through texture objects. */
parac_status parac__cuda_separable_texture(const parac_image *in, parac_image *out,
                                           const parac__fir1d k[3], parac__border_rule border,
                                           void *stream);
/* fft: convolution with an arbitrary 2D kernel by cuFFT, borders by padding;
 * 3D images slice by slice plus a z pass with kz when kz->radius > 0. */
parac_status parac__cuda_fft2d(const parac_image *in, parac_image *out, const float *k2d, int rx,
                               int ry, const parac__fir1d *kz, parac__border_rule border,
                               void *stream);
/* fft with a separable kernel k(x, y) = kx[x] * ky[y] (a Gaussian): the same
 * result as parac__cuda_fft2d with the outer product, but the spectrum cache
 * is keyed by the 1D kernels, so repeated calls do no O(kw*kh) host work. */
parac_status parac__cuda_fft2d_separable(const parac_image *in, parac_image *out,
                                         const parac__fir1d *kx, const parac__fir1d *ky,
                                         const parac__fir1d *kz, parac__border_rule border,
                                         void *stream);

/* recursive / deriche2 / yvv: IIR filtering along x, then y, then z (when
 * depth > 1) with f[axis] (form PARAC__IIR_NONE: axis not filtered). The
 * forms, the border rule (extension by f[axis].pad samples for reflect101,
 * reflect and wrap; exact steady-state / Triggs-Sdika starts) and float32
 * intermediates are specified in iir_coefs.h; the CPU reference is
 * iir_cpu.c. */
parac_status parac__cuda_iir(const parac_image *in, parac_image *out, const parac__iir1d f[3],
                             parac__border_rule border, void *stream);

#ifdef __cplusplus
}
#endif

#endif
