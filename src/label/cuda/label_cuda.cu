// Labelling on the GPU: the method's entry, and the labelling of volumes
// (2D images: label2d_cuda.cu). Connected components by union-find over
// pieces of components in tiles (in the spirit of Playne & Hawick's and
// Allegretti et al.'s direct algorithms: a fixed number of passes, no
// iteration to convergence), numbered in raster order:
//   1. tiles: a block per tile of 32 x 32 x 16 voxels, a thread per row of
//      32 voxels held as bit masks. Runs join their neighbours in the rows
//      before (y - 1 and z - 1, and the diagonals the connectivity has)
//      where an overlap starts (union-find over run starts in shared
//      memory, the smaller index wins; unions in rounds of each warp, then
//      every entry jumps to its root), so each piece is named by its first
//      voxel in raster order. Every voxel gets its piece's index in the tile,
//      flagged when the piece touches the tile's faces; each row's roots are
//      a word of a bitmap in raster order; edge pieces get a slot in the
//      tile's list, a global node and a key (their root's position).
//   2. join: a thread per voxel on a tile's first faces (x, y, z) unites its
//      piece with the pieces of its neighbours in the tile before along that
//      axis (global union-find, atomicMin: the smaller node wins). A voxel
//      whose neighbour straight across joins it leaves out the other
//      neighbours in that neighbour's tile (joined there), and skips the
//      straight pair when the pair before it along the face joins the same
//      pieces. A voxel first finds its pairs, then the warp unites them in
//      rounds (a union each per lane). A launch per axis and connectivity:
//      the voxel's position comes from its block's, and its neighbours are
//      known at compile time (one launch over every face's voxels, decoded
//      from a 64-bit index by divisions, took 1.6 times as long at 512^3).
//      Across x faces the roots come from a copy of the tiles' first and
//      last columns that pass 1 writes (x_face_at): in R a warp's 32 voxels
//      along y lie a sector apart.
//   3. resolve, scan and output as label_tiles.cuh says.
#include <cuda_runtime.h>

#include "core/stats_internal.h"
#include "label/label.h"
#include "label2d.h"
#include "label_tiles.cuh"

