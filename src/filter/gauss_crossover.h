/* Measured timings that drive the "auto" method of the gauss operation.
 * One row = one benchmark measurement: the median time of `method` on a
 * square single-channel image of side `side`, for `dtype` (u8 or f32) and
 * sigma (same on both axes, radius by the default truncate 4.0). The chooser
 * (gauss_choose.c) predicts a method's time for a request by interpolating in
 * log(sigma) between the rows of the nearest measured side and scaling by the
 * pixel count, then takes the fastest method that meets the accuracy rule.
 * Rows come from the benchmarks (bench/gauss/), never from guesses:
 *   CPU  rows: gauss_crossover_cpu.c (bench/gauss_cpu: bench_gauss_cpu --table)
 *   CUDA rows: gauss_crossover.c     (the CUDA benchmark in bench/gauss/) */
#ifndef PARAC_GAUSS_CROSSOVER_H
#define PARAC_GAUSS_CROSSOVER_H

#include "parac/image.h"

typedef struct parac__gauss_timing {
    const char *method; /* "separable", "recursive", ... */
    parac_dtype dtype;  /* PARAC_U8 or PARAC_F32 */
    int side;           /* image is side x side, 1 channel */
    double sigma;
    /* time of one call, data resident on the backend's device (CUDA rows:
     * median; CPU rows: fastest run, the build machine being shared) */
    double ms;
} parac__gauss_timing;

extern const parac__gauss_timing parac__gauss_timings_cuda[];
extern const int parac__gauss_timings_cuda_count;
extern const parac__gauss_timing parac__gauss_timings_cpu[];
extern const int parac__gauss_timings_cpu_count;

#endif
