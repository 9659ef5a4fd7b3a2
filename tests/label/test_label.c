/* Labelling against a breadth-first oracle that numbers components in
 * raster order of their first pixel: random images of odd sizes and every
 * density, dtype, connectivity, mode and thread count (strip boundaries),
 * and the worst cases of labelling (checkerboards, spirals, stripes, one
 * pixel per component, one component spanning the image). Built twice:
 * test_label on the CPU, test_label_gpu (PARAC_LABEL_TEST_GPU) on CUDA,
 * skipped without a GPU. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "label/label.h"
#include "label_test_util.h"
#include "test_util.h"


/* The oracle: labels in raster order, by a queue. */
static int32_t *oracle(const parac_image *im, int conn, int equal, double bg, int64_t *count)
{
    const int64_t w = im->width, h = im->height, d = im->depth, n = w * h * d;
    int32_t *lab = calloc((size_t)n, sizeof *lab);
    int64_t *queue = malloc((size_t)n * sizeof *queue);
    assert_non_null(lab);
    assert_non_null(queue);
    int32_t next = 0;
    for (int64_t p = 0; p < n; p++) {
        const int64_t px = p % w, py = p / w % h, pz = p / (w * h);
        const double v = value_at(im, px, py, pz);
        if (lab[p] || (equal ? v == bg : v == 0)) continue;
        lab[p] = ++next;
        int64_t head = 0, tail = 0;
        queue[tail++] = p;
        while (head < tail) {
            const int64_t q = queue[head++], x = q % w, y = q / w % h, z = q / (w * h);
            for (int dz = -1; dz <= 1; dz++)
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        if (!reaches(conn, dx, dy, dz) || (d == 1 && dz != 0)) continue;
                        const int64_t nx = x + dx, ny = y + dy, nz = z + dz;
                        if (nx < 0 || nx >= w || ny < 0 || ny >= h || nz < 0 || nz >= d) continue;
                        const int64_t m = (nz * h + ny) * w + nx;
                        const double u = value_at(im, nx, ny, nz);
                        if (lab[m] || (equal ? u == bg || u != v : u == 0)) continue;
                        lab[m] = next;
                        queue[tail++] = m;
                    }
        }
    }
    free(queue);
    *count = next;
    return lab;
}

/* The labels in i32 (as the count needs) and in i64 (asked for) against the
 * oracle. */
static void check(const parac_image *im, int conn, int equal, double bg, const char *what)
{
    int64_t want_n = 0;
    int32_t *want = oracle(im, conn, equal, bg, &want_n);
    for (int wide = 0; wide < 2; wide++) {
        int64_t got_n = -1;
        parac_label_options o = {conn, equal, bg, NULL, wide};
        parac_image *out = NULL, *host = NULL;
        if (parac_label(ctx, im, &out, &got_n, &o) != PARAC_OK) fail_msg("%s: %s", what, parac_error_message());
        assert_ok(parac_image_download(&host, out, 0, parac_context_stream(ctx)));
        assert_ok(parac_context_synchronize(ctx));
        assert_int_equal(host->dtype, wide ? PARAC_I64 : PARAC_I32);
        if (got_n != want_n) fail_msg("%s (conn %d, equal %d): %lld components, the oracle %lld", what, conn, equal,
                                      (long long)got_n, (long long)want_n);
        const int64_t w = im->width, h = im->height;
        for (int64_t z = 0; z < im->depth; z++)
            for (int64_t y = 0; y < h; y++)
                for (int64_t x = 0; x < w; x++) {
                    const void *p = parac_image_at(host, x, y, z);
                    const int64_t g = wide ? *(const int64_t *)p : *(const int32_t *)p, e = want[(z * h + y) * w + x];
                    if (g != e)
                        fail_msg("%s (conn %d, equal %d, i%d): label %lld at (%lld, %lld, %lld), the oracle %lld", what,
                                 conn, equal, wide ? 64 : 32, (long long)g, (long long)x, (long long)y, (long long)z,
                                 (long long)e);
                }
        parac_image_destroy(out);
        parac_image_destroy(host);
    }
    free(want);
}

