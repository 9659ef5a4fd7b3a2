/* Region filling against a brute-force oracle (a breadth-first search of
 * the background from every border pixel, one pixel at a time): random
 * images of odd sizes, every connectivity, 2D and 3D, every method on every
 * device present, and several thread counts for the seeds method (run under
 * ThreadSanitizer in CI). Seeded flood fill against its own oracle; errors
 * through the C API. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

/* 1 where the background reaches the border (the outside). */
static uint8_t *oracle_outside(const uint8_t *img, int64_t w, int64_t h, int64_t d, int conn)
{
    const int64_t n = w * h * d;
    uint8_t *out = calloc((size_t)n, 1);
    int64_t *queue = malloc((size_t)n * sizeof *queue);
    assert_non_null(out);
    assert_non_null(queue);
    const int planar = conn == 4 || conn == 8;
    int64_t head = 0, tail = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t x = i % w, y = (i / w) % h, z = i / (w * h);
        const int border = x == 0 || y == 0 || x == w - 1 || y == h - 1 || (!planar && (z == 0 || z == d - 1));
        if (border && !img[i]) {
            out[i] = 1;
            queue[tail++] = i;
        }
    }
    while (head < tail) {
        const int64_t i = queue[head++];
        const int64_t x = i % w, y = (i / w) % h, z = i / (w * h);
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    const int k = abs(dx) + abs(dy) + abs(dz);
                    if (k == 0 || (planar && dz != 0)) continue;
                    if ((conn == 4 || conn == 6) && k > 1) continue;
                    if (conn == 18 && k > 2) continue;
                    const int64_t nx = x + dx, ny = y + dy, nz = z + dz;
                    if (nx < 0 || ny < 0 || nz < 0 || nx >= w || ny >= h || nz >= d) continue;
                    const int64_t j = (nz * h + ny) * w + nx;
                    if (img[j] || out[j]) continue;
                    out[j] = 1;
                    queue[tail++] = j;
                }
    }
    free(queue);
    return out;
}

