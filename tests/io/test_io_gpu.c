/* Writing images that live on a CUDA device or in pinned memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include <cmocka.h>

#include "io_test_util.h"
#include "test_util.h"

static void test_device_and_pinned_images_are_written(void **state)
{
    (void)state;
    const char *exts[] = {"png", "tif", "npy", "nrrd"};
    parac_image *host = io_random_image(37, 23, 1, 3, PARAC_U16, 11);
    parac_image *dev = NULL, *pinned = NULL, *view = NULL;
    assert_ok(parac_image_upload(&dev, host, 0, NULL));
    assert_ok(parac_image_download(&pinned, dev, 1, NULL));
    assert_ok(parac_image_view_channel(&view, dev, 2));
    for (size_t e = 0; e < 4; e++) {
        char name[32], path[512];
        snprintf(name, sizeof name, "gpu.%s", exts[e]);
        test_path(path, sizeof path, name);
        const parac_image *sources[] = {dev, pinned};
        for (int s = 0; s < 2; s++) {
            assert_ok(parac_image_write(path, sources[s], NULL));
            parac_image *back = NULL;
            assert_ok(parac_image_read(path, NULL, &back));
            assert_true(io_images_equal(host, back));
            parac_image_destroy(back);
        }
        /* a channel view of a device image */
        assert_ok(parac_image_write(path, view, NULL));
        parac_image *back = NULL, *chan = NULL;
        assert_ok(parac_image_read(path, NULL, &back));
        assert_ok(parac_image_view_channel(&chan, host, 2));
        assert_true(io_images_equal(chan, back));
        parac_image_destroy(chan);
        parac_image_destroy(back);
        unlink(path);
    }
    parac_image_destroy(view);
    parac_image_destroy(pinned);
    parac_image_destroy(dev);
    parac_image_destroy(host);
}

int main(void)
{
    if (!test_have_gpu()) return PARAC_TEST_SKIP;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_and_pinned_images_are_written),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
