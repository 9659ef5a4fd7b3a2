#ifndef PARAC_STATS_INTERNAL_H
#define PARAC_STATS_INTERNAL_H

#include "parac/stats.h"

#ifdef __cplusplus
extern "C" {
#endif
parac_status parac__stats_cuda(const parac_image *image, parac_image_stats *stats, void *stream);
#ifdef __cplusplus
}
#endif

#endif
