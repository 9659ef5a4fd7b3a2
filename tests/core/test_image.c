/* The image model: geometry, pitch, views, copies, size checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

static void test_create_pitch_and_fields(void **state)
{
    for (int dt = 0; dt < PARAC_DTYPE_COUNT; dt++)
        for (int c = 1; c <= 4; c++) {
            parac_image *img = NULL;
            assert_ok(parac_image_create(&img, 37, 23, 0, c, (parac_dtype)dt, PARAC_MEMORY_HOST, -1));
            assert_int_equal(img->depth, 1);
            assert_int_equal(img->pixel_stride, (int64_t)(c * parac_dtype_size((parac_dtype)dt)));
            assert_int_equal(img->row_pitch % PARAC_ROW_ALIGNMENT, 0);
            assert_true(img->row_pitch >= 37 * img->pixel_stride);
            assert_int_equal((uintptr_t)img->data % PARAC_ROW_ALIGNMENT, 0);
            assert_int_equal(img->slice_pitch, img->row_pitch * 23);
            assert_int_equal(img->device, -1);
            parac_image_destroy(img);
        }
}

static void test_bad_geometry(void **state)
{
    parac_image *img = (parac_image *)0x1;
    assert_int_equal(parac_image_create(&img, 0, 5, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1),
                     PARAC_ERR_INVALID_ARGUMENT);
    assert_null(img);
    assert_int_equal(parac_image_create(&img, 5, 5, 1, 5, PARAC_U8, PARAC_MEMORY_HOST, -1),
                     PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(parac_image_create(&img, 5, 5, 1, 1, (parac_dtype)99, PARAC_MEMORY_HOST, -1),
                     PARAC_ERR_INVALID_ARGUMENT);
    /* Sizes whose byte count overflows must fail before allocating. */
    assert_int_equal(parac_image_create(&img, INT64_MAX / 2, 3, 1, 4, PARAC_F64, PARAC_MEMORY_HOST, -1),
                     PARAC_ERR_OVERFLOW);
    assert_int_equal(parac_image_create(&img, (int64_t)1 << 40, (int64_t)1 << 40, 1, 1, PARAC_U8,
                                        PARAC_MEMORY_HOST, -1),
                     PARAC_ERR_OVERFLOW);
    assert_true(strstr(parac_error_message(), "too large") || strstr(parac_error_message(), "overflow"));
    /* A CUDA image without a GPU or without a CUDA build: a clear failure. */
    if (!test_have_gpu()) {
        assert_int_not_equal(parac_image_create(&img, 5, 5, 1, 1, PARAC_U8, PARAC_MEMORY_CUDA, 0), PARAC_OK);
        assert_true(strlen(parac_error_message()) > 10);
    }
}

static void fill_pattern(parac_image *img)
{
    for (int64_t z = 0; z < img->depth; z++)
        for (int64_t y = 0; y < img->height; y++)
            for (int64_t x = 0; x < img->width; x++) {
                uint16_t *p = parac_image_at(img, x, y, z);
                for (int c = 0; c < img->channels; c++)
                    p[c] = (uint16_t)(z * 10000 + y * 100 + x + c * 7);
            }
}

