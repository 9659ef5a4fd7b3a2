/* The runs of a fusion choice (parac__fusion_start, parac__fusion_step):
 * one alternative once without the search, the forced one clamped to the
 * last, and with the search every alternative warmed up and timed three
 * times, the fastest picked and run last; a failed wait stops the loop. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <time.h>

#include <cmocka.h>

#include "runtime/common/device_runtime.h"
#include "test_util.h"

/* The device as the search sees it: each alternative takes ms[alt]. */
typedef struct fake_device {
    const parac_fusion_choice *c;
    int ran;           /* the alternative the loop ran last, -1: none */
    double ms[8];
    int waits;
    int fail_at;       /* the wait that fails (0: none) */
} fake_device;

static parac_status wait_fake(void *ctx)
{
    fake_device *d = ctx;
    d->waits++;
    if (d->fail_at && d->waits == d->fail_at) return PARAC_ERR_OPENCL;
    if (d->ran >= 0) { /* the pass's work finishes now */
        const double ms = d->ms[d->ran];
        struct timespec t = {0, (long)(ms * 1e6)};
        nanosleep(&t, NULL);
    }
    return PARAC_OK;
}

/* Runs the loop; the alternatives it ran, in order, into seq. */
static int run_loop(parac_fusion_choice *c, fake_device *d, int *seq, int max, int *decided_at)
{
    int n = 0, decided = 0;
    d->c = c;
    d->ran = -1;
    *decided_at = -1;
    while (parac__fusion_step(c, wait_fake, d, &decided)) {
        if (decided) *decided_at = n;
        if (n < max) seq[n] = c->alt;
        n++;
        d->ran = c->alt;
    }
    if (decided) *decided_at = n;
    return n;
}

static void test_without_search_one_run(void **state)
{
    (void)state;
    parac_fusion_choice c;
    fake_device d = {.ms = {0}};
    int seq[16], at;
    assert_int_equal(parac__fusion_start(&c, "x", 0x1234, 3, 0), PARAC_OK);
    assert_int_equal(run_loop(&c, &d, seq, 16, &at), 1);
    assert_int_equal(seq[0], 0);
    assert_int_equal(d.waits, 0); /* nothing waited for */
    assert_int_equal(at, -1);
    assert_int_equal(parac__fusion_start(&c, "x", 1, 3, 2), PARAC_OK);
    assert_int_equal(run_loop(&c, &d, seq, 16, &at), 1);
    assert_int_equal(seq[0], 2);
    assert_int_equal(parac__fusion_start(&c, "x", 1, 3, 99), PARAC_OK); /* past the last: the last */
    assert_int_equal(run_loop(&c, &d, seq, 16, &at), 1);
    assert_int_equal(seq[0], 2);
}

static void test_bad_counts_refused(void **state)
{
    (void)state;
    parac_fusion_choice c;
    assert_int_equal(parac__fusion_start(&c, "x", 1, 0, 0), PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(parac__fusion_start(&c, "x", 1, PARAC_FUSION_MAX_ALTS + 1, 0), PARAC_ERR_INVALID_ARGUMENT);
}

static void test_search_times_all_and_runs_fastest_last(void **state)
{
    (void)state;
    parac_fusion_choice c;
    fake_device d = {.ms = {3.0, 0.5, 2.0}};
    int seq[32], at;
    assert_int_equal(parac__fusion_start(&c, "x", 7, 3, -1), PARAC_OK);
    const int n = run_loop(&c, &d, seq, 32, &at);
    /* 4 passes of 0, 1, 2 (the first warms up), then the fastest (1) again */
    assert_int_equal(n, 13);
    for (int i = 0; i < 12; i++) assert_int_equal(seq[i], i % 3);
    assert_int_equal(seq[12], 1);
    assert_int_equal(at, 12);
    assert_int_equal(c.alt, 1);
    assert_int_equal(c.status, PARAC_OK);
    assert_true(c.best[1] < c.best[2] && c.best[2] < c.best[0]);
    assert_true(c.best[0] >= 2.5e-3); /* seconds: about 3 ms */
}

static void test_fastest_last_is_not_run_again(void **state)
{
    (void)state;
    parac_fusion_choice c;
    fake_device d = {.ms = {2.0, 0.2}};
    int seq[32], at;
    assert_int_equal(parac__fusion_start(&c, "x", 7, 2, -1), PARAC_OK);
    assert_int_equal(run_loop(&c, &d, seq, 32, &at), 8);
    assert_int_equal(seq[7], 1);
    assert_int_equal(at, 8); /* decided as the loop ended */
    assert_int_equal(c.alt, 1);
}

static void test_failed_wait_stops(void **state)
{
    (void)state;
    parac_fusion_choice c;
    fake_device d = {.ms = {0.1, 0.1}, .fail_at = 3};
    int seq[32], at;
    assert_int_equal(parac__fusion_start(&c, "x", 7, 2, -1), PARAC_OK);
    assert_int_equal(run_loop(&c, &d, seq, 32, &at), 2);
    assert_int_equal(c.status, PARAC_ERR_OPENCL);
    assert_int_equal(at, -1);
}

static void test_keys_differ_by_name_and_size(void **state)
{
    (void)state;
    const long a[3] = {3, 100, 200}, b[3] = {3, 100, 201};
    const uint64_t k = parac__fusion_key(42, "f_v_L10", 3, a);
    assert_true(k == parac__fusion_key(42, "f_v_L10", 3, a));
    assert_true(k != parac__fusion_key(42, "f_v_L10", 3, b));
    assert_true(k != parac__fusion_key(42, "f_v_L11", 3, a));
    assert_true(k != parac__fusion_key(43, "f_v_L10", 3, a));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_without_search_one_run),
        cmocka_unit_test(test_bad_counts_refused),
        cmocka_unit_test(test_search_times_all_and_runs_fastest_last),
        cmocka_unit_test(test_fastest_last_is_not_run_again),
        cmocka_unit_test(test_failed_wait_stops),
        cmocka_unit_test(test_keys_differ_by_name_and_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
