/* Gaussian filtering and its building blocks, on the CPU: border index
 * mapping (against an independent unfolding of the extension), border names,
 * kernels, every method against a float64 reference computed here, the IIR
 * boundary rules, and the error cases. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "filter/filter_border.h"
#include "filter/filter_cpu.h"
#include "filter/gauss_plan.h"
#include "filter/kernel_file.h"
#include "test_util.h"

/* ---- reference extension: reflect step by step until inside -------------- */
static int64_t ref_index(int64_t i, int64_t n, parac_border mode)
{
    if (mode == PARAC_BORDER_CONSTANT) return i >= 0 && i < n ? i : -1;
    if (mode == PARAC_BORDER_REPLICATE) return i < 0 ? 0 : (i >= n ? n - 1 : i);
    if (mode == PARAC_BORDER_WRAP) {
        while (i < 0) i += n;
        while (i >= n) i -= n;
        return i;
    }
    if (n == 1) return 0;
    while (i < 0 || i >= n) {
        if (mode == PARAC_BORDER_REFLECT101) i = i < 0 ? -i : 2 * (n - 1) - i;
        else i = i < 0 ? -1 - i : 2 * n - 1 - i;
    }
    return i;
}

static void test_border_index(void **state)
{
    (void)state;
    for (int mode = 0; mode <= PARAC_BORDER_WRAP; mode++)
        for (int64_t n = 1; n <= 6; n++)
            for (int64_t i = -40; i <= 40; i++) {
                int64_t want = ref_index(i, n, (parac_border)mode);
                assert_int_equal(parac__border_index(i, n, mode), want);
                assert_int_equal(parac__border_index32((int)i, (int)n, mode), want);
            }
    /* scipy's test_extend02: 8 taps over 3 samples, reflect gives 3,3,2 left of the start */
    assert_int_equal(parac__border_index(-1, 3, PARAC_BORDER_REFLECT), 0);
    assert_int_equal(parac__border_index(-4, 3, PARAC_BORDER_REFLECT), 2);
    assert_int_equal(parac__border_index(-1, 3, PARAC_BORDER_REFLECT101), 1);
    /* far outside does not overflow or loop */
    assert_int_equal(parac__border_index(-1000000007LL, 1, PARAC_BORDER_REFLECT101), 0);
    assert_true(parac__border_index(INT64_C(1) << 40, 7, PARAC_BORDER_REFLECT) >= 0);
}

