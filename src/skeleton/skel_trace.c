/* Stage 4: force following, joining, and voxels (pfSkel's StreamLn
 * constants). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "skel_graph.h"
#include "skel_trace.h"

#define STEP_MIN 0.05
#define STEP_MAX 0.4
#define COS_SMALL_TURN 0.98481 /* 10 degrees */
#define COS_LARGE_TURN 0.34202 /* 70 degrees */
#define COS_REVERSAL (-0.999997695)
#define MAX_STEPS 6000
#define MIN_SEED_SAMPLES 5    /* pfSkel's MIN_SEG_LENGTH, for traces not started at a critical point */
#define SEED_COVER 2          /* seeds this near (Chebyshev, voxels) the skeleton start no trace */

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
        double *np = parac__realloc(l->p, (size_t)cap * 3 * sizeof *np);
        if (!np) return -1;
        l->p = np;
        l->cap = cap;
    }
    memcpy(l->p + 3 * l->n++, q, 3 * sizeof *q);
    return 0;
}

/* How a trace ended. */
enum { AT_NODE, AT_SAMPLE, REVERSED, CUT, DROPPED, OUT_OF_STEPS, NO_MEMORY };

typedef struct trace {
    polyline l;
    int how;
    int64_t hit;     /* AT_NODE: the node; AT_SAMPLE: the skeleton sample */
    double turn[3];  /* REVERSED: where the flow turned back */
} trace;

/* Follow the normalised field from p0, first along d0. `from` is the node
 * the trace leaves (-1: none); `samples` (may be NULL) are skeleton points
 * the trace stops at. Only reads shared state. */
static void follow(const parac__skel_field *f, const parac__skel_point_grid *nodes,
                   const parac__skel_point_grid *samples, const double p0[3], const double d0[3], int64_t from,
                   trace *t)
{
    *t = (trace){.how = OUT_OF_STEPS, .hit = -1};
    double p[3], dir[3], h = STEP_MIN;
    memcpy(p, p0, sizeof p);
    if (push(&t->l, p)) goto oom;
    for (int k = 0; k < 3; k++) dir[k] = d0[k], p[k] += h * d0[k];
    for (int step = 0; step < MAX_STEPS; step++) {
        if (!inside_volume(f, p)) {
            t->how = DROPPED;
            return;
        }
        if (!inside_object(f, p)) {
            t->how = CUT;
            return;
        }
        if (push(&t->l, p)) goto oom;
        /* (a) within a step of a critical point (of the start only once away from it) */
        const int64_t node = parac__skel_grid_near(nodes, p, h);
        if (node >= 0 && !(node == from && step < 4)) {
            t->how = AT_NODE;
            t->hit = node;
            return;
        }
        /* (b) within a step of the skeleton */
        const int64_t s = samples ? parac__skel_grid_near(samples, p, h) : -1;
        if (s >= 0) {
            t->how = AT_SAMPLE;
            t->hit = s;
            return;
        }
        double q[3], nd[3];
        rk4(f, p, h, q, nd);
        const double c = dir[0] * nd[0] + dir[1] * nd[1] + dir[2] * nd[2];
        if (c < COS_REVERSAL) { /* (c) a sink between two samples */
            t->how = REVERSED;
            for (int k = 0; k < 3; k++) t->turn[k] = (p[k] + q[k]) / 2;
            return;
        }
        if (q[0] == p[0] && q[1] == p[1] && q[2] == p[2]) return; /* (f) stuck */
        if (c > COS_SMALL_TURN) h = fmin(2 * h, STEP_MAX);
        else if (c < COS_LARGE_TURN) h = fmax(h / 2, STEP_MIN);
        memcpy(p, q, sizeof p);
        memcpy(dir, nd, sizeof dir);
    }
    return;
oom:
    t->how = NO_MEMORY;
}

