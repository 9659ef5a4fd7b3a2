/* Stage 4: force following and voxels (pfSkel's StreamLn constants). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error_internal.h"
#include "skel_trace.h"

#define STEP_MIN 0.05
#define STEP_MAX 0.4
#define COS_SMALL_TURN 0.98481 /* 10 degrees */
#define COS_LARGE_TURN 0.34202 /* 70 degrees */
#define COS_REVERSAL (-0.999997695)
#define MAX_STEPS 6000

static void unit_field(const parac__skel_field *f, const double p[3], double v[3])
{
    parac__skel_interpolate(f, p, v);
    const double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; k++) v[k] = n > 0 ? v[k] / n : 0;
}

/* One RK4 step of length h along the normalised field. */
static void rk4(const parac__skel_field *f, const double p[3], double h, double out[3], double dir[3])
{
    double k1[3], k2[3], k3[3], k4[3], q[3];
    unit_field(f, p, k1);
    for (int k = 0; k < 3; k++) q[k] = p[k] + h / 2 * k1[k];
    unit_field(f, q, k2);
    for (int k = 0; k < 3; k++) q[k] = p[k] + h / 2 * k2[k];
    unit_field(f, q, k3);
    for (int k = 0; k < 3; k++) q[k] = p[k] + h * k3[k];
    unit_field(f, q, k4);
    double d[3];
    for (int k = 0; k < 3; k++) d[k] = (k1[k] + 2 * k2[k] + 2 * k3[k] + k4[k]) / 6;
    const double n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int k = 0; k < 3; k++) {
        dir[k] = n > 0 ? d[k] / n : 0;
        out[k] = p[k] + h * dir[k];
    }
}

static int inside_object(const parac__skel_field *f, const double p[3])
{
    const int64_t x = (int64_t)floor(p[0] + 0.5), y = (int64_t)floor(p[1] + 0.5), z = (int64_t)floor(p[2] + 0.5);
    if (x < 0 || y < 0 || z < 0 || x >= f->w || y >= f->h || z >= f->d) return 0;
    return f->cls[(z * f->h + y) * f->w + x] != 0;
}

static int inside_volume(const parac__skel_field *f, const double p[3])
{
    return p[0] >= 0 && p[1] >= 0 && p[2] >= 0 && p[0] <= (double)f->w - 1 && p[1] <= (double)f->h - 1 &&
           p[2] <= (double)f->d - 1;
}

typedef struct polyline {
    double *p;
    int64_t n, cap;
} polyline;

static int push(polyline *l, const double q[3])
{
    if (l->n == l->cap) {
        int64_t cap = l->cap ? 2 * l->cap : 256;
        double *np = realloc(l->p, (size_t)cap * 3 * sizeof *np);
        if (!np) return -1;
        l->p = np;
        l->cap = cap;
    }
    memcpy(l->p + 3 * l->n++, q, 3 * sizeof *q);
    return 0;
}

/* Follow the field from critical point `from` in direction d0. Returns 1 and
 * the segment when kept, 0 when dropped, -1 when out of memory. */
static int follow(const parac__skel_field *f, const parac__skel_critical *cp, int64_t n_cp, int64_t from,
                  const double d0[3], parac__skel_segment *seg)
{
    polyline l = {0};
    double p[3], dir[3], h = STEP_MIN;
    memcpy(p, cp[from].p, sizeof p);
    if (push(&l, p)) return -1;
    for (int k = 0; k < 3; k++) dir[k] = d0[k], p[k] += h * d0[k];
    int64_t end = -1;
    int kept = 1;
    for (int step = 0; step < MAX_STEPS; step++) {
        if (!inside_volume(f, p)) {
            kept = 0; /* left the volume: dropped */
            break;
        }
        if (!inside_object(f, p)) break; /* left the object: cut here */
        if (push(&l, p)) {
            free(l.p);
            return -1;
        }
        /* (a) within a step of a critical point (the start only once we came back) */
        for (int64_t i = 0; i < n_cp && end < 0; i++) {
            const double dx = p[0] - cp[i].p[0], dy = p[1] - cp[i].p[1], dz = p[2] - cp[i].p[2];
            if (dx * dx + dy * dy + dz * dz >= h * h) continue;
            if (i == from && step < 4) continue;
            end = i;
        }
        if (end >= 0) {
            if (push(&l, cp[end].p)) {
                free(l.p);
                return -1;
            }
            break;
        }
        double q[3], nd[3];
        rk4(f, p, h, q, nd);
        const double c = dir[0] * nd[0] + dir[1] * nd[1] + dir[2] * nd[2];
        if (c < COS_REVERSAL) break; /* (c) the flow reverses: a sink between two samples */
        if (q[0] == p[0] && q[1] == p[1] && q[2] == p[2]) break; /* (f) stuck */
        if (c > COS_SMALL_TURN) h = fmin(2 * h, STEP_MAX);
        else if (c < COS_LARGE_TURN) h = fmax(h / 2, STEP_MIN);
        memcpy(p, q, sizeof p);
        memcpy(dir, nd, sizeof dir);
    }
    if (!kept || l.n < 2) {
        free(l.p);
        return 0;
    }
    *seg = (parac__skel_segment){l.p, l.n, from, end};
    return 1;
}

