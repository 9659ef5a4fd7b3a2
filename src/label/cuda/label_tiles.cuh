// What the 2D (label2d_cuda.cu) and 3D (label3d_cuda.cu) labellings share:
// tiles 32 pixels wide whose rows are bit masks, a piece of a component per
// tile named by its root (its first pixel in the tile, in raster order), and
// the passes after the unions:
//   resolve: a thread per edge piece finds its root; pieces that are not the
//            first of their component leave the bitmap of roots;
//   scan:    an exclusive scan of the bitmap's word counts (CUB), so that a
//            root's number is its word's offset + the bits before it + 1;
//   output:  a block per tile numbers its roots in shared memory, then
//            writes every pixel's label.
// Storage per tile: VOX roots (u16: index in the tile, EDGE when the piece
// touches the tile's edge, BGR for background), a list of its edge pieces
// (CAP entries, at most the pixels on its edge) and their count. Nodes (G)
// are raster indices, touched only for edge pieces; the bitmap (B) has a
// word per row of 32 pixels of a tile, in raster order.
#ifndef PARAC_LABEL_CUDA_LABEL_TILES_CUH
#define PARAC_LABEL_CUDA_LABEL_TILES_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>

#include "core/device_internal.h"
#include "cuda/cuda_check.h"
#include "cuda/launch.h"
#include "cuda/union_find.cuh"
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
    __device__ uint32_t raster(int x, int y, int z) const
    {
        return ((uint32_t)z * (uint32_t)h + (uint32_t)y) * (uint32_t)w + (uint32_t)x;
    }
    __device__ uint32_t global(int tx, int ty_, int tz_, uint32_t i) const
    {
        int x, y, z;
        pixel(tx, ty_, tz_, i, x, y, z);
        return raster(x, y, z);
    }
    // The bitmap's word and bit of a raster index.
    __device__ uint32_t word(uint32_t g) const { return (g / (uint32_t)w) * (uint32_t)nx + (g % (uint32_t)w) / T; }
    __device__ uint32_t bitpos(uint32_t g) const { return (g % (uint32_t)w) & 31; }
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

// Resolve: a thread per slot of every tile's edge list.
template <int CAP>
__global__ void resolve_kernel(tgrid g, uint32_t *G, uint32_t *B, const uint16_t *EL, const uint16_t *NE, int64_t items)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < items; i += (int64_t)gridDim.x * blockDim.x) {
        const uint32_t tile = (uint32_t)(i / CAP);
        if ((uint32_t)(i % CAP) >= NE[tile]) continue;
        int tx, ty, tz;
        g.coords(tile, tx, ty, tz);
        const uint32_t node = g.global(tx, ty, tz, EL[i]);
        const uint32_t root = parac_uf::find_root(G, node);
        if (root == node) continue;
        G[node] = root;
        atomicAnd(&B[g.word(node)], ~(1u << g.bitpos(node)));
    }
}

struct popcount {
    __host__ __device__ uint32_t operator()(uint32_t w) const
    {
#ifdef __CUDA_ARCH__
        return (uint32_t)__popc(w);
#else
        return (uint32_t)__builtin_popcount(w);
#endif
    }
};

constexpr int OUT_THREADS = 256;

// Output: a block per tile, VOX / 256 consecutive pixels of one row per
// thread (read and written 8 and 16 bytes at a time; a lane per pixel
// measured slower).
template <int VOX>
__global__ void __launch_bounds__(OUT_THREADS)
    output_kernel(tgrid g, const uint16_t *R, const uint32_t *G, const uint32_t *B, const uint32_t *O, char *out,
                  int64_t orp, int64_t osp)
{
    constexpr int PER = VOX / OUT_THREADS;
    static_assert(PER >= 4 && PER <= T && T % PER == 0, "a thread's pixels lie in one row");
    __shared__ int32_t label[VOX];
    const uint32_t tile = blockIdx.x;
    int tx, ty, tz;
    g.coords(tile, tx, ty, tz);
    const uint32_t p0 = threadIdx.x * PER;
    const uint16_t *r = R + (size_t)tile * VOX + p0;
    uint16_t roots[PER];
    #pragma unroll
    for (int k = 0; k < PER; k += 4) {
        const uint2 q = *(const uint2 *)(r + k);
        roots[k] = (uint16_t)q.x, roots[k + 1] = (uint16_t)(q.x >> 16);
        roots[k + 2] = (uint16_t)q.y, roots[k + 3] = (uint16_t)(q.y >> 16);
    }
    #pragma unroll
    for (int k = 0; k < PER; k++) {
        if (roots[k] == BGR || (roots[k] & INDEX) != p0 + k) continue;
        const uint32_t node = g.global(tx, ty, tz, p0 + k);
        const uint32_t first = (roots[k] & EDGE) ? G[node] : node;
        const uint32_t w = g.word(first);
        label[p0 + k] = (int32_t)(O[w] + __popc(B[w] & ((1u << g.bitpos(first)) - 1u)) + 1);
    }
    __syncthreads();
    int x, y, z;
    g.pixel(tx, ty, tz, p0, x, y, z);
    if (y >= g.h || z >= g.d || x >= g.w) return;
    int32_t *row = (int32_t *)(out + z * osp + y * orp);
    const bool whole = x + PER <= g.w && ((uintptr_t)(row + x) & 15) == 0;
    #pragma unroll
    for (int k = 0; k < PER; k += 4) {
        int32_t o[4];
        #pragma unroll
        for (int j = 0; j < 4; j++) o[j] = roots[k + j] == BGR ? 0 : label[roots[k + j] & INDEX];
        if (whole) {
            *(int4 *)(row + x + k) = make_int4(o[0], o[1], o[2], o[3]);
        } else {
            for (int j = 0; j < 4 && x + k + j < g.w; j++) row[x + k + j] = o[j];
        }
    }
}

