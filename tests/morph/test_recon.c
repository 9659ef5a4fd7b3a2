/* Reconstruction on the CPU against a brute-force oracle written here
 * (dilate by the unit neighbourhood, clip by the mask, until stable; in
 * double): every method, dtype, connectivity and mode, 2D and 3D, random
 * odd sizes; the typed API; the errors. Also the sanitizer build's check of
 * the engines' memory use. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

static const char *const methods[] = {"sequential", "hybrid", "downhill", "parallel"};

static double get(const parac_image *im, int64_t x, int64_t y, int64_t z)
{
    const void *p = parac_image_at(im, x, y, z);
    switch (im->dtype) {
    case PARAC_U8: return *(const uint8_t *)p;
    case PARAC_U16: return *(const uint16_t *)p;
    default: return *(const float *)p;
    }
}

static void set(parac_image *im, int64_t x, int64_t y, int64_t z, double v)
{
    void *p = parac_image_at(im, x, y, z);
    switch (im->dtype) {
    case PARAC_U8: *(uint8_t *)p = (uint8_t)v; break;
    case PARAC_U16: *(uint16_t *)p = (uint16_t)v; break;
    default: *(float *)p = (float)v; break;
    }
}

static int in_conn(int conn, int dx, int dy, int dz)
{
    int s = (dx != 0) + (dy != 0) + (dz != 0);
    if (s == 0) return 0;
    if (conn == 4 || conn == 6) return s == 1;
    if (conn == 18) return s <= 2;
    return 1;
}

/* The oracle: Jacobi iterations of the definition, in double. */
static double *oracle(const parac_image *mk, const parac_image *ms, int conn, int erosion)
{
    const int64_t W = ms->width, H = ms->height, D = ms->depth, n = W * H * D;
    double *cur = malloc(sizeof(double) * (size_t)n), *nxt = malloc(sizeof(double) * (size_t)n);
    for (int64_t z = 0; z < D; z++)
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) cur[(z * H + y) * W + x] = get(mk, x, y, z);
    for (int changed = 1; changed;) {
        changed = 0;
        for (int64_t z = 0; z < D; z++)
            for (int64_t y = 0; y < H; y++)
                for (int64_t x = 0; x < W; x++) {
                    double v = cur[(z * H + y) * W + x];
                    for (int dz = -1; dz <= 1; dz++)
                        for (int dy = -1; dy <= 1; dy++)
                            for (int dx = -1; dx <= 1; dx++) {
                                if (D == 1 && dz) continue;
                                if (!in_conn(conn, dx, dy, dz)) continue;
                                int64_t a = x + dx, b = y + dy, c = z + dz;
                                if (a < 0 || b < 0 || c < 0 || a >= W || b >= H || c >= D) continue;
                                double u = cur[(c * H + b) * W + a];
                                v = erosion ? fmin(v, u) : fmax(v, u);
                            }
                    double m = get(ms, x, y, z);
                    v = erosion ? fmax(v, m) : fmin(v, m);
                    if (v != cur[(z * H + y) * W + x]) changed = 1;
                    nxt[(z * H + y) * W + x] = v;
                }
        double *t = cur;
        cur = nxt;
        nxt = t;
    }
    free(nxt);
    return cur;
}

/* Random mask with plateaus; marker = mask -/+ a random amount, or the extreme. */
static void make_case(parac_image *mk, parac_image *ms, uint64_t *seed, int erosion)
{
    const double top = ms->dtype == PARAC_U8 ? 255 : ms->dtype == PARAC_U16 ? 65535 : 1000;
    for (int64_t z = 0; z < ms->depth; z++)
        for (int64_t y = 0; y < ms->height; y++)
            for (int64_t x = 0; x < ms->width; x++) {
                double m = (double)(test_rand(seed) % 8) * top / 8;
                if (ms->dtype == PARAC_F32) m += (double)(test_rand(seed) % 1000) / 1000.0;
                set(ms, x, y, z, m);
                int r = (int)(test_rand(seed) % 10);
                double k;
                if (!erosion) k = r < 7 ? 0 : (r < 9 ? m * 0.5 : m);
                else k = r < 7 ? top : (r < 9 ? (m + top) * 0.5 : m);
                if (ms->dtype != PARAC_F32) k = floor(k);
                set(mk, x, y, z, k);
            }
}

