// Method "ccl" on 2D images (and stacks of slices filled one by one):
// connected components of the background at two levels, with a tile's pixels
// held as bits, so that a warp does per row what a thread would do per pixel.
//   1. A warp per tile of 32 x 32 pixels, a lane per row: the row's background
//      is one 32-bit mask, its runs are joined to the row above where an
//      overlap starts (union-find over run starts in shared memory). The
//      components that reach the tile's edge get slots 0..n-1 and every pixel
//      its component's slot; NONE marks contour pixels and components that
//      stay inside the tile (enclosed there, so inside). Slot k of tile t is
//      global node 1 + 128 t + k; it starts as its own root, or as node 0
//      (outside) when it reaches the image border.
//   2. A thread per pixel pair across a tile edge joins their nodes (global
//      union-find, atomicMin: the smaller node wins).
//   3. A block per tile resolves its slots (root 0: outside) and writes the
//      output.
// The labels cost a byte per pixel and 512 bytes per tile, and no pass walks
// a chain of per-pixel labels.
#include <cuda_runtime.h>

#include "cuda/cuda_check.h"
#include "core/device_internal.h"
#include "cuda/launch.h"
#include "fill_ccl2d.h"
#include "fill_cuda.cuh"

namespace fillk {
namespace {

constexpr int T = 32;            // tile side: a warp's lanes, a mask's bits
constexpr int SLOTS = 128;       // > the 124 pixels on a tile's edge
constexpr uint8_t NONE = 255;
constexpr int TILES_PER_BLOCK = 4;

struct tiling {
    int tiles_x, tiles_y;        // per slice
};

__device__ inline uint32_t tile_index(const tiling &g, int tx, int ty, int z)
{
    return ((uint32_t)z * (uint32_t)g.tiles_y + (uint32_t)ty) * (uint32_t)g.tiles_x + (uint32_t)tx;
}

__device__ inline uint32_t node_of(uint32_t tile, uint32_t slot) { return 1u + tile * SLOTS + slot; }

// The first bit of the run of m that holds bit b.
__device__ inline int run_start(uint32_t m, int b)
{
    const uint32_t below = ~m & ((1u << b) - 1u);
    return below ? 32 - __clz(below) : 0;
}

// Background bits of pixels x0..x0+31 of row y (bit i: pixel x0 + i; pixels
// beyond the image are not background).
__device__ inline uint32_t row_mask(const view &v, uint32_t thr, int x0, int y, int z)
{
    if (y >= v.h) return 0;
    const int n = min(T, v.w - x0);
    const char *row = v.data + z * v.sp + y * v.rp;
    if (!v.wide_in && n == T && ((uintptr_t)(row + x0) & 15) == 0) {
        if (thr > 255) return ~0u;
        const uint4 *p = (const uint4 *)(row + x0);
        const uint4 a = __ldg(p), b = __ldg(p + 1);
        const uint32_t words[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
        const uint32_t t4 = thr * 0x01010101u;
        uint32_t m = 0;
        #pragma unroll
        for (int k = 0; k < 8; k++) {
            // a byte per pixel, 1 where below the threshold; the multiply
            // gathers the four low bits into the top byte, pixel order kept
            const uint32_t c = __vcmpltu4(words[k], t4) & 0x01010101u;
            m |= ((c * 0x01020408u) >> 24) << (4 * k);
        }
        return m;
    }
    uint32_t m = 0;
    for (int i = 0; i < n; i++) m |= (uint32_t)(in_at(v, x0 + i, y, z) < thr) << i;
    return m;
}

// Pass 1 (see the top). Shared arrays per warp: the union-find over run
// starts (index row * 32 + bit), bit sets over the same indices (roots that
// reach the tile's edge, roots that reach the image border) and the first
// slot of each row of roots; the run starts' entries then hold their slots.
__global__ void __launch_bounds__(T *TILES_PER_BLOCK)
    tiles_kernel(view v, uint32_t thr, int conn8, tiling g, uint8_t *SL, uint32_t *G, uint8_t *NS)
{
    __shared__ uint32_t parent[TILES_PER_BLOCK][T * T];
    __shared__ uint32_t edge[TILES_PER_BLOCK][T], border[TILES_PER_BLOCK][T],
        first_slot[TILES_PER_BLOCK][T];
    const int q = threadIdx.y, lane = threadIdx.x;
    const int tx = blockIdx.x * TILES_PER_BLOCK + q, ty = blockIdx.y, z = blockIdx.z;
    if (tx >= g.tiles_x) return; // a whole warp: no block-wide barrier follows
    const tile_parents s{parent[q]};
    const int x0 = tx * T, y0 = ty * T, y = y0 + lane;
    const int wn = min(T, v.w - x0); // real columns
    const uint32_t cols = wn == T ? ~0u : (1u << wn) - 1u;
    const uint32_t M = row_mask(v, thr, x0, y, z);
    const uint32_t up_raw = __shfl_up_sync(~0u, M, 1);
    const uint32_t Mup = lane ? up_raw : 0u;
    const uint32_t base = (uint32_t)lane * T;
    edge[q][lane] = 0;
    border[q][lane] = 0;
    const uint32_t starts = M & ~(M << 1);
    for (uint32_t r = starts; r; r &= r - 1) {
        const uint32_t i = base + (uint32_t)(__ffs(r) - 1);
        s[i] = i;
    }
    __syncwarp();
    // Joins with the row above: one per overlap (where it starts) and, with
    // 8 neighbours, one per diagonal pair that no background pixel beside
    // both joins already (the warp in rounds: unite_rows).
    const uint32_t o = M & Mup;
    unite_rows(s, o & ~(o << 1), conn8 ? M & (Mup << 1) & ~(M << 1) & ~Mup : 0u,
               conn8 ? M & (Mup >> 1) & ~(M >> 1) & ~Mup : 0u, [&](int b) { return base + run_start(M, b); },
               [&](int b) { return base - T + run_start(Mup, b); });
    // Each run start takes its root; runs on the tile's edge (rows 0 and 31,
    // columns 0 and 31, and the image's last row and column) mark their roots.
    const bool edge_row = lane == 0 || lane == T - 1 || y == v.h - 1;
    const uint32_t last_col = 1u << (wn - 1);
    const uint32_t on_edge = M & (edge_row ? cols : (1u | last_col | (cols & 0x80000000u)));
    const uint32_t on_border =
        M & (y == 0 || y == v.h - 1 ? cols : ((x0 == 0 ? 1u : 0u) | (x0 + wn == v.w ? last_col : 0u)));
    flatten_runs(s, base, starts);
    for (uint32_t r = starts; r; r &= r - 1) {
        const int b = __ffs(r) - 1;
        const uint32_t tail = M >> b, run = (tail & ~(tail + 1)) << b, root = s[base + b];
        if (run & on_edge) atomicOr(&edge[q][root >> 5], 1u << (root & 31));
        if (run & on_border) atomicOr(&border[q][root >> 5], 1u << (root & 31));
    }
    __syncwarp();
    // Slots in the order of the roots' indices: a prefix sum of the counts.
    const uint32_t e = edge[q][lane], bd = border[q][lane];
    uint32_t incl = __popc(e);
    #pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const uint32_t t = __shfl_up_sync(~0u, incl, d);
        if (lane >= d) incl += t;
    }
    const uint32_t excl = incl - __popc(e);
    first_slot[q][lane] = excl;
    const uint32_t tile = tile_index(g, tx, ty, z);
    for (uint32_t r = e; r; r &= r - 1) {
        const int b = __ffs(r) - 1;
        const uint32_t node = node_of(tile, excl + __popc(e & ((1u << b) - 1u)));
        G[node] = (bd >> b) & 1u ? 0u : node;
    }
    if (lane == T - 1) NS[tile] = (uint8_t)incl;
    if (tile == 0 && lane == 0) G[0] = 0; // the outside node
    __syncwarp();
    // Each run start's entry becomes its pixels' slot (NONE where the piece
    // is enclosed in the tile; no lane reads another's entries now), then the
    // tile goes out a row at a time, a lane per column: a pixel takes its
    // run start's entry.
    for (uint32_t r = starts; r; r &= r - 1) {
        const uint32_t i = base + (uint32_t)(__ffs(r) - 1);
        const uint32_t root = s[i], word = edge[q][root >> 5], bitm = 1u << (root & 31);
        s[i] = word & bitm ? first_slot[q][root >> 5] + __popc(word & (bitm - 1u)) : NONE;
    }
    __syncwarp();
    const int rows = min(T, v.h - y0);
    uint8_t *out = SL + ((size_t)z * v.h + y0) * v.w + x0 + lane;
    for (int r = 0; r < rows; r++, out += v.w) {
        const uint32_t mr = __shfl_sync(~0u, M, r);
        if (lane < wn) *out = (uint8_t)((mr >> lane) & 1u ? s[r * T + run_start(mr, lane)] : NONE);
    }
}

struct slots {
    const uint8_t *SL;
    int w, h;
    tiling g;
    __device__ uint8_t at(int x, int y, int z) const { return SL[((size_t)z * h + y) * w + x]; }
    __device__ uint32_t node(int x, int y, int z, uint8_t s) const
    {
        return node_of(tile_index(g, x / T, y / T, z), s);
    }
};

// Pass 2: pairs across the tile edges. Items: the pixels of every tile's top
// row below another tile, then the pixels of every tile's left column right
// of another tile. A pair is skipped when the pair before it along the edge,
// in the same two tiles, is background on both sides (joined through it: the
// runs of pass 1 join each side); at a tile corner that pair lies in other
// tiles, whose own pairs may be skipped for this one, so it is never skipped.
// A diagonal pair is skipped when a background pixel beside both joins it.
__global__ void join_kernel(slots S, int d, int conn8, uint32_t *G, int64_t h_items, int64_t items)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < items; i += (int64_t)gridDim.x * blockDim.x) {
        if (i < h_items) {
            const int x = (int)(i % S.w);
            const int64_t r = i / S.w;
            const int edges = S.g.tiles_y - 1;
            const int y = (int)(r % edges + 1) * T, z = (int)(r / edges), ya = y - 1;
            // every load first: they are independent, so they are in flight together
            const uint8_t b = S.at(x, y, z), a = S.at(x, ya, z);
            const uint8_t bl = x > 0 ? S.at(x - 1, y, z) : NONE, al = x > 0 ? S.at(x - 1, ya, z) : NONE;
            const uint8_t br = x + 1 < S.w ? S.at(x + 1, y, z) : NONE, ar = x + 1 < S.w ? S.at(x + 1, ya, z) : NONE;
            if (b == NONE) continue;
            if (a != NONE && (x % T == 0 || al == NONE || bl == NONE)) unite(G, S.node(x, y, z, b), S.node(x, ya, z, a));
            if (!conn8 || a != NONE) continue;
            if (al != NONE && bl == NONE) unite(G, S.node(x, y, z, b), S.node(x - 1, ya, z, al));
            if (ar != NONE && br == NONE) unite(G, S.node(x, y, z, b), S.node(x + 1, ya, z, ar));
        } else {
            // y fastest: a warp's pairs lie along one edge (see label2d_cuda.cu)
            const int64_t j = i - h_items, r = j / S.h;
            const int y = (int)(j % S.h), z = (int)(r % d), x = (int)(r / d + 1) * T, xa = x - 1;
            const uint8_t b = S.at(x, y, z), a = S.at(xa, y, z);
            const uint8_t bu = y > 0 ? S.at(x, y - 1, z) : NONE, au = y > 0 ? S.at(xa, y - 1, z) : NONE;
            const uint8_t bd = y + 1 < S.h ? S.at(x, y + 1, z) : NONE, ad = y + 1 < S.h ? S.at(xa, y + 1, z) : NONE;
            if (b == NONE) continue;
            if (a != NONE && (y % T == 0 || au == NONE || bu == NONE)) unite(G, S.node(x, y, z, b), S.node(xa, y, z, a));
            if (!conn8 || a != NONE) continue;
            if (au != NONE && bu == NONE) unite(G, S.node(x, y, z, b), S.node(xa, y - 1, z, au));
            if (ad != NONE && bd == NONE) unite(G, S.node(x, y, z, b), S.node(xa, y + 1, z, ad));
        }
    }
}

