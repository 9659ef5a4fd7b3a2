/* Parameters decoded once: every operation's table against its struct,
 * the registry's checks (integer choices, ranges, required parameters), and
 * each typed C function against the same call made with text. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/registry_internal.h"
#include "test_util.h"

static parac_context *cpu;

static int setup(void **state)
{
    (void)state;
    return parac_context_create(&cpu, "cpu") == PARAC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    parac_context_destroy(cpu);
    return 0;
}

static const parac_param_spec *spec(const parac_op *op, const char *name)
{
    for (int i = 0; i < op->n_params; i++)
        if (strcmp(op->params[i].name, name) == 0) return &op->params[i];
    fail_msg("%s has no parameter '%s'", op->name, name);
    return NULL;
}

/* Every table fits its struct; defaults decode; choices and bits exist. */
static void test_tables_fit_their_structs(void **state)
{
    (void)state;
    for (int i = 0; i < parac_op_count(); i++) {
        const parac_op *op = parac_op_at(i);
        if (parac__param_layout_check(op) != PARAC_OK) fail_msg("%s", parac_error_message());
        assert_true(op->params_size <= PARAC__PARAMS_MAX);
        for (int k = 0; k < op->n_params; k++) {
            const parac_param_spec *s = &op->params[k];
            assert_int_equal(parac__param_bit(op, s->name), (uint64_t)1 << k);
            if (s->type == PARAC_PARAM_CHOICE && s->default_value &&
                parac__choice_index(s->choices, s->default_value) < 0)
                fail_msg("%s --%s: default '%s' is not one of %s", op->name, s->name, s->default_value, s->choices);
            if (s->required && s->default_value) fail_msg("%s --%s: required with a default", op->name, s->name);
            /* two fields never overlap */
            for (int j = 0; j < k; j++) {
                const parac_param_spec *t = &op->params[j];
                if (s->offset < t->offset + t->size && t->offset < s->offset + s->size)
                    fail_msg("%s: --%s and --%s share bytes of the struct", op->name, s->name, t->name);
            }
        }
    }
}

static parac_status run_text(const char *op, parac_image **in, int n_in, parac_image **out, const char *params)
{
    parac_args *a = NULL;
    parac_status st = parac_args_create(&a);
    if (st == PARAC_OK) st = parac_args_parse(a, params);
    if (st == PARAC_OK) st = parac_op_run(cpu, op, in, n_in, out, 1, a, NULL, 0);
    parac_args_destroy(a);
    return st;
}

static void expect_error(const char *op, parac_image **in, int n_in, const char *params, const char *words)
{
    parac_image *out = NULL;
    assert_int_equal(run_text(op, in, n_in, &out, params), PARAC_ERR_INVALID_ARGUMENT);
    assert_null(out);
    if (!strstr(parac_error_message(), words))
        fail_msg("%s %s: '%s' does not say '%s'", op, params, parac_error_message(), words);
}

