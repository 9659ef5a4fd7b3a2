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
#include <cuda_runtime.h>

#include "cuda/cuda_check.h"
#include "core/device_internal.h"
#include "fill_cuda.cuh"

namespace fillk {
namespace {

constexpr int TX = 32;

struct tiles {
    int ty, tz;        // tile height and depth (tz = 1: 2D tiles)
    int z_border;      // slices 0 and d-1 are border
    offsets off;
};

// Reads are volatile: other threads lower roots while this one walks.
__device__ inline uint32_t find_root(const volatile uint32_t *L, uint32_t a)
{
    uint32_t b = L[a];
    while (b != a) {
        a = b;
        b = L[a];
    }
    return a;
}

__device__ inline void unite(uint32_t *L, uint32_t a, uint32_t b)
{
    for (;;) {
        a = find_root(L, a);
        b = find_root(L, b);
        if (a == b) return;
        if (a > b) {
            const uint32_t t = a;
            a = b;
            b = t;
        }
        const uint32_t old = atomicMin(&L[b], a);
        if (old == b) return;
        b = old;
    }
}

__device__ inline bool is_bg(const view &v, uint32_t thr, int x, int y, int z) { return in_at(v, x, y, z) < thr; }

__device__ inline uint32_t gindex(const view &v, int x, int y, int z)
{
    return ((uint32_t)z * (uint32_t)v.h + (uint32_t)y) * (uint32_t)v.w + (uint32_t)x;
}

__global__ void __launch_bounds__(512) local_kernel(view v, uint32_t thr, tiles t, uint32_t *L)
{
    __shared__ uint32_t s[512];
    volatile uint32_t *vs = s;
    const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
    const int x = blockIdx.x * TX + tx, y = blockIdx.y * t.ty + ty, z = blockIdx.z * t.tz + tz;
    const int me = (tz * t.ty + ty) * TX + tx;
    const bool inside_img = x < v.w && y < v.h && z < v.d;
    const bool bg = inside_img && is_bg(v, thr, x, y, z);
    s[me] = bg ? (uint32_t)me : 0xffffffffu;
    __syncthreads();
    if (bg) {
        for (int k = 0; k < t.off.n; k++) {
            const int nx = tx + t.off.d[k][0], ny = ty + t.off.d[k][1], nz = tz + t.off.d[k][2];
            if (nx < 0 || nx >= TX || ny < 0 || ny >= t.ty || nz < 0) continue;
            const int nb = (nz * t.ty + ny) * TX + nx;
            if (vs[nb] == 0xffffffffu) continue; // contour or beyond the image
            // shared-memory union: the smaller local index wins
            uint32_t a = (uint32_t)me, b = (uint32_t)nb;
            for (;;) {
                while (vs[a] != a) a = vs[a];
                while (vs[b] != b) b = vs[b];
                if (a == b) break;
                if (a > b) {
                    const uint32_t tmp = a;
                    a = b;
                    b = tmp;
                }
                const uint32_t old = atomicMin(&s[b], a);
                if (old == b) break;
                b = old;
            }
        }
    }
    __syncthreads();
    if (!inside_img) return;
    if (bg) {
        uint32_t r = (uint32_t)me;
        while (s[r] != r) r = s[r];
        const int rx = (int)(r % TX), ry = (int)(r / TX) % t.ty, rz = (int)(r / (TX * t.ty));
        L[gindex(v, x, y, z)] = gindex(v, blockIdx.x * TX + rx, blockIdx.y * t.ty + ry, blockIdx.z * t.tz + rz);
    } else if (x == 0 && y == 0 && z == 0) {
        L[0] = 0; // the outside node
    }
}

// Joins across a tile face are needed only where the background along the
// face starts: when the previous pixel along the face (the one before in x,
// else in y) and its partner across the face are background too, they are
// joined already and this pair joins through them.
__device__ inline bool face_pair_redundant(const view &v, uint32_t thr, int x, int y, int z, int dx, int dy,
                                           int dz, int tx, int ty)
{
    if (dx == 0 && tx > 0 && is_bg(v, thr, x - 1, y, z) && is_bg(v, thr, x - 1 + dx, y + dy, z + dz)) return true;
    if (dy == 0 && ty > 0 && is_bg(v, thr, x, y - 1, z) && is_bg(v, thr, x + dx, y - 1 + dy, z + dz)) return true;
    return false;
}

__global__ void __launch_bounds__(512) merge_kernel(view v, uint32_t thr, tiles t, uint32_t *L)
{
    const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
    const int x = blockIdx.x * TX + tx, y = blockIdx.y * t.ty + ty, z = blockIdx.z * t.tz + tz;
    if (x >= v.w || y >= v.h || z >= v.d) return;
    const bool zb = t.z_border && (z == 0 || z == v.d - 1);
    const bool border = x == 0 || y == 0 || x == v.w - 1 || y == v.h - 1 || zb;
    const bool edge = tx == 0 || tx == TX - 1 || ty == 0 || ty == t.ty - 1 || (t.tz > 1 && tz == 0);
    if (!border && !edge) return;
    if (!is_bg(v, thr, x, y, z)) return;
    const uint32_t me = gindex(v, x, y, z);
    if (border) {
        // one join with the outside node per border run: skip when the
        // previous border pixel (left on a border row or slice, above on a
        // border column) is background
        const bool row_border = y == 0 || y == v.h - 1 || zb;
        const bool prev_bg = row_border ? x > 0 && is_bg(v, thr, x - 1, y, z) : y > 0 && is_bg(v, thr, x, y - 1, z);
        if (!prev_bg) unite(L, me, 0);
    }
    for (int k = 0; k < t.off.n; k++) {
        const int dx = t.off.d[k][0], dy = t.off.d[k][1], dz = t.off.d[k][2];
        const int nx = x + dx, ny = y + dy, nz = z + dz;
        if (nx < 0 || nx >= v.w || ny < 0 || ny >= v.h || nz < 0) continue;
        const int ntx = tx + dx, nty = ty + dy, ntz = tz + dz;
        if (ntx >= 0 && ntx < TX && nty >= 0 && nty < t.ty && ntz >= 0) continue; // same tile: pass 1
        if (!is_bg(v, thr, nx, ny, nz)) continue;
        const int axes = (dx != 0) + (dy != 0) + (dz != 0);
        if (axes == 1 && face_pair_redundant(v, thr, x, y, z, dx, dy, dz, tx, ty)) continue;
        // a 2D diagonal pair with a background pixel beside both joins through it
        if (axes == 2 && dz == 0 && (is_bg(v, thr, x + dx, y, z) || is_bg(v, thr, x, y + dy, z))) continue;
        unite(L, me, gindex(v, nx, ny, nz));
    }
}

__global__ void __launch_bounds__(512) output_kernel(view v, rule r, tiles t, uint32_t *L)
{
    const int x = blockIdx.x * TX + threadIdx.x, y = blockIdx.y * t.ty + threadIdx.y,
              z = blockIdx.z * t.tz + threadIdx.z;
    if (x >= v.w || y >= v.h || z >= v.d) return;
    const uint32_t value = in_at(v, x, y, z);
    int cls = 2;
    if (value < r.threshold) {
        const uint32_t tile_root = L[gindex(v, x, y, z)];
        const uint32_t root = find_root(L, tile_root);
        if (root != tile_root) L[tile_root] = root; // shortens the walk of the tile's other pixels
        cls = root == 0 ? 1 : 0;
    }
    out_put(v, r, x, y, z, cls, value);
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
    tiles t{is3d ? 4 : 16, is3d ? 4 : 1, g.z_border, backward_offsets(s->conn, is3d)};
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
    local_kernel<<<grid, block, 0, st>>>(v, s->threshold, t, L);
    parac_status rc = PARAC_CUDA_LAUNCH_CHECK();
    if (rc == PARAC_OK) {
        merge_kernel<<<grid, block, 0, st>>>(v, s->threshold, t, L);
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    if (rc == PARAC_OK) {
        output_kernel<<<grid, block, 0, st>>>(v, make_rule(s), t, L);
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    // the labels go back to the pool: let the kernels finish first
    const parac_status sync = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    parac__cuda_release(in->device, labels, bytes);
    return rc != PARAC_OK ? rc : sync;
}