typedef void (*case_maker)(parac_image *mk, parac_image *ms, uint64_t *seed, int erosion);

static void run_case(parac_dtype dtype, int64_t w, int64_t h, int64_t d, uint64_t seed, case_maker make);

static void run_all(parac_dtype dtype, int64_t w, int64_t h, int64_t d, uint64_t seed)
{
    run_case(dtype, w, h, d, seed, make_case);
}

/* f32 values of both signs, tiny and huge, with many exact zeros of either
 * sign, through every method (downhill keys its float queue by the values'
 * bits; its order only decides how often a pixel is raised, the result is
 * checked here). */
static void make_signed_case(parac_image *mk, parac_image *ms, uint64_t *seed, int erosion)
{
    static const double vals[] = {-3, -1.5, -0.0, 0.0, 0.5, 2, -1e-30, 1e30};
    for (int64_t z = 0; z < ms->depth; z++)
        for (int64_t y = 0; y < ms->height; y++)
            for (int64_t x = 0; x < ms->width; x++) {
                const double m = vals[test_rand(seed) % 8];
                const int r = (int)(test_rand(seed) % 4);
                const double k = r == 0 ? m : r == 1 ? (erosion ? 0.0 : -0.0) : erosion ? m + 1 : m - 1;
                set(ms, x, y, z, m);
                set(mk, x, y, z, erosion ? fmax(k, m) : fmin(k, m));
            }
}

static void run_case(parac_dtype dtype, int64_t w, int64_t h, int64_t d, uint64_t seed, case_maker make)
{
    parac_context *ctx;
    assert_ok(parac_context_create(&ctx, "cpu"));
    parac_context_set_threads(ctx, 3); /* several strips even on small machines */
    for (int erosion = 0; erosion <= 1; erosion++) {
        parac_image *mk, *ms;
        assert_ok(parac_image_create(&mk, w, h, d, 1, dtype, PARAC_MEMORY_HOST, -1));
        assert_ok(parac_image_create(&ms, w, h, d, 1, dtype, PARAC_MEMORY_HOST, -1));
        make(mk, ms, &seed, erosion);
        const int conns2[] = {4, 8}, conns3[] = {6, 18, 26};
        const int *conns = d > 1 ? conns3 : conns2;
        for (int ci = 0; ci < (d > 1 ? 3 : 2); ci++) {
            double *want = oracle(mk, ms, conns[ci], erosion);
            for (size_t mi = 0; mi < sizeof methods / sizeof *methods; mi++) {
                parac_reconstruct_options o = {erosion ? PARAC_RECON_EROSION : PARAC_RECON_DILATION,
                                               conns[ci], 0, methods[mi]};
                parac_image *out;
                assert_ok(parac_reconstruct(ctx, mk, ms, &out, &o));
                assert_int_equal(out->dtype, dtype);
                for (int64_t z = 0; z < d; z++)
                    for (int64_t y = 0; y < h; y++)
                        for (int64_t x = 0; x < w; x++)
                            if (get(out, x, y, z) != want[(z * h + y) * w + x])
                                fail_msg("%s %s conn %d erosion %d %lldx%lldx%lld at (%lld,%lld,%lld): %g != %g",
                                         methods[mi], parac_dtype_name(dtype), conns[ci], erosion,
                                         (long long)w, (long long)h, (long long)d, (long long)x,
                                         (long long)y, (long long)z, get(out, x, y, z),
                                         want[(z * h + y) * w + x]);
                parac_image_destroy(out);
            }
            free(want);
        }
        parac_image_destroy(mk);
        parac_image_destroy(ms);
    }
    parac_context_destroy(ctx);
}

