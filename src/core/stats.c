/* Per-channel min / max / mean, skipping NaNs. */
#include <math.h>
#include <string.h>

#include "error_internal.h"
#include "pixel_math.h"
#include "stats_internal.h"

static void stats_cpu(const parac_image *img, parac_image_stats *s)
{
    const int nc = img->channels;
    const size_t esz = parac_dtype_size(img->dtype);
    const int64_t rows = img->height * img->depth;
    for (int c = 0; c < nc; c++) {
        double lo = INFINITY, hi = -INFINITY, sum = 0;
        int64_t nans = 0;
#pragma omp parallel for schedule(static) reduction(min : lo) reduction(max : hi) \
    reduction(+ : sum, nans)
        for (int64_t r = 0; r < rows; r++) {
            const char *row = parac_image_at(img, 0, r % img->height, r / img->height);
            double row_sum = 0; /* per-row partial sums keep float64 error small */
            for (int64_t x = 0; x < img->width; x++) {
                double v = parac__load_elem(row + x * img->pixel_stride + c * esz, img->dtype);
                if (v != v) {
                    nans++;
                    continue;
                }
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
                row_sum += v;
            }
            sum += row_sum;
        }
        int64_t n = parac_image_pixel_count(img) - nans;
        s->min[c] = n ? lo : NAN;
        s->max[c] = n ? hi : NAN;
        s->mean[c] = n ? sum / (double)n : NAN;
        s->nan_count[c] = nans;
    }
}

parac_status parac_image_compute_stats(parac_context *ctx, const parac_image *image,
                                       parac_image_stats *stats)
{
    if (!image || !stats) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "NULL image or stats");
    memset(stats, 0, sizeof *stats);
    stats->channels = image->channels;
    stats->count = parac_image_pixel_count(image);
    if (image->memory == PARAC_MEMORY_CUDA)
        return parac__stats_cuda(image, stats, ctx ? parac_context_stream(ctx) : NULL);
    stats_cpu(image, stats);
    return PARAC_OK;
}
