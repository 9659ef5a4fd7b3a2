/* Device selection and its fallback rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

static void test_cpu_and_bad_names(void **state)
{
    parac_context *ctx = NULL;
    assert_ok(parac_context_create(&ctx, "cpu"));
    assert_int_equal(parac_context_backend(ctx), PARAC_BACKEND_CPU);
    assert_string_equal(parac_context_device(ctx), "cpu");
    assert_int_equal(parac_context_cuda_device(ctx), -1);
    assert_null(parac_context_stream(ctx));
    assert_ok(parac_context_synchronize(ctx));
    assert_int_equal(parac_context_set_stream(ctx, (void *)0x10), PARAC_ERR_INVALID_ARGUMENT);
    parac_context_set_threads(ctx, 3);
    assert_int_equal(parac_context_threads(ctx), 3);
    parac_context_destroy(ctx);
    const char *bad[] = {"tpu", "cuda:", "cuda:x", "cuda:-1", "CPU "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ctx = (parac_context *)0x1;
        assert_int_equal(parac_context_create(&ctx, bad[i]), PARAC_ERR_INVALID_ARGUMENT);
        assert_null(ctx);
        assert_non_null(strstr(parac_error_message(), "device"));
    }
    parac_context_destroy(NULL);
}

static void test_auto_and_environment(void **state)
{
    parac_context *ctx = NULL;
    setenv("PARAC_DEVICE", "cpu", 1);
    assert_ok(parac_context_create(&ctx, NULL));
    assert_int_equal(parac_context_backend(ctx), PARAC_BACKEND_CPU);
    assert_non_null(strstr(parac_context_reason(ctx), "PARAC_DEVICE"));
    parac_context_destroy(ctx);
    setenv("PARAC_DEVICE", "bogus", 1);
    assert_int_equal(parac_context_create(&ctx, NULL), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "PARAC_DEVICE"));
    unsetenv("PARAC_DEVICE");
    const int have_gpu = test_have_gpu();
    parac_error_clear();
    assert_ok(parac_context_create(&ctx, "auto"));
    if (have_gpu) {
        assert_int_equal(parac_context_backend(ctx), PARAC_BACKEND_CUDA);
        assert_string_equal(parac_context_device(ctx), "cuda:0");
    } else {
        /* Without a GPU, auto falls back to the CPU and says why. */
        assert_int_equal(parac_context_backend(ctx), PARAC_BACKEND_CPU);
        assert_non_null(strstr(parac_context_reason(ctx), "using the CPU"));
        assert_string_equal(parac_error_message(), ""); /* the fallback is not an error */
    }
    parac_context_destroy(ctx);
}

static void test_explicit_cuda_without_gpu(void **state)
{
    if (test_have_gpu()) skip();
    parac_context *ctx = NULL;
    assert_int_not_equal(parac_context_create(&ctx, "cuda:0"), PARAC_OK);
    assert_null(ctx);
    assert_non_null(strstr(parac_error_message(), "cuda:0"));
    int n = -1;
    assert_int_not_equal(parac_cuda_device_count(&n), PARAC_OK);
    assert_int_equal(n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_and_bad_names),
        cmocka_unit_test(test_auto_and_environment),
        cmocka_unit_test(test_explicit_cuda_without_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
