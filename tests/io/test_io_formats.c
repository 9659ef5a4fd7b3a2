/* Variants other writers produce: big-endian and Fortran-order .npy, NRRD
 * headers of other tools, PNM comments, palette and low-bit-depth PNGs
 * (tiled and planar TIFFs are in test_io_tiff.c). Each input is built by
 * hand or by the format's own library, and the decoded values are checked
 * one by one. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <png.h>
#include <zlib.h>

#include "io_test_util.h"
#include "test_util.h"

static parac_image *read_bytes(const void *data, size_t size, const parac_read_options *ro)
{
    parac_image *img = NULL;
    assert_ok(parac_image_read_memory(data, size, ro, &img));
    return img;
}

static size_t npy_file(uint8_t *buf, const char *dict, const void *data, size_t bytes, int version)
{
    size_t len = strlen(dict), head = version == 1 ? 10 : 12;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (uint8_t)version, buf[7] = 0;
    buf[8] = (uint8_t)len, buf[9] = 0;
    if (version > 1) buf[10] = buf[11] = 0;
    memcpy(buf + head, dict, len);
    memcpy(buf + head + len, data, bytes);
    return head + len + bytes;
}

static void test_npy_variants(void **state)
{
    (void)state;
    uint8_t buf[512];
    /* big-endian u2, shape (2, 3) */
    const uint8_t be16[] = {0, 1, 0, 2, 1, 0, 0xFF, 0xFF, 0x12, 0x34, 0, 0};
    size_t n = npy_file(buf, "{'descr': '>u2', 'fortran_order': False, 'shape': (2, 3), }\n", be16, 12, 1);
    parac_image *img = read_bytes(buf, n, NULL);
    assert_int_equal(img->dtype, PARAC_U16);
    assert_int_equal(img->width, 3);
    assert_int_equal(img->height, 2);
    assert_int_equal(*(uint16_t *)parac_image_at(img, 2, 0, 0), 256);
    assert_int_equal(*(uint16_t *)parac_image_at(img, 1, 1, 0), 0x1234);
    parac_image_destroy(img);
    /* Fortran order little-endian f4, shape (2, 3): file order is column by column */
    float f[6] = {0, 10, 1, 11, 2, 12}; /* a[r][c] = 10 r + c */
    n = npy_file(buf, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }\n", f, sizeof f, 2);
    img = read_bytes(buf, n, NULL);
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 3; c++) assert_true(*(float *)parac_image_at(img, c, r, 0) == 10.0f * r + c);
    parac_image_destroy(img);
    /* big-endian f8, Fortran, (H, W, C) = (1, 2, 2): a[0][w][c] = 2 w + c + 0.5 */
    uint8_t be64[32];
    double order[4] = {0.5, 2.5, 1.5, 3.5}; /* c slowest: (w0c0, w1c0, w0c1, w1c1) */
    for (int i = 0; i < 4; i++) {
        uint8_t b[8];
        memcpy(b, &order[i], 8);
        for (int k = 0; k < 8; k++) be64[8 * i + k] = b[7 - k];
    }
    n = npy_file(buf, "{'descr': '>f8', 'fortran_order': True, 'shape': (1, 2, 2), }\n", be64, 32, 3);
    img = read_bytes(buf, n, NULL);
    assert_int_equal(img->channels, 2);
    for (int w = 0; w < 2; w++)
        for (int c = 0; c < 2; c++)
            assert_true(((double *)parac_image_at(img, w, 0, 0))[c] == 2.0 * w + c + 0.5);
    parac_image_destroy(img);
    /* >i4 volume (D, H, W) = (2, 1, 5) */
    uint8_t be32[40];
    for (int i = 0; i < 10; i++) {
        int32_t v = -1000 * i - 7;
        uint32_t u = (uint32_t)v;
        be32[4 * i] = (uint8_t)(u >> 24), be32[4 * i + 1] = (uint8_t)(u >> 16);
        be32[4 * i + 2] = (uint8_t)(u >> 8), be32[4 * i + 3] = (uint8_t)u;
    }
    n = npy_file(buf, "{\"descr\": \">i4\", \"fortran_order\": False, \"shape\": (2, 1, 5)}", be32, 40, 1);
    img = read_bytes(buf, n, NULL);
    assert_int_equal(img->depth, 2);
    assert_int_equal(img->width, 5);
    assert_int_equal(*(int32_t *)parac_image_at(img, 3, 0, 1), -1000 * 8 - 7);
    parac_image_destroy(img);
}

/* A 1-axis array is a row of entries when the reader is told so (an
 * operation's table: lookup's TABLE), and no image otherwise. */
