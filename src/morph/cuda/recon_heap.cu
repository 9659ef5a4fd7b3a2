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
// 3. One thread block per heap, all heaps at once and without synchronising
//    with each other (the cluster). Per iteration: the root's r elements
//    and the pixels collected in the last iteration form the buffer, which
//    is sorted; its largest r pixels are spread (atomicMax on their
//    neighbours) and the pixels they raise collected with a prefix sum for
//    the next iteration; the next r become the root, followed by a top-down
//    delete-update; the rest are inserted r at a time by top-down
//    insert-updates along the path to the next free node. The updates are
//    pipelined level by level with a thread group per level, as the paper
//    does (recon_heap_pipelined.cu, the default), or walk the levels one
//    update after another (recon_heap_serial.cu, `--heap-updates serial`);
//    `auto` pipelines only clusters too small to fill the GPU.
// 4. A heap that would outgrow its storage drops what it cannot insert, so
//    the scan of step 2 runs again after the cluster, until it finds no seed.
//    Values only rise towards the fix point, so any order of work gives the
//    same bits.
#include <cuda_runtime.h>
#include <stdint.h>

#include <cub/device/device_segmented_radix_sort.cuh>

#include "core/device_internal.h"
#include "cuda/cuda_check.h"
#include "cuda/launch.h"
#include "recon_heap.cuh"

using namespace parac_morph;
using namespace parac_morph::heap;

namespace {

constexpr int DEFAULT_NODE = 64, DEFAULT_HEAPS_PER_SM = 32; // measured: bench/morph heap_sweep
// Pipelined updates shorten each heap's iteration but take several thread
// groups per heap: faster only while the cluster leaves the SMs short of
// heaps (measured: bench/morph heap_sweep, docs/morphology.md).
constexpr int PIPELINE_BELOW_HEAPS_PER_SM = 3;

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

// Lay each sorted group out as a heap, the last node padded with empty entries.
__global__ void build_heaps(const uint32_t *keys, const uint64_t *idx, const int64_t *begin, store h)
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

// Groups of the pipelined kernel: one per update unit in flight. A unit
// lives for one step per level and one starts every second step.
int pipeline_groups(int64_t cap, int r)
{
    int depth = 1;
    while (((int64_t)1 << depth) <= cap) depth++;
    int groups = depth / 2 + 1;
    if (groups > 15) groups = 15;
    if (groups * r > 1024) groups = 1024 / r;
    return groups;
}

template <typename T>
parac_status run_heaps(int conn, const grid_d &g, T *I, const T *J, int device, int heaps, int r,
                       int updates, cudaStream_t st)
{
    if (r <= 0) r = DEFAULT_NODE;
    if (r < 32 || r > 512 || (r & (r - 1)))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "heap: node size %d must be a power of two in 32..512", r);
    int sms = 0;
    PARAC_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    if (sms <= 0) sms = 132;
    if (heaps <= 0) heaps = DEFAULT_HEAPS_PER_SM * sms;
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
        store hs{(uint32_t *)hk.p, (uint64_t *)hi.p, (unsigned *)nodes.p, cap, r};
        build_heaps<<<groups, 256, 0, st>>>((const uint32_t *)sk2.p, (const uint64_t *)si2.p, b0, hs);
        PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
        args ha{(uint32_t *)Ik.p, (const uint32_t *)Jk.p, o, hs, bmax, 1, overflow};
        if (updates == PARAC__HEAP_SERIAL ||
            (updates == PARAC__HEAP_AUTO && groups >= PIPELINE_BELOW_HEAPS_PER_SM * sms)) {
            PARAC_TRY(launch_serial(ha, groups, st));
        } else {
            ha.groups = pipeline_groups(cap, r);
            PARAC_TRY(launch_pipelined(ha, groups, st));
        }
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
                      int heaps, int node_size, int updates, cudaStream_t st)
{
    switch (dt) {
    case PARAC_U8: return run_heaps<uint8_t>(conn, g, (uint8_t *)I, (const uint8_t *)J, device, heaps, node_size, updates, st);
    case PARAC_U16: return run_heaps<uint16_t>(conn, g, (uint16_t *)I, (const uint16_t *)J, device, heaps, node_size, updates, st);
    default: return run_heaps<float>(conn, g, (float *)I, (const float *)J, device, heaps, node_size, updates, st);
    }
}

} // namespace parac_morph