parac_status parac__skel_trace(const parac__skel_field *f, parac__skel_critical *cp, int64_t n_cp, int threads,
                               parac__skel_graph *g)
{
    *g = (parac__skel_graph){.node = cp, .n_node = n_cp, .node_cap = n_cp};
    /* the jobs: (saddle, eigenvector, sense), each traced on its own */
    int64_t n_jobs = 0;
    for (int64_t i = 0; i < n_cp; i++)
        if (cp[i].kind == PARAC__SKEL_SADDLE) n_jobs += 2 * cp[i].n_out;
    parac__skel_point_grid nodes = {0};
    PARAC_TRY(parac__skel_grid_of_nodes(g, &nodes));
    int64_t *job_node = parac__malloc((size_t)(n_jobs ? n_jobs : 1) * sizeof *job_node);
    int *job_dir = parac__malloc((size_t)(n_jobs ? n_jobs : 1) * sizeof *job_dir);
    trace *tr = parac__calloc((size_t)(n_jobs ? n_jobs : 1), sizeof *tr);
    parac_status st = PARAC_OK;
    if (!job_node || !job_dir || !tr) st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: %lld traces", (long long)n_jobs);
    for (int64_t i = 0, j = 0; st == PARAC_OK && i < n_cp; i++)
        if (cp[i].kind == PARAC__SKEL_SADDLE)
            for (int e = 0; e < cp[i].n_out; e++)
                for (int sense = 0; sense < 2; sense++) job_node[j] = i, job_dir[j++] = 2 * e + sense;
    if (st == PARAC_OK) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads > 0 ? threads : 1)
        for (int64_t j = 0; j < n_jobs; j++) {
            const parac__skel_critical *c = &cp[job_node[j]];
            const double s = job_dir[j] & 1 ? -1 : 1, *e = c->out[job_dir[j] / 2];
            const double d0[3] = {s * e[0], s * e[1], s * e[2]};
            follow(f, &nodes, NULL, c->p, d0, job_node[j], &tr[j]);
        }
    }
    /* in job order: kept traces become segments */
    for (int64_t j = 0; st == PARAC_OK && j < n_jobs; j++) {
        trace *t = &tr[j];
        if (t->how == NO_MEMORY) {
            st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: tracing");
            break;
        }
        if (t->how == DROPPED || t->l.n < 2) continue;
        parac__skel_segment seg = {t->l.p, t->l.n, job_node[j], -1};
        if (t->how == AT_NODE) seg.end = t->hit;
        if (t->how == REVERSED) seg.end = parac__skel_add_point_node(g, f, t->turn, -1);
        if ((t->how == AT_NODE || t->how == REVERSED) &&
            (seg.end < 0 || push(&t->l, g->node[seg.end].p))) {
            st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: tracing");
            break;
        }
        seg.p = t->l.p, seg.n = t->l.n;
        if (parac__skel_add_segment(g, &seg) < 0) {
            st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: %lld segments", (long long)g->n_seg);
            break;
        }
        t->l.p = NULL; /* the graph owns it now */
    }
    for (int64_t j = 0; tr && j < n_jobs; j++) free(tr[j].l.p);
    free(tr), free(job_node), free(job_dir);
    parac__skel_grid_free(&nodes);
    if (st != PARAC_OK) parac__skel_graph_free(g);
    return st;
}

/* Distance from p to the nearest node or segment sample of g. */
static double skeleton_distance(const parac__skel_graph *g, const double p[3])
{
    double best = INFINITY;
    for (int64_t i = 0; i < g->n_node; i++) {
        const double *q = g->node[i].p;
        const double d = (p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]);
        best = d < best ? d : best;
    }
    for (int64_t s = 0; s < g->n_seg; s++)
        for (int64_t i = 0; i < g->seg[s].n; i++) {
            const double *q = g->seg[s].p + 3 * i;
            const double d = (p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]);
            best = d < best ? d : best;
        }
    return sqrt(best);
}

typedef struct seed_order {
    double dist;
    int64_t k;
} seed_order;

static int farthest_first(const void *a, const void *b)
{
    const seed_order *x = a, *y = b;
    if (x->dist != y->dist) return x->dist > y->dist ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k; /* then the caller's order */
}

/* Voxels within Chebyshev distance r of a segment's samples. */
static void cover(const parac__skel_field *f, const parac__skel_segment *sg, int r, uint8_t *covered)
{
    for (int64_t i = 0; i < sg->n; i++) {
        const int64_t x = llround(sg->p[3 * i]), y = llround(sg->p[3 * i + 1]), z = llround(sg->p[3 * i + 2]);
        for (int64_t Z = z - r; Z <= z + r; Z++)
            for (int64_t Y = y - r; Y <= y + r; Y++)
                for (int64_t X = x - r; X <= x + r; X++)
                    if (X >= 0 && Y >= 0 && Z >= 0 && X < f->w && Y < f->h && Z < f->d)
                        covered[(Z * f->h + Y) * f->w + X] = 1;
    }
}

