/* A spatial hash of points by voxel (see skel_point_grid.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "skel_point_grid.h"

/* Voxel coordinates packed into one key (21 bits each, offset so that
 * small negative positions stay distinct). */
static int64_t voxel_key(int64_t x, int64_t y, int64_t z)
{
    const int64_t o = 1 << 20, m = (1 << 21) - 1;
    return ((z + o) & m) << 42 | ((y + o) & m) << 21 | ((x + o) & m);
}

static uint64_t mix(int64_t k)
{
    uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

static int64_t slot_of(const parac__skel_point_grid *g, int64_t key)
{
    int64_t s = (int64_t)(mix(key) & (uint64_t)(g->n_slots - 1));
    while (g->key[s] != -1 && g->key[s] != key) s = (s + 1) & (g->n_slots - 1);
    return s;
}

static int grow_slots(parac__skel_point_grid *g)
{
    const int64_t n = g->n_slots ? 2 * g->n_slots : 256;
    parac__skel_point_grid ng = *g;
    ng.key = parac__malloc((size_t)n * sizeof *ng.key);
    ng.head = parac__malloc((size_t)n * sizeof *ng.head);
    if (!ng.key || !ng.head) {
        free(ng.key), free(ng.head);
        return -1;
    }
    ng.n_slots = n;
    memset(ng.key, 0xff, (size_t)n * sizeof *ng.key); /* -1 */
    for (int64_t s = 0; s < g->n_slots; s++)
        if (g->key[s] != -1) {
            const int64_t t = slot_of(&ng, g->key[s]);
            ng.key[t] = g->key[s];
            ng.head[t] = g->head[s];
        }
    free(g->key), free(g->head);
    *g = ng;
    return 0;
}

int parac__skel_grid_add(parac__skel_point_grid *g, const double p[3])
{
    if (g->n == g->cap) {
        const int64_t cap = g->cap ? 2 * g->cap : 256;
        int64_t *nx = parac__realloc(g->next, (size_t)cap * sizeof *nx);
        if (!nx) return -1;
        g->next = nx;
        double *np = parac__realloc(g->xyz, (size_t)cap * 3 * sizeof *np);
        if (!np) return -1;
        g->xyz = np;
        g->cap = cap;
    }
    if (2 * (g->used + 1) > g->n_slots && grow_slots(g)) return -1;
    const int64_t key = voxel_key(llround(p[0]), llround(p[1]), llround(p[2]));
    const int64_t s = slot_of(g, key);
    if (g->key[s] == -1) {
        g->key[s] = key;
        g->head[s] = -1;
        g->used++;
    }
    memcpy(g->xyz + 3 * g->n, p, 3 * sizeof *p);
    g->next[g->n] = g->head[s];
    g->head[s] = g->n++;
    return 0;
}

int64_t parac__skel_grid_near(const parac__skel_point_grid *g, const double p[3], double r)
{
    if (!g->n) return -1;
    const int64_t x = llround(p[0]), y = llround(p[1]), z = llround(p[2]);
    int64_t best = -1;
    double best_d2 = r * r;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                const int64_t s = slot_of(g, voxel_key(x + dx, y + dy, z + dz));
                if (g->key[s] == -1) continue;
                for (int64_t i = g->head[s]; i >= 0; i = g->next[i]) {
                    const double *q = g->xyz + 3 * i;
                    const double d2 = (p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                                      (p[2] - q[2]) * (p[2] - q[2]);
                    if (d2 < best_d2) best_d2 = d2, best = i;
                }
            }
    return best;
}

void parac__skel_grid_free(parac__skel_point_grid *g)
{
    free(g->key), free(g->head), free(g->next), free(g->xyz);
    *g = (parac__skel_point_grid){0};
}
