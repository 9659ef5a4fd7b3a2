// Labelling on the GPU: the method's entry, and the labelling of volumes
// (2D images: label2d_cuda.cu). Connected components by union-find over
// pieces of components in tiles (in the spirit of Playne & Hawick's and
// Allegretti et al.'s direct algorithms: a fixed number of passes, no
// iteration to convergence), numbered in raster order:
//   1. tiles: a block per tile of 32 x 16 x 16 voxels, a thread per row of
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
//      whose neighbour straight across
//      joins it leaves out the other neighbours in that neighbour's tile
//      (joined there), and skips the straight pair when the pair before it
//      along the face joins the same pieces. A voxel first finds its pairs,
//      then the warp unites them in rounds (a union each per lane).
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

constexpr int TY = 16, TZ = 16, ROWS = TY * TZ, VOX = T * ROWS;
constexpr int CAP = VOX - (T - 2) * (TY - 2) * (TZ - 2); // the voxels on a tile's faces

// The rows before a row that its voxels may join: (dy, dz), and whether
// the diagonals (dx = +-1) join too.
struct rows_before {
    int n;
    int8_t d[4][3];
};

rows_before rows_for(int conn)
{
    if (conn == 6) return {2, {{-1, 0, 0}, {0, -1, 0}}};
    if (conn == 18) return {4, {{-1, 0, 1}, {0, -1, 1}, {-1, -1, 0}, {1, -1, 0}}};
    return {4, {{-1, 0, 1}, {0, -1, 1}, {-1, -1, 1}, {1, -1, 1}}};
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

// Pass 1 (see the top).
__global__ void __launch_bounds__(ROWS)
    tiles_kernel(src v, rows_before nr, tgrid g, uint16_t *R, uint32_t *G, uint64_t *F, uint32_t *B, uint16_t *EL,
                 uint16_t *NE)
{
    __shared__ uint32_t parent[VOX];
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
    for (int j = 0; j < nr.n; j++) {
        const int dy = nr.d[j][0], dz = nr.d[j][1], ny = yy + dy, nz = zz + dz;
        const bool inside = ny >= 0 && ny < TY && nz >= 0 && M;
        const int nrow = inside ? nz * TY + ny : row;
        const uint32_t Mn = sM[nrow], nstarts = Mn & ~sSL[nrow], nbase = (uint32_t)nrow * T;
        uint32_t SU = 0, SUL = 0, SUR = 0;
        if (inside) {
            SU = same_bits(v, x0, y, z, y + dy, z + dz, M, Mn, 0);
            if (nr.d[j][2]) {
                SUL = same_bits(v, x0, y, z, y + dy, z + dz, M, Mn, -1) & ~(SL | SU);
                SUR = same_bits(v, x0, y, z, y + dy, z + dz, M, Mn, 1) & ~((SL >> 1) | SU);
            }
        }
        unite_rows(s, SU & ~((SU << 1) & SL), SUL, SUR, [&](int b) { return base + run_start(starts, b); },
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
    // Every voxel's root, the row's 64 bytes written by its thread.
    uint32_t *out = (uint32_t *)(R + (size_t)tile * VOX + base);
    for (int i = 0; i < T; i += 2) {
        uint32_t pair = 0;
        for (int k = 0; k < 2; k++) {
            uint32_t value = BGR;
            if ((M >> (i + k)) & 1u) {
                const uint32_t root = s[base + run_start(starts, i + k)], above = edge[root >> 5],
                               bit = 1u << (root & 31);
                value = above & bit ? EDGE | (first_slot[root >> 5] + __popc(above & (bit - 1))) : root;
            }
            pair |= value << (16 * k);
        }
        out[i / 2] = pair;
    }
}

// Pass 2.
struct voxels {
    src v;
    tgrid g;
    const uint16_t *R;
    __device__ uint32_t tile_of(int x, int y, int z) const { return g.tile(x / T, y / TY, z / TZ); }
    __device__ uint16_t root(int x, int y, int z) const
    {
        return R[(size_t)tile_of(x, y, z) * VOX + (uint32_t)(((z % TZ) * TY + y % TY) * T + (x & 31))];
    }
    // the node of an edge piece (every voxel on a tile's face is in one)
    __device__ uint32_t node(int x, int y, int z, uint16_t r) const
    {
        return tile_of(x, y, z) * (uint32_t)CAP + (r & INDEX);
    }
};

// A neighbour as the pass sees it: its root (BGR outside the volume) and key.
struct nb {
    uint16_t r;
    uint32_t k;
};

__device__ inline nb neighbour(const voxels &P, int x, int y, int z)
{
    nb n{BGR, 0};
    if (x >= 0 && x < P.g.w && y >= 0 && y < P.g.h && z >= 0 && z < P.g.d) {
        n.r = P.root(x, y, z);
        if (P.v.equal && n.r != BGR) key_at(P.v, x, y, z, n.k);
    }
    return n;
}

__device__ inline bool same(const nb &a, const nb &b) { return a.r != BGR && b.r != BGR && a.k == b.k; }

// Items: the voxels of every tile's first z face (after another tile), then
// of its first y face, then of its first x face. A voxel joins the
// neighbours across that face (offset -1 along its axis) whose tile is
// before its own in (z, y, x) order; every pair of voxels in two tiles is
// thereby seen once, by the voxel in the later tile.
// The unions of item i, found without uniting (the warp unites in rounds
// afterwards: join_kernel): its piece's node in `me`, the straight
// neighbour's node in `across` when that pair is united here, and a bit per
// other neighbour to unite (bit (dz + 1) * 9 + (dy + 1) * 3 + dx + 1); none
// for a background voxel.
__device__ inline void join_items(const voxels &P, int conn, int64_t z_items, int64_t y_items, int64_t i, int &x,
                                  int &y, int &z, uint32_t &me, uint32_t &across, bool &straight_join,
                                  uint32_t &others)
{
    const tgrid &g = P.g;
    int axis;
    if (i < z_items) {
        x = (int)(i % g.w);
        const int64_t r = i / g.w;
        y = (int)(r % g.h), z = (int)(r / g.h + 1) * TZ, axis = 2;
    } else if (i < z_items + y_items) {
        const int64_t j = i - z_items, r = j / g.w;
        x = (int)(j % g.w), y = (int)(r % (g.ny - 1) + 1) * TY, z = (int)(r / (g.ny - 1)), axis = 1;
    } else {
        // y fastest: a warp's voxels lie along one face (see label2d_cuda.cu)
        const int64_t j = i - z_items - y_items, r = j / g.h;
        y = (int)(j % g.h), z = (int)(r % g.d), x = (int)(r / g.d + 1) * T, axis = 0;
    }
    if (y >= g.h || z >= g.d) return;
    const nb b = neighbour(P, x, y, z);
    if (b.r == BGR) return;
    me = P.node(x, y, z, b.r);
    const int sx = axis == 0 ? -1 : 0, sy = axis == 1 ? -1 : 0, sz = axis == 2 ? -1 : 0;
    const nb sn = neighbour(P, x + sx, y + sy, z + sz);
    const bool straight = same(b, sn);
    if (straight) {
        // the pair before along the face (x before, on the x faces y),
        // in the same two tiles, joins the same pieces
        const int px = axis == 0 ? 0 : -1, py = axis == 0 ? -1 : 0;
        const bool first = axis == 0 ? (y % TY) == 0 : (x & 31) == 0;
        straight_join = first || !same(b, neighbour(P, x + px, y + py, z)) ||
                        !same(sn, neighbour(P, x + sx + px, y + sy + py, z + sz));
        across = P.node(x + sx, y + sy, z + sz, sn.r);
    }
    const uint32_t s_tile = P.tile_of(x + sx, y + sy, z + sz);
    uint32_t last = 0xffffffffu; // the piece marked last: neighbours side by side are often one piece
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                const int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
                if (nonzero < 2 || (conn == 6) || (conn == 18 && nonzero == 3)) continue;
                if ((axis == 0 && dx != -1) || (axis == 1 && dy != -1) || (axis == 2 && dz != -1)) continue;
                const int nx = x + dx, ny = y + dy, nz = z + dz;
                if (nx < 0 || nx >= g.w || ny < 0 || ny >= g.h || nz < 0 || nz >= g.d) continue;
                // neighbours in tiles after the axis's tile before are another voxel's
                if (axis == 1 && nz / TZ != z / TZ) continue;
                if (axis == 0 && (nz / TZ != z / TZ || ny / TY != y / TY)) continue;
                if (straight && P.tile_of(nx, ny, nz) == s_tile) continue; // joined there, through sn
                const nb n = neighbour(P, nx, ny, nz);
                if (!same(b, n)) continue;
                const uint32_t piece = P.node(nx, ny, nz, n.r);
                if (piece != last) others |= 1u << ((dz + 1) * 9 + (dy + 1) * 3 + dx + 1);
                last = piece;
            }
}

// A thread per item; the unions in rounds of the warp (every lane takes
// part in each round; see unite_in_rounds), the node of a marked neighbour
// read again in its round.
__global__ void join_kernel(voxels P, int conn, uint32_t *G, int64_t z_items, int64_t y_items, int64_t items)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i0 = blockIdx.x * (int64_t)blockDim.x; i0 < items; i0 += stride) { // the same for the block
        const int64_t i = i0 + threadIdx.x;
        uint32_t me = 0, across = 0, others = 0;
        bool straight_join = false;
        int x = 0, y = 0, z = 0;
        if (i < items) join_items(P, conn, z_items, y_items, i, x, y, z, me, across, straight_join, others);
        for (int k = warp_rounds(straight_join + __popc(others)); k > 0; k--) {
            if (straight_join) {
                unite_halving(G, me, across);
                straight_join = false;
            } else if (others) {
                const int bit = __ffs(others) - 1, nx = x + bit % 3 - 1, ny = y + bit / 3 % 3 - 1, nz = z + bit / 9 - 1;
                others &= others - 1;
                unite_halving(G, me, P.node(nx, ny, nz, neighbour(P, nx, ny, nz).r));
            }
            __syncwarp();
        }
    }
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
    const int w = g.w, h = g.h, d = g.d;
    work k;
    PARAC_TRY((work_alloc<VOX, CAP>(g, in->device, st, k)));
    const src v = labelk::source_of(s, in);
    tiles_kernel<<<dim3((unsigned)g.nx, (unsigned)g.ny, (unsigned)g.nz), ROWS, 0, st>>>(v, rows_for(s->conn), g, k.R,
                                                                                       k.G, k.F, k.B, k.EL, k.NE);
    parac_status rc = PARAC_CUDA_LAUNCH_CHECK();
    const int64_t z_items = (int64_t)w * h * (g.nz - 1), y_items = (int64_t)w * (g.ny - 1) * d,
                  items = z_items + y_items + (int64_t)(g.nx - 1) * h * d;
    if (rc == PARAC_OK && items > 0) {
        join_kernel<<<parac__grid_for(items, 256), 256, 0, st>>>(voxels{v, g, k.R}, s->conn, k.G, z_items, y_items,
                                                                 items);
        rc = PARAC_CUDA_LAUNCH_CHECK();
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
