/* Stage 3 of the skeleton: the eigen-classification on known matrices,
 * critical points of linear fields (known position and class), and of the
 * potential field of a ball and a box (one attracting node at the centre),
 * a cylinder (every critical point on the axis) and a dumbbell (two
 * attracting nodes, a saddle between them on the axis). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "skeleton/skel.h"
#include "skeleton/skel_critical.h"
#include "test_util.h"

static void test_jacobian_classes(void **state)
{
    (void)state;
    int n;
    double v[3][3];
    const double att[9] = {-1, 0, 0, 0, -2, 0, 0, 0, -3};
    assert_int_equal(parac__skel_classify_jacobian(att, &n, v), PARAC__SKEL_ATTRACTING);
    assert_int_equal(n, 0);
    const double rep[9] = {1, 0.2, 0, 0, 2, 0, 0.1, 0, 3};
    assert_int_equal(parac__skel_classify_jacobian(rep, &n, v), PARAC__SKEL_REPELLING);
    assert_int_equal(n, 3);
    const double sad[9] = {2, 0, 0, 0, -1, 0, 0, 0, -1.5};
    assert_int_equal(parac__skel_classify_jacobian(sad, &n, v), PARAC__SKEL_SADDLE);
    assert_int_equal(n, 1);
    assert_true(fabs(fabs(v[0][0]) - 1) < 1e-9 && fabs(v[0][1]) < 1e-9 && fabs(v[0][2]) < 1e-9);
    const double spiral[9] = {-1, -2, 0, 2, -1, 0, 0, 0, 3}; /* -1 +- 2i and 3 */
    assert_int_equal(parac__skel_classify_jacobian(spiral, &n, v), PARAC__SKEL_SADDLE);
    assert_int_equal(n, 1);
    assert_true(fabs(fabs(v[0][2]) - 1) < 1e-9);
    const double singular[9] = {0, 0, 0, 0, -1, 0, 0, 0, -1};
    assert_int_equal(parac__skel_classify_jacobian(singular, &n, v), -1);
}

enum { LW = 12, LH = 13, LD = 11 };

static void linear_case(const double A[9], const double c[3], int kind)
{
    static float v[LW * LH * LD * 3];
    static uint8_t cls[LW * LH * LD];
    for (int z = 0; z < LD; z++)
        for (int y = 0; y < LH; y++)
            for (int x = 0; x < LW; x++) {
                const int i = (z * LH + y) * LW + x;
                const double d[3] = {x - c[0], y - c[1], z - c[2]};
                for (int r = 0; r < 3; r++) v[3 * i + r] = (float)(A[3 * r] * d[0] + A[3 * r + 1] * d[1] + A[3 * r + 2] * d[2]);
                cls[i] = 3;
            }
    const parac__skel_field f = {LW, LH, LD, v, cls};
    parac__skel_critical *cp;
    int64_t n;
    assert_ok(parac__skel_critical_points(&f, &cp, &n, 2));
    assert_int_equal(n, 1);
    for (int k = 0; k < 3; k++) assert_true(fabs(cp[0].p[k] - c[k]) < 1e-5);
    assert_int_equal(cp[0].kind, kind);
    free(cp);
}

static void test_linear_fields(void **state)
{
    (void)state;
    const double c[3] = {5.3, 6.7, 4.2};
    const double att[9] = {-1, 0.3, 0, 0, -1, 0, 0, 0.2, -2};
    linear_case(att, c, PARAC__SKEL_ATTRACTING);
    const double rep[9] = {1, 0, 0, 0, 1.5, 0, 0, 0, 1};
    linear_case(rep, c, PARAC__SKEL_REPELLING);
    const double sad[9] = {1, 0, 0, 0, -1, 0, 0, 0, -1};
    const double c2[3] = {6.0, 6.5, 5.25};
    linear_case(sad, c2, PARAC__SKEL_SADDLE);
}