namespace label3dk {
namespace {

using namespace parac_uf;
using namespace labelt;
using labelk::key_at;
using labelk::src;

constexpr int TY = 32, TZ = 16, ROWS = TY * TZ, VOX = T * ROWS;
constexpr int CAP = VOX - (T - 2) * (TY - 2) * (TZ - 2); // the voxels on a tile's faces
static_assert(VOX <= INDEX + 1 && CAP < INDEX, "a root's index and an edge slot take 15 bits (BGR is EDGE | INDEX)");

// The rows before a row that its voxels may join: (dy, dz), and whether
// the diagonals (dx = +-1) join too; the row straight below (z - 1) first.
// A voxel joined to the voxel straight below it need not join its
// neighbours in the other rows before: with 26 neighbours that voxel is a
// neighbour of all of them, with 18 of those straight across (cover 2 and
// 1), and each such pair is joined where the later of the two is, inside
// the tile (a voxel joined to the one straight before it, y - 1, covers the
// row before both, (y - 1, z - 1), the same way; with 26, one joined to the
// voxel below at x - 1 covers its neighbours at x - 1 and x in the other
// rows, at x + 1 those at x and x + 1). Unions left out so in a tile of
// noise at 30 %: 45 % with 26 neighbours, 18 % with 18
// (bench/label/tile_unions.py models this pass and checks it against
// scipy's labels).
struct rows_before {
    int n;
    int8_t d[4][3];
    int cover;
};

rows_before rows_for(int conn)
{
    if (conn == 6) return {2, {{-1, 0, 0}, {0, -1, 0}}, 0};
    if (conn == 18) return {4, {{0, -1, 1}, {-1, 0, 1}, {-1, -1, 0}, {1, -1, 0}}, 1};
    return {4, {{0, -1, 1}, {-1, 0, 1}, {-1, -1, 1}, {1, -1, 1}}, 2};
}

// Bits of row (y, z) whose voxel joins the voxel dx further in row (y2, z2)
// (both foreground, equal keys): with keys, read where both are foreground.
__device__ inline uint32_t same_bits(const src &v, int x0, int y, int z, int y2, int z2, uint32_t M, uint32_t M2, int dx)
{
    uint32_t cand = dx == 0 ? M & M2 : dx < 0 ? M & (M2 << 1) : M & (M2 >> 1);
    if (!v.equal) return cand;
    uint32_t out = 0;
    for (uint32_t r = cand; r; r &= r - 1) {
        const int i = __ffs(r) - 1;
        uint32_t k, k2;
        key_at(v, x0 + i, y, z, k);
        key_at(v, x0 + i + dx, y2, z2, k2);
        if (k == k2) out |= 1u << i;
    }
    return out;
}

// Where the roots of row (y, z)'s first and last voxels in tile column tx
// are kept (a word, the first's in its low half): rows along y side by
// side, so that the join across x faces, a warp on 32 voxels along y, reads
// 128 consecutive bytes where its voxels' roots in R lie 64 bytes apart,
// a sector each.
__host__ __device__ inline size_t x_face_at(const tgrid &g, int tx, int y, int z)
{
    return ((size_t)tx * (size_t)g.d + (size_t)z) * (size_t)g.h + (size_t)y;
}

// Pass 1 (see the top). The tile's union-find takes dynamic shared memory,
// 64 KB (tiles of 32 x 32 x 32 took 128 KB, a block an SM, and the pass
// 1.28 times as long as at 32 x 32 x 16; at 32 x 16 x 16 the y faces' join
// took twice as long: bench/RESULTS.md).
constexpr size_t tiles_shared = (size_t)VOX * 4;

__global__ void __launch_bounds__(ROWS)
    tiles_kernel(src v, rows_before nr, tgrid g, uint16_t *R, uint32_t *G, uint64_t *F, uint32_t *B, uint16_t *EL,
                 uint16_t *NE, uint32_t *XF)
{
    extern __shared__ uint32_t parent[]; // VOX entries (tiles_shared)
    __shared__ uint32_t sM[ROWS], sSL[ROWS], edge[ROWS], warp_sum[ROWS / 32];
    __shared__ uint16_t first_slot[ROWS]; // the slot of each row's first edge piece
    const int row = threadIdx.x, yy = row % TY, zz = row / TY, lane = row & 31, warp = row >> 5;
    const int tx = blockIdx.x, ty = blockIdx.y, tz = blockIdx.z;
    const int x0 = tx * T, y = ty * TY + yy, z = tz * TZ + zz;
    const int wn = min(T, g.w - x0);
    const bool row_in = y < g.h && z < g.d;
    uint32_t M = 0, SL = 0; // foreground; joins the left neighbour
    if (row_in) {
        if (!v.equal) {
            M = nonzero_mask(v, x0, y, z, wn);
            SL = M & (M << 1);
        } else {
            uint32_t prev = 0;
            bool prev_fg = false;
            for (int i = 0; i < wn; i++) {
                uint32_t k;
                const bool fg = key_at(v, x0 + i, y, z, k);
                if (fg) {
                    M |= 1u << i;
                    if (prev_fg && prev == k) SL |= 1u << i;
                }
                prev_fg = fg, prev = k;
            }
        }
    }
    const tile_parents s{parent};
    sM[row] = M, sSL[row] = SL, edge[row] = 0;
    const uint32_t starts = M & ~SL, base = (uint32_t)row * T;
    for (uint32_t r = starts; r; r &= r - 1) {
        const uint32_t i = base + (uint32_t)(__ffs(r) - 1);
        s[i] = i;
    }
    __syncthreads();
    // Joins with the rows before, as in 2D: an overlap where it starts, a
    // diagonal where no voxel beside both joins it (every thread calls: the
    // warp unites in rounds).
    // the voxels joined to the one straight below, below at x - 1 and x + 1,
    // straight before (y - 1)
    uint32_t below = 0, below_left = 0, below_right = 0, before = 0;
    for (int j = 0; j < nr.n; j++) {
        const int dy = nr.d[j][0], dz = nr.d[j][1], ny = yy + dy, nz = zz + dz;
        const bool inside = ny >= 0 && ny < TY && nz >= 0 && M;
        const int nrow = inside ? nz * TY + ny : row;
        const uint32_t Mn = sM[nrow], nstarts = Mn & ~sSL[nrow], nbase = (uint32_t)nrow * T;
        uint32_t SU = 0, SUL = 0, SUR = 0, left = 0, right = 0;
        if (inside) {
            SU = same_bits(v, x0, y, z, y + dy, z + dz, M, Mn, 0);
            if (nr.d[j][2]) {
                left = same_bits(v, x0, y, z, y + dy, z + dz, M, Mn, -1);
                right = same_bits(v, x0, y, z, y + dy, z + dz, M, Mn, 1);
                SUL = left & ~(SL | SU);
                SUR = right & ~((SL >> 1) | SU);
            }
        }
        uint32_t up = SU & ~((SU << 1) & SL);
        if (nr.cover && j == 0) {
            below = SU, below_left = left, below_right = right;
        } else if (nr.cover == 2) {
            const uint32_t covered = j == 2 ? below | before : below;
            up &= ~(covered | below_left | below_right);
            SUL &= ~(covered | below_left);
            SUR &= ~(covered | below_right);
            if (j == 1) before = SU;
        } else if (nr.cover) {
            up &= ~(j == 2 ? below | before : below);
            if (j == 1) before = SU;
        }
        unite_rows(s, up, SUL, SUR, [&](int b) { return base + run_start(starts, b); },
                   [&](int b) { return nbase + run_start(nstarts, b); });
    }
    __syncthreads();
    // Every run start takes its root; runs on the tile's faces mark theirs.
    const bool face_row = yy == 0 || yy == TY - 1 || zz == 0 || zz == TZ - 1;
    const uint32_t on_edge = M & (face_row ? ~0u : 0x80000001u);
    const uint32_t roots = find_run_roots(s, base, starts, SL, on_edge, edge);
    const uint32_t tile = g.tile(tx, ty, tz);
    if (row_in) B[((uint64_t)z * (uint64_t)g.h + (uint64_t)y) * (uint64_t)g.nx + (uint64_t)tx] = roots;
    __syncthreads();
    // The edge pieces: the tile's list, in order (a block-wide exclusive
    // scan of the rows' counts), their nodes (their own roots, so far) and
    // keys.
    const uint32_t e = edge[row], cnt = __popc(e);
    uint32_t incl = cnt;
    #pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const uint32_t t = __shfl_up_sync(~0u, incl, o);
        if (lane >= o) incl += t;
    }
    if (lane == 31) warp_sum[warp] = incl;
    __syncthreads();
    if (warp == 0) {
        const uint32_t c = lane < ROWS / 32 ? warp_sum[lane] : 0;
        uint32_t wi = c;
        #pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const uint32_t t = __shfl_up_sync(~0u, wi, o);
            if (lane >= o) wi += t;
        }
        if (lane < ROWS / 32) warp_sum[lane] = wi - c;
        if (lane == ROWS / 32 - 1) NE[tile] = (uint16_t)wi;
    }
    __syncthreads();
    uint32_t slot = warp_sum[warp] + incl - cnt;
    first_slot[row] = (uint16_t)slot;
    for (uint32_t r = e; r; r &= r - 1) {
        const uint32_t i = base + (uint32_t)(__ffs(r) - 1), node = tile * (uint32_t)CAP + slot++;
        G[node] = node;
        F[node] = g.key_of(tx, ty, tz, i);
        EL[node] = (uint16_t)i;
    }
    __syncthreads();
    // Each run start's entry becomes what its voxels store: the root's index
    // in the tile, or EDGE | its slot (a thread reads only its own row's
    // entries from here on).
    for (uint32_t r = starts; r; r &= r - 1) {
        const uint32_t i = base + (uint32_t)(__ffs(r) - 1);
        const uint32_t root = s[i], above = edge[root >> 5], bit = 1u << (root & 31);
        s[i] = above & bit ? EDGE | (first_slot[root >> 5] + __popc(above & (bit - 1))) : root;
    }
    __syncwarp();
    // The roots of the row's first and last voxels, for the join across x
    // faces (x_face_at).
    if (row_in) {
        const uint32_t first = M & 1u ? s[base] : BGR, last = M >> 31 ? s[base + run_start(starts, 31)] : BGR;
        XF[x_face_at(g, tx, y, z)] = first | last << 16;
    }
    // The warp's 32 rows go out two at a time, a lane per pair of voxels: a
    // store of 128 consecutive bytes (a thread writing its own row stored 4
    // bytes at a time on 32 rows at once, eight times the L2 requests).
    uint32_t *out = (uint32_t *)(R + (size_t)tile * VOX + (size_t)(warp * 32) * T);
    const int half = lane >> 4, c = 2 * (lane & 15);
    #pragma unroll 4
    for (int r = 0; r < 32; r += 2) {
        const int rr = r + half;
        const uint32_t mr = __shfl_sync(~0u, M, rr), sr = __shfl_sync(~0u, starts, rr);
        const uint32_t b = (uint32_t)(warp * 32 + rr) * T;
        const uint32_t v0 = (mr >> c) & 1u ? s[b + run_start(sr, c)] : BGR;
        const uint32_t v1 = (mr >> (c + 1)) & 1u ? s[b + run_start(sr, c + 1)] : BGR;
        out[rr * (T / 2) + (c >> 1)] = v0 | (v1 << 16);
    }
}

