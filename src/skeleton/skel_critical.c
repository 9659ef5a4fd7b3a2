/* Stage 3: critical points, after pfSkel's CritPts: only cells whose eight
 * corners are inside the object; a cell is a candidate when no component of
 * the field has one strict sign at all eight corners; candidates are split
 * 2x2x2 (trilinear values) down to depth 20, the first hit is refined by
 * Newton, and at most one critical point is kept per cell. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "skel.h"
#include "skel_critical.h"
#include "skel_point_grid.h"

#define DEPTH 20
#define NEWTON_STEPS 20
#define ZERO 1e-11
#define VISIT_LIMIT 20000 /* subdivision nodes per cell: a bound, never reached on smooth fields */

void parac__skel_normalize(float *v, const uint8_t *cls, int64_t n)
{
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        if (!cls[i]) continue;
        const double m = sqrt((double)v[3 * i] * v[3 * i] + (double)v[3 * i + 1] * v[3 * i + 1] +
                              (double)v[3 * i + 2] * v[3 * i + 2]);
        if (m > 0)
            for (int c = 0; c < 3; c++) v[3 * i + c] = (float)(v[3 * i + c] / m);
    }
}

static const float *at(const parac__skel_field *f, int64_t x, int64_t y, int64_t z)
{
    return f->v + 3 * ((z * f->h + y) * f->w + x);
}

void parac__skel_interpolate(const parac__skel_field *f, const double p[3], double out[3])
{
    const int64_t lim[3] = {f->w - 1, f->h - 1, f->d - 1};
    int64_t i0[3];
    double t[3];
    for (int k = 0; k < 3; k++) {
        double q = p[k] < 0 ? 0 : p[k] > (double)lim[k] ? (double)lim[k] : p[k];
        i0[k] = (int64_t)floor(q);
        if (i0[k] >= lim[k]) i0[k] = lim[k] > 0 ? lim[k] - 1 : 0;
        t[k] = lim[k] > 0 ? q - (double)i0[k] : 0;
    }
    out[0] = out[1] = out[2] = 0;
    for (int c = 0; c < 8; c++) {
        const int dx = c & 1, dy = (c >> 1) & 1, dz = c >> 2;
        const int64_t x = i0[0] + (lim[0] > 0 ? dx : 0), y = i0[1] + (lim[1] > 0 ? dy : 0),
                      z = i0[2] + (lim[2] > 0 ? dz : 0);
        const double wgt = (dx ? t[0] : 1 - t[0]) * (dy ? t[1] : 1 - t[1]) * (dz ? t[2] : 1 - t[2]);
        const float *v = at(f, x, y, z);
        for (int k = 0; k < 3; k++) out[k] += wgt * v[k];
    }
}

/* No component has one strict sign at all eight corners. */
static int sign_change(const double v[8][3])
{
    for (int k = 0; k < 3; k++) {
        int pos = 0, neg = 0;
        for (int c = 0; c < 8; c++) pos += v[c][k] > 0, neg += v[c][k] < 0;
        if (pos == 8 || neg == 8) return 0;
    }
    return 1;
}

/* Trilinear value inside the unit cell from its corners, at local (u,v,w). */
static void local(const double cv[8][3], double u, double v, double w, double out[3])
{
    for (int k = 0; k < 3; k++) {
        const double c00 = cv[0][k] * (1 - u) + cv[1][k] * u, c10 = cv[2][k] * (1 - u) + cv[3][k] * u;
        const double c01 = cv[4][k] * (1 - u) + cv[5][k] * u, c11 = cv[6][k] * (1 - u) + cv[7][k] * u;
        out[k] = (c00 * (1 - v) + c10 * v) * (1 - w) + (c01 * (1 - v) + c11 * v) * w;
    }
}

/* Depth-first subdivision of the sub-cell at local origin o, side s; returns
 * 1 with the sub-cell's centre in hit[] at the first cell of depth DEPTH. */
static int subdivide(const double cv[8][3], const double o[3], double s, int depth, int *visits, double hit[3])
{
    if (++*visits > VISIT_LIMIT) return 0;
    double v[8][3];
    for (int c = 0; c < 8; c++) local(cv, o[0] + (c & 1) * s, o[1] + ((c >> 1) & 1) * s, o[2] + (c >> 2) * s, v[c]);
    if (!sign_change(v)) return 0;
    if (depth == DEPTH) {
        for (int k = 0; k < 3; k++) hit[k] = o[k] + s / 2;
        return 1;
    }
    const double h = s / 2;
    for (int c = 0; c < 8; c++) {
        const double so[3] = {o[0] + (c & 1) * h, o[1] + ((c >> 1) & 1) * h, o[2] + (c >> 2) * h};
        if (subdivide(cv, so, h, depth + 1, visits, hit)) return 1;
    }
    return 0;
}