/* The normalised potential field of an object (pfSkel's classes, M = 6). */
static void object_field(const parac_image *im, float **field, uint8_t **cls)
{
    const int64_t w = im->width, h = im->height, d = im->depth, n = w * h * d;
    *cls = malloc((size_t)n);
    assert_ok(parac__skel_classify(im, 1, PARAC__SKEL_RULES_PFSKEL, *cls));
    float *t, *c, *F;
    int64_t *ti, *ci, nt, nc;
    assert_ok(parac__skel_collect(*cls, w, h, d, PARAC__SKEL_INTERIOR, &t, &ti, &nt));
    assert_ok(parac__skel_collect(*cls, w, h, d, PARAC__SKEL_SURFACE, &c, &ci, &nc));
    F = malloc((size_t)nt * 3 * sizeof *F);
    assert_ok(parac__skel_field_cpu(t, nt, c, nc, 6, F, 2));
    *field = calloc((size_t)n * 3, sizeof **field);
    for (int64_t i = 0; i < nt; i++) memcpy(*field + 3 * ti[i], F + 3 * i, 3 * sizeof *F);
    parac__skel_normalize(*field, *cls, n);
    parac__skel_neighbour_means(*cls, w, h, d, PARAC__SKEL_SURFACE, 1 << PARAC__SKEL_INTERIOR, *field);
    parac__skel_normalize(*field, *cls, n);
    free(t), free(c), free(F), free(ti), free(ci);
}

static double dist3(const double a[3], double x, double y, double z)
{
    return sqrt((a[0] - x) * (a[0] - x) + (a[1] - y) * (a[1] - y) + (a[2] - z) * (a[2] - z));
}

