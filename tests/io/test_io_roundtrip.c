/* Write then read back every format with every dtype, channel count and
 * dimensionality it stores; odd sizes; views; memory reads. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "io_test_util.h"
#include "test_util.h"

typedef struct format_case {
    const char *ext;
    unsigned dtypes;   /* bit per parac_dtype */
    unsigned channels; /* bit per channel count */
    int volumes;
} format_case;

#define DT(t) (1u << (t))
#define ALL_DTYPES (DT(PARAC_U8) | DT(PARAC_U16) | DT(PARAC_I32) | DT(PARAC_F32) | DT(PARAC_F64) | DT(PARAC_I64))
#define CH(c) (1u << (c))

static const format_case lossless[] = {
    {"png", DT(PARAC_U8) | DT(PARAC_U16), CH(1) | CH(2) | CH(3) | CH(4), 0},
    {"tif", ALL_DTYPES, CH(1) | CH(2) | CH(3) | CH(4), 1},
    {"pgm", DT(PARAC_U8) | DT(PARAC_U16), CH(1), 0},
    {"ppm", DT(PARAC_U8) | DT(PARAC_U16), CH(3), 0},
    {"npy", ALL_DTYPES, CH(1) | CH(2) | CH(3) | CH(4), 1},
    {"nrrd", ALL_DTYPES, CH(1) | CH(2) | CH(3) | CH(4), 1},
};

static void check_round_trip(const char *ext, const parac_image *img, const parac_write_options *wo,
                             const parac_read_options *ro)
{
    char name[128], path[512];
    if (io_skip_ext(ext)) return;
    snprintf(name, sizeof name, "rt_%s_%s_%d_%lld.%s", parac_dtype_name(img->dtype), ext,
             img->channels, (long long)img->depth, ext);
    test_path(path, sizeof path, name);
    assert_ok(parac_image_write(path, img, wo));
    parac_image *back = NULL;
    assert_ok(parac_image_read(path, ro, &back));
    if (!io_images_equal(img, back))
        fail_msg("%s: %s %dch depth %lld differs after a round trip (read %lldx%lldx%lld %dch %s)",
                 ext, parac_dtype_name(img->dtype), img->channels, (long long)img->depth,
                 (long long)back->width, (long long)back->height, (long long)back->depth,
                 back->channels, parac_dtype_name(back->dtype));
    assert_int_equal(back->memory, PARAC_MEMORY_HOST);
    parac_image_destroy(back);
    /* the same bytes from memory */
    size_t size = 0;
    uint8_t *bytes = io_slurp(path, &size);
    assert_non_null(bytes);
    assert_ok(parac_image_read_memory(bytes, size, ro, &back));
    assert_true(io_images_equal(img, back));
    parac_image_destroy(back);
    free(bytes);
    unlink(path);
}

static void test_lossless_round_trips(void **state)
{
    (void)state;
    parac_write_options variants[4] = {{.png_compression = -1},
                                       {.png_compression = 9, .pnm_ascii = 1, .nrrd_gzip = 1,
                                        .npy_fortran_order = 1, .tiff_compress = 1},
                                       {.png_compression = 0, .tiff_compress = 1},
                                       {.png_compression = 1, .nrrd_gzip = 1}};
    uint64_t seed = 1;
    for (size_t f = 0; f < sizeof lossless / sizeof lossless[0]; f++)
        for (int t = 0; t < PARAC_DTYPE_COUNT; t++) {
            if (!(lossless[f].dtypes & DT(t))) continue;
            for (int c = 1; c <= 4; c++) {
                if (!(lossless[f].channels & CH(c))) continue;
                for (int d = 1; d <= (lossless[f].volumes ? 2 : 1); d++) {
                    int64_t depth = d == 1 ? 1 : 5;
                    parac_image *img = io_random_image(37, 23, depth, c, (parac_dtype)t, seed++);
                    for (int v = 0; v < 2; v++) {
                        parac_read_options ro = {0};
                        check_round_trip(lossless[f].ext, img, &variants[v], &ro);
                    }
                    parac_image_destroy(img);
                }
            }
        }
}

/* Narrow volumes: a width of 1..4 must not read back as channels. */
static void test_narrow_volumes(void **state)
{
    (void)state;
    const char *exts[] = {"npy", "nrrd", "tif"};
    for (size_t e = 0; e < 3; e++)
        for (int w = 1; w <= 4; w++)
            for (int c = 1; c <= 2; c++) {
                parac_image *img = io_random_image(w, 6, 3, c, PARAC_U16, (uint64_t)(w * 10 + c));
                parac_write_options wo = {.png_compression = -1};
                check_round_trip(exts[e], img, &wo, NULL);
                parac_image_destroy(img);
            }
}