/* The registry refuses what the table forbids before the operation runs. */
static void test_registry_checks(void **state)
{
    (void)state;
    parac_image *im = NULL;
    assert_ok(parac_image_create_zeroed(&im, 9, 7, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    parac_image *two[2] = {im, im};
    expect_error("fill-holes", &im, 1, "connectivity=5", "5 is not one of 4|8|6|18|26");
    expect_error("fill", &im, 1, "connectivity=7", "not one of");
    expect_error("floodfill", &im, 1, "seed=1,1 value=3 connectivity=10", "not one of");
    expect_error("reconstruct", two, 2, "connectivity=27", "outside 4..26");
    expect_error("h-maxima", &im, 1, "connectivity=8", "--h is required");
    expect_error("floodfill", &im, 1, "seed=1,1", "--value is required");
    expect_error("gauss", &im, 1, "truncate=4", "--sigma is required");
    expect_error("gauss", &im, 1, "sigma=1 radius=-1", "outside");
    expect_error("gauss", &im, 1, "sigma=1 radius=99999999999", "outside");
    expect_error("reconstruct", two, 2, "mode=opening", "'opening' is not one of dilation|erosion");
    expect_error("skeleton", &im, 1, "field-strength=3.5", "not an integer");
    expect_error("reconstruct", two, 2, "clip=maybe", "not a boolean");
    /* an integer choice in a volume's set on an image: the operation's own rule */
    expect_error("fill-holes", &im, 1, "connectivity=26", "connectivity 26");
    parac_image_destroy(im);
}

/* Typed values get the same checks as text. */
static void test_typed_values_checked(void **state)
{
    (void)state;
    parac_image *im = NULL, *out = NULL;
    assert_ok(parac_image_create_zeroed(&im, 9, 7, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    parac_reconstruct_options o = {PARAC_RECON_DILATION, 5, 0, NULL};
    assert_int_equal(parac_reconstruct(cpu, im, im, &out, &o), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "5 is not one of"));
    o = (parac_reconstruct_options){(parac_recon_mode)7, 0, 0, NULL};
    assert_int_equal(parac_reconstruct(cpu, im, im, &out, &o), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "mode"));
    parac_fill_options f = {0, 1, PARAC_FILL_CONTOUR_INSIDE, 300, -1, NULL};
    assert_int_equal(parac_fill(cpu, im, &out, &f), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "inside-value"));
    const int64_t seed[3] = {1, 1, 0};
    assert_int_equal(parac_floodfill(cpu, im, &out, seed, 1, 3, -1, 0), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "tolerance"));
    assert_int_equal(parac_floodfill(cpu, im, &out, seed, 1, NAN, 0, 0), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "value"));
    parac_skeleton_options k = parac_skeleton_defaults();
    k.rules = "pfskell";
    assert_int_equal(parac_skeleton(cpu, im, &out, &k), PARAC_ERR_INVALID_ARGUMENT);
    assert_null(out);
    parac_image_destroy(im);
}

/* The public enums are the choices' positions in the tables. */
static void test_enums_are_choice_positions(void **state)
{
    (void)state;
    const char *mode = spec(parac_op_find("reconstruct"), "mode")->choices;
    assert_int_equal(parac__choice_index(mode, "dilation"), PARAC_RECON_DILATION);
    assert_int_equal(parac__choice_index(mode, "erosion"), PARAC_RECON_EROSION);
    const char *contour = spec(parac_op_find("fill"), "contour")->choices;
    assert_int_equal(parac__choice_index(contour, "inside"), PARAC_FILL_CONTOUR_INSIDE);
    assert_int_equal(parac__choice_index(contour, "outside"), PARAC_FILL_CONTOUR_OUTSIDE);
    assert_int_equal(parac__choice_index(contour, "keep"), PARAC_FILL_CONTOUR_KEEP);
}

static void assert_same_pixels(const parac_image *a, const parac_image *b)
{
    assert_int_equal(a->width, b->width);
    assert_int_equal(a->height, b->height);
    assert_int_equal(a->depth, b->depth);
    assert_int_equal(a->dtype, b->dtype);
    const size_t row = parac_image_row_bytes(a);
    for (int64_t z = 0; z < a->depth; z++)
        for (int64_t y = 0; y < a->height; y++)
            assert_memory_equal(parac_image_at(a, 0, y, z), parac_image_at(b, 0, y, z), row);
}

