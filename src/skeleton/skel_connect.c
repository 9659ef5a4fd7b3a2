/* Joining the pieces of a skeleton (see skel_connect.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "skel_connect.h"
#include "skel_graph.h"

typedef struct heap_item {
    float cost;
    int64_t v;
} heap_item;

typedef struct heap {
    heap_item *a;
    int64_t n, cap;
} heap;

static int heap_push(heap *h, float cost, int64_t v)
{
    if (h->n == h->cap) {
        const int64_t cap = h->cap ? 2 * h->cap : 4096;
        heap_item *na = parac__realloc(h->a, (size_t)cap * sizeof *na);
        if (!na) return -1;
        h->a = na, h->cap = cap;
    }
    int64_t i = h->n++;
    while (i > 0 && h->a[(i - 1) / 2].cost > cost) h->a[i] = h->a[(i - 1) / 2], i = (i - 1) / 2;
    h->a[i] = (heap_item){cost, v};
    return 0;
}

static heap_item heap_pop(heap *h)
{
    const heap_item top = h->a[0], last = h->a[--h->n];
    int64_t i = 0;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && h->a[c + 1].cost < h->a[c].cost) c++;
        if (h->a[c].cost >= last.cost) break;
        h->a[i] = h->a[c], i = c;
    }
    if (h->n) h->a[i] = last;
    return top;
}

typedef struct joiner {
    const parac__skel_field *f;
    parac__skel_graph *g;
    int64_t N;
    uint8_t *vox;     /* the skeleton's voxels */
    int32_t *label;   /* skeleton piece of each skeleton voxel, 0 elsewhere */
    int32_t *group;   /* per piece: the joined group it belongs to, 0 none yet */
    uint16_t *depth;  /* steps from the exterior */
    float *cost;
    int8_t *from;     /* the step that reached a voxel, -1 for sources */
    int64_t *touched, n_touched;
    parac__skel_sample_index si;
    parac__skel_point_grid nodes;
} joiner;

static void coords(const parac__skel_field *f, int64_t i, int64_t *x, int64_t *y, int64_t *z)
{
    *x = i % f->w, *y = (i / f->w) % f->h, *z = i / (f->w * f->h);
}

/* The in-volume 26-neighbours of voxel i into nb; their count. */
static int neighbours(const parac__skel_field *f, int64_t i, int64_t nb[26])
{
    int64_t x, y, z;
    coords(f, i, &x, &y, &z);
    int n = 0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                const int64_t X = x + dx, Y = y + dy, Z = z + dz;
                if ((dx || dy || dz) && X >= 0 && Y >= 0 && Z >= 0 && X < f->w && Y < f->h && Z < f->d)
                    nb[n++] = (Z * f->h + Y) * f->w + X;
            }
    return n;
}

/* The skeleton's 26-connected pieces, labelled 1, 2, ...; their count. */
static int32_t label_pieces(joiner *j)
{
    const parac__skel_field *f = j->f;
    int64_t n = 0;
    for (int64_t i = 0; i < j->N; i++) n += j->vox[i] != 0;
    int64_t *queue = parac__malloc((size_t)(n ? n : 1) * sizeof *queue);
    if (!queue) return -1;
    int32_t pieces = 0;
    for (int64_t s = 0; s < j->N; s++) {
        if (!j->vox[s] || j->label[s]) continue;
        j->label[s] = ++pieces;
        int64_t head = 0, tail = 0;
        queue[tail++] = s;
        while (head < tail) {
            int64_t nb[26];
            const int m = neighbours(f, queue[head++], nb);
            for (int e = 0; e < m; e++)
                if (j->vox[nb[e]] && !j->label[nb[e]]) j->label[nb[e]] = pieces, queue[tail++] = nb[e];
        }
    }
    free(queue);
    return pieces;
}

