/* The registry: parameters, method resolution, and the convert and stats
 * operations on the CPU against values computed here. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

static parac_context *cpu;

static int setup(void **state)
{
    return parac_context_create(&cpu, "cpu") == PARAC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    parac_context_destroy(cpu);
    return 0;
}

static void test_args(void **state)
{
    parac_args *a = NULL;
    assert_ok(parac_args_create(&a));
    assert_ok(parac_args_parse(a, "  dtype=u16   scale=full "));
    assert_ok(parac_args_set(a, "dtype", "f32"));
    assert_int_equal(parac_args_count(a), 2);
    assert_string_equal(parac_args_get(a, "dtype"), "f32");
    assert_null(parac_args_get(a, "nope"));
    assert_int_equal(parac_args_parse(a, "novalue"), PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(parac_args_parse(a, "=x"), PARAC_ERR_INVALID_ARGUMENT);
    parac_args_destroy(a);
    parac_args_destroy(NULL);
}

static void test_lookup(void **state)
{
    assert_true(parac_op_count() >= 1);
    const parac_op *op = parac_op_find("convert");
    assert_non_null(op);
    assert_string_equal(op->name, "convert");
    assert_null(parac_op_find("no-such-op"));
    for (int i = 0; i < parac_op_count(); i++) {
        const parac_op *o = parac_op_at(i);
        assert_non_null(o->summary);
        assert_true(o->n_methods > 0);
        /* Every op has a CPU method: everything works without a GPU. */
        int cpu_methods = 0;
        for (int m = 0; m < o->n_methods; m++) cpu_methods += o->methods[m].backend == PARAC_BACKEND_CPU;
        assert_true(cpu_methods > 0);
    }
    assert_null(parac_op_at(-1));
    assert_null(parac_op_at(parac_op_count()));
}

/* `parac demo` shows every operation: a new one without a demo fails here.
 * Each demo makes host inputs of one channel or more for all the
 * operation's inputs, and parameters that the operation accepts. */
static void test_every_op_has_a_demo(void **state)
{
    (void)state;
    for (int i = 0; i < parac_op_count(); i++) {
        const parac_op *o = parac_op_at(i);
        if (!o->demo) fail_msg("operation '%s' has no demo", o->name);
        parac_image *inputs[8] = {0};
        parac_args *args = NULL;
        assert_int_equal(parac_args_create(&args), PARAC_OK);
        assert_int_equal(o->demo(cpu, inputs, args), PARAC_OK);
        for (int k = 0; k < 8; k++) {
            if (k < o->n_inputs) {
                assert_non_null(inputs[k]);
                assert_int_equal(inputs[k]->memory, PARAC_MEMORY_HOST);
            } else {
                assert_null(inputs[k]);
            }
            parac_image_destroy(inputs[k]);
        }
        for (int k = 0; k < parac_args_count(args); k++) {
            const char *name = parac_args_name_at(args, k);
            int known = 0;
            for (int p = 0; p < o->n_params; p++) known |= strcmp(o->params[p].name, name) == 0;
            if (!known) fail_msg("the demo of '%s' sets '%s', not a parameter of it", o->name, name);
        }
        parac_args_destroy(args);
    }
}

