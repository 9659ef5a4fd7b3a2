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

static double weight(double sigma, int i) { return exp(-0.5 * (double)i * i / (sigma * sigma)); }

/* Each exp once for kernels of up to 64 taps a side (the left half mirrors
 * the right, i*i being exact), summed from -radius to radius as before: the
 * same taps, bit for bit, for a quarter of the exps, which were most of the
 * host time of a call on a small image. */
void parac__gauss_taps(double sigma, int radius, float *taps)
{
    enum { HALF = 64 };
    double half[HALF], sum = 0.0;
    const int cached = radius < HALF;
    for (int a = 0; cached && a <= radius; a++) half[a] = weight(sigma, a);
    for (int i = -radius; i <= radius; i++) sum += cached ? half[i < 0 ? -i : i] : weight(sigma, i);
    for (int i = -radius; i <= radius; i++)
        taps[i + radius] = (float)((cached ? half[i < 0 ? -i : i] : weight(sigma, i)) / sum);
}
