/* The work-group shape of small launches (parac__spread_small_launch): more,
 * smaller groups until every compute unit has one, never below a warp, and
 * launches that already fill the device untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/common/device_runtime.h"
#include "test_util.h"

static size_t groups_of(int ndim, const size_t count[3], const size_t g[3])
{
    size_t n = 1;
    for (int d = 0; d < ndim; d++) n *= (count[d] + g[d] - 1) / g[d];
    return n;
}

static void test_small_1d_launch_spreads_to_warps(void **state)
{
    (void)state;
    const size_t count[3] = {383, 1, 1};
    size_t g[3] = {256, 1, 1};
    parac__spread_small_launch(1, count, 132, g);
    assert_int_equal(g[0], 32); /* 12 groups of a warp: still fewer than 132, but no smaller */
    size_t h[3] = {256, 1, 1};
    parac__spread_small_launch(1, count, 4, h);
    assert_int_equal(h[0], 64); /* 3 groups of 128 were fewer than 4 units; 6 of 64 are not */
}

static void test_2d_keeps_the_first_axis_wide(void **state)
{
    (void)state;
    const size_t count[3] = {64, 40, 1};
    size_t g[3] = {32, 8, 1};
    parac__spread_small_launch(2, count, 132, g);
    assert_int_equal(g[0], 32); /* rows of a warp stay coalesced */
    assert_int_equal(g[1], 1);
}

static void test_large_launch_untouched(void **state)
{
    (void)state;
    const size_t count[3] = {4096, 4096, 1};
    size_t g[3] = {32, 8, 1};
    parac__spread_small_launch(2, count, 132, g);
    assert_int_equal(g[0], 32);
    assert_int_equal(g[1], 8);
    const size_t few[3] = {5, 1, 1};
    size_t w[3] = {8, 1, 1}; /* already under a warp */
    parac__spread_small_launch(1, few, 132, w);
    assert_int_equal(w[0], 8);
}

static void test_spreads_until_each_unit_has_one(void **state)
{
    (void)state;
    const size_t count[3] = {4000, 1, 1};
    size_t g[3] = {256, 1, 1};
    parac__spread_small_launch(1, count, 100, g);
    assert_true(groups_of(1, count, g) >= 100);
    assert_int_equal(g[0], 32); /* 125 groups of 32; 63 of 64 were too few */
}

/* A one-launch grid with no interior: its border work-items take rows as wide as
 * they need, so an image of 4096 x 4096 border items stays within 65535 rows. */
static void test_border_only_grid_widens(void **state)
{
    (void)state;
    parac__one_launch w;
    memset(&w, 0, sizeof w);
    w.empty = 1;
    w.border_items = 4096L * 4096;
    const size_t local[2] = {32, 8};
    size_t gx, iblocks, rows;
    assert_int_equal(parac__one_launch_grid("k", 2, &w, local, 65535, &gx, &iblocks, &rows), PARAC_OK);
    assert_int_equal(iblocks, 0);
    assert_true(rows <= 65535);
    assert_true(gx * rows * 256 >= (size_t)w.border_items);
    assert_true(gx * (rows - 1) * 256 < (size_t)w.border_items); /* no row more than it needs */
    w.border_items = 1000; /* small: one group wide, as before */
    assert_int_equal(parac__one_launch_grid("k", 2, &w, local, 65535, &gx, &iblocks, &rows), PARAC_OK);
    assert_int_equal(gx, 1);
    assert_int_equal(rows, 4);
    /* with an interior the grid's width is the interior's */
    w.empty = 0;
    w.count[0] = 64;
    w.count[1] = 16;
    assert_int_equal(parac__one_launch_grid("k", 2, &w, local, 65535, &gx, &iblocks, &rows), PARAC_OK);
    assert_int_equal(gx, 2);
    assert_int_equal(iblocks, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_1d_launch_spreads_to_warps),
        cmocka_unit_test(test_2d_keeps_the_first_axis_wide),
        cmocka_unit_test(test_large_launch_untouched),
        cmocka_unit_test(test_spreads_until_each_unit_has_one),
        cmocka_unit_test(test_border_only_grid_widens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
