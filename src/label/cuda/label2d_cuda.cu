// Labelling of 2D images on the GPU with a tile's pixels held as bits, so
// that a warp does per row what a thread would do per pixel (the fill's
// tiles, fill_ccl2d.cu, generalised to keys and to numbering):
//   1. tiles: a warp per tile of 32 x 32 pixels, a lane per row. Bit masks
//      of the row say which pixels are foreground and which join their left,
//      upper, upper-left and upper-right neighbours (same key); runs join the
//      row above where an overlap starts (union-find over run starts in
//      shared memory, the smaller index wins; the lanes unite in rounds of
//      the warp, then every entry jumps to its root: union_find.cuh, whose
//      notes say why). A tile's piece of a component
//      is thereby named by its first pixel in raster order (its root), and
//      every pixel gets its root's index in the tile, flagged when the piece
//      touches the tile's edge. Each row's roots are one 32-bit word of a
//      bitmap in raster order; the edge pieces get a slot in the tile's
//      list, a global node and a key (their root's position).
//   2. join: a thread per pixel pair across a tile edge unites their pieces'
//      nodes (global union-find, atomicMin: the smaller node wins), the
//      warp's unions in rounds. Across vertical edges the roots come from a
//      copy of the tiles' first and last columns that pass 1 writes
//      (x_edge_at): in R a warp's 32 pixels along y lie a sector apart.
//   3. resolve, scan and output as label_tiles.cuh says: components
//      numbered 1..n in the raster order of their first pixel.
// A pixel costs its input read, 2 bytes of root written and read, and its
// label written; nodes are touched only for pieces on tile edges.
#include <cuda_runtime.h>

#include "label2d.h"
#include "label_tiles.cuh"

