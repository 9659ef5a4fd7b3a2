/* Region statistics (regionprops) against a brute-force oracle in float64:
 * random label images with gaps and regions in pieces, every label and
 * intensity dtype, 2D and 3D, images wider than a warp's span and taller
 * than a block's rows, one region spanning the image, every thread count;
 * the refusals. Built twice: test_regions on the CPU, test_regions_gpu
 * (PARAC_LABEL_TEST_GPU) on CUDA, skipped without a GPU. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "label_test_util.h"
#include "test_util.h"


/* The oracle's row of label l, or 0 when no pixel carries l. */
static int oracle_row(const parac_image *lab, const parac_image *val, int64_t l, double *row)
{
    const int ndim = lab->depth > 1 ? 3 : 2;
    double area = 0, lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-1, -1, -1}, sum[3] = {0, 0, 0};
    double vmin = INFINITY, vmax = -INFINITY, vsum = 0;
    for (int64_t z = 0; z < lab->depth; z++)
        for (int64_t y = 0; y < lab->height; y++)
            for (int64_t x = 0; x < lab->width; x++) {
                if (value_at(lab, x, y, z) != (double)l) continue;
                const double c[3] = {(double)z, (double)y, (double)x}; /* axis 0 first */
                const double *cc = ndim == 3 ? c : c + 1;
                area++;
                for (int k = 0; k < ndim; k++) {
                    lo[k] = fmin(lo[k], cc[k]);
                    hi[k] = fmax(hi[k], cc[k]);
                    sum[k] += cc[k];
                }
                if (val) {
                    const double v = value_at(val, x, y, z);
                    vmin = fmin(vmin, v), vmax = fmax(vmax, v), vsum += v;
                }
            }
    if (area == 0) return 0;
    int c = 0;
    row[c++] = (double)l;
    row[c++] = area;
    for (int k = 0; k < ndim; k++) row[c++] = lo[k];
    for (int k = 0; k < ndim; k++) row[c++] = hi[k] + 1;
    for (int k = 0; k < ndim; k++) row[c++] = sum[k] / area;
    if (val) row[c++] = vmin, row[c++] = vmax, row[c++] = vsum / area;
    return c;
}

static void check(const parac_image *lab, const parac_image *val, const char *what)
{
    int64_t n = -1, largest = 0;
    for (int64_t z = 0; z < lab->depth; z++)
        for (int64_t y = 0; y < lab->height; y++)
            for (int64_t x = 0; x < lab->width; x++) largest = (int64_t)fmax((double)largest, value_at(lab, x, y, z));
    char *present = calloc((size_t)largest + 1, 1);
    assert_non_null(present);
    for (int64_t z = 0; z < lab->depth; z++)
        for (int64_t y = 0; y < lab->height; y++)
            for (int64_t x = 0; x < lab->width; x++) present[(int64_t)value_at(lab, x, y, z)] = 1;
    parac_image *table = NULL, *host = NULL;
    if (parac_regionprops(ctx, lab, val, &table, &n) != PARAC_OK) fail_msg("%s: %s", what, parac_error_message());
    assert_ok(parac_image_download(&host, table, 0, parac_context_stream(ctx)));
    assert_ok(parac_context_synchronize(ctx));
    const int ndim = lab->depth > 1 ? 3 : 2;
    const int columns = 2 + 3 * ndim + (val ? 3 : 0);
    assert_int_equal(host->dtype, PARAC_F64);
    assert_int_equal(host->width, columns);
    assert_int_equal(host->height, n > 0 ? n : 1);
    int64_t r = 0;
    for (int64_t l = 1; l <= largest; l++) {
        double want[20];
        if (!present[l] || !oracle_row(lab, val, l, want)) continue;
        if (r >= n) fail_msg("%s: %lld rows, the oracle has more", what, (long long)n);
        const double *got = parac_image_at(host, 0, r++, 0);
        for (int c = 0; c < columns; c++) {
            /* f32 intensity means are summed in an unspecified order */
            const int inexact = val && val->dtype == PARAC_F32 && c == columns - 1;
            const double tol = inexact ? 1e-12 * fmax(1.0, fabs(want[c])) * (double)parac_image_pixel_count(lab) : 0;
            if (fabs(got[c] - want[c]) > tol)
                fail_msg("%s: label %lld column %d: %.17g, the oracle %.17g", what, (long long)l, c, got[c], want[c]);
        }
    }
    if (r != n) fail_msg("%s: %lld rows, the oracle %lld", what, (long long)n, (long long)r);
    free(present);
    parac_image_destroy(table);
    parac_image_destroy(host);
}

