/* The CUDA side of the core: transfers in every combination of residency,
 * views on the device, the memory pool, convert and stats against the CPU,
 * and an image of more than 2^32 pixels on the GPU. Skipped without a GPU. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

static parac_context *gpu, *cpu;

static int setup(void **state)
{
    if (parac_context_create(&cpu, "cpu") != PARAC_OK) return -1;
    return parac_context_create(&gpu, "cuda:0") == PARAC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    parac_context_destroy(gpu);
    parac_context_destroy(cpu);
    return 0;
}

static int images_equal(const parac_image *a, const parac_image *b)
{
    size_t pb = parac_image_pixel_bytes(a);
    for (int64_t z = 0; z < a->depth; z++)
        for (int64_t y = 0; y < a->height; y++)
            for (int64_t x = 0; x < a->width; x++)
                if (memcmp(parac_image_at(a, x, y, z), parac_image_at(b, x, y, z), pb)) return 0;
    return 1;
}

static void test_round_trips(void **state)
{
    void *stream = parac_context_stream(gpu);
    for (int dt = 0; dt < PARAC_DTYPE_COUNT; dt++)
        for (int c = 1; c <= 4; c++)
            for (int pinned = 0; pinned < 2; pinned++) {
                parac_image *h = NULL, *d = NULL, *back = NULL;
                assert_ok(parac_image_create(&h, 61, 29, 3, c, (parac_dtype)dt, PARAC_MEMORY_HOST, -1));
                test_fill_random(h, (uint64_t)(dt * 10 + c));
                uint64_t up0, down0, bytes0, up1, down1, bytes1;
                parac_image_transfer_counts(&up0, &down0, &bytes0);
                assert_ok(parac_image_upload(&d, h, 0, stream));
                assert_int_equal(d->memory, PARAC_MEMORY_CUDA);
                assert_ok(parac_image_download(&back, d, pinned, stream));
                assert_ok(parac_context_synchronize(gpu));
                assert_true(images_equal(h, back));
                /* one image each way, its pixels counted twice; a pinned host image is host memory too */
                parac_image_transfer_counts(&up1, &down1, &bytes1);
                assert_int_equal(up1 - up0, 1);
                assert_int_equal(down1 - down0, 1);
                assert_int_equal(bytes1 - bytes0, 2 * 61 * 29 * 3 * (uint64_t)c * parac_dtype_size((parac_dtype)dt));
                parac_image_destroy(back);
                parac_image_destroy(d);
                parac_image_destroy(h);
            }
}

static void test_device_views(void **state)
{
    void *stream = parac_context_stream(gpu);
    parac_image *h = NULL, *d = NULL, *dch = NULL, *droi = NULL, *back = NULL, *hch = NULL, *hroi = NULL;
    assert_ok(parac_image_create(&h, 45, 33, 2, 4, PARAC_U16, PARAC_MEMORY_HOST, -1));
    test_fill_random(h, 99);
    assert_ok(parac_image_upload(&d, h, 0, stream));
    /* A channel view on the device, downloaded (strided -> packed). */
    assert_ok(parac_image_view_channel(&dch, d, 3));
    assert_ok(parac_image_download(&back, dch, 0, stream));
    assert_ok(parac_image_view_channel(&hch, h, 3));
    assert_true(images_equal(hch, back));
    parac_image_destroy(back);
    /* An ROI view on the device. */
    assert_ok(parac_image_view_roi(&droi, d, 3, 4, 1, 20, 11, 1));
    assert_ok(parac_image_download(&back, droi, 1, stream)); /* pinned: asynchronous */
    assert_ok(parac_context_synchronize(gpu));
    assert_ok(parac_image_view_roi(&hroi, h, 3, 4, 1, 20, 11, 1));
    assert_true(images_equal(hroi, back));
    parac_image_destroy(back);
    /* Host channel view uploaded into a device channel view (both strided). */
    parac_image *d2 = NULL, *d2ch = NULL;
    assert_ok(parac_image_create_zeroed(&d2, 45, 33, 2, 4, PARAC_U16, PARAC_MEMORY_CUDA, 0));
    assert_ok(parac_image_view_channel(&d2ch, d2, 3));
    assert_ok(parac_image_copy(d2ch, hch, stream));
    assert_ok(parac_image_download(&back, d2ch, 0, stream));
    assert_ok(parac_context_synchronize(gpu));
    assert_true(images_equal(hch, back));
    parac_image_destroy(back);
    parac_image_destroy(d2ch);
    parac_image_destroy(d2);
    parac_image_destroy(hroi);
    parac_image_destroy(hch);
    parac_image_destroy(droi);
    parac_image_destroy(dch);
    parac_image_destroy(d);
    parac_image_destroy(h);
}

