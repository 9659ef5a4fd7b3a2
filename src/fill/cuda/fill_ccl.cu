// Method "ccl": the fill as connected components of the background, by
// block union-find (in the spirit of Playne & Hawick's and Allegretti et
// al.'s BUF), in three passes with no convergence loop:
//   1. each tile of 512 pixels labels its background in shared memory and
//      writes, for every background pixel, the raster index of its tile
//      component's first pixel (so a label never exceeds its own index);
//   2. pixels on tile edges join their components across the edge with a
//      global union-find (atomicMin: the smaller root wins); background
//      pixels on the image border join node 0, which is thereby the root of
//      everything outside (node 0 is pixel 0, itself on the border; if that
//      pixel is contour, its slot serves as the outside node);
//   3. every pixel follows its label to the root: root 0 is outside.
// Contour pixels are never labelled: the passes read the input to tell them.
// These per-pixel passes serve 3D connectivities and floodfill; the fill
// with 4 or 8 neighbours runs on bit rows of 32 x 32 tiles (fill_ccl2d.cu).
#include <cuda_runtime.h>

#include "cuda/cuda_check.h"
#include "core/device_internal.h"
#include "cuda/launch.h"
#include "fill_ccl2d.h"
#include "fill_cuda.cuh"

namespace fillk {
namespace {

constexpr int TX = 32;
// Rows of a 2D tile (a power of two, TX * rows <= 1024 threads).
#ifndef PARAC_FILL_TILE_ROWS
#define PARAC_FILL_TILE_ROWS 16
#endif
constexpr int TY2 = PARAC_FILL_TILE_ROWS;
constexpr int TY2_SHIFT = TY2 == 32 ? 5 : TY2 == 16 ? 4 : TY2 == 8 ? 3 : TY2 == 4 ? 2 : TY2 == 2 ? 1 : 0;
constexpr int TILE = TX * TY2 < 512 ? 512 : TX * TY2; // pixels of a tile (3D tiles: 32 x 4 x 4)

struct tiles {
    int ty, tz;        // tile height and depth (tz = 1: 2D tiles), powers of two
    int ty_shift, tz_shift;
    int z_border;      // slices 0 and d-1 are border
    offsets off;
    // Face lines pass 2 must visit per tile: 1 (the first row or column
    // only) when no offset points forward along that axis, so the last line
    // never reaches into the next tile; else 2.
    int row_lines, col_lines;
};

// row_lines and col_lines for the offsets
inline tiles with_face_lines(tiles t)
{
    t.row_lines = t.col_lines = 1;
    for (int k = 0; k < t.off.n; k++) {
        if (t.off.d[k][1] > 0) t.row_lines = 2;
        if (t.off.d[k][0] > 0) t.col_lines = 2;
    }
    return t;
}


// Which pixels are joined: fill's background (value < threshold), or
// floodfill's pixels within [lo, hi] of a seed's value.
struct member {
    uint32_t thr;
    int flood;
    double lo, hi;
};

__device__ inline bool is_bg(const view &v, const member &m, int x, int y, int z)
{
    if (!m.flood) return in_at(v, x, y, z) < m.thr;
    const double a = value_at(v, x, y, z);
    return a >= m.lo && a <= m.hi;
}

// The same with the kind of fill fixed at compile time (pass 2's kernels:
// the fill's form needs no double-precision range in registers).
template <bool FLOOD> __device__ inline bool member_at(const view &v, const member &m, int x, int y, int z)
{
    if (!FLOOD) return in_at(v, x, y, z) < m.thr;
    const double a = value_at(v, x, y, z);
    return a >= m.lo && a <= m.hi;
}

__device__ inline uint32_t gindex(const view &v, int x, int y, int z)
{
    return ((uint32_t)z * (uint32_t)v.h + (uint32_t)y) * (uint32_t)v.w + (uint32_t)x;
}

__device__ inline bool bit(uint32_t m, int i) { return (m >> i) & 1u; }

// Pass 1. A warp holds one row of 32 pixels: its ballot gives the row's
// background mask, and every background pixel starts out labelled with the
// first pixel of its run, so runs need no union. Rows are then joined only
// where an overlap between runs starts (the pixel to the left is not
// background in both rows), which leaves a few unions per pair of runs.
__global__ void __launch_bounds__(TILE) local_kernel(view v, member thr, tiles t, uint32_t *L)
{
    __shared__ uint32_t s[TILE], run_root[TILE];
    __shared__ uint32_t masks[TILE / TX];
    volatile uint32_t *vs = s;
    const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
    const int x = blockIdx.x * TX + tx, y = blockIdx.y * t.ty + ty, z = blockIdx.z * t.tz + tz;
    const int row = tz * t.ty + ty, me = row * TX + tx;
    const bool inside_img = x < v.w && y < v.h && z < v.d;
    const bool bg = inside_img && is_bg(v, thr, x, y, z);
    const uint32_t mask = __ballot_sync(0xffffffffu, bg);
    if (tx == 0) masks[row] = mask;
    const uint32_t below = ~mask & ((1u << tx) - 1u);
    const int start = below ? 32 - __clz(below) : 0; // first pixel of my run
    s[me] = (uint32_t)(row * TX + start);
    __syncthreads();
    if (bg) {
        #pragma unroll
        for (int k = 0; k < 13; k++) { // unrolled: constant indices keep the offsets out of local memory
            if (k >= t.off.n) break;
            const int dx = t.off.d[k][0], dy = t.off.d[k][1], dz = t.off.d[k][2];
            if (dy == 0 && dz == 0) continue; // the same row: runs
            const int nx = tx + dx, ny = ty + dy, nz = tz + dz;
            if (nx < 0 || nx >= TX || ny < 0 || ny >= t.ty || nz < 0) continue;
            const int nrow = nz * t.ty + ny;
            const uint32_t nm = masks[nrow];
            if (!bit(nm, nx)) continue;
            if (dx == 0) {
                // the overlap started further left: joined there
                if (tx > 0 && bit(mask, tx - 1) && bit(nm, tx - 1)) continue;
            } else if (dz == 0 || dy == 0) {
                // a diagonal in a plane with x: a background pixel beside both joins them
                if (bit(mask, nx) || bit(nm, tx)) continue;
            }
            unite_local(vs, (uint32_t)me, (uint32_t)(nrow * TX + nx));
        }
    }
    __syncthreads();
    // the first pixel of each run finds the run's root; every other pixel
    // then takes it in one step
    if (bg && start == tx) {
        uint32_t r = (uint32_t)me;
        while (vs[r] != r) r = vs[r];
        run_root[me] = r;
    }
    __syncthreads();
    if (!inside_img) return;
    if (bg) {
        const uint32_t r = run_root[row * TX + start];
        const int rx = (int)(r & (TX - 1)), ry = (int)(r >> 5) & (t.ty - 1), rz = (int)(r >> (5 + t.ty_shift));
        L[gindex(v, x, y, z)] = gindex(v, blockIdx.x * TX + rx, blockIdx.y * t.ty + ry, blockIdx.z * t.tz + rz);
    } else if (x == 0 && y == 0 && z == 0) {
        L[0] = 0; // the outside node
    }
}

// Joins across a tile face are needed only where the background along the
// face starts: when the previous pixel along the face (the one before in x,
// else in y) and its partner across the face are background too, they are
// joined already and this pair joins through them.
template <bool FLOOD>
__device__ inline bool face_pair_redundant(const view &v, const member &thr, int x, int y, int z, int dx, int dy,
                                           int dz, int tx, int ty)
{
    if (dx == 0 && tx > 0 && member_at<FLOOD>(v, thr, x - 1, y, z) && member_at<FLOOD>(v, thr, x - 1 + dx, y + dy, z + dz))
        return true;
    if (dy == 0 && ty > 0 && member_at<FLOOD>(v, thr, x, y - 1, z) && member_at<FLOOD>(v, thr, x + dx, y - 1 + dy, z + dz))
        return true;
    return false;
}

// Pass 2 for one pixel on a tile face (or the image border).
template <bool FLOOD>
__device__ void join_pixel(const view &v, const member &thr, const tiles &t, uint32_t *L, int x, int y, int z)
{
    if (!member_at<FLOOD>(v, thr, x, y, z)) return;
    const int tx = x & (TX - 1), ty = y & (t.ty - 1), tz = z & (t.tz - 1);
    const bool zb = t.z_border && (z == 0 || z == v.d - 1);
    const uint32_t me = gindex(v, x, y, z);
    if (!FLOOD && (x == 0 || y == 0 || x == v.w - 1 || y == v.h - 1 || zb)) {
        // one join with the outside node per border run: skip when the
        // previous border pixel (left on a border row or slice, above on a
        // border column) is background
        const bool row_border = y == 0 || y == v.h - 1 || zb;
        const bool prev_bg = row_border ? x > 0 && member_at<FLOOD>(v, thr, x - 1, y, z) : y > 0 && member_at<FLOOD>(v, thr, x, y - 1, z);
        if (!prev_bg) unite(L, me, 0);
    }
    #pragma unroll
    for (int k = 0; k < 13; k++) { // unrolled: constant indices keep the offsets out of local memory
        if (k >= t.off.n) break;
        const int dx = t.off.d[k][0], dy = t.off.d[k][1], dz = t.off.d[k][2];
        const int nx = x + dx, ny = y + dy, nz = z + dz;
        if (nx < 0 || nx >= v.w || ny < 0 || ny >= v.h || nz < 0) continue;
        const int ntx = tx + dx, nty = ty + dy, ntz = tz + dz;
        if (ntx >= 0 && ntx < TX && nty >= 0 && nty < t.ty && ntz >= 0) continue; // same tile: pass 1
        if (!member_at<FLOOD>(v, thr, nx, ny, nz)) continue;
        const int axes = (dx != 0) + (dy != 0) + (dz != 0);
        if (axes == 1 && face_pair_redundant<FLOOD>(v, thr, x, y, z, dx, dy, dz, tx, ty)) continue;
        // a 2D diagonal pair with a background pixel beside both joins through it
        if (axes == 2 && dz == 0 && (member_at<FLOOD>(v, thr, x + dx, y, z) || member_at<FLOOD>(v, thr, x, y + dy, z))) continue;
        unite(L, me, gindex(v, nx, ny, nz));
    }
}

// Pass 2, launched only over the pixels that can have a neighbour in another
// tile: rows (and in 3D slices) on the first (and, where an offset points
// forward in y, the last) line of a tile, all x (coalesced), and columns on
// the first (and last) pixel of a tile, one thread per row. The offsets
// point backward, so with 4 or 8 neighbours in 2D the last row never leaves
// its tile; the image's last row and column are the border kernel's. Pixels
// in both sets are joined twice, which is harmless.
template <bool FLOOD>
__global__ void merge_rows_kernel(view v, member thr, tiles t, uint32_t *L, uint32_t items)
{
    // item -> (x, face line f, slice z); f -> tile row f / row_lines, its first or last line
    const uint32_t lines = t.row_lines * ((v.h + t.ty - 1) >> t.ty_shift);
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < items; i += gridDim.x * blockDim.x) {
        const int x = (int)(i % (uint32_t)v.w);
        const uint32_t r = i / (uint32_t)v.w;
        const int f = (int)(r % lines), z = (int)(r / lines);
        const int last = t.row_lines == 2 && (f & 1);
        const int y = (f / t.row_lines) * t.ty + (last ? t.ty - 1 : 0);
        if (y >= v.h || (last && t.ty == 1)) continue;
        join_pixel<FLOOD>(v, thr, t, L, x, y, z);
    }
}

template <bool FLOOD>
__global__ void merge_cols_kernel(view v, member thr, tiles t, uint32_t *L, uint32_t items)
{
    const uint32_t cols = t.col_lines * ((v.w + TX - 1) / TX);
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < items; i += gridDim.x * blockDim.x) {
        const int c = (int)(i % cols);
        const uint32_t r = i / cols;
        const int y = (int)(r % (uint32_t)v.h), z = (int)(r / (uint32_t)v.h);
        const int last = t.col_lines == 2 && (c & 1);
        const int x = (c / t.col_lines) * TX + (last ? TX - 1 : 0);
        if (x >= v.w) continue;
        join_pixel<FLOOD>(v, thr, t, L, x, y, z);
    }
}

