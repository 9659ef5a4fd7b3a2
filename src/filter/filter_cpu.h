/* CPU methods of the linear filters and the helpers they share with the
 * operations. They mirror the CUDA launchers of filter_internal.h: `in` and
 * `out` are host images of the same size and channels (out created by the
 * caller, packed); dtypes u8, u16 or f32 (f32 intermediates, integer outputs
 * rounded to nearest and saturated). `threads` <= 0 means all cores. */
#ifndef PARAC_FILTER_CPU_H
#define PARAC_FILTER_CPU_H

#include "filter_internal.h"

/* Largest radius accepted on any axis: beyond this a kernel is absurd for
 * any image parac can hold in memory. */
#define PARAC__MAX_RADIUS 1000000

/* Sampled Gaussian of the given radius: exp(-x^2 / (2 sigma^2)) for
 * x = -radius..radius, computed in double, normalised to sum 1 and stored as
 * float. `taps` must hold 2*radius+1 values; sigma > 0. */
void parac__gauss_taps(double sigma, int radius, float *taps);
/* radius = int(truncate * sigma + 0.5) (scipy's rule); errors when it
 * exceeds PARAC__MAX_RADIUS. */
parac_status parac__gauss_radius(double sigma, double truncate, int *radius);

parac_status parac__cpu_separable(const parac_image *in, parac_image *out, const parac__fir1d k[3],
                                  parac__border_rule border, int threads);
parac_status parac__cpu_direct2d(const parac_image *in, parac_image *out, const float *k2d, int rx,
                                 int ry, const parac__fir1d *kz, parac__border_rule border,
                                 int threads);
parac_status parac__cpu_fft2d(const parac_image *in, parac_image *out, const float *k2d, int rx,
                              int ry, const parac__fir1d *kz, parac__border_rule border,
                              int threads);
parac_status parac__cpu_iir(const parac_image *in, parac_image *out, const parac__iir1d f[3],
                            parac__border_rule border, int threads);

/* A float volume: `in` filtered along z only (FFT method's z pass). */
parac_status parac__cpu_z_pass(const parac_image *in, const parac__fir1d *kz,
                               parac__border_rule border, int threads, parac_image **tmp);

/* Row conversions used by the CPU methods. */
void parac__load_row_f32(const void *src, parac_dtype dtype, int64_t n, float *dst);
void parac__store_row_f32(const float *src, parac_dtype dtype, int64_t n, void *dst);

#endif
