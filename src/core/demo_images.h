/* Synthetic inputs for `parac demo` that look like what each operation is
 * for: textured terrain, cells with dark cores, a serpentine corridor,
 * shapes sprinkled with specks. Drawn from a seeded hash, so every run and
 * every machine makes the same pictures; no file is read. */
#ifndef PARAC_DEMO_IMAGES_H
#define PARAC_DEMO_IMAGES_H

#include <stdint.h>

#include "parac/image.h"
#include "parac/status.h"

/* Smooth fractal noise in [0, 1] at (x, y): four octaves of value noise,
 * the first with cells of `scale` pixels. */
double parac__demo_noise(double x, double y, double scale, uint32_t seed);

/* A u8 host image of rolling hills: noise stretched to [lo, hi]. */
parac_status parac__demo_terrain(parac_image **out, int64_t width, int64_t height, double scale, int lo,
                                 int hi, uint32_t seed);

/* A u8 host image of cells: bright rims round darker textured cores on a
 * dim background, some cut by the image border. `solid`: objects only,
 * 255 on every pixel of a cell (rim and core), 0 elsewhere. */
parac_status parac__demo_cells(parac_image **out, int64_t width, int64_t height, int solid, uint32_t seed);

/* A u8 host image: a dim textured floor, one bright corridor that winds
 * back and forth across the whole image, and bright blobs that touch
 * nothing. *start_x, *start_y: a pixel at the corridor's first end. */
parac_status parac__demo_serpentine(parac_image **out, int64_t width, int64_t height, int64_t *start_x,
                                    int64_t *start_y);

/* A u8 host image: large bright shapes on a dim floor, sprinkled with
 * small bright specks (what an opening by reconstruction removes);
 * `inverted`: the negative (dark shapes and pits, for a closing). */
parac_status parac__demo_specks(parac_image **out, int64_t width, int64_t height, int inverted, uint32_t seed);

#endif