// Pass 2.
struct voxels {
    src v;
    tgrid g;
    const uint16_t *R;
    const uint32_t *XF; // x_face_at
    // coordinates inside the volume (callers check): unsigned, so that the
    // tile's divisions are shifts
    __device__ uint32_t tile_of(int x, int y, int z) const
    {
        return g.tile((int)((uint32_t)x / T), (int)((uint32_t)y / TY), (int)((uint32_t)z / TZ));
    }
    __device__ uint16_t root(int x, int y, int z) const
    {
        const uint32_t in_tile = (((uint32_t)z % TZ) * TY + (uint32_t)y % TY) * T + ((uint32_t)x & 31u);
        return R[(size_t)tile_of(x, y, z) * VOX + in_tile];
    }
    // root() of a voxel in its tile's first or last column (x % 32 is 0 or 31)
    __device__ uint16_t x_face_root(int x, int y, int z) const
    {
        const uint32_t w = XF[x_face_at(g, (int)((uint32_t)x / T), y, z)];
        return (uint16_t)(x & 31 ? w >> 16 : w);
    }
    // the node of an edge piece (every voxel on a tile's face is in one)
    __device__ uint32_t node(int x, int y, int z, uint16_t r) const
    {
        return tile_of(x, y, z) * (uint32_t)CAP + (r & INDEX);
    }
};