parac_status parac__skel_trace_seeds(const parac__skel_field *f, const double *seeds, int64_t n_seeds, int threads,
                                     parac__skel_graph *g)
{
    if (n_seeds == 0) return PARAC_OK;
    const int64_t N = f->w * f->h * f->d;
    parac__skel_point_grid nodes = {0};
    parac__skel_sample_index si = {0};
    seed_order *order = parac__malloc((size_t)n_seeds * sizeof *order);
    uint8_t *covered = parac__calloc((size_t)N, 1);
    parac_status st = PARAC_OK;
    if (!order || !covered) st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: divergence seeds");
    if (st == PARAC_OK) st = parac__skel_grid_of_nodes(g, &nodes);
    for (int64_t s = 0; st == PARAC_OK && s < g->n_seg; s++)
        if (parac__skel_index_segment(&si, g, s)) st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: skeleton samples");
    /* the seeds farthest from the core skeleton first: their traces run the
     * whole way in, and the seeds they pass by are then covered */
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads > 0 ? threads : 1)
    for (int64_t k = 0; k < (st == PARAC_OK ? n_seeds : 0); k++)
        order[k] = (seed_order){skeleton_distance(g, seeds + 3 * k), k};
    if (st == PARAC_OK) qsort(order, (size_t)n_seeds, sizeof *order, farthest_first);
    for (int64_t o = 0; st == PARAC_OK && o < n_seeds; o++) {
        const double *p0 = seeds + 3 * order[o].k;
        const int64_t v = (llround(p0[2]) * f->h + llround(p0[1])) * f->w + llround(p0[0]);
        if (order[o].dist <= SEED_COVER || covered[v]) continue; /* near the skeleton already */
        double d0[3];
        unit_field(f, p0, d0);
        if (d0[0] == 0 && d0[1] == 0 && d0[2] == 0) continue;
        trace t;
        follow(f, &nodes, &si.grid, p0, d0, -1, &t);
        int64_t end = -1;
        if (t.how == NO_MEMORY) st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: tracing");
        else if (t.l.n >= MIN_SEED_SAMPLES && t.how == AT_NODE) end = t.hit;
        else if (t.l.n >= MIN_SEED_SAMPLES && t.how == AT_SAMPLE && (end = parac__skel_join(g, &si, t.hit)) < 0)
            st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: joining a trace");
        if (st != PARAC_OK || end < 0) {
            covered[v] = 1;
            free(t.l.p);
            continue;
        }
        const int64_t start = parac__skel_add_point_node(g, f, p0, PARAC__SKEL_END);
        int64_t s = -1;
        if (start >= 0 && !push(&t.l, g->node[end].p))
            s = parac__skel_add_segment(g, &(parac__skel_segment){t.l.p, t.l.n, start, end});
        if (s < 0) {
            free(t.l.p);
            st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: %lld segments", (long long)g->n_seg);
            break;
        }
        cover(f, &g->seg[s], SEED_COVER, covered);
        while (st == PARAC_OK && nodes.n < g->n_node) /* junctions and the free end */
            if (parac__skel_grid_add(&nodes, g->node[nodes.n].p)) st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: nodes");
        if (st == PARAC_OK && parac__skel_index_segment(&si, g, s))
            st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: skeleton samples");
    }
    parac__skel_grid_free(&nodes);
    parac__skel_sample_index_free(&si);
    free(order), free(covered);
    return st;
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

void parac__skel_voxelize(const parac__skel_graph *g, int64_t w, int64_t h, int64_t d, uint8_t *out)
{
    memset(out, 0, (size_t)(w * h * d));
    uint8_t *reached = parac__calloc((size_t)(g->n_node ? g->n_node : 1), 1);
    for (int64_t s = 0; s < g->n_seg; s++) {
        const parac__skel_segment *sg = &g->seg[s];
        if (reached) {
            if (sg->start >= 0) reached[sg->start] = 1;
            if (sg->end >= 0) reached[sg->end] = 1;
        }
        int64_t prev[3] = {0, 0, 0}; /* set by the first point before any line reads it */
        for (int64_t i = 0; i < sg->n; i++) {
            const int64_t v[3] = {llround(sg->p[3 * i]), llround(sg->p[3 * i + 1]), llround(sg->p[3 * i + 2])};
            if (i == 0) set_voxel(out, w, h, d, v[0], v[1], v[2]);
            else line(out, w, h, d, prev, v);
            memcpy(prev, v, sizeof prev);
        }
    }
    for (int64_t i = 0; i < g->n_node; i++)
        if (g->node[i].kind == PARAC__SKEL_ATTRACTING && !(reached && reached[i]))
            set_voxel(out, w, h, d, llround(g->node[i].p[0]), llround(g->node[i].p[1]), llround(g->node[i].p[2]));
    free(reached);
}