/* Random pixels: foreground with probability `density`, of `values`
 * distinct nonzero values. */
static parac_image *random_image(int64_t w, int64_t h, int64_t d, parac_dtype dt, double density, int values,
                                 uint64_t seed)
{
    parac_image *im = NULL;
    assert_ok(parac_image_create(&im, w, h, d, 1, dt, PARAC_MEMORY_HOST, -1));
    uint64_t r = seed;
    for (int64_t z = 0; z < d; z++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                const double u = (double)(test_rand(&r) % 1000000) / 1e6;
                double v = u < density ? 1 + (double)(test_rand(&r) % (uint64_t)values) : 0;
                if ((dt == PARAC_I32 || dt == PARAC_I64) && v != 0) v = v * 1000003 - 4000000; /* negative too */
                if (dt == PARAC_F32 && v != 0) v = v * 0.37 - 1.0;
                set_value(im, x, y, z, v);
            }
    return im;
}

static const int conns2d[] = {4, 8}, conns3d[] = {6, 18, 26};

static void test_random_2d(void **state)
{
    (void)state;
    const parac_dtype dts[] = {PARAC_U8, PARAC_U16, PARAC_I32, PARAC_I64, PARAC_F32};
    const double densities[] = {0.3, 0.5, 0.7, 0.95};
    const int64_t sizes[][2] = {{1, 1}, {67, 1}, {1, 53}, {33, 17}, {97, 71}, {250, 131}, {64, 32}, {709, 263}};
    uint64_t seed = 1;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int di = 0; di < 4; di++)
            for (int ti = 0; ti < 5; ti++) {
                parac_image *im = random_image(sizes[s][0], sizes[s][1], 1, dts[ti], densities[di], 3, seed++);
                for (int c = 0; c < 2; c++)
                    for (int eq = 0; eq < 2; eq++) check(im, conns2d[c], eq, 0, "random 2D");
                parac_image_destroy(im);
            }
}

static void test_random_3d(void **state)
{
    (void)state;
    /* the last: rows deep inside 3D tiles (32 x 32 x 16), where the GPU's
     * tiles leave out the unions that the voxel below covers */
    const int64_t sizes[][3] = {{1, 1, 2}, {13, 9, 7}, {40, 11, 5}, {35, 34, 9}, {70, 67, 40}};
    const double densities[] = {0.2, 0.45, 0.8};
    uint64_t seed = 100;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int di = 0; di < 3; di++) {
            parac_image *im = random_image(sizes[s][0], sizes[s][1], sizes[s][2], di == 1 ? PARAC_F32 : PARAC_U8,
                                           densities[di], 2, seed++);
            for (int c = 0; c < 3; c++)
                for (int eq = 0; eq < 2; eq++) check(im, conns3d[c], eq, 0, "random 3D");
            parac_image_destroy(im);
        }
}

static double spiral(int64_t x, int64_t y, int64_t z, int64_t w, int64_t h);

/* Strip boundaries of the CPU method fall on every row for some thread
 * count; the spiral's one component crosses every boundary many times. */