// A neighbour as the pass sees it: its root (BGR outside the volume) and key.
// The join across x faces (AXIS 0) reads voxels of tiles' first and last
// columns only, from their copy (x_face_at).
struct nb {
    uint16_t r;
    uint32_t k;
};

template <int AXIS>
__device__ inline nb neighbour(const voxels &P, int x, int y, int z)
{
    nb n{BGR, 0};
    if (x >= 0 && x < P.g.w && y >= 0 && y < P.g.h && z >= 0 && z < P.g.d) {
        n.r = AXIS == 0 ? P.x_face_root(x, y, z) : P.root(x, y, z);
        if (P.v.equal && n.r != BGR) key_at(P.v, x, y, z, n.k);
    }
    return n;
}

__device__ inline bool same(const nb &a, const nb &b) { return a.r != BGR && b.r != BGR && a.k == b.k; }

// Whether neighbour (dx, dy, dz) of a voxel on a first face along AXIS is
// one of the voxel's joins there: across the face (offset -1 along AXIS),
// not the voxel straight across, a neighbour under CONN; on y faces in the
// voxel's row of tiles along z, on x faces in its tile's column too
// (neighbours in tiles after the axis's tile before are another voxel's).
template <int AXIS, int CONN>
__device__ constexpr bool diagonal_join(int dx, int dy, int dz)
{
    return (AXIS == 0 ? dx : AXIS == 1 ? dy : dz) == -1 && (dx != 0) + (dy != 0) + (dz != 0) >= 2 && CONN != 6 &&
           !(CONN == 18 && dx != 0 && dy != 0 && dz != 0);
}

