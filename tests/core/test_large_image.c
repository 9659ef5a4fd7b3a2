/* An image of more than 2^32 pixels on the host: 64-bit sizes and indices
 * all the way through creation, views, statistics and conversion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

enum { W = 65536 + 3, H = 65537 }; /* 4,295,163,907 pixels > 2^32 */

static void test_host_large(void **state)
{
    parac_context *cpu = NULL;
    parac_image *img = NULL, *roi = NULL;
    assert_ok(parac_context_create(&cpu, "cpu"));
    parac_status st = parac_image_create_zeroed(&img, W, H, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1);
    if (st == PARAC_ERR_OUT_OF_MEMORY) skip();
    assert_ok(st);
    assert_true(parac_image_pixel_count(img) > ((int64_t)1 << 32));
    /* Pixels past the 2^32nd byte. */
    *(uint8_t *)parac_image_at(img, W - 1, H - 1, 0) = 200;
    *(uint8_t *)parac_image_at(img, 5, H - 2, 0) = 100;
    parac_image_stats s;
    assert_ok(parac_image_compute_stats(cpu, img, &s));
    assert_true(s.max[0] == 200.0);
    assert_true(s.min[0] == 0.0);
    assert_true(s.mean[0] > 0 && s.mean[0] < 1e-6);
    assert_int_equal(s.count, (int64_t)W * H);
    /* A view reaching the far corner. */
    assert_ok(parac_image_view_roi(&roi, img, 0, H - 2, 0, W, 2, 1));
    assert_ok(parac_image_compute_stats(cpu, roi, &s));
    assert_true(fabs(s.mean[0] - 300.0 / (2.0 * W)) < 1e-12);
    parac_image_destroy(roi);
    parac_image_destroy(img);
    parac_context_destroy(cpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_host_large)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