static void test_npy_row(void **state)
{
    (void)state;
    uint8_t buf[256];
    const uint8_t be16[] = {0, 1, 0, 2, 0x12, 0x34};
    size_t n = npy_file(buf, "{'descr': '>i8', 'fortran_order': False, 'shape': (0,), }\n", be16, 0, 1);
    parac_read_options row = {.row = 1};
    parac_image *img = NULL;
    assert_int_equal(parac_image_read_memory(buf, n, &row, &img), PARAC_ERR_FORMAT); /* empty */
    n = npy_file(buf, "{'descr': '>u2', 'fortran_order': True, 'shape': (3,), }\n", be16, sizeof be16, 1);
    img = read_bytes(buf, n, &row);
    assert_int_equal(img->width, 3);
    assert_int_equal(img->height, 1);
    assert_int_equal(img->depth, 1);
    assert_int_equal(img->channels, 1);
    assert_int_equal(*(uint16_t *)parac_image_at(img, 0, 0, 0), 1);
    assert_int_equal(*(uint16_t *)parac_image_at(img, 2, 0, 0), 0x1234);
    parac_image_destroy(img);
    img = NULL;
    assert_int_equal(parac_image_read_memory(buf, n, NULL, &img), PARAC_ERR_UNSUPPORTED);
    assert_null(img);
    assert_non_null(strstr(parac_error_message(), "1 axis is not an image"));
}