/* Labels 0..k at random in blobs of random lengths along rows (so runs
 * cross the threads' 16-pixel walks and the warps' spans). */
static parac_image *random_labels(int64_t w, int64_t h, int64_t d, parac_dtype dt, int k, uint64_t seed)
{
    parac_image *im = NULL;
    assert_ok(parac_image_create(&im, w, h, d, 1, dt, PARAC_MEMORY_HOST, -1));
    uint64_t r = seed;
    for (int64_t z = 0; z < d; z++)
        for (int64_t y = 0; y < h; y++) {
            int64_t x = 0;
            while (x < w) {
                const int64_t len = 1 + (int64_t)(test_rand(&r) % 40);
                const double l = (double)(test_rand(&r) % (uint64_t)(k + 1));
                for (int64_t e = x; e < x + len && e < w; e++) set_value(im, e, y, z, l);
                x += len;
            }
        }
    return im;
}

static parac_image *random_values(int64_t w, int64_t h, int64_t d, parac_dtype dt, uint64_t seed)
{
    parac_image *im = NULL;
    assert_ok(parac_image_create(&im, w, h, d, 1, dt, PARAC_MEMORY_HOST, -1));
    uint64_t r = seed;
    for (int64_t z = 0; z < d; z++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                const double u = (double)(test_rand(&r) % 1000001);
                double v = dt == PARAC_U8    ? fmod(u, 256)
                           : dt == PARAC_U16 ? fmod(u, 65536)
                           : dt == PARAC_I32 ? u * 2000 - 1e9
                                             : (u - 500000) * 1.37e-3;
                set_value(im, x, y, z, v);
            }
    return im;
}

static void test_random(void **state)
{
    (void)state;
    const parac_dtype label_types[] = {PARAC_U8, PARAC_U16, PARAC_I32, PARAC_I64};
    const parac_dtype value_types[] = {PARAC_U8, PARAC_U16, PARAC_I32, PARAC_F32};
    for (int t = 0; t < 4; t++) {
        parac_image *l2 = random_labels(1103, 37, 1, label_types[t], t == 0 ? 7 : 300, 11 + t);
        parac_image *l3 = random_labels(45, 13, 9, label_types[t], 40, 21 + t);
        check(l2, NULL, "2D, no intensity");
        check(l3, NULL, "3D, no intensity");
        for (int v = 0; v < 4; v++) {
            parac_image *v2 = random_values(1103, 37, 1, value_types[v], 31 + v);
            parac_image *v3 = random_values(45, 13, 9, value_types[v], 41 + v);
            check(l2, v2, "2D with intensity");
            check(l3, v3, "3D with intensity");
            parac_image_destroy(v2);
            parac_image_destroy(v3);
        }
        parac_image_destroy(l2);
        parac_image_destroy(l3);
    }
}

/* One label over the whole image (every block's slot, every warp's scan),
 * a ring of one label around others, and labels far above the count. */