// 3D: the first slice of each tile layer, all (x, y).
template <bool FLOOD>
__global__ void merge_slices_kernel(view v, member thr, tiles t, uint32_t *L, uint32_t items)
{
    const uint32_t plane = (uint32_t)v.w * (uint32_t)v.h;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < items; i += gridDim.x * blockDim.x) {
        const int x = (int)(i % (uint32_t)v.w), y = (int)((i / (uint32_t)v.w) % (uint32_t)v.h);
        const int z = (int)(i / plane) * t.tz;
        join_pixel<FLOOD>(v, thr, t, L, x, y, z);
    }
}

// The image border beyond the tile faces: the last row, the last column and
// the last slice need their join with the outside node.
template <bool FLOOD>
__global__ void merge_border_kernel(view v, member thr, tiles t, uint32_t *L, int64_t items)
{
    // items: the last row of every slice (w each), then the last column of every row (h each),
    // then (3D border) the first and last slice (w*h each)
    const int64_t a = (int64_t)v.w * v.d, b = a + (int64_t)v.h * v.d;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < items; i += (int64_t)gridDim.x * blockDim.x) {
        int x, y, z;
        if (i < a) x = (int)(i % v.w), y = v.h - 1, z = (int)(i / v.w);
        else if (i < b) x = v.w - 1, y = (int)((i - a) % v.h), z = (int)((i - a) / v.h);
        else {
            const int64_t j = i - b, plane = (int64_t)v.w * v.h;
            x = (int)(j % v.w), y = (int)((j / v.w) % v.h), z = j < plane ? 0 : v.d - 1;
        }
        join_pixel<FLOOD>(v, thr, t, L, x, y, z);
    }
}

