/* The approximate field: building the cell tree, and its evaluation on the
 * CPU in double (see skel_field_approx.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "skel_field_approx.h"

static int64_t cell_of(float v, float side)
{
    return (int64_t)floorf(v / side);
}

/* Moments of n charges (3 floats each) into m. */
static void moments(const float *c, int64_t n, float *m)
{
    double s[3] = {0, 0, 0}, Q[6] = {0, 0, 0, 0, 0, 0};
    for (int64_t a = 0; a < n; a++)
        for (int k = 0; k < 3; k++) s[k] += c[3 * a + k];
    for (int k = 0; k < 3; k++) s[k] /= (double)n;
    for (int64_t a = 0; a < n; a++) {
        const double d[3] = {c[3 * a] - s[0], c[3 * a + 1] - s[1], c[3 * a + 2] - s[2]};
        Q[0] += d[0] * d[0], Q[1] += d[0] * d[1], Q[2] += d[0] * d[2];
        Q[3] += d[1] * d[1], Q[4] += d[1] * d[2], Q[5] += d[2] * d[2];
    }
    const float v[PARAC__SKEL_MOMENT_FLOATS] = {(float)s[0], (float)s[1], (float)s[2], (float)n, (float)Q[0], (float)Q[1],
                                                (float)Q[2], (float)Q[3], (float)Q[4], (float)Q[5], 0, 0};
    memcpy(m, v, sizeof v);
}

/* Counting sort of n points by key (< n_keys); start: n_keys + 1 entries;
 * perm[i]: the input index at sorted position i. */
static int sort_by_key(const int64_t *key, int64_t n, int64_t n_keys, int64_t *start, int64_t *perm)
{
    memset(start, 0, (size_t)(n_keys + 1) * sizeof *start);
    for (int64_t i = 0; i < n; i++) start[key[i] + 1]++;
    for (int64_t k = 0; k < n_keys; k++) start[k + 1] += start[k];
    int64_t *fill = parac__malloc((size_t)(n_keys ? n_keys : 1) * sizeof *fill);
    if (!fill) return -1;
    memcpy(fill, start, (size_t)n_keys * sizeof *fill);
    for (int64_t i = 0; i < n; i++) perm[fill[key[i]]++] = i;
    free(fill);
    return 0;
}

/* Key of an L1 cell: its L2 cell (x fastest), then its place inside it. */
static int64_t l1_key(const float *p, float cell, const int64_t n2[3])
{
    const int64_t S = PARAC__SKEL_L2_SPAN, x = cell_of(p[0], cell), y = cell_of(p[1], cell), z = cell_of(p[2], cell);
    const int64_t l2 = ((z / S) * n2[1] + y / S) * n2[0] + x / S;
    return l2 * S * S * S + ((z % S) * S + y % S) * S + x % S;
}

