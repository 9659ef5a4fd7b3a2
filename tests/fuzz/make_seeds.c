/* Writes a small seed corpus for fuzz_read: tiny images of every format,
 * dtype and channel count parac writes, in each encoding variant.
 * Usage: make_seeds DIR */
#include <stdio.h>
#include <string.h>

#include "parac/parac.h"

static int write_one(const char *dir, const char *stem, const char *ext, int64_t w, int64_t h, int64_t d,
                     int c, parac_dtype t, const parac_write_options *wo)
{
    parac_image *img = NULL;
    if (parac_image_create(&img, w, h, d, c, t, PARAC_MEMORY_HOST, -1) != PARAC_OK) return 1;
    size_t elem = parac_dtype_size(t);
    unsigned v = 7;
    for (int64_t z = 0; z < d; z++)
        for (int64_t y = 0; y < h; y++) {
            uint8_t *p = parac_image_at(img, 0, y, z);
            for (size_t i = 0; i < (size_t)w * (size_t)c * elem; i++) p[i] = (uint8_t)(v = v * 1103515245u + 12345u) >> 3;
        }
    if (t == PARAC_F32 || t == PARAC_F64) parac_image_clear(img, NULL); /* no NaN payloads needed */
    char path[1024];
    snprintf(path, sizeof path, "%s/%s_%s_%dc_%lldd.%s", dir, stem, parac_dtype_name(t), c, (long long)d, ext);
    parac_status st = parac_image_write(path, img, wo);
    parac_image_destroy(img);
    return st != PARAC_OK && st != PARAC_ERR_UNSUPPORTED;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    const char *exts[] = {"png", "jpg", "tif", "pgm", "ppm", "npy", "nrrd"};
    parac_write_options plain = {.png_compression = -1};
    parac_write_options packed = {.png_compression = 9, .jpeg_quality = 50, .pnm_ascii = 1,
                                  .nrrd_gzip = 1, .npy_fortran_order = 1, .tiff_compress = 1};
    int bad = 0;
    for (size_t e = 0; e < sizeof exts / sizeof exts[0]; e++)
        for (int t = 0; t < PARAC_DTYPE_COUNT; t++)
            for (int c = 1; c <= 4; c++)
                for (int d = 1; d <= 2; d++) {
                    bad |= write_one(argv[1], "plain", exts[e], 5, 3, d, c, (parac_dtype)t, &plain);
                    bad |= write_one(argv[1], "packed", exts[e], 9, 4, d, c, (parac_dtype)t, &packed);
                }
    return bad;
}