static void test_shapes(void **state)
{
    (void)state;
    parac_image *all = NULL, *ring = NULL, *sparse = NULL;
    assert_ok(parac_image_create(&all, 1500, 70, 1, 1, PARAC_I32, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create(&ring, 301, 203, 1, 1, PARAC_U16, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create_zeroed(&sparse, 33, 17, 5, 1, PARAC_I32, PARAC_MEMORY_HOST, -1));
    for (int64_t y = 0; y < 70; y++)
        for (int64_t x = 0; x < 1500; x++) set_value(all, x, y, 0, 5);
    for (int64_t y = 0; y < 203; y++)
        for (int64_t x = 0; x < 301; x++) {
            const int edge = x < 3 || y < 3 || x >= 298 || y >= 200;
            set_value(ring, x, y, 0, edge ? 9 : (x / 7 + y / 5) % 4);
        }
    set_value(sparse, 0, 0, 0, 1000000);
    set_value(sparse, 32, 16, 4, 1000000);
    set_value(sparse, 5, 5, 2, 77);
    parac_image *values = random_values(1500, 70, 1, PARAC_F32, 3);
    check(all, NULL, "one label everywhere");
    check(all, values, "one label everywhere, f32 values");
    check(ring, NULL, "a ring around stripes");
    check(sparse, NULL, "sparse labels in a volume");
    parac_image_destroy(values);
    parac_image_destroy(all);
    parac_image_destroy(ring);
    parac_image_destroy(sparse);
}

static void test_thread_counts(void **state)
{
    (void)state;
    parac_image *l = random_labels(97, 61, 1, PARAC_I32, 50, 5), *v = random_values(97, 61, 1, PARAC_U16, 6);
    const int counts[] = {1, 2, 3, 7, 16, 61, 200};
    for (int k = 0; k < 7; k++) {
        parac_context_set_threads(ctx, counts[k]);
        check(l, v, "threads");
    }
    parac_context_set_threads(ctx, 0);
    parac_image_destroy(l);
    parac_image_destroy(v);
}

static void test_refusals(void **state)
{
    (void)state;
    parac_image *lab = NULL, *neg = NULL, *f32 = NULL, *small = NULL, *nan = NULL, *table = NULL;
    assert_ok(parac_image_create_zeroed(&lab, 8, 6, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create_zeroed(&neg, 8, 6, 1, 1, PARAC_I32, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create_zeroed(&f32, 8, 6, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create_zeroed(&small, 8, 5, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create_zeroed(&nan, 8, 6, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
    set_value(neg, 3, 3, 0, -2);
    set_value(nan, 1, 1, 0, NAN);
    assert_int_equal(parac_regionprops(ctx, neg, NULL, &table, NULL), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "negative"));
    /* i64: negative, and labels too large for a table indexed by label
     * (refused before any allocation: on the CPU past 2^31 - 1 and the pixel
     * count, on CUDA past its 32-bit index) */
    parac_image *wide = NULL;
    assert_ok(parac_image_create_zeroed(&wide, 8, 6, 1, 1, PARAC_I64, PARAC_MEMORY_HOST, -1));
    *(int64_t *)parac_image_at(wide, 2, 1, 0) = INT64_MIN;
    assert_int_equal(parac_regionprops(ctx, wide, NULL, &table, NULL), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "negative"));
    *(int64_t *)parac_image_at(wide, 2, 1, 0) = (int64_t)1 << 50;
    assert_int_equal(parac_regionprops(ctx, wide, NULL, &table, NULL), PARAC_ERR_UNSUPPORTED);
    assert_non_null(strstr(parac_error_message(), "largest label is 1125899906842624"));
    parac_image_destroy(wide);
    assert_int_equal(parac_regionprops(ctx, f32, NULL, &table, NULL), PARAC_ERR_UNSUPPORTED);
    assert_int_equal(parac_regionprops(ctx, lab, small, &table, NULL), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "same size"));
    assert_int_equal(parac_regionprops(ctx, lab, nan, &table, NULL), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "NaN"));
    assert_null(table);
    /* no region: a count of 0 and one row of zeros */
    int64_t n = -1;
    assert_ok(parac_regionprops(ctx, lab, f32, &table, &n));
    assert_int_equal(n, 0);
    assert_int_equal(table->height, 1);
    parac_image_destroy(table);
    parac_image_destroy(lab), parac_image_destroy(neg), parac_image_destroy(f32), parac_image_destroy(small);
    parac_image_destroy(nan);
}

/* The registry's optional input and table columns, through the text path. */
static void test_registry(void **state)
{
    (void)state;
    const parac_op *op = parac_op_find("regionprops");
    assert_non_null(op);
    const char *names[32];
    assert_int_equal(op->table_columns(0, 2, 1, names, 32), 8);
    assert_string_equal(names[2], "bbox-0");
    assert_int_equal(op->table_columns(0, 3, 2, names, 32), 14);
    assert_string_equal(names[13], "intensity_mean");
    parac_image *l = random_labels(40, 30, 1, PARAC_U8, 5, 9), *out = NULL;
    double results[PARAC_MAX_RESULTS] = {-1};
    assert_ok(parac_op_run_results(ctx, "regionprops", &l, 1, &out, 1, NULL, results, PARAC_MAX_RESULTS, NULL, 0));
    assert_true(results[0] >= 1 && results[0] <= 5);
    parac_image_destroy(out);
    parac_image *three[3] = {l, l, l};
    assert_int_equal(parac_op_run_results(ctx, "regionprops", three, 3, &out, 1, NULL, NULL, 0, NULL, 0),
                     PARAC_ERR_INVALID_ARGUMENT);
    parac_image_destroy(l);
}

/* The oracle of remove-small-*: each component of the pixels whose
 * zeroness is `zeros` found by a queue, its size against min_size. */
static uint8_t *small_oracle(const parac_image *im, int conn, int64_t min_size, int holes)
{
    const int64_t w = im->width, h = im->height, d = im->depth, n = w * h * d;
    uint8_t *seen = calloc((size_t)n, 1), *small = calloc((size_t)n, 1);
    int64_t *queue = malloc((size_t)n * sizeof *queue);
    assert_non_null(seen), assert_non_null(small), assert_non_null(queue);
    for (int64_t p = 0; p < n; p++) {
        const int zero = value_at(im, p % w, p / w % h, p / (w * h)) == 0;
        if (seen[p] || zero != holes) continue;
        int64_t head = 0, tail = 0;
        queue[tail++] = p;
        seen[p] = 1;
        while (head < tail) {
            const int64_t q = queue[head++], x = q % w, y = q / w % h, z = q / (w * h);
            for (int dz = -1; dz <= 1; dz++)
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        if (!reaches(conn, dx, dy, dz) || (d == 1 && dz != 0)) continue;
                        const int64_t nx = x + dx, ny = y + dy, nz = z + dz;
                        if (nx < 0 || nx >= w || ny < 0 || ny >= h || nz < 0 || nz >= d) continue;
                        const int64_t m = (nz * h + ny) * w + nx;
                        if (seen[m] || (value_at(im, nx, ny, nz) == 0) != holes) continue;
                        seen[m] = 1;
                        queue[tail++] = m;
                    }
        }
        for (int64_t k = 0; k < tail; k++) small[queue[k]] = tail < min_size;
    }
    free(seen);
    free(queue);
    return small;
}

static void check_small(const parac_image *im, int conn, int64_t min_size, int holes, const char *what)
{
    parac_args *a = NULL;
    assert_ok(parac_args_create(&a));
    assert_ok(parac_args_set_number(a, "connectivity", conn));
    assert_ok(parac_args_set_number(a, holes ? "area-threshold" : "min-size", (double)min_size));
    parac_image *out = NULL, *host = NULL;
    if (parac_op_run(ctx, holes ? "remove-small-holes" : "remove-small-objects", (parac_image **)&im, 1, &out, 1, a,
                     NULL, 0) != PARAC_OK)
        fail_msg("%s: %s", what, parac_error_message());
    assert_ok(parac_image_download(&host, out, 0, parac_context_stream(ctx)));
    assert_ok(parac_context_synchronize(ctx));
    uint8_t *small = small_oracle(im, conn, min_size, holes);
    const int64_t w = im->width, h = im->height;
    for (int64_t z = 0; z < im->depth; z++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                const double v = value_at(im, x, y, z), got = value_at(host, x, y, z);
                const double want = holes ? (v != 0 || small[(z * h + y) * w + x] ? 255 : 0)
                                          : (small[(z * h + y) * w + x] ? 0 : v);
                if (got != want)
                    fail_msg("%s (conn %d, size %lld, %s): %g at (%lld, %lld, %lld), the oracle %g", what, conn,
                             (long long)min_size, holes ? "holes" : "objects", got, (long long)x, (long long)y,
                             (long long)z, want);
            }
    free(small);
    parac_args_destroy(a);
    parac_image_destroy(out);
    parac_image_destroy(host);
}

/* remove-small-objects --labels: every pixel of a label whose pixels are
 * fewer than min_size becomes 0, the others keep their label. */
static void check_small_labels(const parac_image *im, int64_t min_size, const char *what)
{
    const int64_t w = im->width, h = im->height, d = im->depth;
    int64_t largest = 0;
    for (int64_t p = 0; p < w * h * d; p++) {
        const double v = value_at(im, p % w, p / w % h, p / (w * h));
        if (v > largest) largest = (int64_t)v;
    }
    int64_t *area = calloc((size_t)largest + 1, sizeof *area);
    assert_non_null(area);
    for (int64_t p = 0; p < w * h * d; p++) area[(int64_t)value_at(im, p % w, p / w % h, p / (w * h))]++;
    parac_args *a = NULL;
    assert_ok(parac_args_create(&a));
    assert_ok(parac_args_set_number(a, "min-size", (double)min_size));
    assert_ok(parac_args_set(a, "labels", "true"));
    parac_image *out = NULL, *host = NULL;
    if (parac_op_run(ctx, "remove-small-objects", (parac_image **)&im, 1, &out, 1, a, NULL, 0) != PARAC_OK)
        fail_msg("%s: %s", what, parac_error_message());
    assert_ok(parac_image_download(&host, out, 0, parac_context_stream(ctx)));
    assert_ok(parac_context_synchronize(ctx));
    assert_int_equal(host->dtype, im->dtype);
    for (int64_t p = 0; p < w * h * d; p++) {
        const int64_t x = p % w, y = p / w % h, z = p / (w * h);
        const double v = value_at(im, x, y, z), got = value_at(host, x, y, z);
        const double want = v != 0 && area[(int64_t)v] < min_size ? 0 : v;
        if (got != want)
            fail_msg("%s (labels, size %lld): %g at (%lld, %lld, %lld), the oracle %g", what, (long long)min_size, got,
                     (long long)x, (long long)y, (long long)z, want);
    }
    free(area);
    parac_args_destroy(a);
    parac_image_destroy(out);
    parac_image_destroy(host);
}

/* remove-small-objects and remove-small-holes against the oracle: tiny
 * images, random masks of odd sizes in 2D and 3D, every connectivity and
 * sizes from 0 to beyond the image. */
static void test_remove_small(void **state)
{
    (void)state;
    parac_image *one = NULL;
    assert_ok(parac_image_create_zeroed(&one, 1, 1, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    check_small(one, 4, 2, 1, "one zero pixel");
    check_small(one, 8, 1, 1, "one zero pixel");
    set_value(one, 0, 0, 0, 7);
    check_small(one, 4, 2, 0, "one pixel");
    parac_image_destroy(one);
    const int64_t sizes[] = {0, 1, 2, 5, 30, 1000000};
    parac_image *m2 = random_labels(613, 29, 1, PARAC_U8, 1, 3), *m3 = random_labels(23, 11, 7, PARAC_U16, 1, 4);
    parac_image *w2 = random_labels(301, 23, 1, PARAC_I64, 1, 5); /* i64 masks: the output i64 too */
    for (int k = 0; k < 6; k++)
        for (int holes = 0; holes < 2; holes++) {
            check_small(m2, 4, sizes[k], holes, "2D");
            check_small(m2, 8, sizes[k], holes, "2D");
            check_small(m3, 6, sizes[k], holes, "3D");
            check_small(m3, 18, sizes[k], holes, "3D");
            check_small(m3, 26, sizes[k], holes, "3D");
            check_small(w2, 8, sizes[k], holes, "2D, i64");
        }
    parac_image_destroy(m2);
    parac_image_destroy(m3);
    parac_image_destroy(w2);
    const parac_dtype label_types[] = {PARAC_U16, PARAC_I32, PARAC_I64};
    for (int t = 0; t < 3; t++) {
        parac_image *l2 = random_labels(211, 31, 1, label_types[t], 300, 7), *l3 = random_labels(19, 13, 6, label_types[t], 40, 8);
        for (int k = 0; k < 5; k++) {
            check_small_labels(l2, sizes[k], "2D labels");
            check_small_labels(l3, sizes[k], "3D labels");
        }
        parac_image_destroy(l2);
        parac_image_destroy(l3);
    }
}

/* lookup against the table read by hand: the index and the table as one
 * channel of two (pixels and entries with gaps between them, the methods'
 * packed copies), resident where the context computes, 2D and 3D, every
 * index dtype; an index out of range is refused and named. */
static void check_lookup(int64_t w, int64_t h, int64_t d, parac_dtype it, parac_dtype et, uint64_t seed)
{
    const int64_t entries = 301;
    parac_image *pair = NULL, *tpair = NULL;
    assert_ok(parac_image_create(&pair, w, h, d, 2, it, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create(&tpair, entries, 1, 1, 2, et, PARAC_MEMORY_HOST, -1));
    uint64_t r = seed;
    parac_image *hidx = NULL, *htab = NULL;
    assert_ok(parac_image_view_channel(&hidx, pair, 1));
    assert_ok(parac_image_view_channel(&htab, tpair, 0));
    for (int64_t z = 0; z < d; z++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) set_value(hidx, x, y, z, (double)(test_rand(&r) % (uint64_t)entries));
    for (int64_t i = 0; i < entries; i++) set_value(htab, i, 0, 0, (double)(test_rand(&r) % 200) - (et == PARAC_U8 ? 0 : 50));
    parac_image *dpair = pair, *dtpair = tpair;
#ifdef PARAC_LABEL_TEST_GPU
    assert_ok(parac_image_upload(&dpair, pair, 0, NULL));
    assert_ok(parac_image_upload(&dtpair, tpair, 0, NULL));
#endif
    parac_image *idx = NULL, *tab = NULL, *out = NULL, *host = NULL;
    assert_ok(parac_image_view_channel(&idx, dpair, 1));
    assert_ok(parac_image_view_channel(&tab, dtpair, 0));
    assert_ok(parac_lookup(ctx, idx, tab, &out));
    assert_ok(parac_image_clone(&host, out, PARAC_MEMORY_HOST, -1, NULL));
    assert_int_equal(host->dtype, et);
    for (int64_t z = 0; z < d; z++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                const int64_t k = (int64_t)value_at(hidx, x, y, z);
                assert_true(value_at(host, x, y, z) == value_at(htab, k, 0, 0));
            }
    parac_image_destroy(out);
    parac_image_destroy(host);
    out = host = NULL;
    /* two indices out of range: the first in raster order is named */
    set_value(hidx, w - 1, h - 1, d - 1, (double)entries);
    set_value(hidx, w / 2, h / 2, d - 1, (double)entries + 1);
    parac_image_destroy(idx);
#ifdef PARAC_LABEL_TEST_GPU
    assert_ok(parac_image_copy(dpair, pair, NULL));
#endif
    assert_ok(parac_image_view_channel(&idx, dpair, 1));
    assert_int_equal(parac_lookup(ctx, idx, tab, &out), PARAC_ERR_INVALID_ARGUMENT);
    assert_null(out);
    char want[160];
    if (d > 1)
        snprintf(want, sizeof want, "INDEX holds %lld at (x %lld, y %lld, z %lld), outside TABLE's 301 entries (0..300)",
                 (long long)entries + 1, (long long)(w / 2), (long long)(h / 2), (long long)(d - 1));
    else
        snprintf(want, sizeof want, "INDEX holds %lld at (x %lld, y %lld), outside TABLE's 301 entries (0..300)",
                 (long long)entries + 1, (long long)(w / 2), (long long)(h / 2));
    if (!strstr(parac_error_message(), want)) fail_msg("%s\nwanted: %s", parac_error_message(), want);
    parac_image_destroy(idx);
    parac_image_destroy(tab);
    parac_image_destroy(hidx);
    parac_image_destroy(htab);
    if (dpair != pair) parac_image_destroy(dpair);
    if (dtpair != tpair) parac_image_destroy(dtpair);
    parac_image_destroy(pair);
    parac_image_destroy(tpair);
}

static void test_lookup(void **state)
{
    (void)state;
    check_lookup(517, 33, 1, PARAC_U16, PARAC_F32, 1);
    check_lookup(61, 17, 5, PARAC_I32, PARAC_I64, 2);
    check_lookup(1, 1, 1, PARAC_I64, PARAC_U8, 3);
    check_lookup(3000, 7, 1, PARAC_I64, PARAC_U16, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random),   cmocka_unit_test(test_shapes),   cmocka_unit_test(test_thread_counts),
        cmocka_unit_test(test_refusals), cmocka_unit_test(test_registry),  cmocka_unit_test(test_remove_small),
        cmocka_unit_test(test_lookup),
    };
#ifdef PARAC_LABEL_TEST_GPU
    if (!test_have_gpu()) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
#endif
    return cmocka_run_group_tests(tests, setup, teardown);
}
