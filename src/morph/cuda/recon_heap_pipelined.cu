// The heap cluster with pipelined updates, as the paper's MR_GPU (after Deo
// & Prasad's parallel heap): the updates of successive iterations travel
// down a heap at the same time, one level a step, each driven by its own
// group of r threads.
//
// One thread block per heap, G groups of r threads. An iteration (the root
// stage, the whole block) sorts the buffer (the root's r pixels and those
// collected last time), spreads the largest r, makes the next r the root
// and writes the rest, r at a time, straight into new nodes at the end of
// the heap (their insertion nodes). It then starts an update unit: a
// delete-update at the root and one insert-update per new node. Two steps
// follow; in a step every unit in flight moves one level down, each by its
// group (the groups pass the same block barriers, an idle group passing
// them with nothing to do): at level l its delete-update merges its node
// with the node's two children (the largest r stay, the middle r go to the
// child with the smaller minimum, the smallest r to the other, where the
// update goes on), and each insert-update merges the ancestor of its node at
// level l with the node (the larger r to the ancestor). An insert whose
// level reaches its node's depth is done.
//
// Why no two groups touch one node: a unit starts every second step, so
// units sit at least two levels apart, and a unit at level l reads and
// writes levels l and l+1 only, besides its own insertion nodes. Insertion
// nodes are not yet part of the heap for everyone else: delete-updates see
// only nodes below `landed`, the first insertion node still in flight
// (inserts land in the order they start: a later unit is higher up and its
// nodes are no shallower). The root is right (the largest r of the heap)
// whenever the root stage runs, since the latest unit has done level 0.
//
// What pipelining gives up: heap order may be off by the nodes still in
// flight, which changes only the order of work. Values only rise towards
// the fix point and a pixel is spread only while it holds its entry's key,
// so every order gives the same bits, and the seed rescan after the
// cluster picks up anything a heap leaves behind.
#include "cuda/cuda_check.h"
#include "recon_heap.cuh"