parac_status parac__skel_trace(const parac__skel_field *f, const parac__skel_critical *cp, int64_t n_cp,
                               parac__skel_graph *g)
{
    *g = (parac__skel_graph){0};
    int64_t cap = 0;
    for (int64_t i = 0; i < n_cp; i++) {
        if (cp[i].kind != PARAC__SKEL_SADDLE) continue;
        for (int e = 0; e < cp[i].n_out; e++)
            for (int sense = -1; sense <= 1; sense += 2) {
                const double d0[3] = {sense * cp[i].out[e][0], sense * cp[i].out[e][1], sense * cp[i].out[e][2]};
                parac__skel_segment seg;
                const int r = follow(f, cp, n_cp, i, d0, &seg);
                if (r < 0) {
                    parac__skel_graph_free(g);
                    return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: tracing");
                }
                if (r == 0) continue;
                if (g->n_seg == cap) {
                    cap = cap ? 2 * cap : 16;
                    parac__skel_segment *ns = realloc(g->seg, (size_t)cap * sizeof *ns);
                    if (!ns) {
                        free(seg.p);
                        parac__skel_graph_free(g);
                        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: %lld segments", (long long)cap);
                    }
                    g->seg = ns;
                }
                g->seg[g->n_seg++] = seg;
            }
    }
    return PARAC_OK;
}

void parac__skel_graph_free(parac__skel_graph *g)
{
    for (int64_t i = 0; i < g->n_seg; i++) free(g->seg[i].p);
    free(g->seg);
    *g = (parac__skel_graph){0};
}

static void set_voxel(uint8_t *out, int64_t w, int64_t h, int64_t d, int64_t x, int64_t y, int64_t z)
{
    if (x >= 0 && y >= 0 && z >= 0 && x < w && y < h && z < d) out[(z * h + y) * w + x] = 255;
}

/* A 26-connected line between two voxels (3D Bresenham by the largest axis). */
static void line(uint8_t *out, int64_t w, int64_t h, int64_t d, const int64_t a[3], const int64_t b[3])
{
    const int64_t dd[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    int64_t n = 0;
    for (int k = 0; k < 3; k++) n = llabs(dd[k]) > n ? llabs(dd[k]) : n;
    for (int64_t s = 0; s <= n; s++) {
        int64_t q[3];
        for (int k = 0; k < 3; k++) q[k] = a[k] + (n ? (int64_t)llround((double)dd[k] * s / n) : 0);
        set_voxel(out, w, h, d, q[0], q[1], q[2]);
    }
}

void parac__skel_voxelize(const parac__skel_graph *g, const parac__skel_critical *cp, int64_t n_cp, int64_t w,
                          int64_t h, int64_t d, uint8_t *out)
{
    memset(out, 0, (size_t)(w * h * d));
    uint8_t *reached = calloc((size_t)(n_cp ? n_cp : 1), 1);
    for (int64_t s = 0; s < g->n_seg; s++) {
        const parac__skel_segment *sg = &g->seg[s];
        if (reached) {
            if (sg->start >= 0) reached[sg->start] = 1;
            if (sg->end >= 0) reached[sg->end] = 1;
        }
        int64_t prev[3];
        for (int64_t i = 0; i < sg->n; i++) {
            const int64_t v[3] = {llround(sg->p[3 * i]), llround(sg->p[3 * i + 1]), llround(sg->p[3 * i + 2])};
            if (i == 0) set_voxel(out, w, h, d, v[0], v[1], v[2]);
            else line(out, w, h, d, prev, v);
            memcpy(prev, v, sizeof prev);
        }
    }
    for (int64_t i = 0; i < n_cp; i++)
        if (cp[i].kind == PARAC__SKEL_ATTRACTING && !(reached && reached[i]))
            set_voxel(out, w, h, d, llround(cp[i].p[0]), llround(cp[i].p[1]), llround(cp[i].p[2]));
    free(reached);
}
