// What the 2D (label2d_cuda.cu) and 3D (label_cuda.cu) labellings share:
// tiles 32 pixels wide whose rows are bit masks, a piece of a component per
// tile named by its root (its first pixel in the tile, in raster order), and
// the passes after the unions:
//   resolve: a thread per edge piece finds its component's root node and
//            lowers the root's key to its own (keys: positions in raster
//            order); then a thread per edge piece whose key is not its
//            component's leaves the bitmap of firsts;
//   scan:    an exclusive scan of the bitmap's word counts (CUB), so that a
//            first pixel's number is its word's offset + the bits before
//            it + 1;
//   output:  a block per tile numbers its pieces in shared memory, then
//            writes every pixel's label.
// Storage per tile: VOX roots (u16: the root's index in the tile, or EDGE |
// the piece's slot when the piece touches the tile's edge, BGR for
// background), a list of its edge pieces (CAP slots, at most the pixels on
// its edge: the root's index in the tile) and their count. An edge piece's
// node is tile * CAP + slot: the global union-find (G) and the keys (F)
// cover edge pieces only (an eighth of the pixels' count in 2D), and nodes
// fit 32 bits for images of many more than 2^32 pixels. A key is the
// pixel's index in an image whose rows are padded to whole tiles: ordered as
// raster order, and its word of the bitmap (B: a word per row of 32 pixels
// of a tile, in raster order) is key / 32 without a division.
#ifndef PARAC_LABEL_CUDA_LABEL_TILES_CUH
#define PARAC_LABEL_CUDA_LABEL_TILES_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>

#include "core/device_internal.h"
#include "core/error_internal.h"
#include "cuda/cuda_check.h"
#include "cuda/launch.h"
#include "cuda/union_find.cuh"
#include "label/label.h"
#include "label_keys.cuh"