static void jacobian(const parac__skel_field *f, const double p[3], double J[9])
{
    const double h = ldexp(1.0, -21);
    for (int k = 0; k < 3; k++) {
        double a[3] = {p[0], p[1], p[2]}, b[3] = {p[0], p[1], p[2]}, fa[3], fb[3];
        a[k] += h;
        b[k] -= h;
        parac__skel_interpolate(f, a, fa);
        parac__skel_interpolate(f, b, fb);
        for (int r = 0; r < 3; r++) J[3 * r + k] = (fa[r] - fb[r]) / (2 * h);
    }
}

/* Solve A x = b (3x3, Cramer); 0 when singular. */
static int solve3(const double A[9], const double b[3], double x[3])
{
    const double det = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
                       A[2] * (A[3] * A[7] - A[4] * A[6]);
    if (fabs(det) < 1e-300) return 0;
    for (int k = 0; k < 3; k++) {
        double M[9];
        memcpy(M, A, sizeof M);
        for (int r = 0; r < 3; r++) M[3 * r + k] = b[r];
        x[k] = (M[0] * (M[4] * M[8] - M[5] * M[7]) - M[1] * (M[3] * M[8] - M[5] * M[6]) +
                M[2] * (M[3] * M[7] - M[4] * M[6])) / det;
    }
    return 1;
}

/* Unit vector spanning the null space of (J - lambda I). */
static void eigenvector(const double J[9], double lambda, double v[3])
{
    double A[9];
    memcpy(A, J, sizeof A);
    for (int k = 0; k < 3; k++) A[4 * k] -= lambda;
    double best = -1;
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++) {
            const double *r = A + 3 * a, *s = A + 3 * b;
            const double c[3] = {r[1] * s[2] - r[2] * s[1], r[2] * s[0] - r[0] * s[2], r[0] * s[1] - r[1] * s[0]};
            const double n = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
            if (n > best) {
                best = n;
                for (int k = 0; k < 3; k++) v[k] = n > 0 ? c[k] / n : (k == 0);
            }
        }
}

int parac__skel_classify_jacobian(const double J[9], int *n_out, double out[3][3])
{
    /* characteristic polynomial l^3 + a l^2 + b l + c */
    const double tr = J[0] + J[4] + J[8];
    const double m2 = J[0] * J[4] - J[1] * J[3] + J[0] * J[8] - J[2] * J[6] + J[4] * J[8] - J[5] * J[7];
    const double det = J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
                       J[2] * (J[3] * J[7] - J[4] * J[6]);
    const double a = -tr, b = m2, c = -det;
    /* depressed cubic t^3 + p t + q, l = t - a/3 */
    const double p = b - a * a / 3, q = 2 * a * a * a / 27 - a * b / 3 + c;
    const double disc = q * q / 4 + p * p * p / 27;
    double re[3];
    int real[3] = {1, 1, 1};
    if (disc > 0) { /* one real root, a complex pair */
        const double s = sqrt(disc), u = cbrt(-q / 2 + s), v = cbrt(-q / 2 - s);
        re[0] = u + v - a / 3;
        re[1] = re[2] = -(u + v) / 2 - a / 3;
        real[1] = real[2] = 0;
    } else { /* three real roots */
        const double r = sqrt(-p / 3), phi = acos(fmax(-1.0, fmin(1.0, p != 0 ? (3 * q) / (2 * p) * sqrt(-3 / p) : 0)));
        for (int k = 0; k < 3; k++) re[k] = 2 * r * cos(phi / 3 - 2.0943951023931957 * k) - a / 3;
    }
    const double scale = fabs(J[0]) + fabs(J[4]) + fabs(J[8]) + 1e-300;
    int pos = 0, neg = 0;
    *n_out = 0;
    for (int k = 0; k < 3; k++) {
        if (fabs(re[k]) < 1e-9 * scale) return -1;
        if (re[k] > 0) {
            pos++;
            if (real[k]) eigenvector(J, re[k], out[(*n_out)++]);
        } else {
            neg++;
        }
    }
    return neg == 3 ? PARAC__SKEL_ATTRACTING : pos == 3 ? PARAC__SKEL_REPELLING : PARAC__SKEL_SADDLE;
}

int parac__skel_classify_at(const parac__skel_field *f, const double p[3], int *n_out, double out[3][3])
{
    double J[9];
    jacobian(f, p, J);
    return parac__skel_classify_jacobian(J, n_out, out);
}

/* Class of corner c (bit 0: +x, bit 1: +y, bit 2: +z) of the cell at (x, y, z). */
static int corner_class(const parac__skel_field *f, int64_t x, int64_t y, int64_t z, int c)
{
    return f->cls[((z + (c >> 2)) * f->h + y + ((c >> 1) & 1)) * f->w + x + (c & 1)];
}

static int inside_cell(const parac__skel_field *f, int64_t x, int64_t y, int64_t z)
{
    for (int c = 0; c < 8; c++)
        if (!corner_class(f, x, y, z, c)) return 0;
    return 1;
}