// Items: the voxels of every tile's first face along AXIS after another
// tile. A voxel joins the neighbours across that face whose tile is before
// its own in (z, y, x) order; every pair of voxels in two tiles is thereby
// seen once, by the voxel in the later tile. A voxel whose neighbour
// straight across joins it leaves out the other neighbours in that
// neighbour's tile (joined there), and skips the straight pair when the pair
// before it along the face (x before; on the x faces y) joins the same
// pieces. The unions of voxel (x, y, z), found without uniting (the warp
// unites in rounds afterwards: join_kernel): its piece's node in `me`, the
// straight neighbour's node in `across` when that pair is united here, and
// a bit per other neighbour to unite (bit (dz + 1) * 9 + (dy + 1) * 3 + dx +
// 1); none for a background voxel.
template <int AXIS, int CONN>
__device__ inline void join_items(const voxels &P, int x, int y, int z, uint32_t &me, uint32_t &across,
                                  bool &straight_join, uint32_t &others)
{
    const tgrid &g = P.g;
    const nb b = neighbour<AXIS>(P, x, y, z);
    if (b.r == BGR) return;
    me = P.node(x, y, z, b.r);
    constexpr int sx = AXIS == 0 ? -1 : 0, sy = AXIS == 1 ? -1 : 0, sz = AXIS == 2 ? -1 : 0;
    const nb sn = neighbour<AXIS>(P, x + sx, y + sy, z + sz);
    const bool straight = same(b, sn);
    if (straight) {
        constexpr int px = AXIS == 0 ? 0 : -1, py = AXIS == 0 ? -1 : 0;
        const bool first = AXIS == 0 ? (y % TY) == 0 : (x & 31) == 0;
        straight_join = first || !same(b, neighbour<AXIS>(P, x + px, y + py, z)) ||
                        !same(sn, neighbour<AXIS>(P, x + sx + px, y + sy + py, z + sz));
        across = P.node(x + sx, y + sy, z + sz, sn.r);
    }
    if (CONN == 6) return;
    const uint32_t s_tile = P.tile_of(x + sx, y + sy, z + sz);
    uint32_t last = 0xffffffffu; // the piece marked last: neighbours side by side are often one piece
    #pragma unroll
    for (int dz = -1; dz <= 1; dz++)
        #pragma unroll
        for (int dy = -1; dy <= 1; dy++)
            #pragma unroll
            for (int dx = -1; dx <= 1; dx++) {
                if (!diagonal_join<AXIS, CONN>(dx, dy, dz)) continue;
                const int nx = x + dx, ny = y + dy, nz = z + dz;
                if (nx < 0 || nx >= g.w || ny < 0 || ny >= g.h || nz < 0 || nz >= g.d) continue;
                if (AXIS <= 1 && dz != 0 && nz / TZ != z / TZ) continue;
                if (AXIS == 0 && dy != 0 && ny / TY != y / TY) continue;
                if (straight && P.tile_of(nx, ny, nz) == s_tile) continue; // joined there, through sn
                const nb n = neighbour<AXIS>(P, nx, ny, nz);
                if (!same(b, n)) continue;
                const uint32_t piece = P.node(nx, ny, nz, n.r);
                if (piece != last) others |= 1u << ((dz + 1) * 9 + (dy + 1) * 3 + dx + 1);
                last = piece;
            }
}

