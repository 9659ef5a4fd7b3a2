/* The approximate field (the cell tree) against the exact sum: a tube whose
 * radius varies along it, M = 4, 6 and 9, on the CPU (double) and on CUDA
 * (fp32, where a GPU is). Bounds: the angle to the exact vector, mean and
 * 99th percentile, and the largest angle where the field is not near zero
 * (|F| >= 1 % of the largest); plus every charge counted once (the
 * monopoles' charge total equals the charge count). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "skeleton/skel.h"
#include "skeleton/skel_field_approx.h"
#include "test_util.h"

typedef struct lists {
    float *t, *c;
    int64_t nt, nc;
} lists;

static lists tube(void)
{
    enum { W = 41, H = 37, D = 90 };
    parac_image *im;
    assert_ok(parac_image_create_zeroed(&im, W, H, D, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    for (int z = 3; z < D - 3; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                const double r = 13 * (1 + 0.3 * sin(z * 0.1)), dx = x - 20.3, dy = y - 18.0;
                if (dx * dx + dy * dy <= r * r) *(uint8_t *)parac_image_at(im, x, y, z) = 255;
            }
    uint8_t *cls = malloc(W * H * D);
    lists l;
    int64_t *ix;
    assert_ok(parac__skel_classify(im, 1, PARAC__SKEL_RULES_PAPER, cls));
    assert_ok(parac__skel_collect(cls, W, H, D, PARAC__SKEL_INTERIOR, &l.t, &ix, &l.nt));
    free(ix);
    assert_ok(parac__skel_collect(cls, W, H, D, PARAC__SKEL_SURFACE, &l.c, &ix, &l.nc));
    free(ix), free(cls);
    parac_image_destroy(im);
    return l;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void compare(const float *E, const float *A, int64_t nt, double mean_max, double p99_max, double strong_max,
                    const char *what)
{
    double *ang = malloc((size_t)nt * sizeof *ang), sum = 0, big = 0, strong = 0;
    for (int64_t i = 0; i < nt; i++) big = fmax(big, sqrt((double)E[3 * i] * E[3 * i] + (double)E[3 * i + 1] * E[3 * i + 1] +
                                                          (double)E[3 * i + 2] * E[3 * i + 2]));
    for (int64_t i = 0; i < nt; i++) {
        double ee = 0, aa = 0, ea = 0;
        for (int k = 0; k < 3; k++)
            ee += (double)E[3 * i + k] * E[3 * i + k], aa += (double)A[3 * i + k] * A[3 * i + k],
                ea += (double)E[3 * i + k] * A[3 * i + k];
        const double c = ea / (sqrt(ee * aa) + 1e-300);
        ang[i] = acos(c > 1 ? 1 : c < -1 ? -1 : c) * 57.29577951308232;
        sum += ang[i];
        if (sqrt(ee) >= 0.01 * big) strong = fmax(strong, ang[i]);
    }
    qsort(ang, (size_t)nt, sizeof *ang, by_value);
    const double mean = sum / (double)nt, p99 = ang[(int64_t)(0.99 * (double)(nt - 1))];
    if (!(mean <= mean_max && p99 <= p99_max && strong <= strong_max))
        fail_msg("%s: angle mean %.5f (max %g), p99 %.5f (max %g), largest where |F| >= 1%% %.4f (max %g)", what, mean,
                 mean_max, p99, p99_max, strong, strong_max);
    free(ang);
}

static void test_tree(void **state)
{
    (void)state;
    lists l = tube();
    parac__skel_tree t;
    assert_ok(parac__skel_tree_build(l.t, l.nt, l.c, l.nc, 4, PARAC__SKEL_THETA, &t));
    double n1 = 0, n2 = 0;
    for (int64_t c = 0; c < t.n_l1; c++) n1 += t.l1[c * PARAC__SKEL_MOMENT_FLOATS + 3];
    for (int64_t c = 0; c < t.n_l2; c++) n2 += t.l2[c * PARAC__SKEL_MOMENT_FLOATS + 3];
    assert_true(n1 == (double)l.nc && n2 == (double)l.nc);
    assert_int_equal(t.block_start[t.n_blocks], l.nt);
    /* every target once, in a block whose box holds it */
    char *seen = calloc((size_t)l.nt, 1);
    for (int64_t b = 0; b < t.n_blocks; b++)
        for (int64_t i = t.block_start[b]; i < t.block_start[b + 1]; i++) {
            seen[t.order[i]]++;
            for (int e = 0; e < 3; e++)
                assert_true(t.targets[3 * i + e] >= t.block_box[6 * b + e] && t.targets[3 * i + e] <= t.block_box[6 * b + 3 + e]);
        }
    for (int64_t i = 0; i < l.nt; i++) assert_int_equal(seen[i], 1);
    free(seen);
    parac__skel_tree_free(&t);
    free(l.t), free(l.c);
}

static void test_approx(void **state)
{
    (void)state;
    lists l = tube();
    parac__skel_tree t;
    assert_ok(parac__skel_tree_build(l.t, l.nt, l.c, l.nc, 4, PARAC__SKEL_THETA, &t));
    float *E = malloc((size_t)l.nt * 12), *A = malloc((size_t)l.nt * 12), *G = malloc((size_t)l.nt * 12);
    const int gpu = test_have_gpu();
    parac_context *ctx = NULL;
    if (gpu) assert_ok(parac_context_create(&ctx, "cuda"));
    static const int Ms[] = {4, 6, 9};
    for (int m = 0; m < 3; m++) {
        char what[64];
        assert_ok(parac__skel_field_cpu(l.t, l.nt, l.c, l.nc, Ms[m], E, 4));
        assert_ok(parac__skel_field_approx_cpu(&t, Ms[m], A, 3));
        snprintf(what, sizeof what, "cpu approx M=%d", Ms[m]);
        compare(E, A, l.nt, 0.01, 0.05, 0.5, what);
        if (gpu) {
            assert_ok(parac__skel_field_approx_cuda(&t, Ms[m], G, parac_context_stream(ctx), NULL));
            snprintf(what, sizeof what, "cuda approx M=%d", Ms[m]);
            compare(E, G, l.nt, 0.01, 0.05, 0.5, what);
            snprintf(what, sizeof what, "cuda approx vs cpu approx M=%d", Ms[m]);
            compare(A, G, l.nt, 0.001, 0.005, 0.05, what);
        }
    }
    assert_int_not_equal(parac__skel_field_approx_cpu(&t, 0, A, 1), PARAC_OK);
    parac_context_destroy(ctx);
    parac__skel_tree_free(&t);
    free(E), free(A), free(G), free(l.t), free(l.c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree),
        cmocka_unit_test(test_approx),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
