/* Gaussian kernel construction: radius rule and sampled, normalised taps. */
#include <math.h>

#include "../core/error_internal.h"
#include "filter_cpu.h"

parac_status parac__gauss_radius(double sigma, double truncate, int *radius)
{
    if (!(sigma >= 0.0) || !isfinite(sigma))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "sigma must be a finite number >= 0, got %g", sigma);
    if (!(truncate > 0.0) || !isfinite(truncate))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "truncate must be > 0, got %g", truncate);
    double r = floor(truncate * sigma + 0.5);
    if (r > PARAC__MAX_RADIUS)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                           "sigma %g with truncate %g gives a radius of %.0f, above the limit %d",
                           sigma, truncate, r, PARAC__MAX_RADIUS);
    *radius = (int)r;
    return PARAC_OK;
}

void parac__gauss_taps(double sigma, int radius, float *taps)
{
    double sum = 0.0;
    for (int i = -radius; i <= radius; i++) sum += exp(-0.5 * (double)i * i / (sigma * sigma));
    for (int i = -radius; i <= radius; i++)
        taps[i + radius] = (float)(exp(-0.5 * (double)i * i / (sigma * sigma)) / sum);
}
