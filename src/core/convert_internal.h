#ifndef PARAC_CONVERT_INTERNAL_H
#define PARAC_CONVERT_INTERNAL_H

#include "parac/image.h"
#include "parac/status.h"

#ifdef __cplusplus
extern "C" {
#endif
/* out = scale * map_channels(in) + offset, element-wise, on the device
 * holding both images. */
parac_status parac__convert_cuda(parac_image *out, const parac_image *in, double scale,
                                 double offset, void *stream);
#ifdef __cplusplus
}
#endif

#endif