static void test_random_2d(void **state)
{
    (void)state;
    const parac_dtype dts[] = {PARAC_U8, PARAC_U16, PARAC_F32};
    for (int i = 0; i < 3; i++) {
        run_all(dts[i], 37, 61, 1, 11 + i);
        run_all(dts[i], 1, 50, 1, 21 + i);
        run_all(dts[i], 45, 1, 1, 31 + i);
    }
}

/* Every width from 1 to 40 and some beyond: the CPU scans walk rows in
 * blocks of 8 or 16 pixels with a scalar tail, so each block-and-tail split
 * is checked against the oracle. */
static void test_row_widths(void **state)
{
    (void)state;
    const parac_dtype dts[] = {PARAC_U8, PARAC_U16};
    const int64_t extra[] = {47, 63, 64, 65, 129};
    for (int i = 0; i < 2; i++) {
        for (int64_t w = 1; w <= 40; w++) run_all(dts[i], w, 4, 1, 100 + (uint64_t)w);
        for (int k = 0; k < 5; k++) run_all(dts[i], extra[k], 3, 1, 200 + (uint64_t)k);
    }
}

static void test_float_signs(void **state)
{
    (void)state;
    run_case(PARAC_F32, 41, 37, 1, 301, make_signed_case);
    run_case(PARAC_F32, 13, 11, 5, 302, make_signed_case);
}

static void test_random_3d(void **state)
{
    (void)state;
    const parac_dtype dts[] = {PARAC_U8, PARAC_U16, PARAC_F32};
    for (int i = 0; i < 3; i++) run_all(dts[i], 9, 50, 7, 41 + i);
}

/* Long fronts for the parallel method's rounds: one seed in a mask of high
 * random values (a front over the whole image), or a maze of walls with
 * gaps (fronts that change direction). */
static void make_seed_case(parac_image *mk, parac_image *ms, uint64_t *seed, int erosion, int maze)
{
    const double top = ms->dtype == PARAC_U8 ? 255 : ms->dtype == PARAC_U16 ? 65535 : 1000;
    const int64_t w = ms->width, h = ms->height;
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            double m = top * (0.5 + (double)(test_rand(seed) % 64) / 128.0);
            if (ms->dtype != PARAC_F32) m = floor(m);
            if (maze && y % 6 == 3 && (x + 7 * y) % 97 > 2) m = 0; /* a wall with a gap every 97 pixels */
            set(ms, x, y, 0, erosion ? top - m : m);
            set(mk, x, y, 0, erosion ? top : 0);
        }
    const int64_t sx = maze ? 0 : w / 3, sy = maze ? 0 : h / 2;
    set(mk, sx, sy, 0, get(ms, sx, sy, 0));
}

/* The parallel method against hybrid with every setting of its rounds
 * (PARAC_PARALLEL_ROUNDS: pipelined from the start, the automatic switch,
 * strips only), 2, 3 and 5 threads, both connectivities, dilation and erosion,
 * on long fronts and on the random case. Sizes let column blocks of 64
 * pixels fit at some thread counts and not at others. */