/* A copy of `m` whose pixels lie two pixels apart, and its memory. */
static parac_image *strided_copy(const parac_image *m, void **memory)
{
    const int64_t px = (int64_t)parac_image_pixel_bytes(m), ps = 2 * px, rp = m->width * ps + 24;
    const int64_t sp = rp * m->height + 8;
    *memory = calloc((size_t)(sp * m->depth), 1);
    assert_non_null(*memory);
    parac_image *v = NULL;
    assert_ok(parac_image_wrap(&v, *memory, m->width, m->height, m->depth, m->channels, m->dtype, ps, rp, sp,
                               PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_copy(v, m, NULL));
    return v;
}

static void assert_same_pixels(const parac_image *a, const parac_image *b, const char *what)
{
    if (a->width != b->width || a->height != b->height || a->depth != b->depth || a->channels != b->channels ||
        a->dtype != b->dtype)
        fail_msg("%s: the outputs differ in shape or dtype", what);
    const size_t px = parac_image_pixel_bytes(a);
    for (int64_t z = 0; z < a->depth; z++)
        for (int64_t y = 0; y < a->height; y++)
            for (int64_t x = 0; x < a->width; x++)
                if (memcmp(parac_image_at(a, x, y, z), parac_image_at(b, x, y, z), px) != 0)
                    fail_msg("%s: the pixel at (%lld, %lld, %lld) differs", what, (long long)x, (long long)y,
                             (long long)z);
}

/* Every operation on its demo's inputs as strided views (pixels two apart,
 * rows and slices padded: a NumPy slice a[:, ::2], one channel of an
 * interleaved image) gives what it gives on packed inputs, bit for bit:
 * the methods index rows as arrays of pixels, and the registry hands them
 * packed copies. */
static void test_strided_inputs(void **state)
{
    (void)state;
    for (int i = 0; i < parac_op_count(); i++) {
        const parac_op *o = parac_op_at(i);
        parac_image *inputs[8] = {0}, *views[8] = {0}, *want[8] = {0}, *got[8] = {0};
        void *memory[8] = {0};
        parac_args *args = NULL;
        assert_ok(parac_args_create(&args));
        assert_ok(o->demo(cpu, inputs, args));
        for (int k = 0; k < o->n_inputs; k++) views[k] = strided_copy(inputs[k], &memory[k]);
        double r_want[PARAC_MAX_RESULTS] = {0}, r_got[PARAC_MAX_RESULTS] = {0};
        if (parac_op_run_results(cpu, o->name, inputs, o->n_inputs, want, o->n_outputs, args, r_want,
                                 PARAC_MAX_RESULTS, NULL, 0) != PARAC_OK)
            fail_msg("%s on its demo: %s", o->name, parac_error_message());
        if (parac_op_run_results(cpu, o->name, views, o->n_inputs, got, o->n_outputs, args, r_got, PARAC_MAX_RESULTS,
                                 NULL, 0) != PARAC_OK)
            fail_msg("%s on strided inputs: %s", o->name, parac_error_message());
        for (int k = 0; k < o->n_outputs; k++) assert_same_pixels(want[k], got[k], o->name);
        for (int k = 0; k < o->n_results; k++)
            if (r_want[k] != r_got[k]) fail_msg("%s: result %d is %g on strided inputs, %g on packed ones", o->name, k,
                                                r_got[k], r_want[k]);
        for (int k = 0; k < 8; k++) {
            parac_image_destroy(inputs[k]), parac_image_destroy(views[k]);
            parac_image_destroy(want[k]), parac_image_destroy(got[k]);
            free(memory[k]);
        }
        parac_args_destroy(args);
    }
}

/* Every operation on its demo's inputs made over by `reshape` (variants
 * 0..n-1): a result or an error with a message, never a crash (the
 * sanitizer builds run this too). */
typedef parac_image *(*reshape_fn)(const parac_image *m, int variant);

static void run_reshaped(reshape_fn reshape, int variants, const char *what)
{
    for (int i = 0; i < parac_op_count(); i++) {
        const parac_op *o = parac_op_at(i);
        parac_image *inputs[8] = {0};
        parac_args *args = NULL;
        assert_ok(parac_args_create(&args));
        assert_ok(o->demo(cpu, inputs, args));
        for (int v = 0; v < variants; v++) {
            parac_image *made[8] = {0}, *outputs[8] = {0};
            for (int k = 0; k < o->n_inputs; k++) made[k] = reshape(inputs[k], v);
            const parac_status st = parac_op_run(cpu, o->name, made, o->n_inputs, outputs, o->n_outputs, args, NULL, 0);
            if (st != PARAC_OK && !parac_error_message()[0])
                fail_msg("%s on %s (variant %d): an error without a message", o->name, what, v);
            for (int k = 0; k < 8; k++) parac_image_destroy(made[k]), parac_image_destroy(outputs[k]);
        }
        for (int k = 0; k < 8; k++) parac_image_destroy(inputs[k]);
        parac_args_destroy(args);
    }
}

/* A corner of m: one pixel, one row, one column, 2 x 3. */
static parac_image *tiny_crop(const parac_image *m, int variant)
{
    static const int64_t sizes[][2] = {{1, 1}, {5, 1}, {1, 5}, {2, 3}};
    const int64_t w = sizes[variant][0] < m->width ? sizes[variant][0] : m->width;
    const int64_t h = sizes[variant][1] < m->height ? sizes[variant][1] : m->height;
    parac_image *crop = NULL;
    assert_ok(parac_image_view_roi(&crop, m, 0, 0, 0, w, h, m->depth));
    return crop;
}

static void test_tiny_inputs(void **state)
{
    (void)state;
    run_reshaped(tiny_crop, 4, "tiny crops");
}

/* A 37 x 29 corner of m stacked 3 deep (variant 0) or 1 deep (1). */
static parac_image *stacked_volume(const parac_image *m, int variant)
{
    const int64_t depth = variant == 0 ? 3 : 1;
    const int64_t w = m->width < 37 ? m->width : 37, h = m->height < 29 ? m->height : 29;
    parac_image *vol = NULL;
    assert_ok(parac_image_create(&vol, w, h, depth, m->channels, m->dtype, PARAC_MEMORY_HOST, -1));
    for (int64_t z = 0; z < depth; z++) {
        parac_image *src = NULL, *dst = NULL;
        assert_ok(parac_image_view_roi(&src, m, 0, 0, z % m->depth, w, h, 1));
        assert_ok(parac_image_view_slice(&dst, vol, z));
        assert_ok(parac_image_copy(dst, src, NULL));
        parac_image_destroy(src), parac_image_destroy(dst);
    }
    return vol;
}

static void test_volume_inputs(void **state)
{
    (void)state;
    run_reshaped(stacked_volume, 2, "volumes");
}

static parac_status run_convert(parac_image *in, parac_image **out, const char *params)
{
    parac_args *a = NULL;
    parac_status st = parac_args_create(&a);
    if (st == PARAC_OK) st = parac_args_parse(a, params);
    if (st == PARAC_OK) st = parac_op_run(cpu, "convert", &in, 1, out, 1, a, NULL, 0);
    parac_args_destroy(a);
    return st;
}

static void test_parameter_errors(void **state)
{
    parac_image *in = NULL, *out = NULL;
    assert_ok(parac_image_create_zeroed(&in, 5, 3, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    assert_int_equal(run_convert(in, &out, "dtype=u9"), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "dtype"));
    assert_int_equal(run_convert(in, &out, "channels=7"), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "channels"));
    assert_int_equal(run_convert(in, &out, "channels=two"), PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(run_convert(in, &out, "colour=red"), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "colour"));
    assert_int_equal(run_convert(in, &out, "method=magic"), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "magic"));
    assert_null(out);
    /* Wrong number of images. */
    assert_int_equal(parac_op_run(cpu, "convert", &in, 1, &out, 0, NULL, NULL, 0), PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(parac_op_run(cpu, "nothing", &in, 1, &out, 1, NULL, NULL, 0), PARAC_ERR_INVALID_ARGUMENT);
    char why[256];
    assert_ok(parac_op_run(cpu, "convert", &in, 1, &out, 1, NULL, why, sizeof why));
    assert_non_null(strstr(why, "cpu"));
    parac_image_destroy(out);
    parac_image_destroy(in);
}

static void test_convert_values(void **state)
{
    parac_image *in = NULL, *out = NULL;
    /* u8 -> u16 full scale is x * 257 exactly. */
    assert_ok(parac_image_create(&in, 17, 5, 2, 2, PARAC_U8, PARAC_MEMORY_HOST, -1));
    test_fill_random(in, 7);
    assert_ok(run_convert(in, &out, "dtype=u16"));
    assert_int_equal(out->dtype, PARAC_U16);
    for (int64_t z = 0; z < 2; z++)
        for (int64_t y = 0; y < 5; y++)
            for (int64_t x = 0; x < 17; x++)
                for (int c = 0; c < 2; c++)
                    assert_int_equal(((uint16_t *)parac_image_at(out, x, y, z))[c],
                                     ((uint8_t *)parac_image_at(in, x, y, z))[c] * 257);
    parac_image_destroy(out);
    parac_image_destroy(in);

    /* f32 -> u8 (scale none): ties to even, saturation, NaN -> 0. */
    const float src[] = {0.5f, 1.5f, 2.5f, -3.0f, 254.5f, 255.5f, 1000.0f, NAN, 7.49f};
    const uint8_t want[] = {0, 2, 2, 0, 254, 255, 255, 0, 7};
    assert_ok(parac_image_create(&in, 9, 1, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
    memcpy(in->data, src, sizeof src);
    assert_ok(run_convert(in, &out, "dtype=u8"));
    assert_memory_equal(out->data, want, sizeof want);
    parac_image_destroy(out);
    parac_image_destroy(in);

    /* RGB -> gray luma, RGB -> RGBA opaque alpha. */
    assert_ok(parac_image_create(&in, 2, 1, 1, 3, PARAC_U8, PARAC_MEMORY_HOST, -1));
    uint8_t rgb[] = {255, 0, 0, 10, 200, 30};
    memcpy(in->data, rgb, sizeof rgb);
    assert_ok(run_convert(in, &out, "channels=1"));
    assert_int_equal(((uint8_t *)out->data)[0], 76);  /* rint(0.299*255) */
    assert_int_equal(((uint8_t *)out->data)[1], (int)rint(0.299 * 10 + 0.587 * 200 + 0.114 * 30));
    parac_image_destroy(out);
    assert_ok(run_convert(in, &out, "channels=4"));
    assert_int_equal(((uint8_t *)out->data)[3], 255);
    assert_int_equal(((uint8_t *)out->data)[5], 200);
    parac_image_destroy(out);
    /* minmax stretches to the output range. */
    assert_ok(run_convert(in, &out, "dtype=f32 scale=minmax"));
    assert_true(fabsf(((float *)out->data)[0] - 1.0f) < 1e-7f);
    assert_true(fabsf(((float *)out->data)[1]) < 1e-7f);
    parac_image_destroy(out);
    parac_image_destroy(in);
}

static void test_stats(void **state)
{
    parac_image *img = NULL;
    assert_ok(parac_image_create(&img, 31, 17, 3, 2, PARAC_F32, PARAC_MEMORY_HOST, -1));
    test_fill_random(img, 3);
    ((float *)parac_image_at(img, 4, 4, 1))[1] = NAN;
    parac_image_stats s;
    assert_ok(parac_image_compute_stats(cpu, img, &s));
    for (int c = 0; c < 2; c++) {
        double lo = INFINITY, hi = -INFINITY, sum = 0;
        int64_t n = 0;
        for (int64_t z = 0; z < 3; z++)
            for (int64_t y = 0; y < 17; y++)
                for (int64_t x = 0; x < 31; x++) {
                    float v = ((float *)parac_image_at(img, x, y, z))[c];
                    if (isnan(v)) continue;
                    lo = fmin(lo, v);
                    hi = fmax(hi, v);
                    sum += v;
                    n++;
                }
        assert_true(s.min[c] == lo);
        assert_true(s.max[c] == hi);
        assert_true(fabs(s.mean[c] - sum / n) < 1e-9);
        assert_int_equal(s.nan_count[c], c == 1 ? 1 : 0);
    }
    parac_image_destroy(img);
}

static int cancel_at_start(void *user, double fraction)
{
    int *calls = user;
    (*calls)++;
    return fraction == 0.0; /* refuse to start */
}

static void test_progress_cancels(void **state)
{
    parac_context *ctx = NULL;
    parac_image *in = NULL, *out = NULL;
    int calls = 0;
    assert_ok(parac_context_create(&ctx, "cpu"));
    parac_context_set_progress(ctx, cancel_at_start, &calls);
    assert_ok(parac_image_create_zeroed(&in, 8, 8, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    assert_int_equal(parac_op_run(ctx, "convert", &in, 1, &out, 1, NULL, NULL, 0), PARAC_ERR_CANCELLED);
    assert_null(out);
    assert_int_equal(calls, 1);
    parac_image_destroy(in);
    parac_context_destroy(ctx);
}

/* parac_op_run_into: the result in the caller's image, computed there
 * (gauss computes into a packed host image), copied in (a strided view, an
 * image that overlaps the input), or refused (another dtype) with the
 * caller's image untouched; always the same pixels as parac_op_run. */
static void test_run_into(void **state)
{
    (void)state;
    parac_image *in = NULL, *want = NULL, *got = NULL, *big = NULL, *view = NULL, *wrong = NULL;
    assert_ok(parac_image_create(&in, 37, 23, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
    test_fill_random(in, 5);
    parac_args *args = NULL;
    assert_ok(parac_args_create(&args));
    assert_ok(parac_args_set(args, "sigma", "1.5"));
    assert_ok(parac_op_run(cpu, "gauss", &in, 1, &want, 1, args, NULL, 0));
    const size_t row = parac_image_row_bytes(want);

    assert_ok(parac_image_create(&got, 37, 23, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
    parac_image *out = got;
    assert_ok(parac_op_run_into(cpu, "gauss", &in, 1, &out, 1, args, NULL, 0));
    assert_ptr_equal(out, got);
    for (int64_t y = 0; y < 23; y++) assert_memory_equal(parac_image_at(got, 0, y, 0), parac_image_at(want, 0, y, 0), row);

    /* columns 5..41 of a wider image: not packed, so computed elsewhere and copied in */
    assert_ok(parac_image_create_zeroed(&big, 50, 23, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_wrap(&view, parac_image_at(big, 5, 0, 0), 37, 23, 1, 1, PARAC_F32, big->pixel_stride,
                               big->row_pitch, big->slice_pitch, PARAC_MEMORY_HOST, -1));
    out = view;
    assert_ok(parac_op_run_into(cpu, "gauss", &in, 1, &out, 1, args, NULL, 0));
    for (int64_t y = 0; y < 23; y++) {
        assert_memory_equal(parac_image_at(view, 0, y, 0), parac_image_at(want, 0, y, 0), row);
        assert_true(*(float *)parac_image_at(big, 4, y, 0) == 0.0f && *(float *)parac_image_at(big, 42, y, 0) == 0.0f);
    }

    /* the input itself as the output: filtered correctly all the same */
    out = in;
    assert_ok(parac_op_run_into(cpu, "gauss", &in, 1, &out, 1, args, NULL, 0));
    for (int64_t y = 0; y < 23; y++) assert_memory_equal(parac_image_at(in, 0, y, 0), parac_image_at(want, 0, y, 0), row);

    /* another dtype: refused, untouched */
    assert_ok(parac_image_create_zeroed(&wrong, 37, 23, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    out = wrong;
    assert_int_equal(parac_op_run_into(cpu, "gauss", &in, 1, &out, 1, args, NULL, 0), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "output 1"));
    assert_ptr_equal(out, wrong);
    for (int64_t y = 0; y < 23; y++)
        for (int64_t x = 0; x < 37; x++) assert_int_equal(*(uint8_t *)parac_image_at(wrong, x, y, 0), 0);

    parac_args_destroy(args);
    parac_image_destroy(in), parac_image_destroy(want), parac_image_destroy(got);
    parac_image_destroy(view), parac_image_destroy(big), parac_image_destroy(wrong);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_args),          cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_parameter_errors), cmocka_unit_test(test_convert_values),
        cmocka_unit_test(test_stats),         cmocka_unit_test(test_progress_cancels),
        cmocka_unit_test(test_run_into),      cmocka_unit_test(test_every_op_has_a_demo),
        cmocka_unit_test(test_strided_inputs),  cmocka_unit_test(test_tiny_inputs),
        cmocka_unit_test(test_volume_inputs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