static void test_views(void **state)
{
    parac_image *img = NULL, *roi = NULL, *ch = NULL, *slice = NULL, *chroi = NULL;
    assert_ok(parac_image_create(&img, 11, 9, 5, 3, PARAC_U16, PARAC_MEMORY_HOST, -1));
    fill_pattern(img);
    assert_ok(parac_image_view_roi(&roi, img, 2, 3, 1, 4, 5, 3));
    assert_ok(parac_image_view_channel(&ch, img, 2));
    assert_ok(parac_image_view_slice(&slice, img, 4));
    assert_ok(parac_image_view_channel(&chroi, roi, 1));
    parac_image_destroy(img); /* views keep the storage alive */
    assert_int_equal(((uint16_t *)parac_image_at(roi, 0, 0, 0))[0], 10000 + 300 + 2);
    assert_int_equal(((uint16_t *)parac_image_at(roi, 3, 4, 2))[1], 30000 + 700 + 5 + 7);
    assert_int_equal(ch->channels, 1);
    assert_false(parac_image_is_packed(ch));
    assert_int_equal(((uint16_t *)parac_image_at(ch, 10, 8, 4))[0], 40000 + 800 + 10 + 14);
    assert_int_equal(slice->depth, 1);
    assert_int_equal(((uint16_t *)parac_image_at(slice, 1, 1, 0))[0], 40000 + 101);
    assert_int_equal(((uint16_t *)parac_image_at(chroi, 1, 1, 1))[0], 20000 + 400 + 3 + 7);
    parac_image *bad = NULL;
    assert_int_equal(parac_image_view_roi(&bad, roi, 1, 0, 0, 4, 1, 1), PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(parac_image_view_channel(&bad, ch, 1), PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(parac_image_view_slice(&bad, roi, 3), PARAC_ERR_INVALID_ARGUMENT);
    parac_image_destroy(roi);
    parac_image_destroy(ch);
    parac_image_destroy(slice);
    parac_image_destroy(chroi);
}

static void test_copy_and_clone(void **state)
{
    parac_image *img = NULL, *dst = NULL, *ch = NULL, *packed = NULL;
    assert_ok(parac_image_create(&img, 13, 7, 3, 3, PARAC_U16, PARAC_MEMORY_HOST, -1));
    fill_pattern(img);
    /* A channel view cloned into a packed image. */
    assert_ok(parac_image_view_channel(&ch, img, 1));
    assert_ok(parac_image_clone(&packed, ch, PARAC_MEMORY_HOST, -1, NULL));
    assert_true(parac_image_is_packed(packed));
    for (int64_t z = 0; z < 3; z++)
        for (int64_t y = 0; y < 7; y++)
            for (int64_t x = 0; x < 13; x++)
                assert_int_equal(((uint16_t *)parac_image_at(packed, x, y, z))[0],
                                 z * 10000 + y * 100 + x + 7);
    /* Copy into a channel view of another image. */
    assert_ok(parac_image_create_zeroed(&dst, 13, 7, 3, 3, PARAC_U16, PARAC_MEMORY_HOST, -1));
    parac_image *dch = NULL;
    assert_ok(parac_image_view_channel(&dch, dst, 2));
    assert_ok(parac_image_copy(dch, packed, NULL));
    assert_int_equal(((uint16_t *)parac_image_at(dst, 5, 6, 2))[2], 20000 + 600 + 5 + 7);
    assert_int_equal(((uint16_t *)parac_image_at(dst, 5, 6, 2))[0], 0);
    /* Shape mismatch. */
    parac_image *other = NULL;
    assert_ok(parac_image_create(&other, 13, 7, 3, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    assert_int_equal(parac_image_copy(other, packed, NULL), PARAC_ERR_INVALID_ARGUMENT);
    parac_image_destroy(other);
    parac_image_destroy(dch);
    parac_image_destroy(dst);
    parac_image_destroy(packed);
    parac_image_destroy(ch);
    parac_image_destroy(img);
}

/* Copies in host memory are no transfers; NULL pointers are accepted. */
static void test_host_copies_are_no_transfers(void **state)
{
    (void)state;
    uint64_t up0, down0, bytes0, up1, down1, bytes1;
    parac_image_transfer_counts(&up0, &down0, &bytes0);
    parac_image *a = NULL, *b = NULL;
    assert_ok(parac_image_create(&a, 33, 17, 2, 3, PARAC_U16, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_clone(&b, a, PARAC_MEMORY_HOST, -1, NULL));
    assert_ok(parac_image_copy(a, b, NULL));
    parac_image_transfer_counts(&up1, &down1, &bytes1);
    assert_true(up1 == up0 && down1 == down0 && bytes1 == bytes0);
    parac_image_transfer_counts(NULL, NULL, NULL);
    parac_image_destroy(a);
    parac_image_destroy(b);
}

static void test_copy_threads_setting(void **state)
{
    (void)state;
    assert_int_equal(parac_copy_threads(), 0); /* the default */
    parac_set_copy_threads(6);
    assert_int_equal(parac_copy_threads(), 6);
    parac_set_copy_threads(1000);
    assert_int_equal(parac_copy_threads(), 64);
    parac_set_copy_threads(-3);
    assert_int_equal(parac_copy_threads(), 0);
}

static void test_wrap(void **state)
{
    uint8_t buf[4 * 6 * 2];
    for (int i = 0; i < (int)sizeof buf; i++) buf[i] = (uint8_t)i;
    parac_image *img = NULL;
    assert_ok(parac_image_wrap(&img, buf, 4, 6, 1, 2, PARAC_U8, 0, 0, 0, PARAC_MEMORY_HOST, -1));
    assert_int_equal(img->row_pitch, 8);
    assert_null(img->buffer);
    assert_int_equal(((uint8_t *)parac_image_at(img, 3, 5, 0))[1], 5 * 8 + 3 * 2 + 1);
    parac_image_destroy(img);
    assert_int_equal(parac_image_wrap(&img, buf, 4, 6, 1, 2, PARAC_U8, 2, 8, 0, PARAC_MEMORY_HOST, -1),
                     PARAC_OK);
    parac_image_destroy(img);
    assert_int_equal(parac_image_wrap(&img, buf, 4, 6, 1, 2, PARAC_U8, 1, 0, 0, PARAC_MEMORY_HOST, -1),
                     PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(parac_image_wrap(&img, NULL, 4, 6, 1, 2, PARAC_U8, 0, 0, 0, PARAC_MEMORY_HOST, -1),
                     PARAC_ERR_INVALID_ARGUMENT);
    /* elements off their alignment: the data's address, or a stride (a view
     * of a byte buffer at an odd offset, which the Python fuzzer found read
     * as misaligned floats) */
    float fbuf[4 * 6 + 1];
    char *bytes = (char *)fbuf;
    assert_int_equal(parac_image_wrap(&img, bytes + 1, 4, 6, 1, 1, PARAC_F32, 0, 0, 0, PARAC_MEMORY_HOST, -1),
                     PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "not aligned"));
    assert_int_equal(parac_image_wrap(&img, fbuf, 4, 5, 1, 1, PARAC_F32, 0, 18, 0, PARAC_MEMORY_HOST, -1),
                     PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(parac_image_wrap(&img, fbuf, 4, 6, 1, 1, PARAC_F32, 0, 16, 0, PARAC_MEMORY_HOST, -1),
                     PARAC_OK);
    parac_image_destroy(img);
}

/* Host images of 4 MiB and more come from the blocks kept between calls and go
 * back there when destroyed (core/host_cache.c): an image of the same size
 * made after one is destroyed takes its block, one made while it lives gets
 * another (parac_memory_trim() before and after: no block kept by another
 * test takes part). */
static void test_large_images_reuse_blocks(void **state)
{
    (void)state;
    parac_memory_trim();
    parac_image *a = NULL, *b = NULL, *c = NULL;
    assert_ok(parac_image_create(&a, 6000, 6000, 0, 1, PARAC_F32, PARAC_MEMORY_HOST, -1)); /* 137 MiB */
    void *first = a->data;
    memset(a->data, 1, (size_t)a->slice_pitch);
    assert_ok(parac_image_create(&b, 6000, 6000, 0, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
    assert_ptr_not_equal(b->data, first);
    parac_image_destroy(a);
    assert_ok(parac_image_create(&c, 6000, 6000, 0, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
    assert_ptr_equal(c->data, first);
    memset(c->data, 2, (size_t)c->slice_pitch); /* every byte of the block is the new image's */
    parac_image_destroy(b);
    parac_image_destroy(c);
    parac_memory_trim();
}

static void test_dtype_names(void **state)
{
    const char *names[] = {"u8", "u16", "i32", "f32", "f64", "i64"};
    assert_int_equal(sizeof names / sizeof names[0], PARAC_DTYPE_COUNT);
    for (int i = 0; i < PARAC_DTYPE_COUNT; i++) {
        parac_dtype d;
        assert_ok(parac_dtype_from_name(names[i], &d));
        assert_int_equal(d, i);
        assert_string_equal(parac_dtype_name(d), names[i]);
    }
    parac_dtype d;
    assert_ok(parac_dtype_from_name("float32", &d));
    assert_int_equal(d, PARAC_F32);
    assert_int_equal(parac_dtype_from_name("u9", &d), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "u9"));
    assert_string_equal(parac_status_string(PARAC_ERR_FORMAT), "bad file format");
    parac_error_clear();
    assert_string_equal(parac_error_message(), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_pitch_and_fields), cmocka_unit_test(test_bad_geometry),
        cmocka_unit_test(test_views),      cmocka_unit_test(test_copy_and_clone),
        cmocka_unit_test(test_wrap),       cmocka_unit_test(test_dtype_names),
        cmocka_unit_test(test_large_images_reuse_blocks),
        cmocka_unit_test(test_host_copies_are_no_transfers), cmocka_unit_test(test_copy_threads_setting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