namespace label2dk {
namespace {

using namespace parac_uf;
using labelk::src;
using labelk::key_at;

using namespace labelt;

constexpr int TPB = 4;             // tiles (warps) per block of pass 1
constexpr int AREA = T * T;
constexpr int EDGE_SLOTS = 128;    // > the 124 pixels on a tile's edge

// Where the roots of row y's first and last pixels in tile column tx are
// kept (a word, the first's in its low half): rows side by side, so that
// the join across vertical edges, a warp on 32 pixels along y, reads 128
// consecutive bytes where its pixels' roots in R lie 64 bytes apart, a
// sector each.
__host__ __device__ inline size_t x_edge_at(const tgrid &g, int tx, int y)
{
    return (size_t)tx * (size_t)g.h + (size_t)y;
}

// Pass 1 (see the top). EQ: keys are values, held in shared memory (a row
// per lane, padded so that lanes reading the same column hit other banks).
template <bool EQ>
__global__ void __launch_bounds__(T *TPB)
    tiles_kernel(src v, int conn8, tgrid g, uint16_t *R, uint32_t *G, uint64_t *F, uint32_t *B, uint16_t *EL,
                 uint16_t *NE, uint32_t *XF)
{
    __shared__ uint32_t parent[TPB][AREA];
    __shared__ uint32_t edge[TPB][T];
    __shared__ uint16_t first_slot[TPB][T]; // the slot of each row's first edge piece
    __shared__ uint32_t keys[TPB][EQ ? T : 1][EQ ? T + 1 : 1];
    const int q = threadIdx.y, lane = threadIdx.x;
    const int tx = blockIdx.x * TPB + q, ty = blockIdx.y;
    if (tx >= g.nx) return; // a whole warp: no block-wide barrier follows
    const tile_parents s{parent[q]};
    const int x0 = tx * T, y = ty * T + lane;
    const int wn = min(T, g.w - x0);
    const bool row_in = y < g.h;
    uint32_t M = 0, SL, SU, SUL, SUR; // foreground; joins left, up, up-left, up-right
    if (!EQ) {
        if (row_in) M = nonzero_mask(v, x0, y, 0, wn);
        const uint32_t up = __shfl_up_sync(~0u, M, 1), Mup = lane ? up : 0u;
        SL = M & (M << 1);
        SU = M & Mup;
        SUL = M & (Mup << 1);
        SUR = M & (Mup >> 1);
    } else {
        uint32_t *kr = keys[q][lane];
        if (row_in)
            for (int i = 0; i < wn; i++) {
                uint32_t k;
                if (key_at(v, x0 + i, y, 0, k)) M |= 1u << i;
                kr[i] = k;
            }
        const uint32_t up = __shfl_up_sync(~0u, M, 1), Mup = lane ? up : 0u;
        __syncwarp();
        const uint32_t *ku = keys[q][lane ? lane - 1 : 0];
        SL = SU = SUL = SUR = 0;
        for (uint32_t r = M; r; r &= r - 1) {
            const int i = __ffs(r) - 1;
            const uint32_t k = kr[i];
            if (i > 0 && ((M >> (i - 1)) & 1u) && kr[i - 1] == k) SL |= 1u << i;
            if ((Mup >> i) & 1u && ku[i] == k) SU |= 1u << i;
            if (i > 0 && ((Mup >> (i - 1)) & 1u) && ku[i - 1] == k) SUL |= 1u << i;
            if (i < 31 && ((Mup >> (i + 1)) & 1u) && ku[i + 1] == k) SUR |= 1u << i;
        }
    }
    const uint32_t starts = M & ~SL;
    const uint32_t up_starts = __shfl_up_sync(~0u, starts, 1);
    const uint32_t base = (uint32_t)lane * T;
    edge[q][lane] = 0;
    for (uint32_t r = starts; r; r &= r - 1) {
        const uint32_t i = base + (uint32_t)(__ffs(r) - 1);
        s[i] = i;
    }
    __syncwarp();
    // Joins with the row above: one per overlap, where it starts (a pixel
    // whose left neighbour joins it and the pixel above the left neighbour
    // is joined already); with 8 neighbours, the diagonals that no pixel
    // beside both joins (keys are equal or not: a joined neighbour of both
    // pixels carries the join).
    unite_rows(s, SU & ~((SU << 1) & SL), conn8 ? SUL & ~(SL | SU) : 0u, conn8 ? SUR & ~((SL >> 1) | SU) : 0u,
               [&](int b) { return base + run_start(starts, b); },
               [&](int b) { return base - T + run_start(up_starts, b); });
    // Every run start takes its root; runs on the tile's edge mark theirs.
    const uint32_t on_edge = M & (lane == 0 || lane == T - 1 ? ~0u : 0x80000001u);
    const uint32_t roots = find_run_roots(s, base, starts, SL, on_edge, edge[q]);
    const uint32_t tile = g.tile(tx, ty, 0);
    if (row_in) B[(uint64_t)y * (uint64_t)g.nx + (uint64_t)tx] = roots;
    // The edge pieces: the tile's list, their nodes (their own roots, so
    // far) and keys.
    const uint32_t e = edge[q][lane];
    uint32_t incl = __popc(e);
    #pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const uint32_t t = __shfl_up_sync(~0u, incl, d);
        if (lane >= d) incl += t;
    }
    uint32_t slot = incl - __popc(e);
    first_slot[q][lane] = (uint16_t)slot;
    for (uint32_t r = e; r; r &= r - 1) {
        const uint32_t i = base + (uint32_t)(__ffs(r) - 1), node = tile * EDGE_SLOTS + slot++;
        G[node] = node;
        F[node] = g.key_of(tx, ty, 0, i);
        EL[node] = (uint16_t)i;
    }
    if (lane == T - 1) NE[tile] = (uint16_t)incl;
    __syncwarp();
    // Each run start's entry becomes what its pixels store: the root's index
    // in the tile, or EDGE | its slot (no lane reads another's entries now).
    for (uint32_t r = starts; r; r &= r - 1) {
        const uint32_t i = base + (uint32_t)(__ffs(r) - 1);
        const uint32_t root = s[i], above = edge[q][root >> 5], bit = 1u << (root & 31);
        s[i] = above & bit ? EDGE | (first_slot[q][root >> 5] + __popc(above & (bit - 1))) : root;
    }
    // The roots of the row's first and last pixels, for the join across
    // vertical edges (x_edge_at; a lane reads its own row's entries).
    if (row_in) {
        const uint32_t first = M & 1u ? s[base] : BGR, last = M >> 31 ? s[base + run_start(starts, 31)] : BGR;
        XF[x_edge_at(g, tx, y)] = first | last << 16;
    }
    __syncwarp();
    // The tile goes out a row at a time, a lane per pixel (stored tile by
    // tile): a pixel takes its run start's entry.
    uint16_t *out = R + (size_t)tile * AREA + lane;
    for (int r = 0; r < T; r++) {
        const uint32_t mr = __shfl_sync(~0u, M, r), sr = __shfl_sync(~0u, starts, r);
        out[r * T] = (uint16_t)((mr >> lane) & 1u ? s[r * T + run_start(sr, lane)] : BGR);
    }
}

// Pass 2. Two pixels join when both are foreground and, with keys, equal.
template <bool EQ>
struct pixels {
    src v;
    tgrid g;
    const uint16_t *R;
    const uint32_t *XF; // x_edge_at
    __device__ uint16_t root(int x, int y) const
    {
        return R[(size_t)g.tile(x / T, y / T, 0) * AREA + (uint32_t)(y & 31) * T + (x & 31)];
    }
    // root() of a pixel in its tile's first or last column (x % 32 is 0 or 31)
    __device__ uint16_t x_edge_root(int x, int y) const
    {
        const uint32_t w = XF[x_edge_at(g, x / T, y)];
        return (uint16_t)(x & 31 ? w >> 16 : w);
    }
    __device__ uint32_t key(int x, int y) const
    {
        uint32_t k = 1;
        if (EQ) key_at(v, x, y, 0, k);
        return k;
    }
    // the node of an edge piece (every pixel on a tile's edge is in one)
    __device__ uint32_t node(int x, int y, uint16_t r) const { return g.tile(x / T, y / T, 0) * EDGE_SLOTS + (r & INDEX); }
};

// A neighbour as the pass sees it: its root (BGR outside the image) and key.
struct nb {
    uint16_t r;
    uint32_t k;
};

// VERT: a pixel of a vertical edge's pair, read from the copy of the
// tiles' first and last columns.
template <bool EQ, bool VERT = false>
__device__ inline nb neighbour(const pixels<EQ> &P, int x, int y)
{
    nb n{BGR, 0};
    if (x >= 0 && x < P.g.w && y >= 0 && y < P.g.h) {
        n.r = VERT ? P.x_edge_root(x, y) : P.root(x, y);
        if (EQ && n.r != BGR) n.k = P.key(x, y);
    }
    return n;
}

__device__ inline bool same(const nb &a, const nb &b) { return a.r != BGR && b.r != BGR && a.k == b.k; }

// Items: the pixels of every tile's top row below another tile, then the
// pixels of every tile's left column right of another tile, column by
// column. A pair is skipped when the pair before it along the edge, in the
// same two tiles, joins the same pieces (both its pixels join their
// neighbours here); at a tile corner that pair lies in other tiles, so it
// is never skipped. A diagonal pair is skipped when a pixel beside both
// joins it.
// The unions of item i (see above): its piece's node in `me`, the nodes to
// join in `other`; returns their count.
template <bool EQ, bool VERT>
__device__ inline int join_pairs(const pixels<EQ> &P, int conn8, int64_t h_items, int64_t i, uint32_t &me,
                                 uint32_t (&other)[2])
{
    int x, y, xa, ya, sx, sy; // b = (x, y); a = (xa, ya) across the edge; s: the step along the edge
    bool first;               // the first pair of the edge in these two tiles
    if (!VERT) {
        x = (int)(i % P.g.w);
        y = (int)(i / P.g.w + 1) * T;
        xa = x, ya = y - 1, sx = 1, sy = 0, first = (x & 31) == 0;
    } else {
        // y fastest: a warp's pairs lie along one edge, between the same two
        // tiles, so its loads share sectors and its unions meet the same few
        // pieces (across the edges, a spiral's join took 3.5 times as long)
        const int64_t j = i - h_items;
        x = (int)(j / P.g.h + 1) * T;
        y = (int)(j % P.g.h);
        xa = x - 1, ya = y, sx = 0, sy = 1, first = (y & 31) == 0;
    }
    const nb b = neighbour<EQ, VERT>(P, x, y);
    if (b.r == BGR) return 0;
    const nb a = neighbour<EQ, VERT>(P, xa, ya), bp = neighbour<EQ, VERT>(P, x - sx, y - sy),
             ap = neighbour<EQ, VERT>(P, xa - sx, ya - sy);
    me = P.node(x, y, b.r);
    if (same(b, a)) {
        if (!first && same(b, bp) && same(a, ap)) return 0;
        other[0] = P.node(xa, ya, a.r);
        return 1;
    }
    if (!conn8) return 0;
    const bool before = same(b, ap) && !same(b, bp);
    if (before) other[0] = P.node(xa - sx, ya - sy, ap.r);
    const nb an = neighbour<EQ, VERT>(P, xa + sx, ya + sy), bn = neighbour<EQ, VERT>(P, x + sx, y + sy);
    if (!same(b, an) || same(b, bn)) return before;
    const uint32_t after = P.node(xa + sx, ya + sy, an.r);
    if (before) other[1] = after; // constant indices keep `other` in registers
    else other[0] = after;
    return before + 1;
}

// A thread per item, the unions in rounds of the warp (unite_in_rounds);
// a vertical edge's pairs read their roots from the copy (x_edge_at).
template <bool EQ>
__global__ void join_kernel(pixels<EQ> P, int conn8, uint32_t *G, int64_t h_items, int64_t items)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i0 = blockIdx.x * (int64_t)blockDim.x; i0 < items; i0 += stride) { // the same for the block
        const int64_t i = i0 + threadIdx.x;
        uint32_t me = 0, other[2] = {0, 0};
        const int n = i >= items     ? 0
                    : i < h_items ? join_pairs<EQ, false>(P, conn8, h_items, i, me, other)
                                  : join_pairs<EQ, true>(P, conn8, h_items, i, me, other);
        unite_in_rounds(G, me, other, n);
    }
}