namespace parac_morph {
namespace heap {
namespace {

constexpr int MAX_GROUPS = 15;

struct unit {
    int level; // the level its next step works on
    int del;   // node of the delete-update, -1 when done
    int t0, m; // insertion nodes t0 .. t0+m-1
};

__device__ inline int depth_of(unsigned node) { return 31 - __clz((int)(node + 1u)); }

__device__ inline unsigned ancestor(unsigned node, int level)
{
    return ((node + 1u) >> (depth_of(node) - level)) - 1u;
}

__device__ inline bool inserting(const unit &u) { return u.m > 0 && u.level < depth_of((unsigned)(u.t0 + u.m - 1)); }

__device__ inline bool in_flight(const unit &u) { return u.del >= 0 || inserting(u); }

// Where a unit's work in a step stands, per thread of its group.
struct lane {
    uint32_t *ak, *mk; // the group's merge input (3 nodes) and output
    uint64_t *ai, *mi;
    int t;
};

// The delete-update of unit u at its level: load its node and children
// (part 0), merge them (part 1), store them (part 2); every thread of the
// block runs every part, with a block barrier after each, so that groups
// can share barriers. Returns the update's next node, -1 when done.
__device__ int delete_part(const args &a, const unit &u, bool active, unsigned landed, uint32_t *hk,
                           uint64_t *hi, const lane &w)
{
    const int r = a.h.r, t = w.t;
    const unsigned i = (unsigned)u.del, c1 = 2 * i + 1, c2 = 2 * i + 2;
    const bool work = active && u.del >= 0 && c1 < landed, has2 = c2 < landed;
    if (work) {
        load_node(hk, hi, i, true, r, t, w.ak, w.ai);
        load_node(hk, hi, c1, true, r, t, w.ak + r, w.ai + r);
        load_node(hk, hi, c2, has2, r, t, w.ak + 2 * r, w.ai + 2 * r);
    }
    __syncthreads();
    const bool merge = work && !(w.ak[r - 1] >= w.ak[r] && w.ak[r - 1] >= w.ak[2 * r]); // not a heap here yet
    const uint32_t min1 = w.ak[2 * r - 1], min2 = w.ak[3 * r - 1];
    if (merge) rank_merge(w.ak, w.ai, 3, r, w.mk, w.mi, t);
    __syncthreads();
    int next = -1;
    if (merge) {
        store_node(hk, hi, i, r, t, w.mk, w.mi);
        const unsigned low = !has2 || min1 >= min2 ? c1 : c2, mid = low == c1 ? c2 : c1;
        if (has2) {
            store_node(hk, hi, mid, r, t, w.mk + r, w.mi + r);
            store_node(hk, hi, low, r, t, w.mk + 2 * r, w.mi + 2 * r);
            next = (int)low;
        } else { // one child: it takes the middle r, the smallest r are empty
            store_node(hk, hi, c1, r, t, w.mk + r, w.mi + r);
        }
    }
    __syncthreads();
    return next;
}

// Insert-update k of unit u at its level: merge the ancestor of its
// insertion node at that level with the node (the larger r stay above).
__device__ void insert_part(const args &a, const unit &u, bool active, int k, uint32_t *hk, uint64_t *hi,
                            const lane &w)
{
    const int r = a.h.r, t = w.t;
    const unsigned target = (unsigned)(u.t0 + k);
    const bool work = active && k < u.m && u.level < depth_of(target);
    const unsigned node = work ? ancestor(target, u.level) : 0u;
    if (work) {
        load_node(hk, hi, node, true, r, t, w.ak, w.ai);
        load_node(hk, hi, target, true, r, t, w.ak + r, w.ai + r);
    }
    __syncthreads();
    const bool merge = work && w.ak[r - 1] < w.ak[r]; // else the node's keys all come first already
    if (merge) rank_merge(w.ak, w.ai, 2, r, w.mk, w.mi, t);
    __syncthreads();
    if (merge) {
        store_node(hk, hi, node, r, t, w.mk, w.mi);
        store_node(hk, hi, target, r, t, w.mk + r, w.mi + r);
    }
    __syncthreads();
}

// What the units say, read by every thread alike: the first insertion node
// still in flight (or `nodes`), the units in flight, and the most inserts
// one of them carries.
__device__ void take_stock(const unit *units, int G, unsigned nodes, unsigned &landed, int &live, int &inserts)
{
    landed = nodes;
    live = inserts = 0;
    for (int j = 0; j < G; j++) {
        const unit u = units[j];
        if (!in_flight(u)) continue;
        live++;
        if (u.m > inserts) inserts = u.m;
        for (int k = 0; k < u.m; k++)
            if (u.level < depth_of((unsigned)(u.t0 + k))) {
                if ((unsigned)(u.t0 + k) < landed) landed = (unsigned)(u.t0 + k);
                break;
            }
    }
}

__global__ void heap_pipelined_kernel(args a)
{
    extern __shared__ unsigned char smem[];
    const int r = a.h.r, G = a.groups, nb = a.o.n, tid = threadIdx.x, nt = blockDim.x;
    const int g = tid / r, t = tid % r;
    uint64_t *bi = (uint64_t *)smem;                 // buffer
    uint64_t *si = bi + a.bmax;                      // collected pixels, per spreading thread
    uint64_t *ai = si + (size_t)r * nb;              // merge inputs, 3 nodes per group
    uint64_t *mi = ai + (size_t)3 * r * G;           // merge outputs
    uint32_t *bk = (uint32_t *)(mi + (size_t)3 * r * G);
    uint32_t *sk = bk + a.bmax;
    uint32_t *ak = sk + (size_t)r * nb;
    uint32_t *mk = ak + (size_t)3 * r * G;
    int *cnt = (int *)(mk + (size_t)3 * r * G);      // r + 1
    __shared__ unit units[MAX_GROUPS];
    __shared__ unsigned nodes;
    __shared__ int collected, started, stop;
    const int64_t base = (int64_t)blockIdx.x * a.h.cap * r;
    uint32_t *hk = a.h.key + base;
    uint64_t *hi = a.h.idx + base;
    if (tid == 0) {
        nodes = a.h.nodes[blockIdx.x];
        collected = started = stop = 0;
    }
    if (tid < MAX_GROUPS) units[tid] = unit{0, -1, 0, 0};
    __syncthreads();
    unsigned landed = nodes;
    int live = 0, inserts = 0;
    const lane w{ak + (size_t)3 * r * g, mk + (size_t)3 * r * g, ai + (size_t)3 * r * g, mi + (size_t)3 * r * g, t};
    for (;;) {
        // the root stage, when the unit slot it needs is free
        const int slot = started % G;
        if (!in_flight(units[slot])) {
            const int total = r + collected;
            int n2 = r;
            while (n2 < total) n2 <<= 1;
            const int padded = n2 > 2 * r ? n2 : 2 * r;
            if (tid < r) bk[tid] = hk[tid], bi[tid] = hi[tid];
            for (int i = total + tid; i < padded; i += nt) bk[i] = 0u, bi[i] = 0ull;
            __syncthreads();
            sort_desc(bk, bi, n2, tid, nt);
            if (bk[0] != 0u) {
                int c = 0;
                if (tid < r) {
                    c = spread_pixel(a, bk[tid], bi[tid], sk + tid * nb, si + tid * nb);
                    cnt[tid] = c;
                    hk[tid] = bk[r + tid], hi[tid] = bi[r + tid]; // the next r: the root
                }
                // the rest, r at a time, into new nodes
                int m = 0;
                while (2 * r + m * r < total && bk[2 * r + m * r] != 0u) m++;
                if ((int64_t)nodes + m > a.h.cap) {
                    m = (int)(a.h.cap - nodes);
                    if (tid == 0) atomicAdd(a.overflow, 1u); // the rescan picks these pixels up
                }
                for (int i = tid; i < m * r; i += nt) {
                    const int64_t at = (int64_t)nodes * r + i;
                    hk[at] = bk[2 * r + i], hi[at] = bi[2 * r + i];
                }
                __syncthreads();
                // collected pixels into the buffer after the root (a prefix sum)
                for (int d = 1; d < r; d <<= 1) {
                    const int add = tid < r && tid >= d ? cnt[tid - d] : 0;
                    __syncthreads();
                    if (tid < r) cnt[tid] += add;
                    __syncthreads();
                }
                if (tid < r) {
                    const int start = cnt[tid] - c;
                    for (int j = 0; j < c; j++) {
                        bk[r + start + j] = sk[tid * nb + j];
                        bi[r + start + j] = si[tid * nb + j];
                    }
                }
                if (tid == 0) {
                    collected = cnt[r - 1];
                    units[slot] = unit{0, 0, (int)nodes, m};
                    nodes += m;
                    started++;
                }
            } else if (live == 0) {
                // empty root, nothing in flight: the last node moves to the
                // root and sinks (a plain heap delete), until one node is left
                if (nodes <= 1) {
                    if (tid == 0) stop = 1;
                } else {
                    if (tid < r) {
                        const int64_t last = (int64_t)(nodes - 1) * r;
                        hk[tid] = hk[last + tid], hi[tid] = hi[last + tid];
                    }
                    __syncthreads();
                    if (tid == 0) {
                        nodes--;
                        units[slot] = unit{0, 0, (int)nodes, 0};
                        started++;
                    }
                }
            }
            __syncthreads();
            if (stop) break;
            take_stock(units, G, nodes, landed, live, inserts);
        }
        // two steps: every unit in flight one level down
        for (int s = 0; s < 2; s++) {
            const unit u = units[g];
            const bool active = in_flight(u);
            const int del = delete_part(a, u, active, landed, hk, hi, w);
            for (int k = 0; k < inserts; k++) insert_part(a, u, active, k, hk, hi, w);
            if (active && t == 0) units[g].del = del, units[g].level = u.level + 1;
            __syncthreads();
            take_stock(units, G, nodes, landed, live, inserts);
        }
    }
    if (tid == 0) a.h.nodes[blockIdx.x] = nodes;
}

} // namespace

parac_status launch_pipelined(const args &a, int heaps, cudaStream_t st)
{
    if (a.groups < 1 || a.groups > MAX_GROUPS || a.groups * a.h.r > 1024)
        return parac__fail(PARAC_ERR_INTERNAL, "heap: %d groups of %d threads", a.groups, a.h.r);
    const size_t shared = shared_bytes(a.bmax, a.h.r, a.o.n, a.groups);
    PARAC_CUDA_TRY(cudaFuncSetAttribute(heap_pipelined_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)shared));
    heap_pipelined_kernel<<<heaps, a.groups * a.h.r, shared, st>>>(a);
    return PARAC_CUDA_LAUNCH_CHECK();
}

} // namespace heap
} // namespace parac_morph