namespace labelt {

constexpr int T = 32;              // tile width: a mask's bits
constexpr uint16_t BGR = 0xffff;   // a background pixel's root
constexpr uint16_t EDGE = 0x8000;  // the piece touches its tile's edge
constexpr uint16_t INDEX = 0x7fff;

// Tiles of 32 x ty x tz pixels; a tile's pixel i is in row i / 32 of the
// tile (rows y first, then z), column i % 32.
struct tgrid {
    int w, h, d;
    int nx, ny, nz;       // tiles per axis
    int ty, tz;           // rows of a tile along y and z
    __device__ uint32_t tile(int tx, int ty_, int tz_) const
    {
        return ((uint32_t)tz_ * (uint32_t)ny + (uint32_t)ty_) * (uint32_t)nx + (uint32_t)tx;
    }
    __device__ void coords(uint32_t t, int &tx, int &ty_, int &tz_) const
    {
        tx = (int)(t % (uint32_t)nx);
        const uint32_t r = t / (uint32_t)nx;
        ty_ = (int)(r % (uint32_t)ny);
        tz_ = (int)(r / (uint32_t)ny);
    }
    // The pixel at index i of tile (tx, ty_, tz_).
    __device__ void pixel(int tx, int ty_, int tz_, uint32_t i, int &x, int &y, int &z) const
    {
        const int row = (int)(i >> 5);
        x = tx * T + (int)(i & 31);
        y = ty_ * ty + row % ty;
        z = tz_ * tz + row / ty;
    }
    // The key of pixel (x, y, z) (see the top) and of pixel i of a tile.
    __device__ uint64_t key(int x, int y, int z) const
    {
        return ((uint64_t)z * (uint64_t)h + (uint64_t)y) * ((uint64_t)nx * T) + (uint64_t)x;
    }
    __device__ uint64_t key_of(int tx, int ty_, int tz_, uint32_t i) const
    {
        int x, y, z;
        pixel(tx, ty_, tz_, i, x, y, z);
        return key(x, y, z);
    }
};

// The first bit of the run that holds bit b, given the runs' first bits.
__device__ inline int run_start(uint32_t starts, int b)
{
    return 31 - __clz(starts & (b == 31 ? ~0u : (2u << b) - 1u));
}

// The bits of the run that starts at bit b: b and the pixels after it that
// join their left neighbour (SL; with keys, foreground pixels side by side
// need not join).
__device__ inline uint32_t run_bits(uint32_t SL, int b)
{
    const uint32_t after = b == 31 ? 0u : SL >> (b + 1), more = after & ~(after + 1);
    return ((more << 1) | 1u) << b;
}

// Every run start of a row takes its root (every lane calls): the row's
// roots as bits; the roots of runs that touch `on_edge` marked in `edge` (a
// bit per index of the union-find).
__device__ inline uint32_t find_run_roots(parac_uf::tile_parents s, uint32_t base, uint32_t starts, uint32_t SL,
                                          uint32_t on_edge, uint32_t *edge)
{
    parac_uf::flatten_runs(s, base, starts);
    uint32_t roots = 0;
    for (uint32_t r = starts; r; r &= r - 1) {
        const int b = __ffs(r) - 1;
        const uint32_t root = s[base + b];
        if (root == base + b) roots |= 1u << b;
        if (run_bits(SL, b) & on_edge) atomicOr(&edge[root >> 5], 1u << (root & 31));
    }
    __syncwarp();
    return roots;
}

// Nonzero bits of pixels x0..x0+n-1 of row (y, z), a u8 row aligned to 16
// bytes read 16 bytes at a time.
__device__ inline uint32_t nonzero_mask(const labelk::src &v, int x0, int y, int z, int n)
{
    const char *row = v.data + z * v.sp + y * v.rp;
    if (v.dtype == PARAC_U8 && n == T && ((uintptr_t)(row + x0) & 15) == 0) {
        const uint4 *p = (const uint4 *)(row + x0);
        const uint4 a = __ldg(p), b = __ldg(p + 1);
        const uint32_t words[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
        uint32_t m = 0;
        #pragma unroll
        for (int k = 0; k < 8; k++) {
            // 0xff per nonzero byte; the multiply gathers the four low bits
            // into the top byte, pixel order kept
            const uint32_t c = __vcmpne4(words[k], 0u) & 0x01010101u;
            m |= ((c * 0x01020408u) >> 24) << (4 * k);
        }
        return m;
    }
    uint32_t m = 0, key;
    for (int i = 0; i < n; i++) m |= (uint32_t)labelk::key_at(v, x0 + i, y, z, key) << i;
    return m;
}

// The passes over edge lists: a warp per tile, its lanes on the tile's NE
// slots (a 3D tile of noise has a few edge pieces of its 3784 slots, a 2D
// tile at most 124 of 128; a thread per slot of every tile's CAP slots left
// nearly every thread idle, and in 3D found its tile by a 64-bit division).
constexpr int LIST_THREADS = 256, LIST_TILES = LIST_THREADS / 32; // tiles a block

// Resolve, first pass: a thread per edge piece. The union-find is complete:
// each node points at its component's root node, whose key falls to the
// smallest of its nodes' (keys of non-root nodes stay their own).
template <int CAP>
__global__ void __launch_bounds__(LIST_THREADS) resolve_kernel(uint32_t *G, uint64_t *F, const uint16_t *NE, uint32_t tiles)
{
    const uint32_t lane = threadIdx.x & 31u;
    for (uint32_t tile = blockIdx.x * LIST_TILES + threadIdx.x / 32u; tile < tiles; tile += gridDim.x * LIST_TILES)
        for (uint32_t slot = lane; slot < NE[tile]; slot += 32u) {
            // halving the paths as it walks: a spiral's pieces make chains
            // across whole rows of tiles, and walks of later nodes are shorter
            const uint32_t node = tile * (uint32_t)CAP + slot, root = parac_uf::find_root_halving(G, node);
            if (root == node) continue;
            G[node] = root;
            // read first: one component may hold most nodes (noise above the
            // percolation threshold), and atomics on one address serialise;
            // nodes run in tile order, so the key soon falls below most
            const uint64_t key = F[node];
            if (key < ((volatile uint64_t *)F)[root]) atomicMin((unsigned long long *)&F[root], (unsigned long long)key);
        }
}

// Resolve, second pass: an edge piece whose first pixel is not its
// component's first leaves the bitmap, and its key becomes its component's
// (a root's first pixel is its component's first: resolve lowered its key).
template <int CAP>
__global__ void __launch_bounds__(LIST_THREADS)
    firsts_kernel(tgrid g, const uint32_t *G, uint64_t *F, uint32_t *B, const uint16_t *EL, const uint16_t *NE,
                  uint32_t tiles)
{
    const uint32_t lane = threadIdx.x & 31u;
    for (uint32_t tile = blockIdx.x * LIST_TILES + threadIdx.x / 32u; tile < tiles; tile += gridDim.x * LIST_TILES) {
        int tx, ty, tz;
        g.coords(tile, tx, ty, tz);
        for (uint32_t slot = lane; slot < NE[tile]; slot += 32u) {
            const uint32_t i = tile * (uint32_t)CAP + slot;
            const uint64_t own = g.key_of(tx, ty, tz, EL[i]);
            const uint32_t root = G[i];
            const uint64_t first = F[root];
            // no thread reads a non-root's key now: it takes its component's,
            // and the output finds it in one load (a root's is its component's)
            if (root != i) F[i] = first;
            if (own != first) atomicAnd(&B[own >> 5], ~(1u << (own & 31)));
        }
    }
}

struct popcount {
    __host__ __device__ uint64_t operator()(uint32_t w) const
    {
#ifdef __CUDA_ARCH__
        return (uint64_t)__popc(w);
#else
        return (uint64_t)__builtin_popcount(w);
#endif
    }
};

// The number of the component whose first pixel has key k.
__device__ inline uint64_t number_of(const uint32_t *B, const uint64_t *O, uint64_t k)
{
    const uint64_t w = k >> 5;
    return O[w] + (uint64_t)__popc(B[w] & ((1u << (k & 31)) - 1u)) + 1u;
}

// The output's threads a block: eight rounds of four pixels each (at least
// 256: a 2D tile of 1024 pixels takes one round).
template <int VOX>
__host__ __device__ constexpr int out_threads() { return VOX / 32 < 256 ? 256 : VOX / 32; }

// The output's shared memory: the edge pieces' numbers, then (i32 output)
// a number per pixel of the tile. Sized at launch: a 3D tile of 32 x 32 x 16
// voxels needs 79 KB, above the 48 KB a block takes without asking.
template <int VOX, int CAP, typename L>
constexpr size_t out_shared() { return CAP * sizeof(L) + (sizeof(L) == 8 ? 0 : (size_t)VOX * 4); }

// Output: a block per tile, groups of GROUP consecutive pixels of one row
// per thread, the block's threads on consecutive groups (read and written 8
// and 16 bytes at a time, a warp on whole rows: in 3D each thread took a
// row of 32 pixels, and a warp's stores fell on 32 rows at once; a lane per
// pixel measured slower in 2D). Pieces inside the tile are numbered at
// their root pixel, edge pieces by slot from their component's key. L:
// int32_t, or int64_t for more components than 2^31 - 1; those pieces
// inside are numbered at each pixel (a 3D tile's 16384 numbers of 8 bytes
// would take 128 KB of shared memory, a block an SM; such images are rare,
// and their output is twice as large). The count (the last word's offset
// and bits) goes to O[words], for one copy to the host. A block waits on
// chains of loads (an edge piece's key, then its word's offset and bits),
// so every load that does not depend on another is issued first.
template <int VOX, int CAP, typename L>
__global__ void __launch_bounds__(out_threads<VOX>())
    output_kernel(tgrid g, const uint16_t *R, const uint64_t *F, const uint32_t *B, uint64_t *O,
                  const uint16_t *NE, uint64_t words, char *out, int64_t orp, int64_t osp)
{
    constexpr int OUT_THREADS = out_threads<VOX>(), GROUP = 4, ROUNDS = VOX / (OUT_THREADS * GROUP);
    constexpr bool WIDE = sizeof(L) == 8;
    static_assert(ROUNDS >= 1 && VOX % (OUT_THREADS * GROUP) == 0 && T % GROUP == 0,
                  "a thread's groups lie in rows, every thread has as many");
    extern __shared__ __align__(8) unsigned char out_mem[]; // out_shared's bytes
    L *edge_label = (L *)out_mem;
    int32_t *label = (int32_t *)(out_mem + CAP * sizeof(L));
    const uint32_t tile = blockIdx.x;
    const uint16_t *r = R + (size_t)tile * VOX;
    uint16_t roots[ROUNDS * GROUP];
    #pragma unroll
    for (int k = 0; k < ROUNDS; k++) {
        const uint2 q = *(const uint2 *)(r + (k * OUT_THREADS + threadIdx.x) * GROUP);
        roots[k * GROUP] = (uint16_t)q.x, roots[k * GROUP + 1] = (uint16_t)(q.x >> 16);
        roots[k * GROUP + 2] = (uint16_t)q.y, roots[k * GROUP + 3] = (uint16_t)(q.y >> 16);
    }
    int tx, ty, tz;
    g.coords(tile, tx, ty, tz);
    if (tile == 0 && threadIdx.x == 0) O[words] = O[words - 1] + (uint64_t)__popc(B[words - 1]);
    for (int k = threadIdx.x; k < NE[tile]; k += OUT_THREADS)
        edge_label[k] = (L)number_of(B, O, F[tile * (uint32_t)CAP + (uint32_t)k]); // firsts: the component's key
    if (!WIDE) {
        #pragma unroll
        for (int k = 0; k < ROUNDS; k++) {
            const uint32_t p0 = (k * OUT_THREADS + threadIdx.x) * GROUP;
            #pragma unroll
            for (int j = 0; j < GROUP; j++)
                if (roots[k * GROUP + j] == p0 + j) label[p0 + j] = (int32_t)number_of(B, O, g.key_of(tx, ty, tz, p0 + j));
        }
    }
    __syncthreads();
    #pragma unroll
    for (int k = 0; k < ROUNDS; k++) {
        const uint32_t p0 = (k * OUT_THREADS + threadIdx.x) * GROUP;
        int x, y, z;
        g.pixel(tx, ty, tz, p0, x, y, z);
        if (y >= g.h || z >= g.d || x >= g.w) continue;
        L *row = (L *)(out + z * osp + y * orp);
        L o[GROUP];
        #pragma unroll
        for (int j = 0; j < GROUP; j++) {
            const uint16_t v = roots[k * GROUP + j];
            o[j] = v == BGR ? 0
                 : (v & EDGE) ? edge_label[v & INDEX]
                 : WIDE ? (L)number_of(B, O, g.key_of(tx, ty, tz, v)) : (L)label[v];
        }
        if (x + GROUP <= g.w && ((uintptr_t)(row + x) & 15) == 0) {
            if (WIDE) {
                *(longlong2 *)(row + x) = make_longlong2(o[0], o[1]);
                *(longlong2 *)(row + x + 2) = make_longlong2(o[2], o[3]);
            } else {
                *(int4 *)(row + x) = make_int4((int)o[0], (int)o[1], (int)o[2], (int)o[3]);
            }
        } else {
            for (int j = 0; j < GROUP && x + j < g.w; j++) row[x + j] = o[j];
        }
    }
}

inline size_t align256(size_t n) { return (n + 255) & ~(size_t)255; }

// Whether a grid of tiles of VOX pixels with CAP edge slots fits the
// kernels: nodes in 32 bits, the bitmap's words counted by an int (CUB),
// tiles numbered in 32 bits; why not in `why` otherwise.
template <int VOX, int CAP>
bool fits(const tgrid &g, const char **why)
{
    const uint64_t tiles = (uint64_t)g.nx * g.ny * g.nz, words = (uint64_t)g.h * g.d * g.nx;
    if (tiles * CAP > 0xffffffffull) return *why = "more edge pieces than 32-bit nodes number", false;
    if (words > 0x7fffffffull) return *why = "more rows of 32 pixels than 2^31", false;
    return true;
}

// The working memory of a labelling: one block, carved.
struct work {
    uint16_t *R, *EL, *NE;
    uint32_t *G, *B;
    uint64_t *F, *O;
    void *scratch;
    void *extra; // the caller's `extra` bytes (work_alloc)
    size_t scan_bytes, bytes;
    void *mem;
};

// Sizes the block for tiles of VOX pixels with CAP edge slots, and `extra`
// bytes more for the caller; allocates it on `device` when `mem` is non-NULL
// on return.
template <int VOX, int CAP>
parac_status work_alloc(const tgrid &g, int device, cudaStream_t st, work &k, size_t extra = 0)
{
    const size_t tiles = (size_t)g.nx * g.ny * g.nz, nodes = tiles * CAP, words = (size_t)g.h * g.d * g.nx;
    k.scan_bytes = 0;
    PARAC_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, k.scan_bytes,
                                                 thrust::make_transform_iterator((const uint32_t *)nullptr, popcount{}),
                                                 (uint64_t *)nullptr, (int)words, st));
    const size_t r_off = 0, g_off = align256(r_off + tiles * VOX * 2), f_off = align256(g_off + nodes * 4),
                 b_off = align256(f_off + nodes * 8), o_off = align256(b_off + words * 4),
                 el_off = align256(o_off + (words + 1) * 8), ne_off = align256(el_off + nodes * 2),
                 sc_off = align256(ne_off + tiles * 2), ex_off = align256(sc_off + k.scan_bytes);
    k.bytes = ex_off + (extra ? extra : 1);
    k.mem = nullptr;
    PARAC_TRY(parac__cuda_alloc(device, k.bytes, &k.mem));
    char *m = (char *)k.mem;
    k.R = (uint16_t *)(m + r_off), k.EL = (uint16_t *)(m + el_off), k.NE = (uint16_t *)(m + ne_off);
    k.G = (uint32_t *)(m + g_off), k.B = (uint32_t *)(m + b_off);
    k.F = (uint64_t *)(m + f_off), k.O = (uint64_t *)(m + o_off);
    k.scratch = m + sc_off, k.extra = m + ex_off;
    return PARAC_OK;
}