static void test_ball(void **state)
{
    (void)state;
    parac_image *im;
    assert_ok(parac_image_create_zeroed(&im, 21, 21, 21, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    for (int z = 0; z < 21; z++)
        for (int y = 0; y < 21; y++)
            for (int x = 0; x < 21; x++)
                if ((x - 10) * (x - 10) + (y - 10) * (y - 10) + (z - 10) * (z - 10) <= 64)
                    *(uint8_t *)parac_image_at(im, x, y, z) = 255;
    float *field;
    uint8_t *cls;
    object_field(im, &field, &cls);
    const parac__skel_field f = {21, 21, 21, field, cls};
    parac__skel_critical *cp;
    int64_t n;
    assert_ok(parac__skel_critical_points(&f, &cp, &n, 2));
    int attracting = 0;
    for (int64_t i = 0; i < n; i++) {
        if (cp[i].kind == PARAC__SKEL_ATTRACTING) {
            attracting++;
            assert_true(dist3(cp[i].p, 10, 10, 10) < 1.0);
        }
        assert_int_not_equal(cp[i].kind, PARAC__SKEL_REPELLING);
    }
    assert_int_equal(attracting, 1);
    free(cp), free(field), free(cls);
    parac_image_destroy(im);
}

/* A box: one attracting node at its centre, nothing repelling. A cylinder
 * along x: every critical point on its axis, attracting nodes among them,
 * nothing repelling. */
static void test_box_and_cylinder(void **state)
{
    (void)state;
    for (int shape = 0; shape < 2; shape++) {
        const int W = shape ? 41 : 19, H = 19, D = 19;
        parac_image *im;
        assert_ok(parac_image_create_zeroed(&im, W, H, D, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
        for (int z = 0; z < D; z++)
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    const int in = shape ? x >= 3 && x <= 37 && (y - 9) * (y - 9) + (z - 9) * (z - 9) <= 36
                                         : x >= 2 && x <= 16 && y >= 2 && y <= 16 && z >= 2 && z <= 16;
                    if (in) *(uint8_t *)parac_image_at(im, x, y, z) = 255;
                }
        float *field;
        uint8_t *cls;
        object_field(im, &field, &cls);
        const parac__skel_field f = {W, H, D, field, cls};
        parac__skel_critical *cp;
        int64_t n;
        assert_ok(parac__skel_critical_points(&f, &cp, &n, 2));
        int attracting = 0;
        for (int64_t i = 0; i < n; i++) {
            assert_int_not_equal(cp[i].kind, PARAC__SKEL_REPELLING);
            attracting += cp[i].kind == PARAC__SKEL_ATTRACTING;
            if (shape) /* on the axis, inside the cylinder's length */
                assert_true(fabs(cp[i].p[1] - 9) < 1 && fabs(cp[i].p[2] - 9) < 1 && cp[i].p[0] > 3 && cp[i].p[0] < 37);
            else /* the centre */
                assert_true(dist3(cp[i].p, 9, 9, 9) < 1);
        }
        if (shape) assert_true(attracting >= 1);
        else assert_true(attracting == 1 && n == 1);
        free(cp), free(field), free(cls);
        parac_image_destroy(im);
    }
}

static void test_dumbbell(void **state)
{
    (void)state;
    enum { W = 45, H = 19, D = 19 };
    parac_image *im;
    assert_ok(parac_image_create_zeroed(&im, W, H, D, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                const int r2 = (y - 9) * (y - 9) + (z - 9) * (z - 9);
                const int ball = (x - 10) * (x - 10) + r2 <= 49 || (x - 34) * (x - 34) + r2 <= 49;
                const int bar = x >= 10 && x <= 34 && r2 <= 5;
                if (ball || bar) *(uint8_t *)parac_image_at(im, x, y, z) = 255;
            }
    float *field;
    uint8_t *cls;
    object_field(im, &field, &cls);
    const parac__skel_field f = {W, H, D, field, cls};
    parac__skel_critical *cp;
    int64_t n;
    assert_ok(parac__skel_critical_points(&f, &cp, &n, 2));
    int near_a = 0, near_b = 0, saddle_between = 0;
    for (int64_t i = 0; i < n; i++) {
        if (cp[i].kind == PARAC__SKEL_ATTRACTING) {
            near_a += dist3(cp[i].p, 10, 9, 9) < 1.5;
            near_b += dist3(cp[i].p, 34, 9, 9) < 1.5;
        }
        if (cp[i].kind == PARAC__SKEL_SADDLE && cp[i].p[0] > 14 && cp[i].p[0] < 30 &&
            fabs(cp[i].p[1] - 9) < 1.5 && fabs(cp[i].p[2] - 9) < 1.5) {
            saddle_between++;
            assert_true(cp[i].n_out >= 1);
        }
    }
    if (!(near_a >= 1 && near_b >= 1 && saddle_between >= 1)) {
        for (int64_t i = 0; i < n; i++)
            print_message("critical %lld: (%.2f %.2f %.2f) kind %d\n", (long long)i, cp[i].p[0], cp[i].p[1], cp[i].p[2], cp[i].kind);
        fail_msg("dumbbell: attracting near the ball centres %d/%d, saddles on the bar %d", near_a, near_b,
                 saddle_between);
    }
    /* the same list, in the same order, on any number of threads */
    for (int threads = 1; threads <= 5; threads += 4) {
        parac__skel_critical *cq;
        int64_t m;
        assert_ok(parac__skel_critical_points(&f, &cq, &m, threads));
        assert_int_equal(m, n);
        for (int64_t i = 0; i < n; i++) {
            assert_int_equal(cq[i].kind, cp[i].kind);
            assert_memory_equal(cq[i].p, cp[i].p, sizeof cp[i].p);
        }
        free(cq);
    }
    free(cp), free(field), free(cls);
    parac_image_destroy(im);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jacobian_classes),
        cmocka_unit_test(test_linear_fields),
        cmocka_unit_test(test_ball),
        cmocka_unit_test(test_box_and_cylinder),
        cmocka_unit_test(test_dumbbell),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