parac_status parac__skel_tree_build(const float *targets, int64_t nt, const float *charges, int64_t nc, float cell,
                                    double theta, parac__skel_tree *t)
{
    *t = (parac__skel_tree){.cell = cell, .nc = nc, .nt = nt};
    t->open1 = (float)(cell / theta);
    t->open2 = (float)(PARAC__SKEL_L2_SPAN * cell / theta);
    float hi[3] = {0, 0, 0};
    for (int64_t i = 0; i < nt; i++)
        for (int k = 0; k < 3; k++) hi[k] = fmaxf(hi[k], targets[3 * i + k]);
    for (int64_t i = 0; i < nc; i++)
        for (int k = 0; k < 3; k++) hi[k] = fmaxf(hi[k], charges[3 * i + k]);
    int64_t n2[3];
    for (int k = 0; k < 3; k++) n2[k] = cell_of(hi[k], cell * PARAC__SKEL_L2_SPAN) + 1;
    const int64_t span3 = PARAC__SKEL_L2_SPAN * PARAC__SKEL_L2_SPAN * PARAC__SKEL_L2_SPAN;
    const int64_t N1 = n2[0] * n2[1] * n2[2] * span3, nmax = nc > nt ? nc : nt;
    int64_t *key = parac__calloc((size_t)(nmax ? nmax : 1), sizeof *key), *perm = parac__malloc((size_t)(nmax ? nmax : 1) * sizeof *perm);
    int64_t *start = parac__malloc((size_t)(N1 + 1) * sizeof *start);
    t->charges = parac__malloc((size_t)(nc ? nc : 1) * 3 * sizeof *t->charges);
    t->targets = parac__malloc((size_t)(nt ? nt : 1) * 3 * sizeof *t->targets);
    t->order = parac__malloc((size_t)(nt ? nt : 1) * sizeof *t->order);
    parac_status st = PARAC_OK;
    if (!key || !perm || !start || !t->charges || !t->targets || !t->order)
        st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: the field's cell tree (%lld cells)", (long long)N1);
    /* charges in key order; the L1 cells and L2 cells they make */
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (st == PARAC_OK ? nc : 0); i++) key[i] = l1_key(charges + 3 * i, cell, n2);
    if (st == PARAC_OK && sort_by_key(key, nc, N1, start, perm))
        st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: the field's cell tree");
    if (st == PARAC_OK) {
        for (int64_t i = 0; i < nc; i++) memcpy(t->charges + 3 * i, charges + 3 * perm[i], 3 * sizeof *charges);
        int64_t last2 = -1;
        for (int64_t k = 0; k < N1; k++)
            if (start[k + 1] > start[k]) {
                t->n_l1++;
                if (k / span3 != last2) t->n_l2++, last2 = k / span3;
            }
        t->l1 = parac__malloc((size_t)(t->n_l1 ? t->n_l1 : 1) * PARAC__SKEL_MOMENT_FLOATS * sizeof *t->l1);
        t->l2 = parac__malloc((size_t)(t->n_l2 ? t->n_l2 : 1) * PARAC__SKEL_MOMENT_FLOATS * sizeof *t->l2);
        t->l1_range = parac__malloc((size_t)(t->n_l1 ? t->n_l1 : 1) * 2 * sizeof *t->l1_range);
        t->l2_range = parac__malloc((size_t)(t->n_l2 ? t->n_l2 : 1) * 2 * sizeof *t->l2_range);
        if (!t->l1 || !t->l2 || !t->l1_range || !t->l2_range)
            st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: %lld cell moments", (long long)t->n_l1);
    }
    if (st == PARAC_OK) {
        int64_t a = 0, b = -1, last2 = -1;
        for (int64_t k = 0; k < N1; k++) {
            if (start[k + 1] == start[k]) continue;
            if (k / span3 != last2) { /* a new L2 cell: close the previous one */
                if (b >= 0) t->l2_range[2 * b + 1] = a;
                t->l2_range[2 * ++b] = a;
                last2 = k / span3;
            }
            t->l1_range[2 * a] = start[k], t->l1_range[2 * a + 1] = start[k + 1];
            a++;
        }
#pragma omp parallel for schedule(dynamic, 64)
        for (int64_t c = 0; c < t->n_l1; c++)
            moments(t->charges + 3 * t->l1_range[2 * c], t->l1_range[2 * c + 1] - t->l1_range[2 * c],
                    t->l1 + c * PARAC__SKEL_MOMENT_FLOATS);
        if (b >= 0) t->l2_range[2 * b + 1] = a;
#pragma omp parallel for schedule(dynamic, 16)
        for (int64_t c = 0; c < t->n_l2; c++) {
            const int64_t first = t->l1_range[2 * t->l2_range[2 * c]], end = t->l1_range[2 * (t->l2_range[2 * c + 1] - 1) + 1];
            moments(t->charges + 3 * first, end - first, t->l2 + c * PARAC__SKEL_MOMENT_FLOATS);
        }
    }
    /* targets by L1 cell: one block per non-empty cell, with its bounding box */
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (st == PARAC_OK ? nt : 0); i++) key[i] = l1_key(targets + 3 * i, cell, n2);
    if (st == PARAC_OK && sort_by_key(key, nt, N1, start, t->order))
        st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: the field's cell tree");
    if (st == PARAC_OK) {
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < nt; i++) memcpy(t->targets + 3 * i, targets + 3 * t->order[i], 3 * sizeof *targets);
        for (int64_t k = 0; k < N1; k++) t->n_blocks += start[k + 1] > start[k];
        t->block_start = parac__malloc((size_t)(t->n_blocks + 1) * sizeof *t->block_start);
        t->block_box = parac__malloc((size_t)(t->n_blocks ? t->n_blocks : 1) * 6 * sizeof *t->block_box);
        if (!t->block_start || !t->block_box) st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: target blocks");
    }
    for (int64_t k = 0, b = 0; st == PARAC_OK && k < N1; k++)
        if (start[k + 1] > start[k]) t->block_start[b] = start[k], t->block_start[++b] = start[k + 1];
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < (st == PARAC_OK ? t->n_blocks : 0); b++) {
        float *box = t->block_box + 6 * b;
        for (int e = 0; e < 3; e++) box[e] = INFINITY, box[3 + e] = -INFINITY;
        for (int64_t i = t->block_start[b]; i < t->block_start[b + 1]; i++)
            for (int e = 0; e < 3; e++)
                box[e] = fminf(box[e], t->targets[3 * i + e]), box[3 + e] = fmaxf(box[3 + e], t->targets[3 * i + e]);
    }
    free(key), free(perm), free(start);
    if (st != PARAC_OK) parac__skel_tree_free(t);
    return st;
}

