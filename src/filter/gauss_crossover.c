/* CUDA timings for the gauss "auto" chooser (format: gauss_crossover.h),
 * measured by the CUDA benchmark in bench/gauss/. Without rows the chooser
 * takes the exact FIR method (separable, or fft beyond the CUDA separable
 * radius limit) and says so in its explanation. */
#include "gauss_crossover.h"

const parac__gauss_timing parac__gauss_timings_cuda[] = {
    /* {"method", PARAC_F32, side, sigma, ms}, */
    {0, PARAC_F32, 0, 0, 0}, /* terminator (not counted) */
};
const int parac__gauss_timings_cuda_count =
    (int)(sizeof parac__gauss_timings_cuda / sizeof parac__gauss_timings_cuda[0]) - 1;