// The join's extents for AXIS: voxels along a warp (x; on x faces y), rows
// across the warps (y; on y and x faces z), first faces after another tile.
template <int AXIS>
__host__ __device__ inline int join_along(const tgrid &g) { return AXIS == 0 ? g.h : g.w; }
template <int AXIS>
__host__ __device__ inline int join_rows(const tgrid &g) { return AXIS == 2 ? g.h : g.d; }
template <int AXIS>
__host__ __device__ inline int join_faces_of(const tgrid &g)
{
    return AXIS == 2 ? g.nz - 1 : AXIS == 1 ? g.ny - 1 : g.nx - 1;
}

// Blocks of 32 x 8 threads, a warp on 32 voxels side by side along a face
// (x; on x faces y), its 8 warps on the next 8 rows (y; on y and x faces z),
// blockIdx.z (and y) striding over faces: the item's position comes from
// the block's, with no division. The unions in rounds of the warp (every
// lane takes part in each round; see unite_in_rounds), the node of a
// marked neighbour read again in its round.
template <int AXIS, int CONN>
__global__ void __launch_bounds__(256) join_kernel(voxels P, uint32_t *G)
{
    const tgrid &g = P.g;
    const int n_rows = join_rows<AXIS>(g), n_faces = join_faces_of<AXIS>(g);
    const int along = blockIdx.x * 32 + threadIdx.x;
    for (int face = blockIdx.z; face < n_faces; face += gridDim.z)
        for (int row0 = blockIdx.y * 8; row0 < n_rows; row0 += gridDim.y * 8) { // the same for the block
            const int row = row0 + threadIdx.y;
            int x, y, z;
            if (AXIS == 2) x = along, y = row, z = (face + 1) * TZ;
            else if (AXIS == 1) x = along, y = (face + 1) * TY, z = row;
            else x = (face + 1) * T, y = along, z = row;
            uint32_t me = 0, across = 0, others = 0;
            bool straight_join = false;
            if (x < g.w && y < g.h && z < g.d)
                join_items<AXIS, CONN>(P, x, y, z, me, across, straight_join, others);
            for (int k = warp_rounds(straight_join + __popc(others)); k > 0; k--) {
                if (straight_join) {
                    unite_halving(G, me, across);
                    straight_join = false;
                } else if (others) {
                    const int bit = __ffs(others) - 1, nx = x + bit % 3 - 1, ny = y + bit / 3 % 3 - 1,
                              nz = z + bit / 9 - 1;
                    others &= others - 1;
                    unite_halving(G, me, P.node(nx, ny, nz, neighbour<AXIS>(P, nx, ny, nz).r));
                }
                __syncwarp();
            }
        }
}

// The voxels of every first face along AXIS joined (any order of the axes'
// launches gives the same sets).
template <int AXIS, int CONN>
parac_status launch_join(const voxels &P, uint32_t *G, cudaStream_t st)
{
    const tgrid &g = P.g;
    const int n_faces = join_faces_of<AXIS>(g), n_rows = join_rows<AXIS>(g);
    if (n_faces <= 0) return PARAC_OK;
    const dim3 grid((unsigned)((join_along<AXIS>(g) + 31) / 32), (unsigned)min((n_rows + 7) / 8, 65535),
                    (unsigned)min(n_faces, 65535));
    join_kernel<AXIS, CONN><<<grid, dim3(32, 8), 0, st>>>(P, G);
    return PARAC_CUDA_LAUNCH_CHECK();
}

template <int CONN>
parac_status join_faces(const voxels &P, uint32_t *G, cudaStream_t st)
{
    PARAC_TRY((launch_join<2, CONN>(P, G, st)));
    PARAC_TRY((launch_join<1, CONN>(P, G, st)));
    return launch_join<0, CONN>(P, G, st);
}

