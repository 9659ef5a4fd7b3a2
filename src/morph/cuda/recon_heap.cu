// The CUDA "heap" method: MR_GPU's parallel heap cluster (He Xi et al. 2019,
// after Deo & Prasad's parallel heap), on framed grids (recon_cuda.cuh).
//
// 1. Values become order-preserving 32-bit keys (0 is kept free as "no
//    entry"), so that raising a pixel is one atomicMax.
// 2. A parallel scan collects the seed pixels: those that can raise a
//    neighbour now. The seeds are split evenly into K groups and each group
//    is sorted by value, largest first (CUB segmented radix sort). A sorted
//    group laid out node after node is a max parallel heap whose nodes hold
//    r elements (every element of a node >= every element of its children).
// 3. One thread block of r threads runs each heap, all heaps at once and
//    without synchronising with each other (the cluster). Per iteration:
//    the root's r elements and the pixels collected in the last iteration
//    form the buffer, which is sorted; its largest r pixels are spread
//    (each thread one pixel, atomicMax on its neighbours), and the pixels
//    they raise are collected with a block prefix sum for the next
//    iteration; the next r become the root, followed by a top-down
//    delete-update (merge the node with its two children, keep the largest
//    r, the middle r to the child with the smaller minimum, the smallest r
//    to the other, which continues); the rest are inserted r at a time by
//    top-down insert-updates along the path to the next free node. Merges
//    are rank merges, one element per thread and array.
// 4. A heap that would outgrow its storage drops what it cannot insert, so
//    the scan of step 2 runs again after the cluster, until it finds no seed.
//    Values only rise towards the fix point, so any order of work gives the
//    same bits.
// Not done as in the paper: updates walk the levels of a heap one after the
// other (each level a parallel merge by the block); the paper pipelines
// successive updates level by level with one thread group per level.
#include <cuda_runtime.h>
#include <stdint.h>

#include <cub/device/device_segmented_radix_sort.cuh>

#include "core/device_internal.h"
#include "cuda/cuda_check.h"
#include "cuda/launch.h"
#include "recon_cuda.cuh"

using namespace parac_morph;

namespace {

constexpr int DEFAULT_NODE = 64, DEFAULT_HEAPS_PER_SM = 32; // measured: bench/morph heap_sweep

struct offsets {
    int n;
    int64_t off[26];
};

template <typename T>
__global__ void to_keys(const T *I, const T *J, uint32_t *Ik, uint32_t *Jk, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        Ik[i] = num<T>::key(I[i]);
        Jk[i] = num<T>::key(J[i]);
    }
}

template <typename T>
__global__ void from_keys(const uint32_t *Ik, T *I, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        I[i] = num<T>::from_key(Ik[i]);
}

// Seeds: interior pixels that can raise a neighbour.
__global__ void scan_seeds(const uint32_t *Ik, const uint32_t *Jk, grid_d g, offsets o,
                           uint32_t *keys, uint64_t *idx, unsigned long long *count)
{
    const int64_t rows = g.h * g.d;
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const int64_t z = r / g.h + g.z0, y = r % g.h + 1;
        for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x + 1; x <= g.w;
             x += (int64_t)gridDim.x * blockDim.x) {
            const int64_t p = z * g.sz + y * g.sy + x;
            const uint32_t v = Ik[p];
            bool seed = false;
            for (int k = 0; k < o.n && !seed; k++) {
                const uint32_t u = Ik[p + o.off[k]];
                seed = u < v && u < Jk[p + o.off[k]];
            }
            if (seed) {
                const unsigned long long at = atomicAdd(count, 1ull);
                keys[at] = v;
                idx[at] = (uint64_t)p;
            }
        }
    }
}

__global__ void group_offsets(int64_t *begin, int64_t seeds, int groups)
{
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k <= groups; k += gridDim.x * blockDim.x)
        begin[k] = seeds * k / groups;
}

struct heap_store {
    uint32_t *key;
    uint64_t *idx;
    unsigned *nodes; // nodes in use per heap
    int64_t cap;     // nodes per heap
    int r;
};