static parac_image *random_image(int64_t w, int64_t h, int64_t d, double density, uint64_t *seed)
{
    parac_image *im;
    assert_ok(parac_image_create(&im, w, h, d, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    for (int64_t z = 0; z < d; z++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++)
                *(uint8_t *)parac_image_at(im, x, y, z) =
                    (test_rand(seed) % 1000) < density * 1000 ? 255 : 0;
    return im;
}

static void check_fill(parac_context *ctx, parac_image *im, int conn, const char *method, int64_t seeds)
{
    const int64_t w = im->width, h = im->height, d = im->depth, n = w * h * d;
    uint8_t *flat = malloc((size_t)n);
    for (int64_t i = 0; i < n; i++) flat[i] = *(uint8_t *)parac_image_at(im, i % w, (i / w) % h, i / (w * h));
    uint8_t *outside = oracle_outside(flat, w, h, d, conn);
    parac_args *args;
    assert_ok(parac_args_create(&args));
    char t[32];
    snprintf(t, sizeof t, "%d", conn);
    assert_ok(parac_args_set(args, "connectivity", t));
    assert_ok(parac_args_set(args, "method", method));
    assert_ok(parac_args_set(args, "inside-value", "200"));
    assert_ok(parac_args_set(args, "outside-value", "7"));
    assert_ok(parac_args_set(args, "contour", "outside"));
    if (seeds) {
        snprintf(t, sizeof t, "%lld", (long long)seeds);
        assert_ok(parac_args_set(args, "seeds", t));
    }
    parac_image *out, *host;
    assert_ok(parac_op_run(ctx, "fill", &im, 1, &out, 1, args, NULL, 0));
    assert_ok(parac_image_download(&host, out, 0, NULL));
    for (int64_t i = 0; i < n; i++) {
        const uint8_t want = flat[i] ? 7 : outside[i] ? 7 : 200;
        const uint8_t got = *(uint8_t *)parac_image_at(host, i % w, (i / w) % h, i / (w * h));
        if (got != want)
            fail_msg("fill %s conn %d %lldx%lldx%lld seeds %lld: pixel %lld is %d, want %d", method, conn,
                     (long long)w, (long long)h, (long long)d, (long long)seeds, (long long)i, got, want);
    }
    parac_image_destroy(out);
    parac_image_destroy(host);
    parac_args_destroy(args);
    free(outside);
    free(flat);
}

static void run_methods(parac_context *ctx, const char *const *methods, int n_methods)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    static const int64_t sizes2[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {33, 17}, {129, 65}, {257, 31}};
    static const double dens[] = {0.0, 0.3, 0.42, 0.55, 1.0};
    for (size_t s = 0; s < sizeof sizes2 / sizeof sizes2[0]; s++)
        for (size_t k = 0; k < sizeof dens / sizeof dens[0]; k++) {
            parac_image *im = random_image(sizes2[s][0], sizes2[s][1], 1, dens[k], &seed);
            for (int m = 0; m < n_methods; m++) {
                check_fill(ctx, im, 4, methods[m], 0);
                check_fill(ctx, im, 8, methods[m], 0);
            }
            parac_image_destroy(im);
        }
    static const int conns3[] = {6, 18, 26, 4, 8};
    for (int c = 0; c < 5; c++) {
        parac_image *im = random_image(19, 13, 11, c % 2 ? 0.3 : 0.5, &seed);
        for (int m = 0; m < n_methods; m++) check_fill(ctx, im, conns3[c], methods[m], 0);
        parac_image_destroy(im);
    }
}

/* A square spiral wall with an opening to the border: its corridor is
 * outside, one background component winding across every strip boundary
 * (the CPU ccl's roots must not walk its chains, and must be right). */
static parac_image *spiral_image(int64_t n)
{
    parac_image *im;
    assert_ok(parac_image_create_zeroed(&im, n, n, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    for (int64_t k = 1; n - 1 - 2 * k >= 4; k += 2) {
        const int64_t lo = k, hi = n - 1 - k;
        for (int64_t i = lo; i <= hi; i++) {
            *(uint8_t *)parac_image_at(im, i, lo, 0) = 255;     /* top */
            *(uint8_t *)parac_image_at(im, hi, i, 0) = 255;     /* right */
            *(uint8_t *)parac_image_at(im, i, hi, 0) = 255;     /* bottom */
            if (i >= lo + 2) *(uint8_t *)parac_image_at(im, lo, i, 0) = 255; /* left, open at its top */
        }
    }
    return im;
}

static void test_cpu_methods(void **state)
{
    (void)state;
    parac_context *ctx;
    assert_ok(parac_context_create(&ctx, "cpu"));
    static const char *const methods[] = {"serial", "seeds", "ccl"};
    run_methods(ctx, methods, 3);
    /* ccl on 1..7 threads: strips of every height, boundaries everywhere */
    static const char *const ccl[] = {"ccl"};
    for (int threads = 1; threads <= 7; threads += 3) {
        parac_context_set_threads(ctx, threads);
        run_methods(ctx, ccl, 1);
    }
    parac_image *sp = spiral_image(121);
    for (int threads = 1; threads <= 60; threads = threads * 3 + 1) {
        parac_context_set_threads(ctx, threads);
        check_fill(ctx, sp, 4, "ccl", 0);
        check_fill(ctx, sp, 8, "ccl", 0);
    }
    parac_image_destroy(sp);
    parac_context_destroy(ctx);
}

/* The seeds method on 1..8 threads and 1..5000 seeds: the schedule never
 * changes the result. */
static void test_seeds_threads(void **state)
{
    (void)state;
    parac_context *ctx;
    assert_ok(parac_context_create(&ctx, "cpu"));
    uint64_t seed = 42;
    parac_image *im = random_image(301, 203, 1, 0.4, &seed);
    static const int64_t seeds[] = {1, 17, 300, 5000};
    for (int threads = 1; threads <= 8; threads *= 2) {
        parac_context_set_threads(ctx, threads);
        for (int s = 0; s < 4; s++) check_fill(ctx, im, 4, "seeds", seeds[s]);
    }
    parac_image_destroy(im);
    parac_context_destroy(ctx);
}

static void test_gpu_methods(void **state)
{
    (void)state;
    if (!test_have_gpu()) skip();
    parac_context *ctx;
    assert_ok(parac_context_create(&ctx, "cuda"));
    static const char *const methods[] = {"ccl", "seeds", "hybrid"};
    run_methods(ctx, methods, 3);
    uint64_t seed = 7;
    parac_image *im = random_image(1031, 517, 1, 0.4, &seed);
    check_fill(ctx, im, 4, "seeds", 1);     /* one inner seed: the stacks overflow at once */
    check_fill(ctx, im, 8, "seeds", 65532);
    check_fill(ctx, im, 4, "ccl", 0);
    parac_image_destroy(im);
    /* ccl's 2D form works on tiles of 32 x 32: sizes at, below and above
     * multiples of the tile, stacks of slices, densities around the
     * percolation threshold (long paths across many tiles) */
    static const int64_t tiled[][3] = {{32, 32, 1}, {64, 96, 1}, {65, 33, 1}, {31, 97, 1},
                                       {320, 64, 1}, {1, 100, 1}, {100, 1, 1}, {97, 63, 3}};
    for (size_t s = 0; s < sizeof tiled / sizeof tiled[0]; s++)
        for (int k = 0; k < 3; k++) {
            im = random_image(tiled[s][0], tiled[s][1], tiled[s][2], 0.3 + 0.12 * k, &seed);
            check_fill(ctx, im, 4, "ccl", 0);
            check_fill(ctx, im, 8, "ccl", 0);
            parac_image_destroy(im);
        }
    parac_context_destroy(ctx);
}

/* floodfill --mask on ctx's device: 1 where want is, 0 elsewhere. */
static void check_flood_mask(parac_context *ctx, parac_image *im, int conn, const uint8_t *want)
{
    parac_args *args;
    assert_ok(parac_args_create(&args));
    char t[16];
    snprintf(t, sizeof t, "%d", conn);
    assert_ok(parac_args_set(args, "connectivity", t));
    assert_ok(parac_args_set(args, "seed", "0,0;30,20"));
    assert_ok(parac_args_set(args, "mask", "true"));
    parac_image *out, *host;
    assert_ok(parac_op_run(ctx, "floodfill", &im, 1, &out, 1, args, NULL, 0));
    assert_int_equal(out->dtype, PARAC_U8);
    assert_ok(parac_image_download(&host, out, 0, NULL));
    for (int64_t i = 0; i < im->width * im->height; i++)
        assert_int_equal(*(uint8_t *)parac_image_at(host, i % im->width, i / im->width, 0), want[i]);
    parac_image_destroy(out);
    parac_image_destroy(host);
    parac_args_destroy(args);
}

static void test_floodfill(void **state)
{
    (void)state;
    parac_context *ctx;
    assert_ok(parac_context_create(&ctx, "cpu"));
    uint64_t seed = 3;
    parac_image *im = random_image(57, 43, 1, 0.45, &seed);
    const int64_t seeds[6] = {0, 0, 0, 30, 20, 0};
    for (int conn = 4; conn <= 8; conn += 4) {
        parac_image *out;
        assert_ok(parac_floodfill(ctx, im, &out, seeds, 2, 99, 0, conn));
        const int64_t w = im->width, h = im->height, n = w * h;
        /* oracle: the regions of equal value around each seed */
        uint8_t *flat = malloc((size_t)n), *want = calloc((size_t)n, 1);
        for (int64_t i = 0; i < n; i++) flat[i] = *(uint8_t *)parac_image_at(im, i % w, i / w, 0);
        for (int s = 0; s < 2; s++) {
            const uint8_t v = flat[seeds[3 * s + 1] * w + seeds[3 * s]];
            uint8_t *other = malloc((size_t)n); /* pixels of another value are walls */
            for (int64_t i = 0; i < n; i++) other[i] = flat[i] != v;
            /* breadth-first search from the seed through equal values */
            int64_t *q = malloc((size_t)n * sizeof *q), head = 0, tail = 0;
            uint8_t *seen = calloc((size_t)n, 1);
            q[tail++] = seeds[3 * s + 1] * w + seeds[3 * s];
            seen[q[0]] = 1;
            while (head < tail) {
                const int64_t i = q[head++], x = i % w, y = i / w;
                want[i] = 1;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        if ((!dx && !dy) || (conn == 4 && dx && dy)) continue;
                        const int64_t nx = x + dx, ny = y + dy;
                        if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                        const int64_t j = ny * w + nx;
                        if (seen[j] || other[j]) continue;
                        seen[j] = 1;
                        q[tail++] = j;
                    }
            }
            free(q);
            free(seen);
            free(other);
        }
        for (int64_t i = 0; i < n; i++) {
            const uint8_t got = *(uint8_t *)parac_image_at(out, i % w, i / w, 0);
            assert_int_equal(got, want[i] ? 99 : flat[i]);
        }
        check_flood_mask(ctx, im, conn, want);
        parac_context *gpu;
        if (test_have_gpu() && parac_context_create(&gpu, "cuda") == PARAC_OK) {
            check_flood_mask(gpu, im, conn, want);
            parac_context_destroy(gpu);
        }
        free(flat);
        free(want);
        parac_image_destroy(out);
    }
    parac_image_destroy(im);
    parac_context_destroy(ctx);
}

static void test_errors(void **state)
{
    (void)state;
    parac_context *ctx;
    assert_ok(parac_context_create(&ctx, "cpu"));
    parac_image *f32, *u8, *out = NULL;
    assert_ok(parac_image_create(&f32, 8, 8, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create(&u8, 8, 8, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    assert_int_not_equal(parac_fill(ctx, f32, &out, NULL), PARAC_OK);
    assert_null(out);
    parac_fill_options o = {6, 1, PARAC_FILL_CONTOUR_INSIDE, -1, -1, NULL};
    assert_int_not_equal(parac_fill(ctx, u8, &out, &o), PARAC_OK);
    assert_non_null(strstr(parac_error_message(), "needs a volume"));
    const int64_t bad[3] = {8, 0, 0};
    assert_int_not_equal(parac_floodfill(ctx, u8, &out, bad, 1, 1, 0, 4), PARAC_OK);
    assert_non_null(strstr(parac_error_message(), "outside"));
    const int64_t good[3] = {1, 1, 0};
    assert_int_not_equal(parac_floodfill(ctx, u8, &out, good, 1, 300, 0, 4), PARAC_OK);
    assert_null(out);
    parac_image_destroy(f32);
    parac_image_destroy(u8);
    parac_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_methods), cmocka_unit_test(test_seeds_threads),
        cmocka_unit_test(test_gpu_methods), cmocka_unit_test(test_floodfill),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