static void test_nrrd_variants(void **state)
{
    (void)state;
    /* big endian ushort with comments, key/values, spacings and a line skip */
    const char head[] = "NRRD0005\n# a comment\ntype: unsigned short\ndimension: 2\nspace dimension: 2\n"
                        "space directions: (1,0) (0,1)\nsizes: 3 2\nendian: big\nencoding: raw\n"
                        "line skip: 1\nmodality:=CT\n\nskipped line\n";
    uint8_t buf[256];
    memcpy(buf, head, sizeof head - 1);
    const uint8_t px[] = {0, 1, 0, 2, 0, 3, 1, 0, 2, 0, 0xAB, 0xCD};
    memcpy(buf + sizeof head - 1, px, sizeof px);
    parac_image *img = read_bytes(buf, sizeof head - 1 + sizeof px, NULL);
    assert_int_equal(img->width, 3);
    assert_int_equal(img->height, 2);
    assert_int_equal(*(uint16_t *)parac_image_at(img, 2, 1, 0), 0xABCD);
    assert_int_equal(*(uint16_t *)parac_image_at(img, 0, 1, 0), 256);
    parac_image_destroy(img);
    /* dimension 3 with kinds "domain domain domain" and a first axis of 3: a volume */
    const char vol[] = "NRRD0004\ntype: uchar\ndimension: 3\nsizes: 3 2 2\nkinds: domain domain domain\n"
                       "encoding: raw\n\n0123456789ab";
    img = read_bytes(vol, sizeof vol - 1, NULL);
    assert_int_equal(img->channels, 1);
    assert_int_equal(img->width, 3);
    assert_int_equal(img->depth, 2);
    assert_int_equal(*(uint8_t *)parac_image_at(img, 2, 1, 1), 'b');
    parac_image_destroy(img);
    /* without kinds the first axis of 3 is channels ... unless the layout says DHW */
    const char rgb[] = "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 3 2 2\nencoding: raw\n\n0123456789ab";
    img = read_bytes(rgb, sizeof rgb - 1, NULL);
    assert_int_equal(img->channels, 3);
    assert_int_equal(img->width, 2);
    assert_int_equal(((uint8_t *)parac_image_at(img, 1, 1, 0))[2], 'b');
    parac_image_destroy(img);
    parac_read_options ro = {.layout = PARAC_LAYOUT_DHW};
    img = read_bytes(rgb, sizeof rgb - 1, &ro);
    assert_int_equal(img->channels, 1);
    assert_int_equal(img->depth, 2);
    parac_image_destroy(img);
    /* gzip with "gz", double, byte skip inside the decompressed data */
    double values[4] = {1.5, -2.25, 1e300, -0.0};
    uint8_t raw[40] = {0};
    memcpy(raw + 8, values, sizeof values);
    uint8_t packed[256];
    z_stream zs = {0};
    assert_int_equal(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    zs.next_in = raw, zs.avail_in = sizeof raw, zs.next_out = packed, zs.avail_out = sizeof packed;
    assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
    size_t plen = sizeof packed - zs.avail_out;
    deflateEnd(&zs);
    char gz[512];
    int hl = snprintf(gz, sizeof gz, "NRRD0004\ntype: double\ndimension: 2\nsizes: 2 2\nendian: little\n"
                                     "encoding: gz\nbyte skip: 8\nspacings: 0.5 0.5\n\n");
    memcpy(gz + hl, packed, plen);
    img = read_bytes(gz, (size_t)hl + plen, NULL);
    assert_true(*(double *)parac_image_at(img, 0, 1, 0) == 1e300);
    assert_true(*(double *)parac_image_at(img, 1, 0, 0) == -2.25);
    parac_image_destroy(img);
}

static void test_pnm_variants(void **state)
{
    (void)state;
    const char p2[] = "P2\n# made by hand\n3 2 # width height\n# maxval follows\n1000\n0 1 2\n#c\n 999 1000 7\n";
    parac_image *img = read_bytes(p2, sizeof p2 - 1, NULL);
    assert_int_equal(img->dtype, PARAC_U16);
    assert_int_equal(*(uint16_t *)parac_image_at(img, 1, 1, 0), 1000);
    parac_image_destroy(img);
    const char p3[] = "P3 2 1 255 1 2 3 4 5 6";
    img = read_bytes(p3, sizeof p3 - 1, NULL);
    assert_int_equal(img->channels, 3);
    assert_int_equal(((uint8_t *)parac_image_at(img, 1, 0, 0))[2], 6);
    parac_image_destroy(img);
    const char p5[] = "P5\n#x\n2 2\n15\n\x01\x02\x03\x0f";
    img = read_bytes(p5, sizeof p5 - 1, NULL);
    assert_int_equal(img->dtype, PARAC_U8);
    assert_int_equal(*(uint8_t *)parac_image_at(img, 1, 1, 0), 15);
    parac_image_destroy(img);
    /* values above maxval are errors, in both forms */
    parac_image *bad = NULL;
    assert_int_equal(parac_image_read_memory("P5\n2 1\n15\n\x01\x10", 12, NULL, &bad), PARAC_ERR_FORMAT);
    assert_int_equal(parac_image_read_memory("P2\n2 1\n15\n1 16\n", 15, NULL, &bad), PARAC_ERR_FORMAT);
    assert_non_null(strstr(parac_error_message(), "maxval"));
    /* ASCII output wraps lines at 70 characters */
    parac_image *wide = io_random_image(40, 2, 1, 3, PARAC_U16, 1);
    char path[512];
    test_path(path, sizeof path, "ascii.ppm");
    parac_write_options wo = {.pnm_ascii = 1, .png_compression = -1};
    assert_ok(parac_image_write(path, wide, &wo));
    size_t n = 0;
    char *text = (char *)io_slurp(path, &n);
    assert_int_equal(strncmp(text, "P3\n40 2\n65535\n", 14), 0);
    size_t col = 0;
    for (size_t i = 0; i < n; i++) col = text[i] == '\n' ? 0 : col + 1, assert_true(col <= 70);
    free(text);
    unlink(path);
    parac_image_destroy(wide);
}

/* A 2-bit palette PNG with transparency, and a 1-bit gray PNG. */
static void write_png(const char *path, int palette)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    png_init_io(png, f);
    png_set_IHDR(png, info, 5, 3, palette ? 2 : 1, palette ? PNG_COLOR_TYPE_PALETTE : PNG_COLOR_TYPE_GRAY,
                 PNG_INTERLACE_ADAM7, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_color pal[4] = {{10, 20, 30}, {40, 50, 60}, {70, 80, 90}, {100, 110, 120}};
    png_byte alpha[4] = {255, 128, 0, 255};
    if (palette) {
        png_set_PLTE(png, info, pal, 4);
        png_set_tRNS(png, info, alpha, 4, NULL);
    }
    png_write_info(png, info);
    /* index / bit = (x + y) % levels */
    int passes = png_set_interlace_handling(png);
    for (int pass = 0; pass < passes; pass++)
        for (int y = 0; y < 3; y++) {
            png_byte row[2] = {0, 0};
            for (int x = 0; x < 5; x++) {
                int v = palette ? (x + y) % 4 : (x + y) % 2;
                if (palette) row[x / 4] |= (png_byte)(v << (6 - 2 * (x % 4)));
                else row[0] |= (png_byte)(v << (7 - x));
            }
            png_write_row(png, row);
        }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    fclose(f);
}

static void test_png_expansion(void **state)
{
    (void)state;
    char path[512];
    test_path(path, sizeof path, "palette.png");
    write_png(path, 1);
    parac_image *img = NULL;
    assert_ok(parac_image_read(path, NULL, &img));
    assert_int_equal(img->channels, 4);
    assert_int_equal(img->dtype, PARAC_U8);
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 5; x++) {
            int v = (x + y) % 4;
            uint8_t *p = parac_image_at(img, x, y, 0);
            assert_int_equal(p[0], 10 + 30 * v);
            assert_int_equal(p[2], 30 + 30 * v);
            assert_int_equal(p[3], v == 0 ? 255 : v == 1 ? 128 : v == 2 ? 0 : 255);
        }
    parac_image_destroy(img);
    write_png(path, 0);
    assert_ok(parac_image_read(path, NULL, &img));
    assert_int_equal(img->channels, 1);
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 5; x++)
            assert_int_equal(*(uint8_t *)parac_image_at(img, x, y, 0), (x + y) % 2 ? 255 : 0);
    parac_image_destroy(img);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_npy_variants),
        cmocka_unit_test(test_npy_row),
        cmocka_unit_test(test_nrrd_variants),
        cmocka_unit_test(test_pnm_variants),
        cmocka_unit_test(test_png_expansion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