static void test_pool_reuse(void **state)
{
    parac_image *a = NULL, *b = NULL;
    assert_ok(parac_image_create(&a, 1000, 1000, 1, 1, PARAC_F32, PARAC_MEMORY_CUDA, 0));
    void *first = a->data;
    parac_image_destroy(a);
    assert_ok(parac_image_create(&b, 1000, 1000, 1, 1, PARAC_F32, PARAC_MEMORY_CUDA, 0));
    assert_ptr_equal(first, b->data); /* the released block came back */
    parac_image_destroy(b);
    parac_cuda_pool_trim();
}

static void compare_ops(const char *params, parac_dtype dt, int channels)
{
    parac_image *h = NULL, *outc = NULL, *outg = NULL, *back = NULL;
    parac_args *a = NULL;
    assert_ok(parac_image_create(&h, 123, 77, 2, channels, dt, PARAC_MEMORY_HOST, -1));
    test_fill_random(h, 5);
    assert_ok(parac_args_create(&a));
    assert_ok(parac_args_parse(a, params));
    assert_ok(parac_op_run(cpu, "convert", &h, 1, &outc, 1, a, NULL, 0));
    assert_ok(parac_op_run(gpu, "convert", &h, 1, &outg, 1, a, NULL, 0)); /* uploads h itself */
    assert_int_equal(outg->memory, PARAC_MEMORY_CUDA);
    assert_ok(parac_image_download(&back, outg, 0, parac_context_stream(gpu)));
    assert_ok(parac_context_synchronize(gpu));
    assert_true(images_equal(outc, back));
    parac_image_stats sc, sg;
    assert_ok(parac_image_compute_stats(cpu, outc, &sc));
    assert_ok(parac_image_compute_stats(gpu, outg, &sg));
    for (int c = 0; c < sc.channels; c++) {
        assert_true(sc.min[c] == sg.min[c]);
        assert_true(sc.max[c] == sg.max[c]);
        assert_true(fabs(sc.mean[c] - sg.mean[c]) <= 1e-9 * (1 + fabs(sc.mean[c])));
    }
    parac_args_destroy(a);
    parac_image_destroy(back);
    parac_image_destroy(outg);
    parac_image_destroy(outc);
    parac_image_destroy(h);
}

static void test_convert_and_stats_match_cpu(void **state)
{
    compare_ops("dtype=u16", PARAC_U8, 3);
    compare_ops("dtype=u8", PARAC_F32, 1);
    compare_ops("dtype=u8 scale=minmax", PARAC_F64, 2);
    compare_ops("channels=1", PARAC_U8, 4);
    compare_ops("channels=4 dtype=f32", PARAC_U16, 1);
    compare_ops("dtype=i32 scale=full", PARAC_U16, 3);
}

