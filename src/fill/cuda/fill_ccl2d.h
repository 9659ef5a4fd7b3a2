/* The 2D form of the CUDA "ccl" fill: tiles of 32 x 32 pixels labelled as
 * bit rows (fill_ccl2d.cu). fill_ccl.cu uses it for 4 and 8 neighbours; 3D
 * connectivities and floodfill keep the per-pixel passes. */
#ifndef PARAC_FILL_CCL2D_H
#define PARAC_FILL_CCL2D_H

#include <stdint.h>

#include "fill/fill.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether a w x h x d stack fits the launch and node limits. */
int parac__fill_ccl2d_fits(int64_t w, int64_t h, int64_t d);

/* Fills every slice of in (u8 or u16, on the device) into out. */
parac_status parac__fill_ccl2d_cuda(const parac__fill_spec *s, const parac_image *in, parac_image *out, int64_t w,
                                    int64_t h, int64_t d, void *stream);

#ifdef __cplusplus
}
#endif

#endif
