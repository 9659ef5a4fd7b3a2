/* Building the skeleton graph (see skel_graph.h). */
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "skel_graph.h"

#define NEAR_ENDPOINT 5

int64_t parac__skel_add_node(parac__skel_graph *g, const parac__skel_critical *c)
{
    if (g->n_node == g->node_cap) {
        const int64_t cap = g->node_cap ? 2 * g->node_cap : 64;
        parac__skel_critical *nn = parac__realloc(g->node, (size_t)cap * sizeof *nn);
        if (!nn) return -1;
        g->node = nn, g->node_cap = cap;
    }
    g->node[g->n_node] = *c;
    return g->n_node++;
}

int64_t parac__skel_add_segment(parac__skel_graph *g, const parac__skel_segment *s)
{
    if (g->n_seg == g->seg_cap) {
        const int64_t cap = g->seg_cap ? 2 * g->seg_cap : 16;
        parac__skel_segment *ns = parac__realloc(g->seg, (size_t)cap * sizeof *ns);
        if (!ns) return -1;
        g->seg = ns, g->seg_cap = cap;
    }
    g->seg[g->n_seg] = *s;
    return g->n_seg++;
}

/* A node that is not a critical point of the search: a pseudo critical
 * point (classified where possible), a junction or a free end. */
int64_t parac__skel_add_point_node(parac__skel_graph *g, const parac__skel_field *f, const double p[3], int kind)
{
    parac__skel_critical c = {.p = {p[0], p[1], p[2]}, .kind = kind};
    if (kind < 0) {
        c.kind = parac__skel_classify_at(f, p, &c.n_out, c.out);
        if (c.kind < 0) c.kind = PARAC__SKEL_END, c.n_out = 0;
    }
    return parac__skel_add_node(g, &c);
}

parac_status parac__skel_grid_of_nodes(const parac__skel_graph *g, parac__skel_point_grid *nodes)
{
    for (int64_t i = 0; i < g->n_node; i++)
        if (parac__skel_grid_add(nodes, g->node[i].p)) {
            parac__skel_grid_free(nodes);
            return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: %lld nodes", (long long)g->n_node);
        }
    return PARAC_OK;
}

/* Skeleton samples for the seeds' traces: the grid, and which segment and
 * sample each grid point is. */

int parac__skel_index_sample(parac__skel_sample_index *s, int64_t seg, int64_t idx, const double p[3])
{
    if (s->grid.n == s->cap) {
        const int64_t cap = s->cap ? 2 * s->cap : 1024;
        int64_t *a = parac__realloc(s->seg, (size_t)cap * sizeof *a);
        if (!a) return -1;
        s->seg = a;
        int64_t *b = parac__realloc(s->idx, (size_t)cap * sizeof *b);
        if (!b) return -1;
        s->idx = b, s->cap = cap;
    }
    s->seg[s->grid.n] = seg, s->idx[s->grid.n] = idx;
    return parac__skel_grid_add(&s->grid, p);
}

int parac__skel_index_segment(parac__skel_sample_index *s, const parac__skel_graph *g, int64_t seg)
{
    for (int64_t i = 0; i < g->seg[seg].n; i++)
        if (parac__skel_index_sample(s, seg, i, g->seg[seg].p + 3 * i)) return -1;
    return 0;
}

/* The node where a trace that hit sample `hit` ends: an end node of the
 * segment when the hit is within NEAR_ENDPOINT samples of it, else a new
 * junction that splits the segment in two. -1 when out of memory. */
int64_t parac__skel_join(parac__skel_graph *g, parac__skel_sample_index *si, int64_t hit)
{
    const int64_t s = si->seg[hit], j = si->idx[hit];
    parac__skel_segment *sg = &g->seg[s];
    if (j <= NEAR_ENDPOINT && sg->start >= 0) return sg->start;
    if (j >= sg->n - 1 - NEAR_ENDPOINT && sg->end >= 0) return sg->end;
    if (j >= sg->n - 1) { /* the open end of a cut segment: close it with a junction */
        const parac__skel_critical c = {.p = {sg->p[3 * j], sg->p[3 * j + 1], sg->p[3 * j + 2]}, .kind = PARAC__SKEL_JUNCTION};
        const int64_t node = parac__skel_add_node(g, &c);
        if (node >= 0) g->seg[s].end = node;
        return node;
    }
    const parac__skel_critical c = {.p = {sg->p[3 * j], sg->p[3 * j + 1], sg->p[3 * j + 2]}, .kind = PARAC__SKEL_JUNCTION};
    const int64_t node = parac__skel_add_node(g, &c);
    if (node < 0) return -1;
    sg = &g->seg[s];
    const int64_t tail_n = sg->n - j;
    double *tail = parac__malloc((size_t)tail_n * 3 * sizeof *tail);
    if (!tail) return -1;
    memcpy(tail, sg->p + 3 * j, (size_t)tail_n * 3 * sizeof *tail);
    const parac__skel_segment ts = {tail, tail_n, node, sg->end};
    const int64_t t = parac__skel_add_segment(g, &ts);
    if (t < 0) {
        free(tail);
        return -1;
    }
    g->seg[s].n = j + 1;
    g->seg[s].end = node;
    for (int64_t i = 0; i < si->grid.n; i++) /* the tail's samples now belong to the new segment */
        if (si->seg[i] == s && si->idx[i] > j) si->seg[i] = t, si->idx[i] -= j;
    return node;
}

void parac__skel_graph_free(parac__skel_graph *g)
{
    for (int64_t i = 0; i < g->n_seg; i++) free(g->seg[i].p);
    free(g->seg);
    free(g->node);
    *g = (parac__skel_graph){0};
}

void parac__skel_sample_index_free(parac__skel_sample_index *s)
{
    parac__skel_grid_free(&s->grid);
    free(s->seg), free(s->idx);
    *s = (parac__skel_sample_index){0};
}
