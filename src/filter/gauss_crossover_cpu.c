/* CPU timings for the gauss "auto" chooser (format: gauss_crossover.h). */
#include "gauss_crossover.h"

const parac__gauss_timing parac__gauss_timings_cpu[] = {
    {0, PARAC_F32, 0, 0, 0}, /* terminator (not counted) */
};
const int parac__gauss_timings_cpu_count =
    (int)(sizeof parac__gauss_timings_cpu / sizeof parac__gauss_timings_cpu[0]) - 1;