static void test_views_write_correctly(void **state)
{
    (void)state;
    const char *exts[] = {"png", "tif", "pgm", "npy", "nrrd"};
    parac_image *base = io_random_image(41, 29, 1, 3, PARAC_U8, 99);
    parac_image *roi = NULL, *chan = NULL;
    assert_ok(parac_image_view_roi(&roi, base, 3, 5, 0, 17, 11, 1));
    assert_ok(parac_image_view_channel(&chan, base, 1));
    for (size_t e = 0; e < sizeof exts / sizeof exts[0]; e++) {
        parac_write_options wo = {.png_compression = -1};
        if (strcmp(exts[e], "pgm") != 0) check_round_trip(exts[e], roi, &wo, NULL);
        check_round_trip(exts[e], chan, &wo, NULL);
        wo.npy_fortran_order = 1;
        wo.nrrd_gzip = 1;
        wo.pnm_ascii = 1;
        check_round_trip(exts[e], chan, &wo, NULL);
    }
    parac_image_destroy(roi);
    parac_image_destroy(chan);
    parac_image_destroy(base);
    /* a channel view of a volume, and an ROI of a volume */
    parac_image *vol = io_random_image(13, 9, 4, 2, PARAC_F32, 5);
    assert_ok(parac_image_view_channel(&chan, vol, 1));
    assert_ok(parac_image_view_roi(&roi, vol, 1, 2, 1, 7, 5, 2));
    const char *vexts[] = {"tif", "npy", "nrrd"};
    for (size_t e = 0; e < 3; e++) {
        parac_write_options wo = {.png_compression = -1};
        check_round_trip(vexts[e], chan, &wo, NULL);
        check_round_trip(vexts[e], roi, &wo, NULL);
        wo.npy_fortran_order = 1;
        wo.nrrd_gzip = 1;
        wo.tiff_compress = 1;
        check_round_trip(vexts[e], roi, &wo, NULL);
    }
    parac_image_destroy(chan);
    parac_image_destroy(roi);
    parac_image_destroy(vol);
}

/* A smooth image survives JPEG within a small error; gray and RGB. */
static void test_jpeg_round_trip(void **state)
{
    (void)state;
    for (int c = 1; c <= 3; c += 2) {
        parac_image *img = NULL;
        assert_ok(parac_image_create(&img, 37, 23, 1, c, PARAC_U8, PARAC_MEMORY_HOST, -1));
        for (int64_t y = 0; y < 23; y++)
            for (int64_t x = 0; x < 37; x++)
                for (int k = 0; k < c; k++)
                    ((uint8_t *)parac_image_at(img, x, y, 0))[k] = (uint8_t)(40 + 3 * x + 2 * y + 20 * k);
        char path[512];
        test_path(path, sizeof path, c == 1 ? "rt_gray.jpg" : "rt_rgb.jpeg");
        parac_write_options wo = {.jpeg_quality = 100, .png_compression = -1};
        assert_ok(parac_image_write(path, img, &wo));
        parac_image *back = NULL;
        assert_ok(parac_image_read(path, NULL, &back));
        assert_int_equal(back->channels, c);
        assert_int_equal(back->dtype, PARAC_U8);
        assert_true(io_max_abs_diff(img, back) <= 4.0);
        parac_image_destroy(back);
        /* lower quality gives a smaller file */
        size_t big = 0, small = 0;
        free(io_slurp(path, &big));
        wo.jpeg_quality = 10;
        assert_ok(parac_image_write(path, img, &wo));
        free(io_slurp(path, &small));
        assert_true(small < big);
        unlink(path);
        parac_image_destroy(img);
    }
}

