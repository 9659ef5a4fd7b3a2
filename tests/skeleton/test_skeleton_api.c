/* parac_skeleton(), the typed C API: a tube's skeleton lies on its axis and
 * runs most of its length, the graph file is written, options reach the
 * operation, and bad input is an error. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "parac/parac.h"
#include "test_util.h"

enum { W = 60, H = 21, D = 19 };

/* A tube along x, radius 5 about (y, z) = (10, 9), x = 5..54; value 200. */
static parac_image *tube(void)
{
    parac_image *im;
    assert_ok(parac_image_create_zeroed(&im, W, H, D, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 5; x < 55; x++)
                if ((y - 10) * (y - 10) + (z - 9) * (z - 9) <= 25) *(uint8_t *)parac_image_at(im, x, y, z) = 200;
    return im;
}

static int skeleton_span(const parac_image *out, int *count)
{
    int lo = W, hi = -1;
    *count = 0;
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                if (*(const uint8_t *)parac_image_at(out, x, y, z)) {
                    assert_int_equal(*(const uint8_t *)parac_image_at(out, x, y, z), 255);
                    assert_true(abs(y - 10) <= 1 && abs(z - 9) <= 1); /* on the axis */
                    lo = x < lo ? x : lo, hi = x > hi ? x : hi;
                    ++*count;
                }
    return hi - lo;
}

static void test_defaults(void **state)
{
    (void)state;
    parac_context *ctx;
    assert_ok(parac_context_create(&ctx, "cpu"));
    parac_image *in = tube(), *out = NULL;
    char graph[64];
    snprintf(graph, sizeof graph, "/tmp/parac-skeleton-%d.json", (int)getpid());
    parac_skeleton_options o = parac_skeleton_defaults();
    o.graph = graph;
    assert_ok(parac_skeleton(ctx, in, &out, &o));
    assert_int_equal(out->width, W), assert_int_equal(out->height, H), assert_int_equal(out->depth, D);
    assert_int_equal(out->dtype, PARAC_U8);
    int n;
    const int span = skeleton_span(out, &n);
    assert_true(span >= 40); /* divergence seeds carry it out towards both ends */
    FILE *f = fopen(graph, "r");
    assert_non_null(f);
    char head[16] = {0};
    assert_true(fread(head, 1, 10, f) > 0);
    fclose(f);
    assert_non_null(strstr(head, "nodes"));
    unlink(graph);
    /* the paper's core skeleton only: shorter */
    parac_image *core = NULL;
    o = parac_skeleton_defaults();
    o.divergence = 0;
    assert_ok(parac_skeleton(ctx, in, &core, &o));
    int m;
    assert_true(skeleton_span(core, &m) < span && m < n);
    /* a threshold above every value: no object */
    o = parac_skeleton_defaults();
    o.has_threshold = 1, o.threshold = 201;
    parac_image *none = NULL;
    assert_int_equal(parac_skeleton(ctx, in, &none, &o), PARAC_ERR_INVALID_ARGUMENT);
    assert_null(none);
    parac_image_destroy(out), parac_image_destroy(core), parac_image_destroy(in);
    parac_context_destroy(ctx);
}

static void test_errors(void **state)
{
    (void)state;
    parac_context *ctx;
    assert_ok(parac_context_create(&ctx, "cpu"));
    parac_image *flat, *out = NULL;
    assert_ok(parac_image_create_zeroed(&flat, 30, 30, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    assert_int_not_equal(parac_skeleton(ctx, flat, &out, NULL), PARAC_OK);
    assert_null(out);
    assert_int_not_equal(parac_skeleton(ctx, flat, NULL, NULL), PARAC_OK);
    parac_image *in = tube();
    parac_skeleton_options o = parac_skeleton_defaults();
    o.method = "no-such-method";
    assert_int_not_equal(parac_skeleton(ctx, in, &out, &o), PARAC_OK);
    o = parac_skeleton_defaults();
    o.spacing[1] = -1;
    assert_int_not_equal(parac_skeleton(ctx, in, &out, &o), PARAC_OK);
    assert_null(out);
    parac_image_destroy(flat), parac_image_destroy(in);
    parac_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