__global__ void __launch_bounds__(TILE) output_kernel(view v, rule r, tiles t, uint32_t *L)
{
    const int x = blockIdx.x * TX + threadIdx.x, y = blockIdx.y * t.ty + threadIdx.y,
              z = blockIdx.z * t.tz + threadIdx.z;
    if (x >= v.w || y >= v.h || z >= v.d) return;
    const uint32_t value = in_at(v, x, y, z);
    int cls = 2;
    if (value < r.threshold) {
        // labels no longer change: plain loads. The first pixel of a tile to
        // find its root links the tile's root to it, shortening the others' walk.
        const uint32_t tile_root = L[gindex(v, x, y, z)];
        const uint32_t up = L[tile_root];
        uint32_t root = up;
        while (L[root] != root) root = L[root];
        if (up != root) L[tile_root] = root;
        cls = root == 0 ? 1 : 0;
    }
    out_put(v, r, x, y, z, cls, value);
}

// Pass 2's launches: rows, columns, slices, and the image border (fill only).
template <bool FLOOD>
parac_status merge(const view &v, const member &m, const tiles &t, uint32_t *L, int64_t rows, int64_t cols,
                   int64_t slices, int64_t border, cudaStream_t st)
{
    merge_rows_kernel<FLOOD><<<parac__grid_for(rows, 256), 256, 0, st>>>(v, m, t, L, (uint32_t)rows);
    parac_status rc = PARAC_CUDA_LAUNCH_CHECK();
    if (rc == PARAC_OK) {
        merge_cols_kernel<FLOOD><<<parac__grid_for(cols, 256), 256, 0, st>>>(v, m, t, L, (uint32_t)cols);
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    if (rc == PARAC_OK && slices > 0) {
        merge_slices_kernel<FLOOD><<<parac__grid_for(slices, 256), 256, 0, st>>>(v, m, t, L, (uint32_t)slices);
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    if (rc == PARAC_OK && !FLOOD) {
        merge_border_kernel<FLOOD><<<parac__grid_for(border, 256), 256, 0, st>>>(v, m, t, L, border);
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    return rc;
}

// Passes 1 and 2: every member pixel's label leads to its component's root.
parac_status label_passes(const view &v, const member &m, const tiles &t, const parac__fill_geom &g, uint32_t *L,
                          cudaStream_t st)
{
    const dim3 block(TX, t.ty, t.tz);
    const dim3 grid((unsigned)((g.w + TX - 1) / TX), (unsigned)((g.h + t.ty - 1) / t.ty),
                    (unsigned)((g.d + t.tz - 1) / t.tz));
    local_kernel<<<grid, block, 0, st>>>(v, m, t, L);
    parac_status rc = PARAC_CUDA_LAUNCH_CHECK();
    if (rc == PARAC_OK) {
        const int64_t rows = (int64_t)g.w * t.row_lines * ((g.h + t.ty - 1) / t.ty) * g.d;
        const int64_t cols = (int64_t)t.col_lines * ((g.w + TX - 1) / TX) * g.h * g.d;
        const int64_t slices = t.tz > 1 ? (int64_t)g.w * g.h * ((g.d + t.tz - 1) / t.tz) : 0;
        const int64_t border = (int64_t)g.w * g.d + (int64_t)g.h * g.d + (t.z_border ? 2 * g.w * g.h : 0);
        rc = m.flood ? merge<true>(v, m, t, L, rows, cols, slices, border, st)
                     : merge<false>(v, m, t, L, rows, cols, slices, border, st);
    }
    return rc;
}

// floodfill: every member pixel in the seed's component takes the value.
__global__ void __launch_bounds__(TILE) flood_output_kernel(view v, member m, tiles t, const uint32_t *L,
                                                            uint32_t seed, double value, int dtype)
{
    __shared__ uint32_t seed_root;
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
        uint32_t r = seed;
        while (L[r] != r) r = L[r];
        seed_root = r;
    }
    __syncthreads();
    const int x = blockIdx.x * TX + threadIdx.x, y = blockIdx.y * t.ty + threadIdx.y,
              z = blockIdx.z * t.tz + threadIdx.z;
    if (x >= v.w || y >= v.h || z >= v.d || !is_bg(v, m, x, y, z)) return;
    uint32_t r = L[gindex(v, x, y, z)];
    while (L[r] != r) r = L[r];
    if (r != seed_root) return;
    char *row = v.out + z * v.osp + y * v.orp;
    if (dtype == PARAC_U8) ((uint8_t *)row)[x] = (uint8_t)value;
    else if (dtype == PARAC_U16) ((uint16_t *)row)[x] = (uint16_t)value;
    else ((float *)row)[x] = (float)value;
}

} // namespace
} // namespace fillk