static void test_layout_override(void **state)
{
    (void)state;
    /* a (5, 7, 3) array: by the rule 5x7 RGB; as DHW a 3x7x5 volume */
    parac_image *img = io_random_image(7, 5, 1, 3, PARAC_U8, 3);
    char path[512];
    test_path(path, sizeof path, "layout.npy");
    assert_ok(parac_image_write(path, img, NULL));
    parac_image *back = NULL;
    parac_read_options ro = {.layout = PARAC_LAYOUT_DHW};
    assert_ok(parac_image_read(path, &ro, &back));
    assert_int_equal(back->width, 3);
    assert_int_equal(back->height, 7);
    assert_int_equal(back->depth, 5);
    assert_int_equal(back->channels, 1);
    assert_int_equal(*(uint8_t *)parac_image_at(back, 2, 6, 4), ((uint8_t *)parac_image_at(img, 6, 4, 0))[2]);
    parac_image_destroy(back);
    ro.layout = PARAC_LAYOUT_HWC;
    assert_ok(parac_image_read(path, &ro, &back));
    assert_true(io_images_equal(img, back));
    parac_image_destroy(back);
    parac_image_destroy(img);
    /* a (3, 6, 9) volume read as HWC: 9 channels is an error */
    img = io_random_image(9, 6, 3, 1, PARAC_U8, 4);
    assert_ok(parac_image_write(path, img, NULL));
    assert_int_equal(parac_image_read(path, &ro, &back), PARAC_ERR_FORMAT);
    assert_null(back);
    parac_image_destroy(img);
    unlink(path);
}

static void test_format_names_and_detection(void **state)
{
    (void)state;
    parac_format f;
    assert_ok(parac_format_from_name("png", &f));
    assert_int_equal(f, PARAC_FORMAT_PNG);
    assert_ok(parac_format_from_name("JPG", &f));
    assert_int_equal(f, PARAC_FORMAT_JPEG);
    assert_ok(parac_format_from_name("nrrd", &f));
    assert_int_equal(f, PARAC_FORMAT_NRRD);
    assert_int_equal(parac_format_from_name("gif", &f), PARAC_ERR_INVALID_ARGUMENT);
    assert_string_equal(parac_format_name(PARAC_FORMAT_TIFF), "tiff");
    assert_ok(parac_format_from_extension("a/b.c/x.TIFF", &f));
    assert_int_equal(f, PARAC_FORMAT_TIFF);
    assert_int_equal(parac_format_from_extension("a/b.c/x", &f), PARAC_ERR_UNSUPPORTED);
    assert_int_equal(parac_format_from_extension("x.gif", &f), PARAC_ERR_UNSUPPORTED);
    assert_non_null(strstr(parac_error_message(), ".png"));
    /* magic bytes win over a misleading extension */
    parac_image *img = io_random_image(5, 4, 1, 1, PARAC_U8, 8);
    char path[512], lie[512];
    test_path(path, sizeof path, "detect.png");
    test_path(lie, sizeof lie, "detect_lie.npy");
    assert_ok(parac_image_write(path, img, NULL));
    assert_int_equal(rename(path, lie), 0);
    assert_ok(parac_format_detect(lie, &f));
    assert_int_equal(f, PARAC_FORMAT_PNG);
    parac_image *back = NULL;
    assert_ok(parac_image_read(lie, NULL, &back));
    assert_true(io_images_equal(img, back));
    parac_image_destroy(back);
    /* an explicit format for writing overrides the extension */
    parac_write_options wo = {.format = PARAC_FORMAT_NPY, .png_compression = -1};
    assert_ok(parac_image_write(path, img, &wo));
    assert_ok(parac_format_detect(path, &f));
    assert_int_equal(f, PARAC_FORMAT_NPY);
    unlink(path);
    unlink(lie);
    parac_image_destroy(img);
}

/* Without libtiff, TIFF is a clear error both ways. */
static void test_tiff_availability(void **state)
{
    (void)state;
    parac_image *img = io_random_image(4, 3, 1, 1, PARAC_U8, 1), *back = NULL;
    char path[512];
    test_path(path, sizeof path, "avail.tif");
    if (!io_skip_ext("tif")) {
        assert_ok(parac_image_write(path, img, NULL));
        assert_ok(parac_image_read(path, NULL, &back));
        assert_true(io_images_equal(img, back));
        parac_image_destroy(back);
    } else {
        assert_int_equal(parac_image_write(path, img, NULL), PARAC_ERR_UNSUPPORTED);
        assert_int_equal(parac_image_read_memory("II*\0\x08\0\0\0\0\0", 10, NULL, &back), PARAC_ERR_UNSUPPORTED);
    }
    unlink(path);
    parac_image_destroy(img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lossless_round_trips),
        cmocka_unit_test(test_narrow_volumes),
        cmocka_unit_test(test_views_write_correctly),
        cmocka_unit_test(test_jpeg_round_trip),
        cmocka_unit_test(test_layout_override),
        cmocka_unit_test(test_format_names_and_detection),
        cmocka_unit_test(test_tiff_availability),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