// Lay each sorted group out as a heap, the last node padded with empty entries.
__global__ void build_heaps(const uint32_t *keys, const uint64_t *idx, const int64_t *begin,
                            heap_store h)
{
    const int k = blockIdx.x;
    const int64_t b = begin[k], n = begin[k + 1] - b;
    const int64_t nodes = n > 0 ? (n + h.r - 1) / h.r : 1;
    const int64_t base = (int64_t)k * h.cap * h.r;
    for (int64_t i = threadIdx.x; i < nodes * h.r; i += blockDim.x) {
        h.key[base + i] = i < n ? keys[b + i] : 0u;
        h.idx[base + i] = i < n ? idx[b + i] : 0ull;
    }
    if (threadIdx.x == 0) h.nodes[k] = (unsigned)nodes;
}

// Elements of sorted (descending) array a[0..r) that come before key x in a
// merge: greater keys, and equal keys too when `ties` (the array is earlier).
__device__ int count_before(const uint32_t *a, int r, uint32_t x, bool ties)
{
    int lo = 0, hi = r;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (a[mid] > x || (ties && a[mid] == x)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// Merge m sorted arrays of r elements (ak/ai, array j at j*r) into mk/mi.
__device__ void rank_merge(const uint32_t *ak, const uint64_t *ai, int m, int r, uint32_t *mk,
                           uint64_t *mi)
{
    for (int j = 0; j < m; j++) {
        const int i = threadIdx.x;
        const uint32_t x = ak[j * r + i];
        int rank = i;
        for (int o = 0; o < m; o++)
            if (o != j) rank += count_before(ak + o * r, r, x, o < j);
        mk[rank] = x;
        mi[rank] = ai[j * r + i];
    }
    __syncthreads();
}

struct heap_args {
    uint32_t *Ik;
    const uint32_t *Jk;
    offsets o;
    heap_store h;
    int bmax; // buffer entries: a power of two >= r * (1 + neighbours)
    unsigned *overflow;
};

__global__ void heap_kernel(heap_args a)
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
        for (int k = 2; k <= n2; k <<= 1) // bitonic sort, largest first
            for (int j = k >> 1; j > 0; j >>= 1) {
                for (int i = t; i < n2; i += r) {
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
        if (bk[0] == 0u) break; // the heap is empty
        // spread the largest r; collect the pixels raised
        int c = 0;
        const uint32_t v = bk[t];
        const uint64_t p = bi[t];
        if (v != 0u && a.Ik[p] == v)
            for (int k = 0; k < nb; k++) {
                const uint64_t q = p + a.o.off[k];
                const uint32_t u = a.Ik[q];
                if (u >= v) continue;
                const uint32_t m = a.Jk[q];
                if (u >= m) continue;
                const uint32_t nv = v < m ? v : m;
                if (atomicMax(&a.Ik[q], nv) < nv) {
                    sk[t * nb + c] = nv;
                    si[t * nb + c] = q;
                    c++;
                }
            }
        cnt[t] = c;
        // the next r become the root, then a top-down delete-update
        hk[t] = bk[r + t];
        hi[t] = bi[r + t];
        __syncthreads();
        for (unsigned i = 0;;) {
            const unsigned c1 = 2 * i + 1, c2 = 2 * i + 2;
            if (c1 >= nodes) break;
            const bool has2 = c2 < nodes;
            ak[t] = hk[(int64_t)i * r + t], ai[t] = hi[(int64_t)i * r + t];
            ak[r + t] = hk[(int64_t)c1 * r + t], ai[r + t] = hi[(int64_t)c1 * r + t];
            ak[2 * r + t] = has2 ? hk[(int64_t)c2 * r + t] : 0u;
            ai[2 * r + t] = has2 ? hi[(int64_t)c2 * r + t] : 0ull;
            __syncthreads();
            const uint32_t min1 = ak[2 * r - 1], min2 = ak[3 * r - 1];
            const bool done = ak[r - 1] >= ak[r] && ak[r - 1] >= ak[2 * r]; // already a heap here
            __syncthreads();
            if (done) break;
            rank_merge(ak, ai, 3, r, mk, mi);
            hk[(int64_t)i * r + t] = mk[t], hi[(int64_t)i * r + t] = mi[t];
            // the smallest r go to the child with the larger minimum, which continues
            const unsigned low = !has2 || min1 >= min2 ? c1 : c2, mid = low == c1 ? c2 : c1;
            if (has2) hk[(int64_t)mid * r + t] = mk[r + t], hi[(int64_t)mid * r + t] = mi[r + t];
            if (!has2) { // one child: it takes the middle r; the smallest r are empty
                hk[(int64_t)c1 * r + t] = mk[r + t], hi[(int64_t)c1 * r + t] = mi[r + t];
                __syncthreads();
                break;
            }
            hk[(int64_t)low * r + t] = mk[2 * r + t], hi[(int64_t)low * r + t] = mi[2 * r + t];
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
                ak[t] = hk[(int64_t)node * r + t], ai[t] = hi[(int64_t)node * r + t];
                __syncthreads();
                const bool skip = ak[r - 1] >= ak[r]; // carried all below: nothing to swap
                __syncthreads();
                if (skip) continue;
                rank_merge(ak, ai, 2, r, mk, mi);
                hk[(int64_t)node * r + t] = mk[t], hi[(int64_t)node * r + t] = mi[t];
                ak[r + t] = mk[r + t], ai[r + t] = mi[r + t];
                __syncthreads();
            }
            hk[(int64_t)target * r + t] = ak[r + t], hi[(int64_t)target * r + t] = ai[r + t];
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

struct dev_mem {
    int dev;
    void *p = nullptr;
    size_t bytes = 0;
    explicit dev_mem(int d) : dev(d) {}
    parac_status alloc(size_t b) // replaces what was held
    {
        release();
        bytes = b ? b : 8;
        return parac__cuda_alloc(dev, bytes, &p);
    }
    void release()
    {
        if (p) parac__cuda_release(dev, p, bytes);
        p = nullptr;
    }
    ~dev_mem() { release(); }
};

template <typename T>
parac_status run_heaps(int conn, const grid_d &g, T *I, const T *J, int device, int heaps, int r,
                       cudaStream_t st)
{
    if (r <= 0) r = DEFAULT_NODE;
    if (r < 32 || r > 512 || (r & (r - 1)))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "heap: node size %d must be a power of two in 32..512", r);
    int sms = 0;
    PARAC_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    if (heaps <= 0) heaps = DEFAULT_HEAPS_PER_SM * (sms > 0 ? sms : 132);
    offsets o;
    o.n = grid_offsets(conn, g, o.off);
    const int64_t total = g.total(), interior = g.w * g.h * g.d;
    dev_mem Ik(device), Jk(device), sk(device), si(device), sk2(device), si2(device), cnt(device),
        begin(device), temp(device), hk(device), hi(device), nodes(device);
    PARAC_TRY(Ik.alloc(4 * (size_t)total));
    PARAC_TRY(Jk.alloc(4 * (size_t)total));
    PARAC_TRY(sk.alloc(4 * (size_t)interior));
    PARAC_TRY(si.alloc(8 * (size_t)interior));
    PARAC_TRY(sk2.alloc(4 * (size_t)interior));
    PARAC_TRY(si2.alloc(8 * (size_t)interior));
    PARAC_TRY(cnt.alloc(16));
    unsigned long long *count = (unsigned long long *)cnt.p;
    unsigned *overflow = (unsigned *)((char *)cnt.p + 8);
    const unsigned eb = parac__grid_for(total, 256);
    to_keys<T><<<eb, 256, 0, st>>>(I, J, (uint32_t *)Ik.p, (uint32_t *)Jk.p, total);
    PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    const int64_t rows = g.h * g.d;
    const dim3 sg((unsigned)((g.w + 255) / 256), (unsigned)(rows < 65535 ? rows : 65535));
    int nb = o.n;
    int bmax = r;
    while (bmax < r * (1 + nb)) bmax <<= 1;
    const size_t shared = (size_t)12 * bmax + (size_t)12 * r * nb + (size_t)12 * 6 * r + 4 * (size_t)(r + 1);
    PARAC_CUDA_TRY(cudaFuncSetAttribute(heap_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
    for (;;) {
        PARAC_CUDA_TRY(cudaMemsetAsync(cnt.p, 0, 16, st));
        scan_seeds<<<sg, 256, 0, st>>>((const uint32_t *)Ik.p, (const uint32_t *)Jk.p, g, o,
                                       (uint32_t *)sk.p, (uint64_t *)si.p, count);
        PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
        unsigned long long seeds = 0;
        PARAC_CUDA_TRY(cudaMemcpyAsync(&seeds, count, 8, cudaMemcpyDeviceToHost, st));
        PARAC_CUDA_TRY(cudaStreamSynchronize(st));
        if (seeds == 0) break;
        int64_t k = ((int64_t)seeds + r - 1) / r;
        if (k > heaps) k = heaps;
        const int groups = (int)k;
        PARAC_TRY(begin.alloc(8 * (size_t)(groups + 1)));
        group_offsets<<<(groups + 256) / 256, 256, 0, st>>>((int64_t *)begin.p, (int64_t)seeds, groups);
        PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
        size_t tb = 0;
        const int64_t *b0 = (const int64_t *)begin.p;
        PARAC_CUDA_TRY(cub::DeviceSegmentedRadixSort::SortPairsDescending(
            nullptr, tb, (const uint32_t *)sk.p, (uint32_t *)sk2.p, (const uint64_t *)si.p,
            (uint64_t *)si2.p, (int64_t)seeds, groups, b0, b0 + 1, 0, 32, st));
        PARAC_TRY(temp.alloc(tb));
        PARAC_CUDA_TRY(cub::DeviceSegmentedRadixSort::SortPairsDescending(
            temp.p, tb, (const uint32_t *)sk.p, (uint32_t *)sk2.p, (const uint64_t *)si.p,
            (uint64_t *)si2.p, (int64_t)seeds, groups, b0, b0 + 1, 0, 32, st));
        // room for twice the largest group, plus growth
        const int64_t largest = ((int64_t)seeds + groups - 1) / groups;
        const int64_t cap = 2 * ((largest + r - 1) / r) + 64;
        PARAC_TRY(hk.alloc(4 * (size_t)(groups * cap * r)));
        PARAC_TRY(hi.alloc(8 * (size_t)(groups * cap * r)));
        PARAC_TRY(nodes.alloc(4 * (size_t)groups));
        heap_store hs{(uint32_t *)hk.p, (uint64_t *)hi.p, (unsigned *)nodes.p, cap, r};
        build_heaps<<<groups, 256, 0, st>>>((const uint32_t *)sk2.p, (const uint64_t *)si2.p, b0, hs);
        PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
        heap_args ha{(uint32_t *)Ik.p, (const uint32_t *)Jk.p, o, hs, bmax, overflow};
        heap_kernel<<<groups, r, shared, st>>>(ha);
        PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
        PARAC_CUDA_TRY(cudaStreamSynchronize(st));
        hk.release(), hi.release(); // before the next round sizes its heaps
    }
    from_keys<T><<<eb, 256, 0, st>>>((const uint32_t *)Ik.p, I, total);
    PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    PARAC_CUDA_TRY(cudaStreamSynchronize(st));
    return PARAC_OK;
}

} // namespace

namespace parac_morph {

parac_status heap_run(parac_dtype dt, int conn, const grid_d &g, void *I, const void *J, int device,
                      int heaps, int node_size, cudaStream_t st)
{
    switch (dt) {
    case PARAC_U8: return run_heaps<uint8_t>(conn, g, (uint8_t *)I, (const uint8_t *)J, device, heaps, node_size, st);
    case PARAC_U16: return run_heaps<uint16_t>(conn, g, (uint16_t *)I, (const uint16_t *)J, device, heaps, node_size, st);
    default: return run_heaps<float>(conn, g, (float *)I, (const float *)J, device, heaps, node_size, st);
    }
}

} // namespace parac_morph