// Pass 3: a block of 8 x 32 threads per tile, four pixels per thread (one
// 32-bit load of input and slots and one store where u8 rows allow).
__global__ void __launch_bounds__(256) output_kernel(view v, rule ru, slots S, uint32_t *G, const uint8_t *NS)
{
    __shared__ uint8_t outside[SLOTS];
    const int tx = blockIdx.x, ty = blockIdx.y, z = blockIdx.z;
    const uint32_t tile = tile_index(S.g, tx, ty, z);
    const int t = threadIdx.y * blockDim.x + threadIdx.x;
    const int x = tx * T + threadIdx.x * 4, y = ty * T + threadIdx.y;
    const bool inside = x < v.w && y < v.h;
    const char *in_row = v.data + z * v.sp + y * v.rp;
    char *out_row = v.out + z * v.osp + y * v.orp;
    const uint8_t *sl_row = S.SL + ((size_t)z * S.h + y) * S.w;
    const uintptr_t align = (uintptr_t)(in_row + x) | (uintptr_t)(out_row + x) | (uintptr_t)(sl_row + x);
    const bool fast = inside && !v.wide_in && !v.wide_out && x + 4 <= v.w && (align & 3) == 0;
    // the pixels' loads go out before the walks to the slots' roots, which
    // are chains of dependent loads: the two latencies overlap
    uint32_t a = 0, s4 = 0;
    if (fast) {
        a = *(const uint32_t *)(in_row + x);
        s4 = *(const uint32_t *)(sl_row + x);
    }
    if (t < NS[tile]) {
        const uint32_t node = node_of(tile, (uint32_t)t);
        const uint32_t root = find_root(G, node);
        if (G[node] != root) G[node] = root; // shortens the walks of later tiles
        outside[t] = root == 0;
    }
    __syncthreads();
    if (!inside) return;
    if (fast) {
        uint32_t o = 0;
        #pragma unroll
        for (int k = 0; k < 4; k++) {
            const uint32_t value = (a >> (8 * k)) & 255u, s = (s4 >> (8 * k)) & 255u;
            const int cls = value >= ru.threshold ? 2 : s != NONE && outside[s];
            o |= (out_value(ru, cls, value) & 255u) << (8 * k);
        }
        *(uint32_t *)(out_row + x) = o;
        return;
    }
    for (int k = 0; k < 4 && x + k < v.w; k++) {
        const uint32_t value = in_at(v, x + k, y, z);
        const uint8_t s = sl_row[x + k];
        out_put(v, ru, x + k, y, z, value >= ru.threshold ? 2 : s != NONE && outside[s], value);
    }
}

} // namespace
} // namespace fillk

