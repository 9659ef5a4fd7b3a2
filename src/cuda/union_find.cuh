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
// the percolation threshold makes chains across thousands of tiles. Its
// loads go through L1 (`ld.global.ca`) and may return a parent older than
// another SM's latest: an older parent is still an ancestor, so a walk ends
// at an ancestor that is or was a root, and a union that links a stale root
// learns the newer parent from its atomicMin and goes on from there (as
// unite_halving does). Cached walks measured 3-7 % faster than volatile
// ones on the H100 (bench/RESULTS.md).
__device__ inline uint32_t parent_of(uint32_t *L, uint32_t a) { return __ldca(L + a); }
__device__ inline uint32_t find_root_halving(uint32_t *L, uint32_t a)
{
    for (;;) {
        const uint32_t p = parent_of(L, a);
        if (p == a) return a;
        const uint32_t g = parent_of(L, p);
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
template <class S>
__device__ inline uint32_t find_halving(S s, uint32_t a)
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

template <class S>
__device__ inline void unite_local(S s, uint32_t a, uint32_t b)
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

// A tile's union-find in shared memory: an entry per pixel of rows of 32
// (index row * 32 + column), each row's entries stored in the order of
// column XOR row, so that lanes reaching one column of different rows (a
// spiral's walls: every row's k-th run in the same column) hit different
// banks; as a plain array they would all hit one, 32 ways.
struct tile_parents {
    volatile uint32_t *p;
    __device__ volatile uint32_t &operator[](uint32_t i) const { return p[i ^ ((i >> 5) & 31u)]; }
};

// The rounds a warp takes to do n things per lane, one per lane a round:
// the lanes' largest n. Work whose steps branch by data (the finds of a
// union-find) runs in such rounds with a __syncwarp after each; left to loop
// alone, the lanes drift apart and the warp runs them one or two at a time
// (Nsight Compute: 1-2 threads per instruction in the unions of a tile).
__device__ inline int warp_rounds(int n)
{
    #pragma unroll
    for (int d = 16; d > 0; d >>= 1) n = max(n, __shfl_xor_sync(~0u, n, d));
    return n;
}

// A row's runs joined with the runs of a row before it, the warp together
// (every lane calls, one union per lane a round): pixel b of `up` joins the
// run there that holds bit b, of `left` the one that holds b - 1, of
// `right` the one that holds b + 1; here(b) and there(b) are the union-find
// indices of the runs that hold bit b in the two rows.
template <class S, class Here, class There>
__device__ inline void unite_rows(S s, uint32_t up, uint32_t left, uint32_t right, Here here,
                                  There there)
{
    for (int k = warp_rounds(__popc(up) + __popc(left) + __popc(right)); k > 0; k--) {
        if (up | left | right) {
            int b, d;
            if (up) b = __ffs(up) - 1, d = 0, up &= up - 1;
            else if (left) b = __ffs(left) - 1, d = -1, left &= left - 1;
            else b = __ffs(right) - 1, d = 1, right &= right - 1;
            unite_local(s, here(b), there(b + d));
        }
        __syncwarp();
    }
}

// After the unions: every run start (bits of `starts`, indices base + bit)
// points at its root. Each entry jumps to its parent's parent until no
// entry of the warp changes (every lane calls): log2 of the longest chain in
// passes. Unions in rounds build chains as long as the tile: a spiral's
// wall gives every row's run the run above it as parent, and a find from
// each run would walk them all. Other lanes read an entry while its lane
// lowers it (either value is an ancestor); the lowering is an atomicMin, as
// find_halving's skip, so that no plain store races with those reads.
template <class S>
__device__ inline void flatten_runs(S s, uint32_t base, uint32_t starts)
{
    for (;;) {
        bool changed = false;
        for (uint32_t r = starts; r; r &= r - 1) {
            const uint32_t i = base + (uint32_t)(__ffs(r) - 1), p = s[i], g = s[p];
            if (g != p) atomicMin((uint32_t *)&s[i], g), changed = true;
        }
        if (!__any_sync(~0u, changed)) return;
    }
}

// A node united with up to N others in the global union-find, the warp in
// rounds (every lane calls; n: this lane's count, 0 for none): a thread
// per pixel pair across tile edges, each with a few unions that walk chains
// of global memory, would otherwise leave the warp's lanes one or two at a
// time on their loads.
template <int N>
__device__ inline void unite_in_rounds(uint32_t *L, uint32_t me, const uint32_t (&other)[N], int n)
{
    const int rounds = warp_rounds(n);
    #pragma unroll
    for (int k = 0; k < N; k++) {
        if (k >= rounds) break;
        if (k < n) unite_halving(L, me, other[k]);
        __syncwarp();
    }
}

} // namespace parac_uf

#endif
