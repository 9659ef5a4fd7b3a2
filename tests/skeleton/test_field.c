/* Stages 1 and 2 of the skeleton: voxel classes against a direct reading of
 * the paper's rules, the potential field on the CPU and on CUDA (each of the
 * three kernels) against a float64 brute force, and boundary means. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "skeleton/skel.h"
#include "test_util.h"

enum { W = 23, H = 19, D = 17 };

/* A ball and a bar: object voxels 255. */
static parac_image *shape(void)
{
    parac_image *im;
    assert_ok(parac_image_create_zeroed(&im, W, H, D, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                const double r = sqrt((x - 8.0) * (x - 8.0) + (y - 9.0) * (y - 9.0) + (z - 8.0) * (z - 8.0));
                const int bar = x >= 12 && x <= 21 && y >= 7 && y <= 11 && z >= 6 && z <= 10;
                if (r <= 6.2 || bar) *(uint8_t *)parac_image_at(im, x, y, z) = 255;
            }
    return im;
}

static int obj(const parac_image *im, int x, int y, int z)
{
    if (x < 0 || y < 0 || z < 0 || x >= W || y >= H || z >= D) return 0;
    return *(const uint8_t *)parac_image_at(im, x, y, z) != 0;
}

static void test_classes(void **state)
{
    (void)state;
    parac_image *im = shape();
    uint8_t *cls = malloc(W * H * D);
    for (int rules = 0; rules < 2; rules++) {
        assert_ok(parac__skel_classify(im, 1, (parac__skel_rules)rules, cls));
        /* surface straight from the definition */
        static uint8_t surf[W * H * D];
        for (int z = 0; z < D; z++)
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    int s = 0;
                    for (int dz = -1; dz <= 1; dz++)
                        for (int dy = -1; dy <= 1; dy++)
                            for (int dx = -1; dx <= 1; dx++) {
                                const int k = abs(dx) + abs(dy) + abs(dz);
                                if (k == 0 || (rules == 1 && k > 1)) continue;
                                if (!obj(im, x + dx, y + dy, z + dz)) s = 1;
                            }
                    surf[(z * H + y) * W + x] = obj(im, x, y, z) && s;
                }
        for (int z = 0; z < D; z++)
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    const int i = (z * H + y) * W + x;
                    int want = !obj(im, x, y, z) ? PARAC__SKEL_EXTERIOR : surf[i] ? PARAC__SKEL_SURFACE : PARAC__SKEL_INTERIOR;
                    if (rules == 0 && want == PARAC__SKEL_INTERIOR) {
                        int near = 0;
                        for (int dz = -1; dz <= 1; dz++)
                            for (int dy = -1; dy <= 1; dy++)
                                for (int dx = -1; dx <= 1; dx++) {
                                    const int nx = x + dx, ny = y + dy, nz = z + dz;
                                    if (nx < 0 || ny < 0 || nz < 0 || nx >= W || ny >= H || nz >= D) continue;
                                    if (surf[(nz * H + ny) * W + nx]) near = 1;
                                }
                        if (near) want = PARAC__SKEL_BOUNDARY;
                    }
                    if (cls[i] != want) fail_msg("rules %d voxel (%d,%d,%d): class %d, want %d", rules, x, y, z, cls[i], want);
                }
    }
    free(cls);
    parac_image_destroy(im);
}

/* The brute force in float64, with pow(). */
static void brute(const float *t, int64_t nt, const float *c, int64_t nc, int M, double *F)
{
    for (int64_t i = 0; i < nt; i++) {
        double f[3] = {0, 0, 0};
        for (int64_t j = 0; j < nc; j++) {
            double d[3], r2 = 0;
            for (int k = 0; k < 3; k++) d[k] = (double)t[3 * i + k] - c[3 * j + k], r2 += d[k] * d[k];
            if (r2 == 0) continue;
            const double s = 1.0 / pow(sqrt(r2), M + 1);
            for (int k = 0; k < 3; k++) f[k] += d[k] * s;
        }
        memcpy(F + 3 * i, f, sizeof f);
    }
}

/* Angle (degrees) and relative magnitude error of every vector where the
 * field is not near zero; near zero, the absolute error against the largest. */
static void compare(const float *got, const double *want, int64_t n, double max_deg, double max_rel, const char *what)
{
    double big = 0;
    for (int64_t i = 0; i < n; i++) big = fmax(big, sqrt(want[3 * i] * want[3 * i] + want[3 * i + 1] * want[3 * i + 1] + want[3 * i + 2] * want[3 * i + 2]));
    for (int64_t i = 0; i < n; i++) {
        const double *w = want + 3 * i;
        const double wn = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
        const double gn = sqrt((double)got[3 * i] * got[3 * i] + (double)got[3 * i + 1] * got[3 * i + 1] +
                               (double)got[3 * i + 2] * got[3 * i + 2]);
        double err = 0;
        for (int k = 0; k < 3; k++) err += (got[3 * i + k] - w[k]) * (got[3 * i + k] - w[k]);
        err = sqrt(err);
        if (wn < 1e-3 * big) {
            if (err > 1e-5 * big) fail_msg("%s: point %lld near zero: error %g of max %g", what, (long long)i, err, big);
            continue;
        }
        const double cosang = (got[3 * i] * w[0] + got[3 * i + 1] * w[1] + got[3 * i + 2] * w[2]) / (gn * wn);
        const double deg = acos(fmin(1.0, fmax(-1.0, cosang))) * 57.29577951308232;
        if (deg > max_deg || fabs(gn - wn) > max_rel * wn)
            fail_msg("%s: point %lld: %g degrees, magnitude %g vs %g", what, (long long)i, deg, gn, wn);
    }
}