/* The critical point of cell (x, y, z), if any: 1 and *cp, else 0. */
static int cell_point(const parac__skel_field *f, int64_t x, int64_t y, int64_t z, parac__skel_critical *cp)
{
    if (!inside_cell(f, x, y, z)) return 0;
    double cv[8][3];
    for (int c = 0; c < 8; c++) {
        const float *v = at(f, x + (c & 1), y + ((c >> 1) & 1), z + (c >> 2));
        for (int k = 0; k < 3; k++) cv[c][k] = v[k];
    }
    /* a corner with no vector (a layer voxel with no interior neighbour):
     * the field is undefined there, so is the cell */
    for (int c = 0; c < 8; c++)
        if (cv[c][0] == 0 && cv[c][1] == 0 && cv[c][2] == 0 && corner_class(f, x, y, z, c) != PARAC__SKEL_INTERIOR)
            return 0;
    double hit[3];
    int found = 0;
    /* an interior corner where the field vanishes is itself the point */
    for (int c = 0; c < 8 && !found; c++)
        if (fabs(cv[c][0]) < ZERO && fabs(cv[c][1]) < ZERO && fabs(cv[c][2]) < ZERO &&
            corner_class(f, x, y, z, c) == PARAC__SKEL_INTERIOR) {
            hit[0] = (double)(c & 1), hit[1] = (double)((c >> 1) & 1), hit[2] = (double)(c >> 2);
            found = 1;
        }
    int visits = 0;
    if (!found && sign_change(cv)) {
        const double o[3] = {0, 0, 0};
        found = subdivide(cv, o, 1.0, 0, &visits, hit);
        if (found) { /* Newton, kept only while inside the cell */
            double q[3] = {x + hit[0], y + hit[1], z + hit[2]};
            for (int it = 0; it < NEWTON_STEPS; it++) {
                double F[3], J[9], d[3];
                parac__skel_interpolate(f, q, F);
                if (fabs(F[0]) + fabs(F[1]) + fabs(F[2]) < ZERO) break;
                jacobian(f, q, J);
                const double mF[3] = {-F[0], -F[1], -F[2]};
                if (!solve3(J, mF, d)) break;
                const double nq[3] = {q[0] + d[0], q[1] + d[1], q[2] + d[2]};
                if (nq[0] < x || nq[0] > x + 1 || nq[1] < y || nq[1] > y + 1 || nq[2] < z || nq[2] > z + 1) break;
                memcpy(q, nq, sizeof q);
            }
            hit[0] = q[0] - x, hit[1] = q[1] - y, hit[2] = q[2] - z;
        }
    }
    if (!found) return 0;
    cp->p[0] = x + hit[0], cp->p[1] = y + hit[1], cp->p[2] = z + hit[2];
    cp->kind = parac__skel_classify_at(f, cp->p, &cp->n_out, cp->out);
    return cp->kind >= 0; /* a zero eigenvalue: no class, as pfSkel warns and skips */
}

typedef struct plane_list {
    parac__skel_critical *p;
    int64_t n, cap;
} plane_list;

parac_status parac__skel_critical_points(const parac__skel_field *f, parac__skel_critical **out, int64_t *count,
                                         int threads)
{
    *out = NULL;
    *count = 0;
    const int64_t planes = f->d > 1 ? f->d - 1 : 0;
    plane_list *pl = parac__calloc((size_t)(planes ? planes : 1), sizeof *pl);
    if (!pl) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: critical points");
    int oom = 0;
    /* planes in parallel, each its own list, joined in order: the result does
     * not depend on the thread count */
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads > 0 ? threads : 1) reduction(| : oom)
    for (int64_t z = 0; z < planes; z++)
        for (int64_t y = 0; y + 1 < f->h; y++)
            for (int64_t x = 0; x + 1 < f->w; x++) {
                parac__skel_critical cp;
                if (!cell_point(f, x, y, z, &cp)) continue;
                plane_list *l = &pl[z];
                if (l->n == l->cap) {
                    const int64_t cap = l->cap ? 2 * l->cap : 16;
                    parac__skel_critical *np = parac__realloc(l->p, (size_t)cap * sizeof *np);
                    if (!np) {
                        oom = 1;
                        continue;
                    }
                    l->p = np, l->cap = cap;
                }
                l->p[l->n++] = cp;
            }
    int64_t total = 0;
    for (int64_t z = 0; z < planes; z++) total += pl[z].n;
    parac__skel_critical *pts = oom ? NULL : parac__malloc((size_t)(total ? total : 1) * sizeof *pts);
    parac__skel_point_grid seen = {0};
    int64_t n = 0;
    for (int64_t z = 0; pts && z < planes; z++)
        for (int64_t i = 0; i < pl[z].n; i++) {
            /* a zero corner is found by each cell around it: keep it once */
            if (parac__skel_grid_near(&seen, pl[z].p[i].p, ZERO) >= 0) continue;
            if (parac__skel_grid_add(&seen, pl[z].p[i].p)) {
                free(pts);
                pts = NULL;
                break;
            }
            pts[n++] = pl[z].p[i];
        }
    for (int64_t z = 0; z < planes; z++) free(pl[z].p);
    free(pl);
    parac__skel_grid_free(&seen);
    if (!pts) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: %lld critical points", (long long)total);
    *out = pts;
    *count = n;
    return PARAC_OK;
}
