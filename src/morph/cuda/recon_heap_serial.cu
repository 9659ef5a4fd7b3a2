// The heap cluster with serial updates (`--heap-updates serial`): one
// thread block of r threads per heap; each update walks the levels of its
// heap one after the other, each level a parallel merge by the block, and
// the next update starts when it is done. The pipelined kernel
// (recon_heap_pipelined.cu) is the paper's form; this one is its baseline.
#include "cuda/cuda_check.h"
#include "recon_heap.cuh"

namespace parac_morph {
namespace heap {
namespace {

__global__ void heap_serial_kernel(args a)
{
    extern __shared__ unsigned char smem[];
    const int r = a.h.r, t = threadIdx.x, nb = a.o.n;
    uint64_t *bi = (uint64_t *)smem;                 // buffer
    uint64_t *si = bi + a.bmax;                      // collected pixels, per thread
    uint64_t *ai = si + (size_t)r * nb;              // merge input, 3 nodes
    uint64_t *mi = ai + 3 * r;                       // merge output
    uint32_t *bk = (uint32_t *)(mi + 3 * r);
    uint32_t *sk = bk + a.bmax;
    uint32_t *ak = sk + (size_t)r * nb;
    uint32_t *mk = ak + 3 * r;
    int *cnt = (int *)(mk + 3 * r);                  // r + 1
    __shared__ unsigned nodes;
    __shared__ int collected;
    const int64_t base = (int64_t)blockIdx.x * a.h.cap * r;
    uint32_t *hk = a.h.key + base;
    uint64_t *hi = a.h.idx + base;
    if (t == 0) {
        nodes = a.h.nodes[blockIdx.x];
        collected = 0;
    }
    __syncthreads();
    for (;;) {
        // buffer = root + what the last iteration collected (already at bk[r..])
        const int total = r + collected;
        int n2 = r;
        while (n2 < total) n2 <<= 1;
        bk[t] = hk[t];
        bi[t] = hi[t];
        const int padded = n2 > 2 * r ? n2 : 2 * r; // the next root is read from [r, 2r) too
        for (int i = total + t; i < padded; i += r) bk[i] = 0u, bi[i] = 0ull;
        __syncthreads();
        sort_desc(bk, bi, n2, t, r);
        if (bk[0] == 0u) break; // the heap is empty
        // spread the largest r; collect the pixels raised
        const int c = spread_pixel(a, bk[t], bi[t], sk + t * nb, si + t * nb);
        cnt[t] = c;
        // the next r become the root, then a top-down delete-update
        hk[t] = bk[r + t];
        hi[t] = bi[r + t];
        __syncthreads();
        for (unsigned i = 0;;) {
            const unsigned c1 = 2 * i + 1, c2 = 2 * i + 2;
            if (c1 >= nodes) break;
            const bool has2 = c2 < nodes;
            load_node(hk, hi, i, true, r, t, ak, ai);
            load_node(hk, hi, c1, true, r, t, ak + r, ai + r);
            load_node(hk, hi, c2, has2, r, t, ak + 2 * r, ai + 2 * r);
            __syncthreads();
            const uint32_t min1 = ak[2 * r - 1], min2 = ak[3 * r - 1];
            const bool done = ak[r - 1] >= ak[r] && ak[r - 1] >= ak[2 * r]; // already a heap here
            __syncthreads();
            if (done) break;
            rank_merge(ak, ai, 3, r, mk, mi, t);
            __syncthreads();
            store_node(hk, hi, i, r, t, mk, mi);
            // the smallest r go to the child with the larger minimum, which continues
            const unsigned low = !has2 || min1 >= min2 ? c1 : c2, mid = low == c1 ? c2 : c1;
            if (!has2) { // one child: it takes the middle r; the smallest r are empty
                store_node(hk, hi, c1, r, t, mk + r, mi + r);
                __syncthreads();
                break;
            }
            store_node(hk, hi, mid, r, t, mk + r, mi + r);
            store_node(hk, hi, low, r, t, mk + 2 * r, mi + 2 * r);
            __syncthreads();
            i = low;
        }
        // the rest: top-down insert-updates, r at a time
        for (int s = 2 * r; s < total; s += r) {
            if (bk[s] == 0u) break;
            if (nodes >= (unsigned)a.h.cap) {
                if (t == 0) atomicAdd(a.overflow, 1u); // the rescan picks these pixels up
                break;
            }
            const unsigned target = nodes;
            ak[r + t] = bk[s + t], ai[r + t] = bi[s + t]; // carried: [r, 2r)
            __syncthreads();
            int depth = 0;
            while ((((target + 1u) >> (depth + 1)) != 0u)) depth++;
            for (int l = 0; l < depth; l++) {
                const unsigned node = ((target + 1u) >> (depth - l)) - 1u;
                load_node(hk, hi, node, true, r, t, ak, ai);
                __syncthreads();
                const bool skip = ak[r - 1] >= ak[r]; // carried all below: nothing to swap
                __syncthreads();
                if (skip) continue;
                rank_merge(ak, ai, 2, r, mk, mi, t);
                __syncthreads();
                store_node(hk, hi, node, r, t, mk, mi);
                ak[r + t] = mk[r + t], ai[r + t] = mi[r + t];
                __syncthreads();
            }
            store_node(hk, hi, target, r, t, ak + r, ai + r);
            __syncthreads();
            if (t == 0) nodes = target + 1;
            __syncthreads();
        }
        // collected pixels into the buffer after the root (a block prefix sum)
        for (int d = 1; d < r; d <<= 1) {
            const int add = t >= d ? cnt[t - d] : 0;
            __syncthreads();
            cnt[t] += add;
            __syncthreads();
        }
        const int start = cnt[t] - c;
        for (int j = 0; j < c; j++) {
            bk[r + start + j] = sk[t * nb + j];
            bi[r + start + j] = si[t * nb + j];
        }
        if (t == r - 1) collected = cnt[t];
        __syncthreads();
    }
    if (t == 0) a.h.nodes[blockIdx.x] = nodes;
}

} // namespace

parac_status launch_serial(const args &a, int heaps, cudaStream_t st)
{
    const size_t shared = shared_bytes(a.bmax, a.h.r, a.o.n, 1);
    PARAC_CUDA_TRY(cudaFuncSetAttribute(heap_serial_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
    heap_serial_kernel<<<heaps, a.h.r, shared, st>>>(a);
    return PARAC_CUDA_LAUNCH_CHECK();
}

} // namespace heap
} // namespace parac_morph
