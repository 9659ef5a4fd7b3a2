// Union-find over pixel labels on the GPU, shared by the fill's and the
// labelling's kernels: the neighbours of a connectivity that come earlier in
// raster order, and unions in global or shared memory where a parent never
// exceeds its index (the smaller root wins).
#ifndef PARAC_CUDA_UNION_FIND_CUH
#define PARAC_CUDA_UNION_FIND_CUH

#include <cuda_runtime.h>
#include <stdint.h>

namespace parac_uf {

// Neighbours that come earlier in raster order: (dx, dy, dz).
struct offsets {
    int n;
    int8_t d[13][3];
};

inline offsets backward_offsets(int conn, int is3d)
{
    offsets o{};
    auto add = [&](int dx, int dy, int dz) { o.d[o.n][0] = (int8_t)dx, o.d[o.n][1] = (int8_t)dy, o.d[o.n][2] = (int8_t)dz, o.n++; };
    const int diag = conn == 8 || conn == 18 || conn == 26;
    add(-1, 0, 0);
    add(0, -1, 0);
    if (diag) add(-1, -1, 0), add(1, -1, 0);
    if (is3d && conn != 4 && conn != 8) {
        add(0, 0, -1);
        if (conn >= 18) add(-1, 0, -1), add(1, 0, -1), add(0, -1, -1), add(0, 1, -1);
        if (conn == 26) add(-1, -1, -1), add(1, -1, -1), add(-1, 1, -1), add(1, 1, -1);
    }
    return o;
}

// Union-find over a global array of parents with parent <= index: the
// smaller root wins (atomicMin). Reads are volatile: other threads lower
// roots while one walks.
__device__ inline uint32_t find_root(const volatile uint32_t *L, uint32_t a)
{
    uint32_t b = L[a];
    while (b != a) {
        a = b;
        b = L[a];
    }
    return a;
}

__device__ inline void unite(uint32_t *L, uint32_t a, uint32_t b)
{
    for (;;) {
        a = find_root(L, a);
        b = find_root(L, b);
        if (a == b) return;
        if (a > b) {
            const uint32_t t = a;
            a = b;
            b = t;
        }
        const uint32_t old = atomicMin(&L[b], a);
        if (old == b) return;
        b = old;
    }
}

// find_root that halves the path as it walks (each visited entry skips to
// its grandparent, by atomicMin: parents only ever fall, and the
// grandparent is in the entry's set), so that many threads walking one long
// chain shorten it for each other: the labelling's unions, where noise near
// the percolation threshold makes chains across thousands of tiles.
__device__ inline uint32_t find_root_halving(uint32_t *L, uint32_t a)
{
    for (;;) {
        const uint32_t p = ((volatile uint32_t *)L)[a];
        if (p == a) return a;
        const uint32_t g = ((volatile uint32_t *)L)[p];
        if (g == p) return p;
        atomicMin(&L[a], g);
        a = g;
    }
}

__device__ inline void unite_halving(uint32_t *L, uint32_t a, uint32_t b)
{
    for (;;) {
        a = find_root_halving(L, a);
        b = find_root_halving(L, b);
        if (a == b) return;
        if (a > b) {
            const uint32_t t = a;
            a = b;
            b = t;
        }
        const uint32_t old = atomicMin(&L[b], a);
        if (old == b) return;
        b = old;
    }
}

// The same over a shared-memory array of one block or warp.
__device__ inline uint32_t find_local(const volatile uint32_t *s, uint32_t a)
{
    while (s[a] != a) a = s[a];
    return a;
}

// find_local for the unions, halving the path as it goes (each visited entry
// skips to its grandparent): long chains form where a component winds
// through many rows (40 % background noise is near the percolation
// threshold), and later finds walk half as far. Parents always have smaller
// indices (unite_local links the larger root under the smaller), so the
// skip is an atomicMin: it never undoes a concurrent link, and the
// grandparent is in the entry's set.
__device__ inline uint32_t find_halving(volatile uint32_t *s, uint32_t a)
{
    for (;;) {
        const uint32_t p = s[a];
        if (p == a) return a;
        const uint32_t g = s[p];
        if (g == p) return p;
        atomicMin((uint32_t *)&s[a], g);
        a = g;
    }
}

__device__ inline void unite_local(volatile uint32_t *s, uint32_t a, uint32_t b)
{
    for (;;) {
        a = find_halving(s, a);
        b = find_halving(s, b);
        if (a == b) return;
        if (a > b) {
            const uint32_t t = a;
            a = b;
            b = t;
        }
        const uint32_t old = atomicMin((uint32_t *)&s[b], a);
        if (old == b) return;
        b = old;
    }
}

} // namespace parac_uf

#endif
