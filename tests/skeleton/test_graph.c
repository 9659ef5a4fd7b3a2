/* Building and joining the skeleton graph: the point grid's nearest-point
 * query against brute force, a trace's hit splitting a segment (junction)
 * or ending on a near endpoint, and joining the pieces of a skeleton inside
 * one object (a path through the middle of a tube) but never across two
 * objects. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "skeleton/skel_connect.h"
#include "skeleton/skel_graph.h"
#include "test_util.h"

static void test_point_grid(void **state)
{
    (void)state;
    parac__skel_point_grid g = {0};
    srand(7);
    double pts[2000][3];
    for (int i = 0; i < 2000; i++) {
        for (int k = 0; k < 3; k++) pts[i][k] = (rand() / (double)RAND_MAX) * 20 - 3;
        assert_int_equal(parac__skel_grid_add(&g, pts[i]), 0);
    }
    for (int q = 0; q < 500; q++) {
        double p[3];
        for (int k = 0; k < 3; k++) p[k] = (rand() / (double)RAND_MAX) * 20 - 3;
        const double r = 0.3 + 0.69 * (q % 2);
        int64_t want = -1;
        double best = r * r;
        for (int i = 0; i < 2000; i++) {
            const double d = (p[0] - pts[i][0]) * (p[0] - pts[i][0]) + (p[1] - pts[i][1]) * (p[1] - pts[i][1]) +
                             (p[2] - pts[i][2]) * (p[2] - pts[i][2]);
            if (d < best) best = d, want = i;
        }
        assert_int_equal(parac__skel_grid_near(&g, p, r), want);
    }
    parac__skel_grid_free(&g);
}

/* A straight segment along x at (y, z) = (5, 5), samples every 0.25. */
static int64_t straight(parac__skel_graph *g, double x0, double x1, int64_t a, int64_t b)
{
    const int64_t n = (int64_t)((x1 - x0) / 0.25) + 1;
    double *p = malloc((size_t)n * 3 * sizeof *p);
    for (int64_t i = 0; i < n; i++) p[3 * i] = x0 + 0.25 * (double)i, p[3 * i + 1] = 5, p[3 * i + 2] = 5;
    return parac__skel_add_segment(g, &(parac__skel_segment){p, n, a, b});
}

static void test_join_splits(void **state)
{
    (void)state;
    parac__skel_graph g = {0};
    const parac__skel_critical a = {.p = {2, 5, 5}, .kind = PARAC__SKEL_SADDLE}, b = {.p = {22, 5, 5}, .kind = PARAC__SKEL_ATTRACTING};
    assert_int_equal(parac__skel_add_node(&g, &a), 0);
    assert_int_equal(parac__skel_add_node(&g, &b), 1);
    assert_int_equal(straight(&g, 2, 22, 0, 1), 0);
    parac__skel_sample_index si = {0};
    assert_int_equal(parac__skel_index_segment(&si, &g, 0), 0);
    /* near an end: the end's node, no split */
    const double near_end[3] = {2.6, 5.2, 5};
    assert_int_equal(parac__skel_join(&g, &si, parac__skel_grid_near(&si.grid, near_end, 0.999)), 0);
    assert_int_equal(g.n_seg, 1);
    /* in the middle: a junction splits the segment where it was hit */
    const double mid[3] = {12.1, 5.4, 5};
    const int64_t j = parac__skel_join(&g, &si, parac__skel_grid_near(&si.grid, mid, 0.999));
    assert_int_equal(j, 2);
    assert_int_equal(g.node[j].kind, PARAC__SKEL_JUNCTION);
    assert_true(fabs(g.node[j].p[0] - 12) < 1e-12);
    assert_int_equal(g.n_seg, 2);
    assert_int_equal(g.seg[0].end, j);
    assert_int_equal(g.seg[1].start, j);
    assert_int_equal(g.seg[1].end, 1);
    assert_true(fabs(g.seg[0].p[3 * (g.seg[0].n - 1)] - 12) < 1e-12 && fabs(g.seg[1].p[0] - 12) < 1e-12);
    assert_int_equal(g.seg[0].n + g.seg[1].n, 81 + 1);
    /* the index follows the split: a hit on the tail is on the new segment */
    const int64_t tail = parac__skel_grid_near(&si.grid, (double[3]){18, 5, 5}, 0.1);
    assert_int_equal(si.seg[tail], 1);
    assert_true(fabs(g.seg[1].p[3 * si.idx[tail]] - 18) < 1e-12);
    parac__skel_sample_index_free(&si);
    parac__skel_graph_free(&g);
}

static void test_connect(void **state)
{
    (void)state;
    enum { W = 40, H = 11, D = 11 };
    /* a tube along x (radius 4 about y = z = 5) over x = 1..26, and a
     * second object, a short tube over x = 30..38 */
    uint8_t *cls = calloc(W * H * D, 1);
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                if ((y - 5) * (y - 5) + (z - 5) * (z - 5) <= 16 && ((x >= 1 && x <= 26) || (x >= 30 && x <= 38)))
                    cls[(z * H + y) * W + x] = 3;
    float *v = calloc(3 * W * H * D, sizeof *v);
    const parac__skel_field f = {W, H, D, v, cls};
    parac__skel_graph g = {0};
    const double at[6] = {3, 9, 17, 24, 32, 36};
    const int kind[6] = {PARAC__SKEL_END, PARAC__SKEL_ATTRACTING, PARAC__SKEL_ATTRACTING, PARAC__SKEL_END,
                         PARAC__SKEL_END, PARAC__SKEL_END};
    for (int i = 0; i < 6; i++) parac__skel_add_node(&g, &(parac__skel_critical){.p = {at[i], 5, 5}, .kind = kind[i]});
    straight(&g, 3, 9, 0, 1);
    straight(&g, 17, 24, 2, 3);
    straight(&g, 32, 36, 4, 5);
    int64_t paths = 0;
    assert_ok(parac__skel_connect(&f, &g, &paths));
    assert_int_equal(paths, 1); /* the gap 9..17 inside the first tube; never across to the second */
    const parac__skel_segment *s = &g.seg[g.n_seg - 1];
    assert_true((s->start == 1 && s->end == 2) || (s->start == 2 && s->end == 1));
    for (int64_t i = 0; i < s->n; i++) /* through the middle of the tube */
        assert_true(fabs(s->p[3 * i + 1] - 5) < 1e-9 && fabs(s->p[3 * i + 2] - 5) < 1e-9);
    uint8_t *vox = malloc(W * H * D);
    parac__skel_voxelize(&g, W, H, D, vox);
    for (int x = 3; x <= 24; x++) assert_int_equal(vox[(5 * H + 5) * W + x], 255);
    for (int x = 25; x <= 31; x++) assert_int_equal(vox[(5 * H + 5) * W + x], 0);
    free(vox), free(cls), free(v);
    parac__skel_graph_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_point_grid),
        cmocka_unit_test(test_join_splits),
        cmocka_unit_test(test_connect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