void parac__skel_tree_free(parac__skel_tree *t)
{
    free(t->charges), free(t->l1), free(t->l2), free(t->l1_range), free(t->l2_range), free(t->targets), free(t->order);
    free(t->block_start), free(t->block_box);
    *t = (parac__skel_tree){0};
}

/* The cell's monopole and quadrupole at p, added to F (q = M + 1):
 * F += n R r^-q + (1/2) Q_ij d_i d_j (R r^-q), the first-order term being
 * zero about the centroid. */
static void expansion(const float *m, const double p[3], int q, double F[3])
{
    const double R[3] = {p[0] - m[0], p[1] - m[1], p[2] - m[2]};
    const double r2 = R[0] * R[0] + R[1] * R[1] + R[2] * R[2], ir2 = 1 / r2;
    double rq = 1; /* r^-q */
    for (int k = 0; k < q / 2; k++) rq *= ir2;
    if (q % 2) rq *= sqrt(ir2);
    const double QR[3] = {m[4] * R[0] + m[5] * R[1] + m[6] * R[2], m[5] * R[0] + m[7] * R[1] + m[8] * R[2],
                          m[6] * R[0] + m[8] * R[1] + m[9] * R[2]};
    const double tr = m[4] + m[7] + m[9], RQR = R[0] * QR[0] + R[1] * QR[1] + R[2] * QR[2];
    const double a = m[3] * rq + 0.5 * q * rq * ir2 * (-tr + (q + 2) * ir2 * RQR), b = -q * rq * ir2;
    for (int k = 0; k < 3; k++) F[k] += a * R[k] + b * QR[k];
}

/* Squared distance from the box (lo, hi) to the point m. */
static double box_dist2(const float *box, const float *m)
{
    double d2 = 0;
    for (int e = 0; e < 3; e++) {
        const double d = m[e] < box[e] ? box[e] - m[e] : m[e] > box[3 + e] ? m[e] - box[3 + e] : 0;
        d2 += d * d;
    }
    return d2;
}

parac_status parac__skel_field_approx_cpu(const parac__skel_tree *t, int M, float *F, int threads)
{
    if (M < 1 || M > 10)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "skeleton: field strength must be 1..10, got %d", M);
    const int q = M + 1;
    const double o1 = (double)t->open1 * t->open1, o2 = (double)t->open2 * t->open2;
#pragma omp parallel for schedule(dynamic, 4) num_threads(threads > 0 ? threads : 1)
    for (int64_t b = 0; b < t->n_blocks; b++) {
        const float *box = t->block_box + 6 * b;
        for (int64_t i = t->block_start[b]; i < t->block_start[b + 1]; i++) {
            const double p[3] = {t->targets[3 * i], t->targets[3 * i + 1], t->targets[3 * i + 2]};
            double f[3] = {0, 0, 0};
            for (int64_t c2 = 0; c2 < t->n_l2; c2++) {
                const float *m2 = t->l2 + c2 * PARAC__SKEL_MOMENT_FLOATS;
                if (box_dist2(box, m2) >= o2) {
                    expansion(m2, p, q, f);
                    continue;
                }
                for (int64_t c1 = t->l2_range[2 * c2]; c1 < t->l2_range[2 * c2 + 1]; c1++) {
                    const float *m1 = t->l1 + c1 * PARAC__SKEL_MOMENT_FLOATS;
                    if (box_dist2(box, m1) >= o1) {
                        expansion(m1, p, q, f);
                        continue;
                    }
                    for (int64_t k = t->l1_range[2 * c1]; k < t->l1_range[2 * c1 + 1]; k++) {
                        const double d[3] = {p[0] - t->charges[3 * k], p[1] - t->charges[3 * k + 1],
                                             p[2] - t->charges[3 * k + 2]};
                        const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                        if (r2 == 0) continue; /* a target on a charge feels no force from it */
                        double s = 1;
                        for (int e = 0; e < q / 2; e++) s /= r2;
                        if (q % 2) s /= sqrt(r2);
                        for (int e = 0; e < 3; e++) f[e] += d[e] * s;
                    }
                }
            }
            const int64_t o = t->order[i];
            for (int e = 0; e < 3; e++) F[3 * o + e] = (float)f[e];
        }
    }
    return PARAC_OK;
}