static void test_device_large(void **state)
{
    if (getenv("PARAC_TEST_NO_LARGE")) skip(); /* e.g. under compute-sanitizer */
    parac_cuda_device_info info;
    assert_ok(parac_cuda_device_query(0, &info));
    const int64_t w = 65536 + 3, h = 65537;
    if (info.free_memory < (uint64_t)(3 * w * h)) skip();
    parac_image *img = NULL, *roi = NULL, *wide = NULL;
    assert_ok(parac_image_create_zeroed(&img, w, h, 1, 1, PARAC_U8, PARAC_MEMORY_CUDA, 0));
    assert_true(parac_image_pixel_count(img) > ((int64_t)1 << 32));
    /* Write one pixel past the 2^32nd byte through a host copy into a ROI view. */
    parac_image *one = NULL;
    assert_ok(parac_image_create(&one, 1, 1, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    *(uint8_t *)one->data = 200;
    assert_ok(parac_image_view_roi(&roi, img, w - 1, h - 1, 0, 1, 1, 1));
    assert_ok(parac_image_copy(roi, one, NULL));
    parac_image_stats s;
    assert_ok(parac_image_compute_stats(gpu, img, &s));
    assert_true(s.max[0] == 200.0);
    assert_int_equal(s.count, w * h);
    assert_true(fabs(s.mean[0] - 200.0 / ((double)w * h)) < 1e-15);
    /* Convert the whole thing on the GPU (u8 -> u16, 8.6 GB out). */
    parac_args *a = NULL;
    assert_ok(parac_args_create(&a));
    assert_ok(parac_args_set(a, "dtype", "u16"));
    assert_ok(parac_op_run(gpu, "convert", &img, 1, &wide, 1, a, NULL, 0));
    assert_ok(parac_image_compute_stats(gpu, wide, &s));
    assert_true(s.max[0] == 200.0 * 257);
    parac_args_destroy(a);
    parac_image_destroy(wide);
    parac_image_destroy(one);
    parac_image_destroy(roi);
    parac_image_destroy(img);
    parac_cuda_pool_trim();
}

/* A real out of memory (an image larger than the GPU's free memory: cudaMalloc
 * fails, the pool is trimmed, it fails again) must not fail the calls after
 * it: the runtime keeps a failed call's error until read, and the next launch
 * check and CUB's cudaGetDevice used to report it (a retry of the same call
 * failed with "kernel launch failed: out of memory", label's CUB scan with
 * "invalid device ordinal"). */
static void test_calls_after_out_of_memory(void **state)
{
    if (getenv("PARAC_TEST_NO_LARGE")) skip(); /* compute-sanitizer reports the failed cudaMalloc as an error */
    parac_cuda_device_info info;
    assert_ok(parac_cuda_device_query(0, &info));
    const int64_t side = (int64_t)sqrt((double)info.free_memory) + 4096;
    parac_image *huge = NULL, *h = NULL, *d = NULL;
    assert_int_equal(parac_image_create(&huge, side, side, 1, 1, PARAC_U8, PARAC_MEMORY_CUDA, 0),
                     PARAC_ERR_OUT_OF_MEMORY);
    assert_null(huge);
    assert_ok(parac_image_create(&h, 301, 203, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    test_fill_random(h, 9);
    assert_ok(parac_image_upload(&d, h, 0, parac_context_stream(gpu)));
    const char *ops[] = {"gauss", "label", "fill"};
    const char *params[] = {"sigma=2", "", ""};
    for (int i = 0; i < 3; i++) {
        parac_args *a = NULL;
        parac_image *before = NULL, *after = NULL, *b = NULL, *c = NULL;
        assert_ok(parac_args_create(&a));
        assert_ok(parac_args_parse(a, params[i]));
        assert_ok(parac_op_run(gpu, ops[i], &d, 1, &before, 1, a, NULL, 0));
        assert_int_equal(parac_image_create(&huge, side, side, 1, 1, PARAC_U8, PARAC_MEMORY_CUDA, 0),
                         PARAC_ERR_OUT_OF_MEMORY); /* again before each */
        assert_ok(parac_op_run(gpu, ops[i], &d, 1, &after, 1, a, NULL, 0));
        assert_ok(parac_image_download(&b, before, 0, parac_context_stream(gpu)));
        assert_ok(parac_image_download(&c, after, 0, parac_context_stream(gpu)));
        assert_ok(parac_context_synchronize(gpu));
        assert_true(images_equal(b, c));
        parac_image_destroy(c);
        parac_image_destroy(b);
        parac_image_destroy(after);
        parac_image_destroy(before);
        parac_args_destroy(a);
    }
    parac_image_destroy(d);
    parac_image_destroy(h);
    parac_cuda_pool_trim();
}

int main(void)
{
    if (!test_have_gpu()) {
        printf("no CUDA device: skipped\n");
        return PARAC_TEST_SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips), cmocka_unit_test(test_device_views),
        cmocka_unit_test(test_pool_reuse),  cmocka_unit_test(test_convert_and_stats_match_cpu),
        cmocka_unit_test(test_device_large), cmocka_unit_test(test_calls_after_out_of_memory),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