/* A random u8 image with closed rectangles (for the fills). */
static parac_image *boxes(int64_t w, int64_t h, int64_t d, uint64_t seed)
{
    parac_image *im = NULL;
    assert_ok(parac_image_create_zeroed(&im, w, h, d, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    uint64_t r = seed;
    for (int b = 0; b < 6; b++) {
        const int64_t x0 = (int64_t)(test_rand(&r) % (uint64_t)(w - 4)), y0 = (int64_t)(test_rand(&r) % (uint64_t)(h - 4));
        const int64_t x1 = x0 + 3 + (int64_t)(test_rand(&r) % (uint64_t)(w - x0 - 3));
        const int64_t y1 = y0 + 3 + (int64_t)(test_rand(&r) % (uint64_t)(h - y0 - 3));
        for (int64_t z = 0; z < d; z++)
            for (int64_t y = y0; y <= y1 && y < h; y++)
                for (int64_t x = x0; x <= x1 && x < w; x++)
                    if (x == x0 || x == x1 || y == y0 || y == y1)
                        *(uint8_t *)parac_image_at(im, x, y, z) = (uint8_t)(100 + test_rand(&r) % 150);
    }
    return im;
}

/* Each typed function computes what the same call with text does. */
static void test_typed_functions_match_text(void **state)
{
    (void)state;
    parac_image *im = boxes(61, 43, 1, 3), *marker = NULL, *a = NULL, *b = NULL;
    assert_ok(parac_image_create_zeroed(&marker, 61, 43, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    for (int64_t y = 0; y < 43; y++)
        for (int64_t x = 0; x < 61; x++)
            *(uint8_t *)parac_image_at(marker, x, y, 0) = (uint8_t)(255 - *(uint8_t *)parac_image_at(im, x, y, 0) / 3);
    parac_image *mm[2] = {marker, im};

    parac_reconstruct_options ro = {PARAC_RECON_EROSION, 4, 1, "sequential"};
    assert_ok(parac_reconstruct(cpu, marker, im, &a, &ro));
    assert_ok(run_text("reconstruct", mm, 2, &b, "mode=erosion connectivity=4 clip=1 method=sequential"));
    assert_same_pixels(a, b);
    parac_image_destroy(a), parac_image_destroy(b);

    parac_fill_options fo = {8, 120, PARAC_FILL_CONTOUR_OUTSIDE, 7, 200, "ccl"};
    assert_ok(parac_fill(cpu, im, &a, &fo));
    assert_ok(run_text("fill", &im, 1, &b, "connectivity=8 threshold=120 contour=outside inside-value=7 "
                                            "outside-value=200 method=ccl"));
    assert_same_pixels(a, b);
    parac_image_destroy(a), parac_image_destroy(b);
    assert_ok(parac_fill(cpu, im, &a, NULL));
    assert_ok(run_text("fill", &im, 1, &b, ""));
    assert_same_pixels(a, b);
    parac_image_destroy(a), parac_image_destroy(b);

    const int64_t seeds[6] = {0, 0, 0, 30, 20, 0};
    assert_ok(parac_floodfill(cpu, im, &a, seeds, 2, 77, 2, 8));
    assert_ok(run_text("floodfill", &im, 1, &b, "seed=0,0;30,20 value=77 tolerance=2 connectivity=8"));
    assert_same_pixels(a, b);
    parac_image_destroy(a), parac_image_destroy(b);
    const int64_t outside[3] = {61, 0, 0};
    assert_int_equal(parac_floodfill(cpu, im, &a, outside, 1, 77, 0, 0), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "outside the 61x43x1 image"));

    parac_image *vol = NULL, *inputs[1] = {NULL};
    parac_args *demo = NULL;
    assert_ok(parac_args_create(&demo));
    assert_ok(parac_op_find("skeleton")->demo(cpu, inputs, demo));
    vol = inputs[0];
    parac_skeleton_options so = parac_skeleton_defaults();
    so.rules = "pfskel";
    so.spacing[0] = 0.5, so.spacing[1] = 1, so.spacing[2] = 1.25;
    so.divergence = 0.25;
    so.has_threshold = 1, so.threshold = 10;
    assert_ok(parac_skeleton(cpu, vol, &a, &so));
    assert_ok(run_text("skeleton", &vol, 1, &b, "rules=pfskel spacing=0.5,1,1.25 divergence=0.25 threshold=10"));
    assert_same_pixels(a, b);
    parac_image_destroy(a), parac_image_destroy(b);
    so.spacing[1] = -1;
    assert_int_equal(parac_skeleton(cpu, vol, &a, &so), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "spacing"));

    parac_args_destroy(demo);
    parac_image_destroy(vol), parac_image_destroy(marker), parac_image_destroy(im);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables_fit_their_structs),
        cmocka_unit_test(test_registry_checks),
        cmocka_unit_test(test_typed_values_checked),
        cmocka_unit_test(test_enums_are_choice_positions),
        cmocka_unit_test(test_typed_functions_match_text),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