template <bool EQ>
parac_status launch_tiles(const src &v, int conn8, const tgrid &g, const work &k, cudaStream_t st)
{
    tiles_kernel<EQ><<<dim3((unsigned)((g.nx + TPB - 1) / TPB), (unsigned)g.ny), dim3(T, TPB), 0, st>>>(
        v, conn8, g, k.R, k.G, k.F, k.B, k.EL, k.NE, (uint32_t *)k.extra);
    PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    const pixels<EQ> P{v, g, k.R, (const uint32_t *)k.extra};
    const int64_t h_items = (int64_t)g.w * (g.ny - 1), items = h_items + (int64_t)(g.nx - 1) * g.h;
    if (items > 0) {
        join_kernel<EQ><<<parac__grid_for(items, 256), 256, 0, st>>>(P, conn8, k.G, h_items, items);
        PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    }
    return PARAC_OK;
}

} // namespace
} // namespace label2dk

using namespace label2dk;

extern "C" int parac__label2d_fits(int64_t w, int64_t h, const char **why)
{
    if ((h + T - 1) / T > 65535) return *why = "more than 65535 rows of tiles (2097120 rows)", 0;
    const tgrid g{(int)w, (int)h, 1, (int)((w + T - 1) / T), (int)((h + T - 1) / T), 1, T, 1};
    return fits<AREA, EDGE_SLOTS>(g, why);
}

extern "C" parac_status parac__label2d_cuda(const parac__label_spec *s, const parac_image *in, parac_image *out,
                                            int64_t *count, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    const int w = (int)in->width, h = (int)in->height;
    const tgrid g{w, h, 1, (w + T - 1) / T, (h + T - 1) / T, 1, T, 1};
    work k;
    PARAC_TRY((work_alloc<AREA, EDGE_SLOTS>(g, in->device, st, k, x_edge_at(g, g.nx, 0) * 4)));
    const src v = labelk::source_of(s, in);
    const int conn8 = s->conn == 8;
    const parac_status rc = v.equal ? launch_tiles<true>(v, conn8, g, k, st) : launch_tiles<false>(v, conn8, g, k, st);
    return finish<AREA, EDGE_SLOTS>(s, rc, g, k, out, count, in->device, st);
}
