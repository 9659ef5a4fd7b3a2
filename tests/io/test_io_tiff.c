/* TIFF layouts parac does not write itself, built with libtiff: strips and
 * tiles, contiguous and separate planes, multi-page; pages that disagree. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <tiffio.h>

#include "io_test_util.h"
#include "test_util.h"

/* TIFF files written directly with libtiff in layouts parac does not write. */
static void write_tiff(const char *path, int tiled, int separate, int pages, int mismatch)
{
    TIFF *t = TIFFOpen(path, "w");
    assert_non_null(t);
    for (int z = 0; z < pages; z++) {
        uint32_t w = 37, h = 23 + (mismatch && z == 1);
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, w);
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, h);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 16);
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 3);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
        TIFFSetField(t, TIFFTAG_PLANARCONFIG, separate ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG);
        TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_LZW);
        TIFFSetField(t, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
        if (tiled) {
            TIFFSetField(t, TIFFTAG_TILEWIDTH, 16);
            TIFFSetField(t, TIFFTAG_TILELENGTH, 16);
            uint16_t tile[16 * 16 * 3];
            for (int s = 0; s < (separate ? 3 : 1); s++)
                for (uint32_t ty = 0; ty < h; ty += 16)
                    for (uint32_t tx = 0; tx < w; tx += 16) {
                        for (int y = 0; y < 16; y++)
                            for (int x = 0; x < 16; x++)
                                for (int c = 0; c < (separate ? 1 : 3); c++) {
                                    int ch = separate ? s : c;
                                    tile[(y * 16 + x) * (separate ? 1 : 3) + c] =
                                        (uint16_t)(1000 * z + 100 * ch + (ty + y) * 37 + tx + x);
                                }
                        TIFFWriteTile(t, tile, tx, ty, 0, (uint16_t)s);
                    }
        } else {
            TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 5);
            uint16_t row[37 * 3];
            for (int s = 0; s < (separate ? 3 : 1); s++)
                for (uint32_t y = 0; y < h; y++) {
                    for (uint32_t x = 0; x < w; x++)
                        for (int c = 0; c < (separate ? 1 : 3); c++) {
                            int ch = separate ? s : c;
                            row[x * (separate ? 1 : 3) + c] = (uint16_t)(1000 * z + 100 * ch + y * 37 + x);
                        }
                    TIFFWriteScanline(t, row, y, (uint16_t)s);
                }
        }
        TIFFWriteDirectory(t);
    }
    TIFFClose(t);
}

static void test_tiff_layouts(void **state)
{
    (void)state;
    char path[512];
    test_path(path, sizeof path, "layout.tif");
    for (int tiled = 0; tiled < 2; tiled++)
        for (int separate = 0; separate < 2; separate++) {
            write_tiff(path, tiled, separate, 2, 0);
            parac_image *img = NULL;
            assert_ok(parac_image_read(path, NULL, &img));
            assert_int_equal(img->width, 37);
            assert_int_equal(img->height, 23);
            assert_int_equal(img->depth, 2);
            assert_int_equal(img->channels, 3);
            assert_int_equal(img->dtype, PARAC_U16);
            for (int z = 0; z < 2; z++)
                for (int y = 0; y < 23; y++)
                    for (int x = 0; x < 37; x++)
                        for (int c = 0; c < 3; c++)
                            assert_int_equal(((uint16_t *)parac_image_at(img, x, y, z))[c],
                                             1000 * z + 100 * c + y * 37 + x);
            parac_image_destroy(img);
        }
    write_tiff(path, 0, 0, 3, 1);
    parac_image *img = NULL;
    assert_int_equal(parac_image_read(path, NULL, &img), PARAC_ERR_UNSUPPORTED);
    assert_non_null(strstr(parac_error_message(), "page 1"));
    assert_null(img);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiff_layouts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