using namespace fillk;

extern "C" parac_status parac__fill_ccl_cuda(const parac__fill_spec *s, const parac_image *in, parac_image *out,
                                             void *stream)
{
    parac__fill_geom g;
    PARAC_TRY(parac__fill_geometry(s, in, &g));
    const uint64_t n = (uint64_t)g.w * (uint64_t)g.h * (uint64_t)g.d;
    if (n >= 0xffffffffull)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: method 'ccl' takes up to 4294967294 pixels (32-bit "
                           "labels); this image has %llu", s->op, (unsigned long long)n);
    cudaStream_t st = (cudaStream_t)stream;
    const int is3d = g.d > 1 && g.z_border;
    if (!is3d) {
        if (!parac__fill_ccl2d_fits(g.w, g.h, g.d))
            return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: method 'ccl' takes up to 2097120 rows and 65535 slices",
                               s->op);
        return parac__fill_ccl2d_cuda(s, in, out, g.w, g.h, g.d, stream);
    }
    const tiles t = with_face_lines(
        tiles{4, 4, 2, 2, g.z_border, backward_offsets(s->conn, is3d), 2, 2});
    const dim3 block(TX, t.ty, t.tz);
    const dim3 grid((unsigned)((g.w + TX - 1) / TX), (unsigned)((g.h + t.ty - 1) / t.ty),
                    (unsigned)((g.d + t.tz - 1) / t.tz));
    if (grid.y > 65535 || grid.z > 65535)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: method 'ccl' takes up to %d rows and %d slices", s->op,
                           65535 * t.ty, 65535 * t.tz);
    void *labels = nullptr;
    const size_t bytes = n * sizeof(uint32_t);
    PARAC_TRY(parac__cuda_alloc(in->device, bytes, &labels));
    uint32_t *L = (uint32_t *)labels;
    const view v = make_view(in, out);
    parac_status rc = label_passes(v, member{s->threshold, 0, 0, 0}, t, g, L, st);
    if (rc == PARAC_OK) {
        output_kernel<<<grid, block, 0, st>>>(v, make_rule(s), t, L);
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    // the labels go back to the pool: let the kernels finish first
    const parac_status sync = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    parac__cuda_release(in->device, labels, bytes);
    return rc != PARAC_OK ? rc : sync;
}