static void test_thread_counts(void **state)
{
    (void)state;
    parac_image *im = random_image(83, 61, 1, PARAC_U8, 0.55, 2, 7), *vol = random_image(21, 9, 13, PARAC_U16, 0.4, 2, 8);
    parac_image *sp = NULL;
    assert_ok(parac_image_create(&sp, 97, 89, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    for (int64_t y = 0; y < 89; y++)
        for (int64_t x = 0; x < 97; x++) set_value(sp, x, y, 0, spiral(x, y, 0, 97, 89));
    const int counts[] = {1, 2, 3, 7, 16, 61, 200};
    for (int k = 0; k < 7; k++) {
        parac_context_set_threads(ctx, counts[k]);
        check(im, 8, 0, 0, "threads");
        check(im, 4, 1, 0, "threads");
        check(vol, 26, 1, 0, "threads 3D");
        check(vol, 6, 0, 0, "threads 3D");
        check(sp, 4, 0, 0, "threads, spiral");
        check(sp, 8, 1, 0, "threads, spiral");
    }
    parac_context_set_threads(ctx, 0);
    parac_image_destroy(sp);
    parac_image_destroy(im);
    parac_image_destroy(vol);
}

typedef double (*pattern_fn)(int64_t x, int64_t y, int64_t z, int64_t w, int64_t h);

static double checker(int64_t x, int64_t y, int64_t z, int64_t w, int64_t h)
{
    (void)w, (void)h;
    return (x + y + z) % 2;
}
static double stripes(int64_t x, int64_t y, int64_t z, int64_t w, int64_t h)
{
    (void)y, (void)z, (void)w, (void)h;
    return x % 3 != 1; /* vertical stripes crossing every tile's rows */
}
static double diagonals(int64_t x, int64_t y, int64_t z, int64_t w, int64_t h)
{
    (void)z, (void)w, (void)h;
    return (x + 2 * y) % 5 == 0; /* joined only through diagonals */
}
static double dots(int64_t x, int64_t y, int64_t z, int64_t w, int64_t h)
{
    (void)w, (void)h;
    return x % 2 == 0 && y % 2 == 0 && z % 2 == 0 ? 1 + (x + y) % 3 : 0; /* one pixel per component */
}
static double full(int64_t x, int64_t y, int64_t z, int64_t w, int64_t h)
{
    (void)x, (void)y, (void)z, (void)w, (void)h;
    return 9;
}
/* A square spiral corridor: one component winding through every tile. */
static double spiral(int64_t x, int64_t y, int64_t z, int64_t w, int64_t h)
{
    (void)z;
    const int64_t ring = x < y ? x : y, r2 = w - 1 - x < h - 1 - y ? w - 1 - x : h - 1 - y;
    const int64_t k = ring < r2 ? ring : r2;
    if (k % 2) return 0;
    /* a gap in each wall ring: the corridor turns inward */
    return !(k > 0 && x == k - 1 && y == k) ? 1 : 0;
}
static double gradient(int64_t x, int64_t y, int64_t z, int64_t w, int64_t h)
{
    (void)w, (void)h;
    return (double)((x / 3 + y / 5 + z) % 4); /* equal-value bands */
}

static void test_worst_cases(void **state)
{
    (void)state;
    const pattern_fn patterns[] = {checker, stripes, diagonals, dots, full, spiral, gradient};
    const char *names[] = {"checkerboard", "stripes", "diagonals", "dots", "one component", "spiral", "bands"};
    /* the last volume crosses the faces of 3D tiles up to 32 x 32 x 32 */
    const int64_t sizes[][3] = {{129, 127, 1}, {300, 200, 1}, {37, 29, 11}, {45, 70, 66}};
    for (size_t p = 0; p < sizeof patterns / sizeof patterns[0]; p++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            parac_image *im = NULL;
            assert_ok(parac_image_create(&im, sizes[s][0], sizes[s][1], sizes[s][2], 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
            for (int64_t z = 0; z < im->depth; z++)
                for (int64_t y = 0; y < im->height; y++)
                    for (int64_t x = 0; x < im->width; x++)
                        set_value(im, x, y, z, patterns[p](x, y, z, im->width, im->height));
            const int *conns = im->depth > 1 ? conns3d : conns2d;
            for (int c = 0; c < (im->depth > 1 ? 3 : 2); c++)
                for (int eq = 0; eq < 2; eq++) check(im, conns[c], eq, eq ? 1 : 0, names[p]);
            parac_image_destroy(im);
        }
}

/* Equal values: -0 equals 0, a background the dtype cannot hold makes
 * everything foreground, NaN is refused; in nonzero mode NaN is foreground. */
static void test_values(void **state)
{
    (void)state;
    parac_image *im = NULL, *out = NULL;
    assert_ok(parac_image_create(&im, 5, 1, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
    const float row[5] = {-0.0f, 0.0f, 2.5f, NAN, 0.0f};
    memcpy(parac_image_at(im, 0, 0, 0), row, sizeof row);
    int64_t n = 0;
    parac_label_options eq = {4, 1, 0.0, NULL, 0}, nz = {4, 0, 0.0, NULL, 0};
    assert_int_equal(parac_label(ctx, im, &out, &n, &eq), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "NaN"));
    assert_ok(parac_label(ctx, im, &out, &n, &nz));
    assert_int_equal(n, 1); /* 2.5 and NaN: one component */
    parac_image_destroy(out);
    ((float *)parac_image_at(im, 0, 0, 0))[3] = 7.0f;
    check(im, 4, 1, -0.0, "signed zeros");
    check(im, 4, 1, 0.5, "a background no pixel holds");
    parac_image_destroy(im);

    parac_image *u8 = random_image(30, 20, 1, PARAC_U8, 0.6, 3, 5);
    check(u8, 8, 1, 300, "a background beyond u8");
    check(u8, 8, 1, 2, "background 2");
    parac_image_destroy(u8);
}

/* The labels of two images, which must be equal (counts and pixels). */
static void check_same(const parac_image *a, const parac_label_options *oa, const parac_image *b,
                       const parac_label_options *ob, const char *what)
{
    parac_image *la = NULL, *lb = NULL, *ha = NULL, *hb = NULL;
    int64_t na = -1, nb = -2;
    if (parac_label(ctx, a, &la, &na, oa) != PARAC_OK) fail_msg("%s: %s", what, parac_error_message());
    assert_ok(parac_label(ctx, b, &lb, &nb, ob));
    assert_ok(parac_image_download(&ha, la, 0, parac_context_stream(ctx)));
    assert_ok(parac_image_download(&hb, lb, 0, parac_context_stream(ctx)));
    assert_ok(parac_context_synchronize(ctx));
    if (na != nb) fail_msg("%s: %lld components, the reference %lld", what, (long long)na, (long long)nb);
    for (int64_t z = 0; z < a->depth; z++)
        for (int64_t y = 0; y < a->height; y++)
            for (int64_t x = 0; x < a->width; x++) {
                const int32_t ga = *(const int32_t *)parac_image_at(ha, x, y, z);
                const int32_t gb = *(const int32_t *)parac_image_at(hb, x, y, z);
                if (ga != gb)
                    fail_msg("%s: label %d at (%lld, %lld, %lld), the reference %d", what, ga, (long long)x,
                             (long long)y, (long long)z, gb);
            }
    parac_image_destroy(la), parac_image_destroy(lb), parac_image_destroy(ha), parac_image_destroy(hb);
}

static int compare_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* An i64 image with each value replaced by its rank among the values + 1
 * (i32), and the background's rank (0.5, which no i32 holds, where no pixel
 * has it): regions of equal value are the same in both. */
static parac_image *ranks_of(const parac_image *im, int64_t bg, double *bg_rank)
{
    const int64_t w = im->width, h = im->height, d = im->depth, n = w * h * d;
    int64_t *v = malloc((size_t)n * sizeof *v);
    assert_non_null(v);
    for (int64_t p = 0; p < n; p++) v[p] = *(const int64_t *)parac_image_at(im, p % w, p / w % h, p / (w * h));
    qsort(v, (size_t)n, sizeof *v, compare_i64);
    int64_t k = 0;
    for (int64_t p = 0; p < n; p++)
        if (p == 0 || v[p] != v[k - 1]) v[k++] = v[p];
    parac_image *r = NULL;
    assert_ok(parac_image_create(&r, w, h, d, 1, PARAC_I32, PARAC_MEMORY_HOST, -1));
    for (int64_t p = 0; p < n; p++) {
        const int64_t x = p % w, y = p / w % h, z = p / (w * h), val = *(const int64_t *)parac_image_at(im, x, y, z);
        const int64_t *at = bsearch(&val, v, (size_t)k, sizeof *v, compare_i64);
        *(int32_t *)parac_image_at(r, x, y, z) = (int32_t)(at - v) + 1;
    }
    const int64_t *at = bsearch(&bg, v, (size_t)k, sizeof *v, compare_i64);
    *bg_rank = at ? (double)(at - v) + 1 : 0.5;
    free(v);
    return r;
}

/* An i64 image of values drawn from `pick` (n of them) in runs, so that
 * regions of several pixels form. */
static parac_image *i64_image(int64_t w, int64_t h, int64_t d, const int64_t *pick, int n, uint64_t seed)
{
    parac_image *im = NULL;
    assert_ok(parac_image_create(&im, w, h, d, 1, PARAC_I64, PARAC_MEMORY_HOST, -1));
    uint64_t r = seed;
    for (int64_t z = 0; z < d; z++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                const int64_t run = (int64_t)(test_rand(&r) % 3);
                const int64_t v = pick[test_rand(&r) % (uint64_t)n];
                for (int64_t e = x; e <= x + run && e < w; e++) *(int64_t *)parac_image_at(im, e, y, z) = v;
                x += run;
            }
    return im;
}

/* i64 inputs beyond a double's and a 32-bit key's reach: values compared
 * whole on the CPU (2^53 and 2^53 + 1 differ); on CUDA by their low 32 bits
 * where the values span less than 2^32 (background by the whole value), and
 * refused with equal values spanning more. Against the same images as
 * ranks (i32) or as masks (u8). */
static void test_i64_values(void **state)
{
    (void)state;
    const int64_t base = (int64_t)1 << 60;
    const int64_t near[] = {base, base + 1, base - 1, base + ((int64_t)1 << 30), base - ((int64_t)1 << 30) + 7};
    const int64_t far[] = {0, (int64_t)1 << 32, (int64_t)1 << 33, ((int64_t)1 << 53) + 1, (int64_t)1 << 53,
                           INT64_MIN, INT64_MAX, -((int64_t)1 << 32)};
    const int64_t shapes[][3] = {{300, 37, 1}, {1, 41, 1}, {23, 11, 7}};
    for (int s = 0; s < 3; s++) {
        const int is_3d = shapes[s][2] > 1;
        const int *conns = is_3d ? conns3d : conns2d;
        parac_image *a = i64_image(shapes[s][0], shapes[s][1], shapes[s][2], near, 5, 3 + s);
        parac_image *b = i64_image(shapes[s][0], shapes[s][1], shapes[s][2], far, 8, 9 + s);
        for (int c = 0; c < (is_3d ? 3 : 2); c++) {
            double bg_rank = 0;
            parac_image *ra = ranks_of(a, base, &bg_rank);
            parac_label_options o64 = {conns[c], 1, (double)base, NULL, -1}, o32 = {conns[c], 1, bg_rank, NULL, -1};
            check_same(a, &o64, ra, &o32, "i64 values near 2^60, equal values");
            parac_image_destroy(ra);
            /* nonzero: every value but 0 is foreground (2^32 and -2^32 too) */
            parac_image *mask = NULL;
            assert_ok(parac_image_create(&mask, b->width, b->height, b->depth, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
            for (int64_t z = 0; z < b->depth; z++)
                for (int64_t y = 0; y < b->height; y++)
                    for (int64_t x = 0; x < b->width; x++)
                        *(uint8_t *)parac_image_at(mask, x, y, z) = *(const int64_t *)parac_image_at(b, x, y, z) != 0;
            parac_label_options nz = {conns[c], 0, 0, NULL, -1};
            check_same(b, &nz, mask, &nz, "i64 values over the whole range, nonzero");
            parac_image_destroy(mask);
            parac_image *rb = ranks_of(b, 0, &bg_rank);
            o64.background = 0, o32.background = bg_rank;
#ifdef PARAC_LABEL_TEST_GPU
            parac_image *out = NULL;
            assert_int_equal(parac_label(ctx, b, &out, NULL, &o64), PARAC_ERR_UNSUPPORTED);
            assert_non_null(strstr(parac_error_message(), "less than 2^32"));
            assert_null(out);
#else
            check_same(b, &o64, rb, &o32, "i64 values over the whole range, equal values");
#endif
            parac_image_destroy(rb);
        }
        parac_image_destroy(a);
        parac_image_destroy(b);
    }
}

/* 2D 8-connected labelling of nonzero pixels takes rows two at a time on
 * the CPU (label_bits.h): a component whose first pixel is in a pair's
 * bottom row comes after one to its right that starts in the top row, two
 * pairs join only where pixels of their facing rows touch, and a pair
 * run's columns hold background in one of its rows. */
static void test_pairs_of_rows(void **state)
{
    (void)state;
    parac_image *im = NULL, *out = NULL, *host = NULL;
    assert_ok(parac_image_create(&im, 70, 5, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
    const int64_t px[][2] = {{68, 0}, {2, 1}, {10, 1}, {11, 2}, {20, 1}, {22, 2}, {40, 0}, {41, 1}, {66, 4}};
    for (int64_t y = 0; y < 5; y++)
        for (int64_t x = 0; x < 70; x++) set_value(im, x, y, 0, 0.0);
    for (size_t i = 0; i < sizeof px / sizeof px[0]; i++) set_value(im, px[i][0], px[i][1], 0, 1.0);
    set_value(im, 30, 3, 0, NAN);   /* foreground: nonzero */
    set_value(im, 31, 3, 0, -0.0);  /* background */
    set_value(im, 32, 4, 0, -2.0);  /* not beside the NaN: (31, 3) between them is background */
    parac_label_options o = {8, 0, 0.0, NULL, 0};
    int64_t n = 0;
    assert_ok(parac_label(ctx, im, &out, &n, &o));
    assert_ok(parac_image_download(&host, out, 0, parac_context_stream(ctx)));
    assert_ok(parac_context_synchronize(ctx));
    const int32_t want[][3] = {{40, 0, 1}, {68, 0, 2}, {41, 1, 1}, {2, 1, 3}, {10, 1, 4}, {11, 2, 4}, {20, 1, 5},
                               {22, 2, 6}, {30, 3, 7}, {31, 3, 0}, {32, 4, 8}, {66, 4, 9}, {0, 0, 0}};
    assert_int_equal(n, 9);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (*(const int32_t *)parac_image_at(host, want[i][0], want[i][1], 0) != want[i][2])
            fail_msg("pairs of rows: label %d at (%d, %d), expected %d",
                     *(const int32_t *)parac_image_at(host, want[i][0], want[i][1], 0), want[i][0], want[i][1],
                     want[i][2]);
    check(im, 8, 0, 0, "pairs of rows");
    parac_image_destroy(host);
    parac_image_destroy(out);
    parac_image_destroy(im);
}

static void test_refusals(void **state)
{
    (void)state;
    parac_image *im = NULL, *vol = NULL, *rgb = NULL, *f64 = NULL, *out = NULL;
    assert_ok(parac_image_create_zeroed(&im, 8, 8, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create_zeroed(&vol, 8, 8, 3, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create_zeroed(&rgb, 8, 8, 1, 3, PARAC_U8, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create_zeroed(&f64, 8, 8, 1, 1, PARAC_F64, PARAC_MEMORY_HOST, -1));
    parac_label_options o = {6, 0, 0, NULL, 0};
    assert_int_equal(parac_label(ctx, im, &out, NULL, &o), PARAC_ERR_INVALID_ARGUMENT);
    o.connectivity = 8;
    assert_int_equal(parac_label(ctx, vol, &out, NULL, &o), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "6, 18 or 26"));
    o.connectivity = 5;
    assert_int_equal(parac_label(ctx, im, &out, NULL, &o), PARAC_ERR_INVALID_ARGUMENT);
    assert_int_equal(parac_label(ctx, rgb, &out, NULL, NULL), PARAC_ERR_UNSUPPORTED);
    assert_int_equal(parac_label(ctx, f64, &out, NULL, NULL), PARAC_ERR_UNSUPPORTED);
    assert_null(out);
    int64_t n = -1;
    assert_ok(parac_label(ctx, im, &out, &n, NULL));
    assert_int_equal(n, 0);
    parac_image_destroy(out);
    parac_image_destroy(im), parac_image_destroy(vol), parac_image_destroy(rgb), parac_image_destroy(f64);
}

/* More components than an i32 output takes (the limit lowered to reach it
 * on small images): auto widens the output to i64 once the count is known,
 * i32 asked for is an error, i64 asked for is i64 whatever the count; a
 * count at the limit stays i32. 2D (pairs of rows on the CPU), rows and 3D. */
static void test_widen(void **state)
{
    (void)state;
    const struct {
        int64_t w, h, d;
        int conn, equal;
        double density; /* below percolation: many components */
    } cases[] = {{61, 37, 1, 8, 0, 0.2}, {61, 37, 1, 4, 1, 0.3}, {23, 17, 9, 26, 0, 0.04}, {23, 17, 9, 6, 1, 0.2}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        parac_image *im = random_image(cases[c].w, cases[c].h, cases[c].d, PARAC_U16, cases[c].density, 3, 40 + c);
        int64_t want_n = 0;
        int32_t *want = oracle(im, cases[c].conn, cases[c].equal, 0, &want_n);
        if (want_n <= 20) fail_msg("case %zu: %lld components", c, (long long)want_n);
        const int64_t limits[] = {want_n - 1, 7, want_n};
        for (int l = 0; l < 3; l++) {
            parac__label_set_i32_max(limits[l]);
            for (int wide = -1; wide <= 1; wide++) {
                parac_label_options o = {cases[c].conn, cases[c].equal, 0, NULL, wide};
                parac_image *out = NULL, *host = NULL;
                int64_t n = -1;
                const parac_status st = parac_label(ctx, im, &out, &n, &o);
                if (wide < 0 && want_n > limits[l]) {
                    assert_int_equal(st, PARAC_ERR_OVERFLOW);
                    assert_non_null(strstr(parac_error_message(), "--dtype auto or i64"));
                    assert_null(out);
                    continue;
                }
                if (st != PARAC_OK) fail_msg("case %zu: %s", c, parac_error_message());
                assert_int_equal(n, want_n);
                assert_ok(parac_image_download(&host, out, 0, parac_context_stream(ctx)));
                assert_ok(parac_context_synchronize(ctx));
                const int is_wide = wide > 0 || (wide == 0 && want_n > limits[l]);
                assert_int_equal(host->dtype, is_wide ? PARAC_I64 : PARAC_I32);
                for (int64_t z = 0; z < im->depth; z++)
                    for (int64_t y = 0; y < im->height; y++)
                        for (int64_t x = 0; x < im->width; x++) {
                            const void *p = parac_image_at(host, x, y, z);
                            const int64_t g = is_wide ? *(const int64_t *)p : *(const int32_t *)p;
                            if (g != want[(z * im->height + y) * im->width + x])
                                fail_msg("case %zu, limit %lld, wide %d: label %lld at (%lld, %lld, %lld)", c,
                                         (long long)limits[l], wide, (long long)g, (long long)x, (long long)y,
                                         (long long)z);
                        }
                parac_image_destroy(out);
                parac_image_destroy(host);
            }
        }
        parac__label_set_i32_max(0);
        free(want);
        parac_image_destroy(im);
    }
}

/* The registry's result, through the text path. */
static void test_count_result(void **state)
{
    (void)state;
    parac_image *im = random_image(40, 30, 1, PARAC_U8, 0.5, 1, 9), *out = NULL;
    int64_t want = 0;
    free(oracle(im, 8, 0, 0, &want));
    parac_args *a = NULL;
    assert_ok(parac_args_create(&a));
    double results[PARAC_MAX_RESULTS] = {-1};
    assert_ok(parac_op_run_results(ctx, "label", &im, 1, &out, 1, a, results, PARAC_MAX_RESULTS, NULL, 0));
    assert_true(results[0] == (double)want);
    parac_args_destroy(a);
    parac_image_destroy(out);
    parac_image_destroy(im);
}

/* A 2D host label image equal to the oracle's labels, row by row. */
static void assert_rows_equal(const parac_image *out, const int32_t *want, const char *what)
{
    for (int64_t y = 0; y < out->height; y++)
        if (memcmp(parac_image_at(out, 0, y, 0), want + y * out->width, (size_t)out->width * sizeof *want))
            fail_msg("%s: row %lld differs from the oracle", what, (long long)y);
}

/* The labels of a host image, compared with the oracle row by row (no
 * download: a copy of this size runs on OpenMP's threads, which
 * ThreadSanitizer cannot follow in GCC's runtime). */
static void check_on_host(parac_context *c, const parac_image *im, int conn, const char *what)
{
    int64_t want_n = 0, got_n = -1;
    int32_t *want = oracle(im, conn, 0, 0, &want_n);
    parac_label_options o = {conn, 0, 0, NULL, 0};
    parac_image *out = NULL;
    if (parac_label(c, im, &out, &got_n, &o) != PARAC_OK) fail_msg("%s: %s", what, parac_error_message());
    assert_int_equal(got_n, want_n);
    assert_rows_equal(out, want, what);
    free(want);
    parac_image_destroy(out);
}

/* Run arrays of 4 MiB and more are kept between calls (core/host_cache.c):
 * a block taken again holds the last call's runs, one of another size class
 * is fresh, and none is left after parac_memory_trim(). */
static void test_scratch_reuse(void **state)
{
    (void)state;
    parac_context *c = NULL;
    assert_ok(parac_context_create(&c, "cpu"));
    parac_image *a = random_image(2600, 2048, 1, PARAC_U8, 0.5, 1, 21), *b = random_image(2600, 2048, 1, PARAC_U8, 0.3, 1, 22);
    check_on_host(c, a, 8, "8-neighbour noise 50 %, first call");
    check_on_host(c, b, 8, "noise 30 %, another size class");
    check_on_host(c, b, 4, "noise 30 %, 4 neighbours, the same arrays again");
    check_on_host(c, a, 8, "noise 50 % again");
    parac_memory_trim();
    check_on_host(c, a, 4, "noise 50 % after the trim");
    parac_image_destroy(a);
    parac_image_destroy(b);
    parac_context_destroy(c);
}

/* Two threads labelling at once, each with its own context, three times:
 * they take and give the kept run arrays together (ThreadSanitizer runs
 * this in CI). */
typedef struct labelling {
    parac_image *in, *out[3];
    int64_t count[3];
    parac_status rc;
} labelling;

static void *label_thrice(void *arg)
{
    labelling *l = arg;
    parac_context *c = NULL;
    l->rc = parac_context_create(&c, "cpu");
    for (int i = 0; i < 3 && l->rc == PARAC_OK; i++) l->rc = parac_label(c, l->in, &l->out[i], &l->count[i], NULL);
    parac_context_destroy(c);
    return NULL;
}

static void test_scratch_threads(void **state)
{
    (void)state;
    labelling l[2] = {{.in = random_image(2600, 2048, 1, PARAC_U8, 0.5, 1, 31)},
                      {.in = random_image(2600, 2048, 1, PARAC_U8, 0.4, 1, 32)}};
    pthread_t t[2];
    for (int k = 0; k < 2; k++) assert_int_equal(pthread_create(&t[k], NULL, label_thrice, &l[k]), 0);
    for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
    for (int k = 0; k < 2; k++) {
        if (l[k].rc != PARAC_OK) fail_msg("thread %d: %s", k, parac_error_message());
        int64_t want_n = 0;
        int32_t *want = oracle(l[k].in, 8, 0, 0, &want_n);
        for (int i = 0; i < 3; i++) {
            assert_int_equal(l[k].count[i], want_n);
            assert_rows_equal(l[k].out[i], want, k ? "the second thread" : "the first thread");
            parac_image_destroy(l[k].out[i]);
        }
        free(want);
        parac_image_destroy(l[k].in);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_2d),     cmocka_unit_test(test_random_3d), cmocka_unit_test(test_thread_counts),
        cmocka_unit_test(test_worst_cases),   cmocka_unit_test(test_values),    cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_count_result),  cmocka_unit_test(test_scratch_reuse),
        cmocka_unit_test(test_scratch_threads), cmocka_unit_test(test_pairs_of_rows), cmocka_unit_test(test_widen),
        cmocka_unit_test(test_i64_values),
    };
#ifdef PARAC_LABEL_TEST_GPU
    if (!test_have_gpu()) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
#endif
    return cmocka_run_group_tests(tests, setup, teardown);
}
