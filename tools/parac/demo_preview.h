/* The pictures of `parac demo`: what a browser can show of an image. */
#ifndef PARAC_DEMO_PREVIEW_H
#define PARAC_DEMO_PREVIEW_H

#include "parac/op.h"

/* Writes a PNG of host image `img` to `path`. Values are scaled to u8
 * (integer types by their nominal range, floats and i32 from min to max);
 * a volume is drawn as its maximum-intensity projections along the three
 * axes (top: along z; right: along x; bottom: along y); a picture whose
 * long side is under 256 pixels is enlarged by whole pixels. `view` draws
 * an output against `base`, the operation's first input (host, the same
 * size; NULL with PARAC_DEMO_PLAIN). */
parac_status demo_preview_write(parac_context *cpu, const parac_image *img, const parac_image *base,
                                parac_demo_view view, const char *path);

#endif