extern "C" parac_status parac__floodfill_cuda(const parac_image *in, parac_image *out, const int64_t *seeds,
                                              int n_seeds, double value, double tolerance, int conn, int mask,
                                              void *stream)
{
    parac__fill_geom g;
    PARAC_TRY(parac__fill_conn_geometry("floodfill", conn, in, &g));
    const uint64_t n = (uint64_t)g.w * (uint64_t)g.h * (uint64_t)g.d;
    if (n >= 0xffffffffull)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "floodfill: method 'ccl' takes up to 4294967294 pixels");
    if (!parac_image_is_packed(in) && in->pixel_stride != (int64_t)parac_dtype_size(in->dtype))
        return parac__fail(PARAC_ERR_UNSUPPORTED, "floodfill: the input's pixels must be adjacent");
    cudaStream_t st = (cudaStream_t)stream;
    const int is3d = g.d > 1 && g.z_border;
    const tiles t = with_face_lines(
        tiles{is3d ? 4 : TY2, is3d ? 4 : 1, is3d ? 2 : TY2_SHIFT, is3d ? 2 : 0, 0, backward_offsets(conn, is3d), 2, 2});
    const dim3 block(TX, t.ty, t.tz);
    const dim3 grid((unsigned)((g.w + TX - 1) / TX), (unsigned)((g.h + t.ty - 1) / t.ty),
                    (unsigned)((g.d + t.tz - 1) / t.tz));
    if (grid.y > 65535 || grid.z > 65535)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "floodfill: method 'ccl' takes up to %d rows and %d slices",
                           65535 * t.ty, 65535 * t.tz);
    if (mask) { /* a u8 mask: 1 in the regions */
        PARAC_TRY(parac_image_clear(out, stream));
        value = 1;
    } else {
        PARAC_TRY(parac_image_copy(out, in, stream)); /* everything outside the regions keeps its value */
    }
    void *labels = nullptr;
    const size_t bytes = n * sizeof(uint32_t);
    PARAC_TRY(parac__cuda_alloc(in->device, bytes, &labels));
    uint32_t *L = (uint32_t *)labels;
    view v = make_view(in, out);
    parac_status rc = PARAC_OK;
    for (int k = 0; rc == PARAC_OK && k < n_seeds; k++) {
        const int64_t *p = seeds + 3 * k;
        // the seed's value, from the device
        double sv = 0;
        union { uint8_t u8; uint16_t u16; float f32; } cell;
        rc = PARAC_CUDA_CHECK(cudaMemcpyAsync(&cell, parac_image_at(in, p[0], p[1], p[2]),
                                              parac_dtype_size(in->dtype), cudaMemcpyDeviceToHost, st));
        if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
        if (rc != PARAC_OK) break;
        sv = in->dtype == PARAC_U8 ? cell.u8 : in->dtype == PARAC_U16 ? cell.u16 : cell.f32;
        if (sv != sv) continue; /* NaN is within no range */
        const member m{0, 1, sv - tolerance, sv + tolerance};
        rc = label_passes(v, m, t, g, L, st);
        if (rc == PARAC_OK) {
            const uint32_t seed = (uint32_t)((p[2] * g.h + p[1]) * g.w + p[0]);
            flood_output_kernel<<<grid, block, 0, st>>>(v, m, t, L, seed, value, (int)out->dtype);
            rc = PARAC_CUDA_LAUNCH_CHECK();
        }
    }
    const parac_status sync = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    parac__cuda_release(in->device, labels, bytes);
    return rc != PARAC_OK ? rc : sync;
}