/* Steps from the exterior (26-connected) of every object voxel. */
static int depth_map(joiner *j)
{
    const parac__skel_field *f = j->f;
    int64_t n = 0;
    for (int64_t i = 0; i < j->N; i++) n += f->cls[i] != 0;
    int64_t *queue = parac__malloc((size_t)(n ? n : 1) * sizeof *queue);
    if (!queue) return -1;
    int64_t head = 0, tail = 0;
    for (int64_t i = 0; i < j->N; i++) {
        j->depth[i] = 0;
        if (!f->cls[i]) continue;
        int64_t nb[26];
        int edge = neighbours(f, i, nb) < 26; /* on the volume's border */
        for (int e = 0; e < 26 && !edge; e++) edge = !f->cls[nb[e]];
        if (edge) j->depth[i] = 1, queue[tail++] = i;
    }
    while (head < tail) {
        const int64_t i = queue[head++];
        int64_t nb[26];
        const int m = neighbours(f, i, nb);
        for (int e = 0; e < m; e++)
            if (f->cls[nb[e]] && !j->depth[nb[e]]) {
                j->depth[nb[e]] = j->depth[i] < UINT16_MAX ? (uint16_t)(j->depth[i] + 1) : UINT16_MAX;
                queue[tail++] = nb[e];
            }
    }
    free(queue);
    return 0;
}

/* The graph node a path ending at voxel centre p attaches to. */
static int64_t attach(joiner *j, const double p[3])
{
    const int64_t hit = parac__skel_grid_near(&j->si.grid, p, 0.999);
    if (hit >= 0) return parac__skel_join(j->g, &j->si, hit);
    const int64_t node = parac__skel_grid_near(&j->nodes, p, 0.999);
    if (node >= 0) return node;
    const parac__skel_critical c = {.p = {p[0], p[1], p[2]}, .kind = PARAC__SKEL_JUNCTION};
    return parac__skel_add_node(j->g, &c);
}

/* The cheapest path from the pieces of group `grp` to a piece of no group:
 * 1 and that path added to the graph (its piece joins the group), 0 when
 * none is reachable, -1 when out of memory. */
static int join_nearest(joiner *j, int32_t grp)
{
    const parac__skel_field *f = j->f;
    heap h = {0};
    int result = 0;
    for (int64_t i = 0; i < j->n_touched; i++) j->cost[j->touched[i]] = INFINITY;
    j->n_touched = 0;
    for (int64_t i = 0; i < j->N; i++)
        if (j->label[i] && j->group[j->label[i]] == grp) {
            j->cost[i] = 0, j->from[i] = -1, j->touched[j->n_touched++] = i;
            if (heap_push(&h, 0, i)) goto oom;
        }
    int64_t reached = -1;
    while (h.n && reached < 0) {
        const heap_item it = heap_pop(&h);
        if (it.cost > j->cost[it.v]) continue;
        if (j->label[it.v] && !j->group[j->label[it.v]]) {
            reached = it.v;
            break;
        }
        int64_t x, y, z;
        coords(f, it.v, &x, &y, &z);
        for (int s = 0; s < 27; s++) {
            const int dx = s % 3 - 1, dy = (s / 3) % 3 - 1, dz = s / 9 - 1;
            const int64_t X = x + dx, Y = y + dy, Z = z + dz;
            if (s == 13 || X < 0 || Y < 0 || Z < 0 || X >= f->w || Y >= f->h || Z >= f->d) continue;
            const int64_t k = (Z * f->h + Y) * f->w + X;
            if (!f->cls[k]) continue;
            const double t = j->depth[k];
            const float c = it.cost + (float)(sqrt((double)(dx * dx + dy * dy + dz * dz)) / (t * t));
            if (c < j->cost[k]) {
                if (j->cost[k] == INFINITY) j->touched[j->n_touched++] = k;
                j->cost[k] = c, j->from[k] = (int8_t)s;
                if (heap_push(&h, c, k)) goto oom;
            }
        }
    }
    if (reached >= 0) {
        /* the path, from the reached piece back to the group */
        int64_t n = 1;
        for (int64_t v = reached; j->from[v] >= 0; n++) {
            const int s = j->from[v];
            v -= ((int64_t)(s / 9 - 1) * f->h + (s / 3) % 3 - 1) * f->w + s % 3 - 1;
        }
        double *p = parac__malloc((size_t)(n + 2) * 3 * sizeof *p);
        if (!p) goto oom;
        int64_t v = reached, m = 1;
        for (int64_t i = 0; i < n; i++) {
            int64_t x, y, z;
            coords(f, v, &x, &y, &z);
            p[3 * m] = (double)x, p[3 * m + 1] = (double)y, p[3 * m + 2] = (double)z;
            m++;
            if (j->from[v] < 0) break;
            const int s = j->from[v];
            v -= ((int64_t)(s / 9 - 1) * f->h + (s / 3) % 3 - 1) * f->w + s % 3 - 1;
        }
        const int32_t piece = j->label[reached];
        const int64_t a = attach(j, p + 3), b = a >= 0 ? attach(j, p + 3 * (m - 1)) : -1;
        int64_t seg = -1;
        if (b >= 0) {
            memcpy(p, j->g->node[a].p, 3 * sizeof *p);
            memcpy(p + 3 * m, j->g->node[b].p, 3 * sizeof *p);
            seg = parac__skel_add_segment(j->g, &(parac__skel_segment){p, m + 1, a, b});
        }
        if (seg < 0) {
            free(p);
            goto oom;
        }
        while (j->nodes.n < j->g->n_node)
            if (parac__skel_grid_add(&j->nodes, j->g->node[j->nodes.n].p)) goto oom;
        if (parac__skel_index_segment(&j->si, j->g, seg)) goto oom;
        j->group[piece] = grp;
        for (int64_t i = 0; i < m - 1; i++) { /* the path's voxels join the group's sources */
            const int64_t k = (llround(p[3 * i + 5]) * f->h + llround(p[3 * i + 4])) * f->w + llround(p[3 * i + 3]);
            if (!j->label[k]) j->label[k] = piece;
        }
        result = 1;
    }
    free(h.a);
    return result;
oom:
    free(h.a);
    return -1;
}