// Lets kernel `f` take `bytes` of dynamic shared memory (past 48 KB a block
// must ask; the attribute is the function's, set before each launch).
template <typename F>
parac_status allow_shared(F *f, size_t bytes)
{
    if (bytes <= 48 * 1024) return PARAC_OK;
    return PARAC_CUDA_CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
}

// The output pass: a block per tile.
template <int VOX, int CAP, typename L>
parac_status launch_output(const tgrid &g, const work &k, size_t words, parac_image *out, cudaStream_t st)
{
    const size_t tiles = (size_t)g.nx * g.ny * g.nz, bytes = out_shared<VOX, CAP, L>();
    PARAC_TRY(allow_shared(output_kernel<VOX, CAP, L>, bytes));
    output_kernel<VOX, CAP, L><<<(unsigned)tiles, out_threads<VOX>(), bytes, st>>>(
        g, k.R, k.F, k.B, k.O, k.NE, (uint64_t)words, (char *)out->data, out->row_pitch, out->slice_pitch);
    return PARAC_CUDA_LAUNCH_CHECK();
}

// The last word's offset and bits (their sum is the count), copied to the
// host on the stream.
inline parac_status copy_count(const work &k, size_t words, uint64_t *offset, uint32_t *bits, cudaStream_t st)
{
    PARAC_CUDA_TRY(cudaMemcpyAsync(offset, k.O + words - 1, 8, cudaMemcpyDeviceToHost, st));
    PARAC_CUDA_TRY(cudaMemcpyAsync(bits, k.B + words - 1, 4, cudaMemcpyDeviceToHost, st));
    return PARAC_OK;
}

