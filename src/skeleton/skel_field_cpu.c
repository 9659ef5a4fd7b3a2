/* Stage 2 on the CPU: the exact potential field, in double (as pfSkel). */
#include <math.h>

#include "../core/error_internal.h"
#include "skel.h"

/* 1 / r^(M+1) from r^2: (1/r^2)^((M+1)/2), times 1/r when M+1 is odd. */
static inline double inv_power(double r2, int M)
{
    const double inv2 = 1.0 / r2;
    double v = (M + 1) % 2 ? sqrt(inv2) : 1.0;
    for (int k = 0; k < (M + 1) / 2; k++) v *= inv2;
    return v;
}

parac_status parac__skel_field_cpu(const float *targets, int64_t nt, const float *charges, int64_t nc, int M,
                                   float *F, int threads)
{
    if (M < 1 || M > 10)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "skeleton: field strength must be 1..10, got %d", M);
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads > 0 ? threads : 1)
    for (int64_t t = 0; t < nt; t++) {
        const double px = targets[3 * t], py = targets[3 * t + 1], pz = targets[3 * t + 2];
        double fx = 0, fy = 0, fz = 0;
        for (int64_t c = 0; c < nc; c++) {
            const double dx = px - charges[3 * c], dy = py - charges[3 * c + 1], dz = pz - charges[3 * c + 2];
            const double r2 = dx * dx + dy * dy + dz * dz;
            if (r2 == 0) continue; /* a target on a charge feels no force from it */
            const double s = inv_power(r2, M);
            fx += dx * s;
            fy += dy * s;
            fz += dz * s;
        }
        F[3 * t] = (float)fx;
        F[3 * t + 1] = (float)fy;
        F[3 * t + 2] = (float)fz;
    }
    return PARAC_OK;
}