parac_status parac__skel_connect(const parac__skel_field *f, parac__skel_graph *g, int64_t *n_paths)
{
    if (n_paths) *n_paths = 0;
    joiner j = {.f = f, .g = g, .N = f->w * f->h * f->d};
    parac_status st = PARAC_OK;
    j.vox = parac__malloc((size_t)j.N);
    j.label = parac__calloc((size_t)j.N, sizeof *j.label);
    if (!j.vox || !j.label) st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: joining %lld voxels", (long long)j.N);
    int32_t pieces = 0;
    if (st == PARAC_OK) {
        parac__skel_voxelize(g, f->w, f->h, f->d, j.vox);
        pieces = label_pieces(&j);
        if (pieces < 0) st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: labelling its pieces");
    }
    if (st == PARAC_OK && pieces > 1) {
        j.group = parac__calloc((size_t)pieces + 1, sizeof *j.group);
        j.depth = parac__malloc((size_t)j.N * sizeof *j.depth);
        j.cost = parac__malloc((size_t)j.N * sizeof *j.cost);
        j.from = parac__malloc((size_t)j.N);
        j.touched = parac__malloc((size_t)j.N * sizeof *j.touched);
        if (!j.group || !j.depth || !j.cost || !j.from || !j.touched || depth_map(&j))
            st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: joining %d pieces", (int)pieces);
        for (int64_t i = 0; st == PARAC_OK && i < j.N; i++) j.cost[i] = INFINITY;
        if (st == PARAC_OK) st = parac__skel_grid_of_nodes(g, &j.nodes);
        for (int64_t s = 0; st == PARAC_OK && s < g->n_seg; s++)
            if (parac__skel_index_segment(&j.si, g, s)) st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: samples");
        /* each group grows from its first piece until no other piece is reachable */
        for (int32_t first = 1, grp = 0; st == PARAC_OK && first <= pieces; first++) {
            if (j.group[first]) continue;
            j.group[first] = ++grp;
            int r;
            while ((r = join_nearest(&j, grp)) == 1)
                if (n_paths) ++*n_paths;
            if (r < 0) st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: joining its pieces");
        }
    }
    free(j.vox), free(j.label), free(j.group), free(j.depth), free(j.cost), free(j.from), free(j.touched);
    parac__skel_sample_index_free(&j.si);
    parac__skel_grid_free(&j.nodes);
    return st;
}