static void test_border_parse(void **state)
{
    (void)state;
    parac_border b;
    double v = -1;
    assert_ok(parac_border_parse("reflect101", &b, &v));
    assert_int_equal(b, PARAC_BORDER_REFLECT101);
    assert_true(v == 0.0);
    assert_ok(parac_border_parse("mirror", &b, &v));
    assert_int_equal(b, PARAC_BORDER_REFLECT101);
    assert_ok(parac_border_parse("nearest", &b, &v));
    assert_int_equal(b, PARAC_BORDER_REPLICATE);
    assert_ok(parac_border_parse("grid-wrap", &b, &v));
    assert_int_equal(b, PARAC_BORDER_WRAP);
    assert_ok(parac_border_parse("constant:-2.5", &b, &v));
    assert_int_equal(b, PARAC_BORDER_CONSTANT);
    assert_true(v == -2.5);
    assert_int_equal(parac_border_parse("constant:x", &b, &v), PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(parac_border_parse("reflect:1", &b, &v), PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(parac_border_parse("reflec", &b, &v), PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(parac_border_parse("", &b, &v), PARAC_ERR_INVALID_ARGUMENT);
    for (int m = 0; m <= PARAC_BORDER_WRAP; m++) {
        assert_ok(parac_border_parse(parac_border_name((parac_border)m), &b, NULL));
        assert_int_equal(b, m);
    }
}

static void test_kernels(void **state)
{
    (void)state;
    int r;
    assert_ok(parac__gauss_radius(2.0, 4.0, &r));
    assert_int_equal(r, 8);
    assert_ok(parac__gauss_radius(0.5, 4.0, &r));
    assert_int_equal(r, 2);
    assert_ok(parac__gauss_radius(1.2, 4.0, &r));
    assert_int_equal(r, 5); /* int(5.3) */
    assert_ok(parac__gauss_radius(5.0, 2.0, &r));
    assert_int_equal(r, 10); /* scipy test_gaussian_truncate: 21 taps */
    assert_int_equal(parac__gauss_radius(-1.0, 4.0, &r), PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(parac__gauss_radius(1e9, 4.0, &r), PARAC_ERR_INVALID_ARGUMENT);
    const double sigmas[] = {0.3, 0.5, 1.0, 2.5, 7.0, 15.7, 16.0, 50.0};
    for (size_t s = 0; s < sizeof sigmas / sizeof *sigmas; s++) {
        assert_ok(parac__gauss_radius(sigmas[s], 4.0, &r));
        float *k = malloc(sizeof(float) * (size_t)(2 * r + 1));
        parac__gauss_taps(sigmas[s], r, k);
        double sum = 0;
        for (int i = 0; i <= 2 * r; i++) {
            sum += k[i];
            assert_true(k[i] == k[2 * r - i]);
            if (i < r) assert_true(k[i] <= k[i + 1]);
        }
        assert_true(fabs(sum - 1.0) < 1e-6);
        /* exact value of the centre tap */
        double z = 0;
        for (int i = -r; i <= r; i++) z += exp(-0.5 * i * i / (sigmas[s] * sigmas[s]));
        assert_true(fabs(k[r] - 1.0 / z) < 1e-7);
        /* every tap, bit for bit, as the direct formula gives it (each exp
         * once per tap, summed from -r to r): the taps are computed once per
         * half, and radii of 64 and more take the direct path */
        for (int i = -r; i <= r; i++)
            if (k[i + r] != (float)(exp(-0.5 * (double)i * i / (sigmas[s] * sigmas[s])) / z))
                fail_msg("sigma %g radius %d: tap %d differs from the direct formula", sigmas[s], r, i);
        free(k);
    }
}

/* ---- float64 reference: separable correlation with the same kernels ----- */
static double at_ref(const parac_image *img, int64_t x, int64_t y, int64_t z, int c,
                     parac_border mode, double value)
{
    int64_t xx = ref_index(x, img->width, mode), yy = ref_index(y, img->height, mode),
            zz = ref_index(z, img->depth, mode);
    if (xx < 0 || yy < 0 || zz < 0) return value;
    const char *p = parac_image_at(img, xx, yy, zz);
    switch (img->dtype) {
    case PARAC_U8: return ((const uint8_t *)p)[c];
    case PARAC_U16: return ((const uint16_t *)p)[c];
    default: return ((const float *)p)[c];
    }
}

static double *gauss_ref_kernel(double sigma, int r)
{
    double *k = malloc(sizeof(double) * (size_t)(2 * r + 1)), s = 0;
    for (int i = -r; i <= r; i++) s += k[i + r] = exp(-0.5 * i * i / (sigma * sigma));
    for (int i = 0; i <= 2 * r; i++) k[i] /= s;
    return k;
}

/* out = gaussian (sigma per axis, radius r per axis) applied to img in float64 */
static double *reference(const parac_image *img, const double sigma[3], const int r[3],
                         parac_border mode, double value)
{
    const int64_t W = img->width, H = img->height, D = img->depth, C = img->channels;
    const int64_t n = W * H * D * C;
    double *out = calloc((size_t)n, sizeof(double));
    double *k[3];
    for (int a = 0; a < 3; a++) k[a] = r[a] > 0 ? gauss_ref_kernel(sigma[a], r[a]) : NULL;
    for (int64_t z = 0; z < D; z++)
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++)
                for (int c = 0; c < C; c++) {
                    double s = 0;
                    for (int dz = -r[2]; dz <= r[2]; dz++)
                        for (int dy = -r[1]; dy <= r[1]; dy++)
                            for (int dx = -r[0]; dx <= r[0]; dx++) {
                                double w = (k[0] ? k[0][dx + r[0]] : 1) * (k[1] ? k[1][dy + r[1]] : 1) *
                                           (k[2] ? k[2][dz + r[2]] : 1);
                                s += w * at_ref(img, x + dx, y + dy, z + dz, c, mode, value);
                            }
                    out[((z * H + y) * W + x) * C + c] = s;
                }
    for (int a = 0; a < 3; a++) free(k[a]);
    return out;
}

static double max_error(const parac_image *out, const double *ref)
{
    double e = 0;
    for (int64_t z = 0; z < out->depth; z++)
        for (int64_t y = 0; y < out->height; y++)
            for (int64_t x = 0; x < out->width; x++)
                for (int c = 0; c < out->channels; c++) {
                    double v = at_ref(out, x, y, z, c, PARAC_BORDER_REPLICATE, 0);
                    double d = fabs(v - ref[((z * out->height + y) * out->width + x) * out->channels + c]);
                    if (d > e) e = d;
                }
    return e;
}

static parac_status run_gauss(parac_context *ctx, parac_image *in, const char *params, parac_image **out)
{
    parac_args *args = NULL;
    parac_status st = parac_args_create(&args);
    if (st == PARAC_OK) st = parac_args_parse(args, params);
    if (st == PARAC_OK) st = parac_op_run(ctx, "gauss", &in, 1, out, 1, args, NULL, 0);
    parac_args_destroy(args);
    return st;
}

static const char *const border_text[] = {"reflect101", "reflect", "replicate", "constant:7.5", "wrap"};

/* FIR methods: float64 reference with the same kernel. */
static void test_fir_methods(void **state)
{
    (void)state;
    parac_context *ctx = NULL;
    assert_ok(parac_context_create(&ctx, "cpu"));
    const char *methods[] = {"separable", "direct", "fft"};
    const parac_dtype dtypes[] = {PARAC_F32, PARAC_U8, PARAC_U16};
    int case_no = 0;
    for (int d = 0; d < 3; d++)
        for (int mode = 0; mode <= PARAC_BORDER_WRAP; mode++) {
            int C = 1 + case_no % 4;
            /* odd sizes; every fourth case has a kernel wider than the image */
            int W = case_no % 4 == 3 ? 5 : 23 + case_no, H = case_no % 4 == 3 ? 4 : 17;
            double sx = case_no % 4 == 3 ? 3.0 : 1.5, sy = case_no % 4 == 3 ? 2.0 : 2.2;
            case_no++;
            parac_image *img = NULL;
            assert_ok(parac_image_create(&img, W, H, 1, C, dtypes[d], PARAC_MEMORY_HOST, -1));
            test_fill_random(img, 1234 + (uint64_t)case_no);
            double sigma[3] = {sx, sy, 0};
            int r[3] = {(int)(4 * sx + 0.5), (int)(4 * sy + 0.5), 0};
            double value = mode == PARAC_BORDER_CONSTANT ? 7.5 : 0;
            double *ref = reference(img, sigma, r, (parac_border)mode, value);
            double range = dtypes[d] == PARAC_F32 ? 200.0 : 0;
            for (int m = 0; m < 3; m++) {
                char params[256];
                snprintf(params, sizeof params, "sigma=%g sigma-y=%g border=%s method=%s%s", sx, sy,
                         border_text[mode], methods[m], dtypes[d] == PARAC_F32 ? "" : " dtype=f32");
                parac_image *out = NULL;
                assert_ok(run_gauss(ctx, img, params, &out));
                double e = max_error(out, ref);
                double tol = m == 2 ? 1e-4 * 200 : 1e-5 * 200;
                if (dtypes[d] != PARAC_F32) tol = (dtypes[d] == PARAC_U8 ? 255.0 : 65535.0) * (m == 2 ? 1e-5 : 1e-6);
                if (e > tol) fail_msg("%s %s %s C=%d %dx%d: error %g > %g", methods[m], border_text[mode],
                                      parac_dtype_name(dtypes[d]), C, W, H, e, tol);
                parac_image_destroy(out);
                /* integer output: within 1 LSB (rounding of the float sum) */
                if (dtypes[d] != PARAC_F32) {
                    snprintf(params, sizeof params, "sigma=%g sigma-y=%g border=%s method=%s", sx, sy,
                             border_text[mode], methods[m]);
                    assert_ok(run_gauss(ctx, img, params, &out));
                    e = max_error(out, ref);
                    if (e > 1.0) fail_msg("%s %s integer output off by %g", methods[m], border_text[mode], e);
                    parac_image_destroy(out);
                }
            }
            (void)range;
            free(ref);
            parac_image_destroy(img);
        }
    parac_context_destroy(ctx);
}

/* A 3D volume: z pass included, all FIR methods. */
static void test_3d(void **state)
{
    (void)state;
    parac_context *ctx = NULL;
    assert_ok(parac_context_create(&ctx, "cpu"));
    parac_image *img = NULL;
    assert_ok(parac_image_create(&img, 11, 9, 7, 2, PARAC_F32, PARAC_MEMORY_HOST, -1));
    test_fill_random(img, 99);
    double sigma[3] = {1.0, 1.5, 0.8};
    int r[3] = {4, 6, 3};
    double *ref = reference(img, sigma, r, PARAC_BORDER_REFLECT, 0);
    const char *methods[] = {"separable", "direct", "fft"};
    for (int m = 0; m < 3; m++) {
        char params[200];
        snprintf(params, sizeof params, "sigma=1 sigma-y=1.5 sigma-z=0.8 border=reflect method=%s", methods[m]);
        parac_image *out = NULL;
        assert_ok(run_gauss(ctx, img, params, &out));
        assert_int_equal(out->depth, 7);
        double e = max_error(out, ref);
        if (e > (m == 2 ? 2e-2 : 2e-3)) fail_msg("3D %s: error %g", methods[m], e);
        parac_image_destroy(out);
    }
    free(ref);
    parac_image_destroy(img);
    parac_context_destroy(ctx);
}

/* IIR methods against the true Gaussian (a wide float64 FIR): errors of the
 * size the accuracy table documents, every border. */
static void test_iir_methods(void **state)
{
    (void)state;
    parac_context *ctx = NULL;
    assert_ok(parac_context_create(&ctx, "cpu"));
    const char *methods[] = {"recursive", "yvv", "deriche2"};
    const double tol[] = {2e-3, 0.1, 0.15}; /* fraction of the data range (2 axes) */
    for (int mode = 0; mode <= PARAC_BORDER_WRAP; mode++) {
        parac_image *img = NULL;
        int W = mode == PARAC_BORDER_WRAP ? 9 : 41, H = 29;
        assert_ok(parac_image_create(&img, W, H, 1, 3, PARAC_F32, PARAC_MEMORY_HOST, -1));
        test_fill_random(img, 7 + (uint64_t)mode);
        double sigma[3] = {3.0, 4.0, 0};
        int r[3] = {40, 50, 0}; /* effectively infinite support */
        double value = mode == PARAC_BORDER_CONSTANT ? 7.5 : 0;
        double *ref = reference(img, sigma, r, (parac_border)mode, value);
        for (int m = 0; m < 3; m++) {
            char params[200];
            snprintf(params, sizeof params, "sigma=3 sigma-y=4 border=%s method=%s", border_text[mode], methods[m]);
            parac_image *out = NULL;
            assert_ok(run_gauss(ctx, img, params, &out));
            double e = max_error(out, ref) / 200.0;
            if (e > tol[m]) fail_msg("%s %s: error %g of the range > %g", methods[m], border_text[mode], e, tol[m]);
            parac_image_destroy(out);
        }
        free(ref);
        parac_image_destroy(img);
    }
    parac_context_destroy(ctx);
}

/* The exact boundary starts (steady state, Triggs-Sdika) equal a long
 * explicit replicate extension. */
static void test_iir_boundaries(void **state)
{
    (void)state;
    for (int form = 0; form < 3; form++) {
        const double sigma = 6.0;
        const int W = 40, P = 400;
        parac_image *a = NULL, *b = NULL, *oa = NULL, *ob = NULL;
        assert_ok(parac_image_create(&a, W, 1, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
        assert_ok(parac_image_create(&b, W + 2 * P, 1, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
        assert_ok(parac_image_create(&oa, W, 1, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
        assert_ok(parac_image_create(&ob, W + 2 * P, 1, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
        float *pa = a->data, *pb = b->data;
        for (int i = 0; i < W; i++) pa[i] = (float)((i * 37) % 11) + (i > 20 ? 30.0f : 0.0f);
        for (int i = 0; i < W + 2 * P; i++) pb[i] = pa[i < P ? 0 : (i >= P + W ? W - 1 : i - P)];
        parac__iir1d f[3];
        memset(f, 0, sizeof f);
        if (form == 0) assert_ok(parac__iir_deriche4(sigma, &f[0]));
        if (form == 1) assert_ok(parac__iir_deriche2(sigma, &f[0]));
        if (form == 2) assert_ok(parac__iir_yvv(sigma, &f[0]));
        parac__border_rule rule = {PARAC_BORDER_REPLICATE, 0};
        assert_ok(parac__cpu_iir(a, oa, f, rule, 1));
        assert_ok(parac__cpu_iir(b, ob, f, rule, 1));
        const float *ra = oa->data, *rb = ob->data;
        for (int i = 0; i < W; i++)
            if (fabsf(ra[i] - rb[i + P]) > 2e-4f) fail_msg("form %d: x=%d %g vs %g", form, i, ra[i], rb[i + P]);
        /* reflect with the extension: equals the explicitly reflected line */
        rule.mode = PARAC_BORDER_REFLECT;
        for (int i = 0; i < W + 2 * P; i++) pb[i] = pa[ref_index(i - P, W, PARAC_BORDER_REFLECT)];
        assert_ok(parac__cpu_iir(a, oa, f, rule, 1));
        rule.mode = PARAC_BORDER_REPLICATE;
        assert_ok(parac__cpu_iir(b, ob, f, rule, 1));
        for (int i = 0; i < W; i++)
            if (fabsf(ra[i] - rb[i + P]) > 2e-4f) fail_msg("form %d reflect: x=%d %g vs %g", form, i, ra[i], rb[i + P]);
        parac_image_destroy(a);
        parac_image_destroy(b);
        parac_image_destroy(oa);
        parac_image_destroy(ob);
    }
}

/* A constant image stays constant (DC gain 1) and small exact cases. */
static void test_exact_cases(void **state)
{
    (void)state;
    parac_context *ctx = NULL;
    assert_ok(parac_context_create(&ctx, "cpu"));
    parac_image *img = NULL;
    assert_ok(parac_image_create(&img, 13, 7, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    memset(img->data, 0, (size_t)(img->row_pitch * img->height));
    for (int64_t y = 0; y < 7; y++) memset(parac_image_at(img, 0, y, 0), 200, 13);
    const char *methods[] = {"separable", "direct", "fft", "recursive", "yvv", "deriche2"};
    for (int m = 0; m < 6; m++) {
        char params[100];
        snprintf(params, sizeof params, "sigma=2.5 method=%s", methods[m]);
        parac_image *out = NULL;
        assert_ok(run_gauss(ctx, img, params, &out));
        for (int64_t y = 0; y < 7; y++)
            for (int64_t x = 0; x < 13; x++)
                if (*(uint8_t *)parac_image_at(out, x, y, 0) != 200)
                    fail_msg("%s: constant image changed at %lld,%lld", methods[m], (long long)x, (long long)y);
        parac_image_destroy(out);
    }
    /* 1-pixel image, reflect101 with a long kernel: no hang, value kept */
    parac_image *one = NULL, *out = NULL;
    assert_ok(parac_image_create(&one, 1, 1, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
    *(float *)one->data = 3.0f;
    for (int m = 0; m < 6; m++) {
        char params[100];
        snprintf(params, sizeof params, "sigma=9 method=%s", methods[m]);
        assert_ok(run_gauss(ctx, one, params, &out));
        assert_true(fabsf(*(float *)out->data - 3.0f) < 1e-4f);
        parac_image_destroy(out);
    }
    /* sigma 0: identity; impulse with sigma 1 gives the kernel */
    assert_ok(run_gauss(ctx, img, "sigma=0", &out));
    assert_int_equal(*(uint8_t *)parac_image_at(out, 5, 3, 0), 200);
    parac_image_destroy(out);
    parac_image *imp = NULL;
    assert_ok(parac_image_create_zeroed(&imp, 9, 1, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
    ((float *)imp->data)[4] = 1.0f;
    assert_ok(run_gauss(ctx, imp, "sigma=1 sigma-y=0 border=constant method=separable", &out));
    float k[9];
    parac__gauss_taps(1.0, 4, k);
    for (int i = 0; i < 9; i++) assert_true(fabsf(((float *)out->data)[i] - k[i]) < 1e-7f);
    parac_image_destroy(out);
    parac_image_destroy(imp);
    parac_image_destroy(one);
    parac_image_destroy(img);
    parac_context_destroy(ctx);
}

static void test_errors(void **state)
{
    (void)state;
    parac_context *ctx = NULL;
    assert_ok(parac_context_create(&ctx, "cpu"));
    parac_image *img = NULL, *out = NULL;
    assert_ok(parac_image_create_zeroed(&img, 8, 8, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
    assert_int_equal(run_gauss(ctx, img, "sigma=-1", &out), PARAC_ERR_INVALID_ARGUMENT);
    assert_null(out);
    assert_int_equal(run_gauss(ctx, img, "border=wrap", &out), PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(run_gauss(ctx, img, "sigma=1 radius=100000000", &out), PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(run_gauss(ctx, img, "sigma=1e6 method=separable", &out), PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(run_gauss(ctx, img, "sigma=1 border=mirrored", &out), PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(run_gauss(ctx, img, "sigma=1 method=texture", &out), PARAC_ERR_UNSUPPORTED);
    assert_int_equal(run_gauss(ctx, img, "sigma=1 method=bogus", &out), PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(run_gauss(ctx, img, "sigma=1 dtype=f64", &out), PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(run_gauss(ctx, img, "sigma=200 radius=20000 method=direct", &out), PARAC_ERR_INVALID_ARGUMENT);
    assert_null(out);
    parac_image *i32 = NULL;
    assert_ok(parac_image_create_zeroed(&i32, 8, 8, 1, 1, PARAC_I32, PARAC_MEMORY_HOST, -1));
    assert_int_equal(run_gauss(ctx, i32, "sigma=1", &out), PARAC_ERR_UNSUPPORTED);
    parac_image_destroy(i32);
    parac_image_destroy(img);
    parac_context_destroy(ctx);
}

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
}

/* A .npy file of version 1 with the given header dict and data. */
static void write_npy(const char *path, const char *dict, const void *data, size_t size)
{
    unsigned char buf[4096];
    size_t hl = strlen(dict), total = 10 + hl + 1;
    size_t padded = (total + 63) / 64 * 64;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)((padded - 10) & 0xff);
    buf[9] = (unsigned char)((padded - 10) >> 8);
    memcpy(buf + 10, dict, hl);
    memset(buf + 10 + hl, ' ', padded - 10 - hl - 1);
    buf[padded - 1] = '\n';
    memcpy(buf + padded, data, size);
    write_file(path, buf, padded + size);
}

static void test_kernel_files(void **state)
{
    (void)state;
    char path[512];
    parac__kernel k;
    /* text: comments, commas, blank lines */
    const char *txt = "# a 2x3 kernel\n1, 2 3\n\n-4\t5e-1 6 # tail\n";
    write_file(test_path(path, sizeof path, "k1.txt"), txt, strlen(txt));
    assert_ok(parac__kernel_load(path, &k));
    assert_int_equal(k.w, 3);
    assert_int_equal(k.h, 2);
    assert_true(k.v[3] == -4.0f && k.v[4] == 0.5f && k.v[5] == 6.0f);
    parac__kernel_free(&k);
    /* inline rows */
    assert_ok(parac__kernel_load("1,2,1;2,4,2", &k));
    assert_int_equal(k.w, 3);
    assert_int_equal(k.h, 2);
    assert_true(k.v[4] == 4.0f);
    parac__kernel_free(&k);
    /* .npy float64 1D and int16 2D */
    double d[5] = {0.1, 0.2, 0.4, 0.2, 0.1};
    write_npy(test_path(path, sizeof path, "k2.npy"), "{'descr': '<f8', 'fortran_order': False, 'shape': (5,), }", d, sizeof d);
    assert_ok(parac__kernel_load(path, &k));
    assert_int_equal(k.w, 5);
    assert_int_equal(k.h, 1);
    assert_true(k.v[2] == 0.4f);
    parac__kernel_free(&k);
    int16_t q[6] = {-1, 0, 1, -2, 0, 2};
    write_npy(test_path(path, sizeof path, "k3.npy"), "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }", q, sizeof q);
    assert_ok(parac__kernel_load(path, &k));
    assert_int_equal(k.w, 3);
    assert_int_equal(k.h, 2);
    assert_true(k.v[0] == -1.0f && k.v[5] == 2.0f);
    parac__kernel_free(&k);
    /* errors */
    const char *ragged = "1 2 3\n4 5\n";
    write_file(test_path(path, sizeof path, "bad1.txt"), ragged, strlen(ragged));
    assert_int_equal(parac__kernel_load(path, &k), PARAC_ERR_FORMAT);
    const char *word = "1 two 3\n";
    write_file(test_path(path, sizeof path, "bad2.txt"), word, strlen(word));
    assert_int_equal(parac__kernel_load(path, &k), PARAC_ERR_FORMAT);
    write_file(test_path(path, sizeof path, "bad3.txt"), "# nothing\n", 10);
    assert_int_equal(parac__kernel_load(path, &k), PARAC_ERR_FORMAT);
    assert_int_equal(parac__kernel_load(test_path(path, sizeof path, "missing.npy"), &k), PARAC_ERR_IO);
    write_npy(test_path(path, sizeof path, "bad4.npy"), "{'descr': '<f8', 'fortran_order': False, 'shape': (50,), }", d, sizeof d);
    assert_int_equal(parac__kernel_load(path, &k), PARAC_ERR_FORMAT); /* truncated data */
    write_npy(test_path(path, sizeof path, "bad5.npy"), "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 5), }", d, sizeof d);
    assert_int_equal(parac__kernel_load(path, &k), PARAC_ERR_UNSUPPORTED);
    write_npy(test_path(path, sizeof path, "bad6.npy"), "{'descr': '>f8', 'fortran_order': False, 'shape': (5,), }", d, sizeof d);
    assert_int_equal(parac__kernel_load(path, &k), PARAC_ERR_UNSUPPORTED);
    assert_null(k.v);
}

/* auto remembers this thread's last choices for calls that ask for no
 * account. A recalled choice must be the one a fresh choice makes: each call
 * without an account gives the bits of the same call with one (which always
 * chooses afresh), in an order that changes one input of the choice at a
 * time, and the choices differ (an IIR method where the tolerance lets it). */
static void test_auto_recalls_the_same_choice(void **state)
{
    (void)state;
    parac_context *ctx = NULL;
    assert_ok(parac_context_create(&ctx, "cpu"));
    parac_image *small = NULL, *large = NULL;
    assert_ok(parac_image_create(&small, 67, 41, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create(&large, 1031, 777, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
    test_fill_random(small, 7);
    test_fill_random(large, 8);
    const char *cases[] = {"sigma=12 tolerance=0.05", "sigma=12", "sigma=12 tolerance=0.05", "sigma=2 tolerance=0.05",
                           "sigma=12 truncate=3 tolerance=0.05", "sigma=12 sigma-y=3 tolerance=0.05", "sigma=12"};
    int n_cases = (int)(sizeof cases / sizeof *cases), iir = 0, fir = 0;
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < n_cases; i++)
            for (int k = 0; k < 2; k++) {
                parac_image *in = k ? large : small, *plain = NULL, *told = NULL;
                parac_args *args = NULL;
                char why[512];
                assert_ok(parac_args_create(&args));
                assert_ok(parac_args_parse(args, cases[i]));
                assert_ok(parac_op_run(ctx, "gauss", &in, 1, &plain, 1, args, NULL, 0));
                assert_ok(parac_op_run(ctx, "gauss", &in, 1, &told, 1, args, why, sizeof why));
                const size_t row = (size_t)in->width * sizeof(float);
                for (int64_t y = 0; y < in->height; y++)
                    if (memcmp(parac_image_at(plain, 0, y, 0), parac_image_at(told, 0, y, 0), row) != 0)
                        fail_msg("'%s' on %lldx%lld: the recalled choice differs from %s", cases[i],
                                 (long long)in->width, (long long)in->height, why);
                if (strstr(why, "'separable'") || strstr(why, "'fft'") || strstr(why, "'direct'")) fir++;
                else iir++;
                parac_image_destroy(plain);
                parac_image_destroy(told);
                parac_args_destroy(args);
            }
    if (!iir || !fir) fail_msg("auto chose %d FIR and %d IIR methods: the cases do not test the recall", fir, iir);
    parac_image_destroy(small);
    parac_image_destroy(large);
    parac_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_border_index), cmocka_unit_test(test_border_parse),
        cmocka_unit_test(test_kernels),      cmocka_unit_test(test_fir_methods),
        cmocka_unit_test(test_3d),           cmocka_unit_test(test_iir_methods),
        cmocka_unit_test(test_iir_boundaries), cmocka_unit_test(test_exact_cases),
        cmocka_unit_test(test_errors),       cmocka_unit_test(test_kernel_files),
        cmocka_unit_test(test_auto_recalls_the_same_choice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
