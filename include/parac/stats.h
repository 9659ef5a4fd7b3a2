/* Per-channel statistics of an image, computed on the context's device. */
#ifndef PARAC_STATS_H
#define PARAC_STATS_H

#include <stdint.h>

#include "parac/context.h"
#include "parac/export.h"
#include "parac/image.h"

PARAC_BEGIN_DECLS

typedef struct parac_image_stats {
    int channels;
    int64_t count;        /* values per channel */
    double min[PARAC_MAX_CHANNELS];
    double max[PARAC_MAX_CHANNELS];
    double mean[PARAC_MAX_CHANNELS];
    int64_t nan_count[PARAC_MAX_CHANNELS]; /* NaNs are left out of min/max/mean */
} parac_image_stats;

/* Images on a CUDA device are reduced there; host images on the CPU. */
PARAC_API parac_status parac_image_compute_stats(parac_context *ctx, const parac_image *image,
                                                 parac_image_stats *stats);

PARAC_END_DECLS

#endif