tgrid grid_of(const parac_image *in)
{
    const int w = (int)in->width, h = (int)in->height, d = (int)in->depth;
    return tgrid{w, h, d, (w + T - 1) / T, (h + TY - 1) / TY, (d + TZ - 1) / TZ, TY, TZ};
}

parac_status label3d(const parac__label_spec *s, const parac_image *in, parac_image *out, int64_t *count,
                     cudaStream_t st)
{
    const tgrid g = grid_of(in);
    work k;
    PARAC_TRY((work_alloc<VOX, CAP>(g, in->device, st, k, x_face_at(g, g.nx, 0, 0) * 4)));
    uint32_t *XF = (uint32_t *)k.extra;
    const src v = labelk::source_of(s, in);
    parac_status rc = allow_shared(tiles_kernel, tiles_shared);
    if (rc == PARAC_OK) {
        tiles_kernel<<<dim3((unsigned)g.nx, (unsigned)g.ny, (unsigned)g.nz), ROWS, tiles_shared, st>>>(
            v, rows_for(s->conn), g, k.R, k.G, k.F, k.B, k.EL, k.NE, XF);
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    if (rc == PARAC_OK) {
        const voxels P{v, g, k.R, XF};
        rc = s->conn == 6 ? join_faces<6>(P, k.G, st) : s->conn == 18 ? join_faces<18>(P, k.G, st)
                                                         : join_faces<26>(P, k.G, st);
    }
    return finish<VOX, CAP>(s, rc, g, k, out, count, in->device, st);
}

} // namespace
} // namespace label3dk

// The kernels compare 32-bit keys; i64 values under equal values are keyed
// by their low 32 bits, which tell values apart when they span less than
// 2^32 (two values 2^32 or more apart can share them). Statistics' minimum
// and maximum are doubles, which can be 2^10 off past 2^53: the margin
// keeps every accepted image below the limit.
static parac_status i64_keys_exact(const parac__label_spec *s, const parac_image *in, void *stream)
{
    if (in->dtype != PARAC_I64 || !s->equal_values) return PARAC_OK;
    parac_image_stats st;
    PARAC_TRY(parac__stats_cuda(in, &st, stream));
    if (st.count > 0 && st.max[0] - st.min[0] >= 0x1p32 - 0x1p12)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: the i64 values span %.17g to %.17g; regions of equal value on "
                           "the GPU take values spanning less than 2^32 (use --device cpu)", s->op, st.min[0],
                           st.max[0]);
    return PARAC_OK;
}

extern "C" parac_status parac__label_cuda(const parac__label_spec *s, const parac_image *in, parac_image *out,
                                          int64_t *count, void *stream)
{
    PARAC_TRY(parac__label_check(s, in, out));
    PARAC_TRY(i64_keys_exact(s, in, stream));
    const char *why = "";
    if (in->depth > 1) {
        const labelt::tgrid g = label3dk::grid_of(in);
        if (g.ny > 65535 || g.nz > 65535)
            return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: the CUDA method takes up to %d rows and %d slices; this "
                               "volume has %lld and %lld: use --device cpu", s->op, 65535 * label3dk::TY, 65535 * label3dk::TZ,
                               (long long)in->height, (long long)in->depth);
        if (!labelt::fits<label3dk::VOX, label3dk::CAP>(g, &why))
            return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: %lld x %lld x %lld voxels are too many for the CUDA method "
                               "(%s): use --device cpu", s->op, (long long)in->width, (long long)in->height,
                               (long long)in->depth, why);
        return label3dk::label3d(s, in, out, count, (cudaStream_t)stream);
    }
    if (!parac__label2d_fits(in->width, in->height, &why))
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: %lld x %lld pixels are too many for the CUDA method (%s): use "
                           "--device cpu", s->op, (long long)in->width, (long long)in->height, why);
    return parac__label2d_cuda(s, in, out, count, stream);
}