static void test_parallel_rounds(void **state)
{
    (void)state;
    const char *settings[] = {"pipelined", NULL, "strips"};
    const int64_t sizes[][2] = {{300, 97}, {515, 130}, {1100, 40}};
    const parac_dtype dts[] = {PARAC_U8, PARAC_U16, PARAC_F32};
    parac_context *ctx;
    assert_ok(parac_context_create(&ctx, "cpu"));
    uint64_t seed = 77;
    for (int di = 0; di < 3; di++)
        for (int si = 0; si < 3; si++)
            for (int kind = 0; kind < 3; kind++)
                for (int erosion = 0; erosion <= 1; erosion++) {
                    const int64_t w = sizes[si][0], h = sizes[si][1];
                    parac_image *mk, *ms;
                    assert_ok(parac_image_create(&mk, w, h, 1, 1, dts[di], PARAC_MEMORY_HOST, -1));
                    assert_ok(parac_image_create(&ms, w, h, 1, 1, dts[di], PARAC_MEMORY_HOST, -1));
                    if (kind < 2) make_seed_case(mk, ms, &seed, erosion, kind);
                    else make_case(mk, ms, &seed, erosion);
                    for (int conn = 4; conn <= 8; conn += 4) {
                        parac_reconstruct_options o = {erosion ? PARAC_RECON_EROSION : PARAC_RECON_DILATION, conn,
                                                       0, "hybrid"};
                        parac_image *want, *got;
                        parac_context_set_threads(ctx, 1);
                        assert_ok(parac_reconstruct(ctx, mk, ms, &want, &o));
                        o.method = "parallel";
                        for (int t = 2; t <= 5; t += 1 + (t == 3))
                            for (int k = 0; k < 3; k++) {
                                if (settings[k]) setenv("PARAC_PARALLEL_ROUNDS", settings[k], 1);
                                else unsetenv("PARAC_PARALLEL_ROUNDS");
                                parac_context_set_threads(ctx, t);
                                assert_ok(parac_reconstruct(ctx, mk, ms, &got, &o));
                                for (int64_t y = 0; y < h; y++)
                                    if (memcmp(parac_image_at(got, 0, y, 0), parac_image_at(want, 0, y, 0),
                                               parac_image_row_bytes(want)) != 0)
                                        fail_msg("parallel (%s, %d threads) %s %lldx%lld case %d conn %d erosion %d: "
                                                 "row %lld differs from hybrid", settings[k] ? settings[k] : "auto",
                                                 t, parac_dtype_name(dts[di]), (long long)w, (long long)h, kind, conn,
                                                 erosion, (long long)y);
                                parac_image_destroy(got);
                            }
                        unsetenv("PARAC_PARALLEL_ROUNDS");
                        parac_image_destroy(want);
                    }
                    parac_image_destroy(mk);
                    parac_image_destroy(ms);
                }
    parac_context_destroy(ctx);
}

static void test_errors(void **state)
{
    (void)state;
    parac_context *ctx;
    assert_ok(parac_context_create(&ctx, "cpu"));
    parac_image *mk, *ms, *other, *out = NULL;
    assert_ok(parac_image_create_zeroed(&mk, 8, 6, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create_zeroed(&ms, 8, 6, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create_zeroed(&other, 8, 6, 1, 1, PARAC_U16, PARAC_MEMORY_HOST, -1));
    set(mk, 5, 4, 0, 9);
    for (size_t mi = 0; mi < sizeof methods / sizeof *methods; mi++) {
        parac_reconstruct_options o = {PARAC_RECON_DILATION, 0, 0, methods[mi]};
        assert_int_equal(parac_reconstruct(ctx, mk, ms, &out, &o), PARAC_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(parac_error_message(), "x=5 y=4"));
        assert_null(out);
        o.clip = 1; /* clipped: the result is the mask */
        assert_ok(parac_reconstruct(ctx, mk, ms, &out, &o));
        assert_int_equal(get(out, 5, 4, 0), 0);
        parac_image_destroy(out);
        out = NULL;
    }
    assert_int_equal(parac_reconstruct(ctx, other, ms, &out, NULL), PARAC_ERR_INVALID_ARGUMENT);
    parac_reconstruct_options bad = {PARAC_RECON_DILATION, 26, 1, NULL};
    assert_int_equal(parac_reconstruct(ctx, mk, ms, &out, &bad), PARAC_ERR_INVALID_ARGUMENT);
    parac_image_destroy(mk);
    parac_image_destroy(ms);
    parac_image_destroy(other);
    parac_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_2d),
        cmocka_unit_test(test_row_widths),
        cmocka_unit_test(test_random_3d),
        cmocka_unit_test(test_float_signs),
        cmocka_unit_test(test_parallel_rounds),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