// Resolve, scan and output after the unions; the count; the memory back to
// the pool (rc: the status of the passes before, which skip the rest).
template <int VOX, int CAP>
parac_status finish(const parac__label_spec *s, parac_status rc, const tgrid &g, work &k, parac_image *out,
                    int64_t *count, int device, cudaStream_t st)
{
    const size_t tiles = (size_t)g.nx * g.ny * g.nz, words = (size_t)g.h * g.d * g.nx;
    // tiles * CAP < 2^32 (fits); past 2^31 - 1 blocks the warps stride
    const size_t list_blocks = (tiles + LIST_TILES - 1) / LIST_TILES;
    const unsigned lb = (unsigned)(list_blocks < 0x7fffffffu ? list_blocks : 0x7fffffffu);
    if (rc == PARAC_OK) {
        resolve_kernel<CAP><<<lb, LIST_THREADS, 0, st>>>(k.G, k.F, k.NE, (uint32_t)tiles);
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    if (rc == PARAC_OK) {
        firsts_kernel<CAP><<<lb, LIST_THREADS, 0, st>>>(g, k.G, k.F, k.B, k.EL, k.NE, (uint32_t)tiles);
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    if (rc == PARAC_OK)
        rc = PARAC_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(
            k.scratch, k.scan_bytes, thrust::make_transform_iterator((const uint32_t *)k.B, popcount{}), k.O,
            (int)words, st));
    // An i32 output of more than 2^31 - 1 pixels may be too narrow for the
    // count: it is read before the output is written (a wait, on such
    // images only) and the output widened where it must be.
    const uint64_t i32_max = (uint64_t)parac__label_i32_max();
    if (rc == PARAC_OK && out->dtype == PARAC_I32 && (uint64_t)g.w * g.h * g.d > i32_max) {
        uint64_t last_offset = 0; // the last word's offset and bits: the count
        uint32_t last_bits = 0;
        rc = copy_count(k, words, &last_offset, &last_bits, st);
        if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
        const uint64_t n = last_offset + (uint64_t)__builtin_popcount(last_bits);
        if (rc == PARAC_OK && n > i32_max) rc = parac__label_widen(s, (int64_t)n, &out);
    }
    if (rc == PARAC_OK)
        rc = out->dtype == PARAC_I64 ? launch_output<VOX, CAP, int64_t>(g, k, words, out, st)
                                     : launch_output<VOX, CAP, int32_t>(g, k, words, out, st);
    uint64_t n = 0;
    if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaMemcpyAsync(&n, k.O + words, 8, cudaMemcpyDeviceToHost, st));
    // the memory goes back to the pool: let the kernels finish first
    const parac_status sync = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    parac__cuda_release(device, k.mem, k.bytes);
    if (rc != PARAC_OK) return rc;
    if (sync != PARAC_OK) return sync;
    *count = (int64_t)n;
    return PARAC_OK;
}

} // namespace labelt

#endif