inline size_t align256(size_t n) { return (n + 255) & ~(size_t)255; }

// The working memory of a labelling: one block, carved.
struct work {
    uint16_t *R, *EL, *NE;
    uint32_t *G, *B, *O;
    void *scratch;
    size_t scan_bytes, bytes;
    void *mem;
};

// Sizes the block for tiles of VOX pixels with CAP edge slots; allocates it
// on `device` when `mem` is non-NULL on return.
template <int VOX, int CAP>
parac_status work_alloc(const tgrid &g, int device, cudaStream_t st, work &k)
{
    const size_t tiles = (size_t)g.nx * g.ny * g.nz, n = (size_t)g.w * g.h * g.d, words = (size_t)g.h * g.d * g.nx;
    k.scan_bytes = 0;
    PARAC_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, k.scan_bytes,
                                                 thrust::make_transform_iterator((const uint32_t *)nullptr, popcount{}),
                                                 (uint32_t *)nullptr, (int)words, st));
    const size_t r_off = 0, g_off = align256(r_off + tiles * VOX * 2), b_off = align256(g_off + n * 4),
                 o_off = align256(b_off + words * 4), el_off = align256(o_off + words * 4),
                 ne_off = align256(el_off + tiles * CAP * 2), sc_off = align256(ne_off + tiles * 2);
    k.bytes = sc_off + (k.scan_bytes ? k.scan_bytes : 1);
    k.mem = nullptr;
    PARAC_TRY(parac__cuda_alloc(device, k.bytes, &k.mem));
    char *m = (char *)k.mem;
    k.R = (uint16_t *)(m + r_off), k.EL = (uint16_t *)(m + el_off), k.NE = (uint16_t *)(m + ne_off);
    k.G = (uint32_t *)(m + g_off), k.B = (uint32_t *)(m + b_off), k.O = (uint32_t *)(m + o_off);
    k.scratch = m + sc_off;
    return PARAC_OK;
}

// Resolve, scan and output after the unions; the count; the memory back to
// the pool (rc: the status of the passes before, which skip the rest).
template <int VOX, int CAP>
parac_status finish(parac_status rc, const tgrid &g, work &k, parac_image *out, int64_t *count, int device,
                    cudaStream_t st)
{
    const size_t tiles = (size_t)g.nx * g.ny * g.nz, words = (size_t)g.h * g.d * g.nx;
    if (rc == PARAC_OK) {
        const int64_t items = (int64_t)tiles * CAP;
        resolve_kernel<CAP><<<parac__grid_for(items, 256), 256, 0, st>>>(g, k.G, k.B, k.EL, k.NE, items);
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    if (rc == PARAC_OK)
        rc = PARAC_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(
            k.scratch, k.scan_bytes, thrust::make_transform_iterator((const uint32_t *)k.B, popcount{}), k.O,
            (int)words, st));
    if (rc == PARAC_OK) {
        output_kernel<VOX><<<(unsigned)tiles, OUT_THREADS, 0, st>>>(g, k.R, k.G, k.B, k.O, (char *)out->data,
                                                                    out->row_pitch, out->slice_pitch);
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    uint32_t tail[2] = {0, 0}; // the last word's offset and bits: the count
    if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaMemcpyAsync(&tail[0], k.O + words - 1, 4, cudaMemcpyDeviceToHost, st));
    if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaMemcpyAsync(&tail[1], k.B + words - 1, 4, cudaMemcpyDeviceToHost, st));
    // the memory goes back to the pool: let the kernels finish first
    const parac_status sync = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    parac__cuda_release(device, k.mem, k.bytes);
    if (rc == PARAC_OK && sync == PARAC_OK) *count = (int64_t)tail[0] + __builtin_popcount(tail[1]);
    return rc != PARAC_OK ? rc : sync;
}

} // namespace labelt

#endif
