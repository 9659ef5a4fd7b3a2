/* Writes a small seed corpus for fuzz_read: tiny images of every format,
 * dtype and channel count parac writes, in each encoding variant.
 * Usage: make_seeds DIR */
#include <stdio.h>
#include <string.h>

#include <png.h>
#ifdef PARAC_HAVE_TIFF
#include <tiffio.h>
#endif

#include "parac/parac.h"

#ifdef PARAC_HAVE_TIFF
/* Layouts parac does not write itself: tiled and planar TIFF, palette and
 * bilevel TIFF. */
static void tiff_variant(const char *dir, const char *name, int tiled, int separate, int photometric,
                         int bps, int spp)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.tif", dir, name);
    TIFF *t = TIFFOpen(path, "w");
    if (!t) return;
    uint32_t w = 19, h = 13;
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, w);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, h);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, bps);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, spp);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, photometric);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, separate ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_COMPRESSION, tiled ? COMPRESSION_LZW : COMPRESSION_PACKBITS);
    if (photometric == PHOTOMETRIC_PALETTE) {
        uint16_t map[3][256];
        for (int i = 0; i < 256; i++) map[0][i] = (uint16_t)(i * 257), map[1][i] = (uint16_t)(65535 - i * 257), map[2][i] = 4000;
        TIFFSetField(t, TIFFTAG_COLORMAP, map[0], map[1], map[2]);
    }
    uint8_t buf[16 * 16 * 8];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)(i * 37 + 11);
    int planes = separate ? spp : 1;
    if (tiled) {
        TIFFSetField(t, TIFFTAG_TILEWIDTH, 16);
        TIFFSetField(t, TIFFTAG_TILELENGTH, 16);
        for (int s = 0; s < planes; s++)
            for (uint32_t y = 0; y < h; y += 16)
                for (uint32_t x = 0; x < w; x += 16) TIFFWriteTile(t, buf, x, y, 0, (uint16_t)s);
    } else {
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 4);
        for (int s = 0; s < planes; s++)
            for (uint32_t y = 0; y < h; y++) TIFFWriteScanline(t, buf, y, (uint16_t)s);
    }
    TIFFWriteDirectory(t);
    TIFFClose(t);
}

#endif

/* A palette PNG with transparency. */
static void png_palette(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/palette_trns.png", dir);
    FILE *f = fopen(path, "wb");
    if (!f) return;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        return;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, 7, 5, 4, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_ADAM7,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_color pal[16];
    png_byte alpha[16];
    for (int i = 0; i < 16; i++) pal[i].red = (png_byte)(16 * i), pal[i].green = (png_byte)(255 - 16 * i), pal[i].blue = 9, alpha[i] = (png_byte)(i * 17);
    png_set_PLTE(png, info, pal, 16);
    png_set_tRNS(png, info, alpha, 16, NULL);
    png_write_info(png, info);
    int passes = png_set_interlace_handling(png);
    png_byte row[4] = {0x01, 0x23, 0x45, 0x60};
    for (int p = 0; p < passes; p++)
        for (int y = 0; y < 5; y++) png_write_row(png, row);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    fclose(f);
}

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
#ifdef PARAC_HAVE_TIFF
    tiff_variant(argv[1], "tiff_tiled_separate", 1, 1, PHOTOMETRIC_RGB, 8, 3);
    tiff_variant(argv[1], "tiff_tiled_contig16", 1, 0, PHOTOMETRIC_RGB, 16, 3);
    tiff_variant(argv[1], "tiff_strips_separate", 0, 1, PHOTOMETRIC_RGB, 16, 4);
    tiff_variant(argv[1], "tiff_palette", 0, 0, PHOTOMETRIC_PALETTE, 8, 1);
    tiff_variant(argv[1], "tiff_bilevel", 0, 0, PHOTOMETRIC_MINISWHITE, 1, 1);
#endif
    png_palette(argv[1]);
    return bad;
}
