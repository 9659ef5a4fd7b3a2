/* Union-find over run numbers on the CPU, shared by the fill's and the
 * labelling's run-based methods: the smaller number is always the root, so
 * a set's root is its first run in raster order.
 *
 * The methods number their runs in raster order over strips of rows (strip
 * t of T: rows [rows t / T, rows (t + 1) / T)), join the runs of each strip
 * on one thread each, and find every run's root without walking chains:
 * union by number makes chains as long as a spiral has turns, and walking
 * them from every run costs the square of that.
 *   1. parac__uf_local_roots, per strip: in run order (a parent precedes its
 *      run), each run takes its parent's strip-local root;
 *   2. parac__uf_unite_recorded, on one thread: the runs that meet across
 *      strip boundaries join their local roots (a step, not a walk through
 *      the strip's tree: a spiral crosses a boundary at every turn) and the
 *      links between local roots are recorded;
 *   3. parac__uf_resolve_links, once: the recorded links in number order;
 *   4. parac__uf_final_roots, per strip: local roots become final roots. */
#ifndef PARAC_CORE_UNION_FIND_H
#define PARAC_CORE_UNION_FIND_H

#include <stdint.h>

#include "parac/status.h"

/* The root of a's set, reading only (threads may share the array). */
static inline uint32_t parac__uf_find(const uint32_t *parent, uint32_t a)
{
    while (parent[a] != a) a = parent[a];
    return a;
}

/* The same, halving the path as it goes: only while one thread owns the
 * entries it walks. */
static inline uint32_t parac__uf_find_halving(uint32_t *parent, uint32_t a)
{
    while (parent[a] != a) {
        parent[a] = parent[parent[a]];
        a = parent[a];
    }
    return a;
}

/* Joins the sets of a and b: the larger root goes under the smaller. */
static inline void parac__uf_unite(uint32_t *parent, uint32_t a, uint32_t b)
{
    a = parac__uf_find_halving(parent, a);
    b = parac__uf_find_halving(parent, b);
    if (a == b) return;
    if (a < b) parent[b] = a;
    else parent[a] = b;
}

/* The roots that the joins across strip boundaries linked under others. */
typedef struct parac__uf_links {
    uint32_t *at;
    int64_t n, cap;
} parac__uf_links;

/* Room for the links of `threads` strips (strip t: rows [bounds[t],
 * bounds[t + 1])) whose rows' runs start at first[], the boundary joins
 * reaching `reach` rows back: at most one link per run they visit. */
parac_status parac__uf_links_alloc(parac__uf_links *l, const int64_t *first, const int64_t *bounds, int threads,
                                   int64_t reach);
void parac__uf_links_free(parac__uf_links *l);

/* 2: the union of the boundary joins of runs a and b, after 1 (root[]: each
 * run's strip-local root). The parents of local roots are then the links
 * recorded here, which only this thread walks (halved as it goes). */
static inline void parac__uf_unite_recorded(uint32_t *parent, const uint32_t *root, uint32_t a, uint32_t b,
                                            parac__uf_links *l)
{
    a = parac__uf_find_halving(parent, root[a]);
    b = parac__uf_find_halving(parent, root[b]);
    if (a == b) return;
    const uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    parent[hi] = lo;
    l->at[l->n++] = hi;
}

/* 1: runs [k0, k1), one strip; returns how many are its local roots (roots
 * of their sets until 2 links some under another strip's). */
int64_t parac__uf_local_roots(const uint32_t *parent, uint32_t *root, int64_t k0, int64_t k1);
/* 3: on one thread, after 2. */
void parac__uf_resolve_links(const uint32_t *parent, uint32_t *root, parac__uf_links *l);
/* 4: runs [k0, k1), one strip, after 3. */
void parac__uf_final_roots(uint32_t *root, int64_t k0, int64_t k1);

#endif