typedef struct lists {
    float *t, *c;
    int64_t nt, nc, *ti, *ci;
    uint8_t *cls;
} lists;

static lists make_lists(void)
{
    parac_image *im = shape();
    lists l = {0};
    l.cls = malloc(W * H * D);
    assert_ok(parac__skel_classify(im, 1, PARAC__SKEL_RULES_PAPER, l.cls));
    assert_ok(parac__skel_collect(l.cls, W, H, D, PARAC__SKEL_INTERIOR, &l.t, &l.ti, &l.nt));
    assert_ok(parac__skel_collect(l.cls, W, H, D, PARAC__SKEL_SURFACE, &l.c, &l.ci, &l.nc));
    assert_true(l.nt > 50 && l.nc > 200);
    parac_image_destroy(im);
    return l;
}

static void free_lists(lists *l)
{
    free(l->t), free(l->c), free(l->ti), free(l->ci), free(l->cls);
}

static void test_field_cpu(void **state)
{
    (void)state;
    lists l = make_lists();
    float *F = malloc((size_t)l.nt * 3 * sizeof *F);
    double *R = malloc((size_t)l.nt * 3 * sizeof *R);
    static const int Ms[] = {1, 4, 6, 9};
    for (int m = 0; m < 4; m++) {
        assert_ok(parac__skel_field_cpu(l.t, l.nt, l.c, l.nc, Ms[m], F, 3));
        brute(l.t, l.nt, l.c, l.nc, Ms[m], R);
        compare(F, R, l.nt, 1e-4, 1e-6, "cpu");
    }
    assert_int_not_equal(parac__skel_field_cpu(l.t, l.nt, l.c, l.nc, 0, F, 1), PARAC_OK);
    /* boundary means: one boundary voxel by hand */
    float *field = calloc((size_t)W * H * D * 3, sizeof *field);
    for (int64_t i = 0; i < l.nt; i++) memcpy(field + 3 * l.ti[i], F + 3 * i, 3 * sizeof *F);
    parac__skel_neighbour_means(l.cls, W, H, D, PARAC__SKEL_BOUNDARY, 1 << PARAC__SKEL_INTERIOR, field);
    int checked = 0;
    for (int64_t i = 0; i < (int64_t)W * H * D && checked < 20; i++) {
        if (l.cls[i] != PARAC__SKEL_BOUNDARY) continue;
        const int x = (int)(i % W), y = (int)(i / W % H), z = (int)(i / (W * H));
        double s[3] = {0, 0, 0};
        int n = 0;
        for (int j = 0; j < l.nt; j++) {
            const int64_t k = l.ti[j];
            const int kx = (int)(k % W), ky = (int)(k / W % H), kz = (int)(k / (W * H));
            if (abs(kx - x) <= 1 && abs(ky - y) <= 1 && abs(kz - z) <= 1)
                for (int c = 0; c < 3; c++) s[c] += F[3 * j + c], n++;
        }
        n /= 3;
        for (int c = 0; c < 3; c++) assert_true(fabs(field[3 * i + c] - (n ? s[c] / n : 0)) <= 1e-6 * (1 + fabs(s[c])));
        checked++;
    }
    assert_true(checked > 0);
    free(field);
    free(F);
    free(R);
    free_lists(&l);
}

static void test_field_cuda(void **state)
{
    (void)state;
    if (!test_have_gpu()) skip();
    parac_context *ctx;
    assert_ok(parac_context_create(&ctx, "cuda"));
    lists l = make_lists();
    parac_image *th, *ch, *td, *cd, *fd, *fh;
    assert_ok(parac_image_wrap(&th, l.t, 3 * l.nt, 1, 1, 1, PARAC_F32, 4, 12 * l.nt, 12 * l.nt, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_wrap(&ch, l.c, 3 * l.nc, 1, 1, 1, PARAC_F32, 4, 12 * l.nc, 12 * l.nc, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_upload(&td, th, 0, NULL));
    assert_ok(parac_image_upload(&cd, ch, 0, NULL));
    assert_ok(parac_image_create(&fd, 3 * l.nt, 1, 1, 1, PARAC_F32, PARAC_MEMORY_CUDA, 0));
    double *R = malloc((size_t)l.nt * 3 * sizeof *R);
    static const char *methods[] = {"tiled", "global", "constant"};
    static const int Ms[] = {1, 6, 10};
    for (int m = 0; m < 3; m++) {
        brute(l.t, l.nt, l.c, l.nc, Ms[m], R);
        for (int k = 0; k < 3; k++) {
            assert_ok(parac__skel_field_cuda(methods[k], td->data, l.nt, cd->data, l.nc, Ms[m], fd->data, NULL));
            assert_ok(parac_image_download(&fh, fd, 0, NULL));
            char what[64];
            snprintf(what, sizeof what, "cuda %s M=%d", methods[k], Ms[m]);
            compare(fh->data, R, l.nt, 0.05, 1e-3, what);
            parac_image_destroy(fh);
        }
    }
    assert_int_not_equal(parac__skel_field_cuda("tiled", td->data, l.nt, cd->data, l.nc, 11, fd->data, NULL), PARAC_OK);
    free(R);
    parac_image_destroy(th), parac_image_destroy(ch), parac_image_destroy(td), parac_image_destroy(cd);
    parac_image_destroy(fd);
    free_lists(&l);
    parac_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classes),
        cmocka_unit_test(test_field_cpu),
        cmocka_unit_test(test_field_cuda),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
