/* The roots of runs joined strip by strip (union_find.h). */
#include <stdlib.h>

#include "alloc_internal.h"
#include "error_internal.h"
#include "union_find.h"

parac_status parac__uf_links_alloc(parac__uf_links *l, const int64_t *first, const int64_t *bounds, int threads,
                                   int64_t reach)
{
    l->n = l->cap = 0;
    for (int t = 1; t < threads; t++) {
        const int64_t r0 = bounds[t], r1 = bounds[t + 1];
        const int64_t lo = r0 - reach < 0 ? 0 : r0 - reach, hi = r0 + reach > r1 ? r1 : r0 + reach;
        l->cap += first[hi] - first[lo];
    }
    /* twice the room: the second half is the sort's (resolve_links) */
    l->at = parac__malloc((size_t)(l->cap ? l->cap : 1) * 2 * sizeof *l->at);
    return l->at ? PARAC_OK : parac__fail(PARAC_ERR_OUT_OF_MEMORY, "union-find: %lld boundary links", (long long)l->cap);
}

void parac__uf_links_free(parac__uf_links *l)
{
    free(l->at);
    l->at = NULL;
}

int64_t parac__uf_local_roots(const uint32_t *parent, uint32_t *root, int64_t k0, int64_t k1)
{
    int64_t n = 0;
    for (int64_t k = k0; k < k1; k++) {
        const uint32_t p = parent[k];
        root[k] = p == (uint32_t)k ? (uint32_t)k : root[p]; /* parents lie in the strip before 2 */
        n += p == (uint32_t)k;
    }
    return n;
}

/* The links in number order: four passes of a radix sort by bytes, the
 * lowest first (qsort's comparisons took 0.7 ms of a spiral's 12 at 16
 * threads, on one thread while the others wait). tmp: room for n. */
static void sort_links(uint32_t *at, uint32_t *tmp, int64_t n)
{
    for (int shift = 0; shift < 32; shift += 8) {
        int64_t start[257] = {0};
        for (int64_t i = 0; i < n; i++) start[(at[i] >> shift & 255) + 1]++;
        if (start[(at[0] >> shift & 255) + 1] == n) continue; /* one byte value: already in order */
        for (int d = 0; d < 256; d++) start[d + 1] += start[d];
        for (int64_t i = 0; i < n; i++) tmp[start[at[i] >> shift & 255]++] = at[i];
        for (int64_t i = 0; i < n; i++) at[i] = tmp[i];
    }
}

void parac__uf_resolve_links(const uint32_t *parent, uint32_t *root, parac__uf_links *l)
{
    /* in number order: a link's parent comes earlier, and the local root
     * of that parent is final by then */
    if (l->n > 1) sort_links(l->at, l->at + l->cap, l->n);
    for (int64_t i = 0; i < l->n; i++) {
        const uint32_t x = l->at[i];
        root[x] = root[root[parent[x]]];
    }
}

void parac__uf_final_roots(uint32_t *root, int64_t k0, int64_t k1)
{
    for (int64_t k = k0; k < k1; k++) {
        /* only entries that change are written: the local and true roots,
         * which other strips read, are final already */
        const uint32_t f = root[root[k]];
        if (f != root[k]) root[k] = f;
    }
}