using namespace fillk;

extern "C" int parac__fill_ccl2d_fits(int64_t w, int64_t h, int64_t d)
{
    const int64_t tx = (w + T - 1) / T, ty = (h + T - 1) / T;
    return ty <= 65535 && d <= 65535 && (tx + TILES_PER_BLOCK - 1) / TILES_PER_BLOCK <= 0x7fffffff &&
           1 + tx * ty * d * SLOTS <= 0xffffffffll;
}

extern "C" parac_status parac__fill_ccl2d_cuda(const parac__fill_spec *s, const parac_image *in, parac_image *out,
                                               int64_t w, int64_t h, int64_t d, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    const tiling g{(int)((w + T - 1) / T), (int)((h + T - 1) / T)};
    const size_t n_tiles = (size_t)g.tiles_x * g.tiles_y * d;
    const size_t sl_bytes = (size_t)w * h * d, g_bytes = (1 + n_tiles * SLOTS) * sizeof(uint32_t);
    const size_t g_off = (sl_bytes + 255) & ~(size_t)255, ns_off = (g_off + g_bytes + 255) & ~(size_t)255;
    const size_t bytes = ns_off + n_tiles;
    void *mem = nullptr;
    PARAC_TRY(parac__cuda_alloc(in->device, bytes, &mem));
    uint8_t *SL = (uint8_t *)mem, *NS = (uint8_t *)mem + ns_off;
    uint32_t *G = (uint32_t *)((char *)mem + g_off);
    const view v = make_view(in, out);
    const int conn8 = s->conn == 8;
    tiles_kernel<<<dim3((unsigned)((g.tiles_x + TILES_PER_BLOCK - 1) / TILES_PER_BLOCK), (unsigned)g.tiles_y,
                        (unsigned)d),
                   dim3(T, TILES_PER_BLOCK), 0, st>>>(v, s->threshold, conn8, g, SL, G, NS);
    parac_status rc = PARAC_CUDA_LAUNCH_CHECK();
    const slots S{SL, (int)w, (int)h, g};
    const int64_t h_items = w * (g.tiles_y - 1) * d, items = h_items + (int64_t)(g.tiles_x - 1) * h * d;
    if (rc == PARAC_OK && items > 0) {
        join_kernel<<<parac__grid_for(items, 256), 256, 0, st>>>(S, (int)d, conn8, G, h_items, items);
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    if (rc == PARAC_OK) {
        output_kernel<<<dim3((unsigned)g.tiles_x, (unsigned)g.tiles_y, (unsigned)d), dim3(T / 4, T), 0, st>>>(
            v, make_rule(s), S, G, NS);
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    // the buffers go back to the pool: let the kernels finish first
    const parac_status sync = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    parac__cuda_release(in->device, mem, bytes);
    return rc != PARAC_OK ? rc : sync;
}
