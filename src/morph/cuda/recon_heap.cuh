// What the heap cluster's two kernels share (recon_heap_serial.cu,
// recon_heap_pipelined.cu; the driver is recon_heap.cu): the heaps' storage,
// the kernels' arguments, and the block-level steps of one iteration — the
// buffer sort, spreading a pixel, the rank merge of sorted nodes.
//
// A heap is an array of nodes of r keys (order-preserving 32-bit keys of
// the values, 0 = no entry) and r pixel indices; node i's children are
// 2i+1 and 2i+2, and every key of a node is >= every key of its children.
#ifndef PARAC_MORPH_RECON_HEAP_CUH
#define PARAC_MORPH_RECON_HEAP_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "recon_cuda.cuh"

namespace parac_morph {
namespace heap {

struct offsets {
    int n;
    int64_t off[26];
};

struct store {
    uint32_t *key;
    uint64_t *idx;
    unsigned *nodes; // nodes in use per heap
    int64_t cap;     // nodes per heap
    int r;
};

struct args {
    uint32_t *Ik;
    const uint32_t *Jk;
    offsets o;
    store h;
    int bmax;           // buffer entries: a power of two >= r * (1 + neighbours)
    int groups;         // pipelined kernel: thread groups of r (one per update unit in flight)
    unsigned *overflow; // set when a heap drops pixels it has no room for
};

// Bitonic sort of bk/bi[0, n2), largest key first, by nt threads (tid in
// [0, nt)); n2 a power of two. Every thread of the block must call it.
__device__ inline void sort_desc(uint32_t *bk, uint64_t *bi, int n2, int tid, int nt)
{
    for (int k = 2; k <= n2; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int i = tid; i < n2; i += nt) {
                const int l = i ^ j;
                if (l <= i) continue;
                const bool desc = (i & k) == 0;
                if (desc ? bk[i] < bk[l] : bk[i] > bk[l]) {
                    const uint32_t tk = bk[i];
                    bk[i] = bk[l], bk[l] = tk;
                    const uint64_t ti = bi[i];
                    bi[i] = bi[l], bi[l] = ti;
                }
            }
            __syncthreads();
        }
}

// Spread pixel p of key v (if it still holds v) to its neighbours by
// atomicMax under the mask; the neighbours raised go to sk/si[0, return).
__device__ inline int spread_pixel(const args &a, uint32_t v, uint64_t p, uint32_t *sk, uint64_t *si)
{
    int c = 0;
    if (v == 0u || a.Ik[p] != v) return 0; // an entry overtaken since it was queued
    for (int k = 0; k < a.o.n; k++) {
        const uint64_t q = p + a.o.off[k];
        const uint32_t u = a.Ik[q];
        if (u >= v) continue;
        const uint32_t m = a.Jk[q];
        if (u >= m) continue;
        const uint32_t nv = v < m ? v : m;
        if (atomicMax(&a.Ik[q], nv) < nv) {
            sk[c] = nv;
            si[c] = q;
            c++;
        }
    }
    return c;
}

// Elements of sorted (descending) array a[0..r) that come before key x in a
// merge: greater keys, and equal keys too when `ties` (the array is earlier).
__device__ inline int count_before(const uint32_t *a, int r, uint32_t x, bool ties)
{
    int lo = 0, hi = r;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (a[mid] > x || (ties && a[mid] == x)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// Merge m sorted arrays of r elements (ak/ai, array j at j*r) into mk/mi by
// r threads (t in [0, r)): each element's place is its rank, found by
// binary search in the other arrays. The caller synchronises after it.
__device__ inline void rank_merge(const uint32_t *ak, const uint64_t *ai, int m, int r, uint32_t *mk,
                                  uint64_t *mi, int t)
{
    for (int j = 0; j < m; j++) {
        const uint32_t x = ak[j * r + t];
        int rank = t;
        for (int o = 0; o < m; o++)
            if (o != j) rank += count_before(ak + o * r, r, x, o < j);
        mk[rank] = x;
        mi[rank] = ai[j * r + t];
    }
}

// Node `node` of the heap at hk/hi into ak/ai (r entries), or empty entries.
__device__ inline void load_node(const uint32_t *hk, const uint64_t *hi, int64_t node, bool present, int r,
                                 int t, uint32_t *ak, uint64_t *ai)
{
    ak[t] = present ? hk[node * r + t] : 0u;
    ai[t] = present ? hi[node * r + t] : 0ull;
}

__device__ inline void store_node(uint32_t *hk, uint64_t *hi, int64_t node, int r, int t, const uint32_t *mk,
                                  const uint64_t *mi)
{
    hk[node * r + t] = mk[t];
    hi[node * r + t] = mi[t];
}

// Shared memory of a kernel run with `groups` groups of r threads.
inline size_t shared_bytes(int bmax, int r, int nb, int groups)
{
    return (size_t)12 * bmax + (size_t)12 * r * nb + (size_t)12 * 6 * r * groups + 4 * (size_t)(r + 1);
}

// The two kernels: one update at a time through every level (serial), or
// one update per level at once (pipelined, the paper's MR_GPU).
parac_status launch_serial(const args &a, int heaps, cudaStream_t st);
parac_status launch_pipelined(const args &a, int heaps, cudaStream_t st);

} // namespace heap
} // namespace parac_morph

#endif
