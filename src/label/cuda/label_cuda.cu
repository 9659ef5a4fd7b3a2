// Labelling on the GPU: connected components by union-find over pixel
// labels (in the spirit of Playne & Hawick's and Allegretti et al.'s direct
// algorithms: a fixed number of passes, no iteration to convergence), then
// the roots numbered in raster order.
//   1. local: a block per tile (32 x 16 pixels, 32 x 4 x 4 in 3D) labels it
//      in shared memory; a warp holds a row, its ballot gives the row's runs
//      (foreground pixels that continue their left neighbour's component),
//      and rows are joined where an overlap starts. Every foreground pixel
//      gets the raster index of its tile component's first pixel, so a label
//      never exceeds its own index; background pixels get BG.
//   2. faces: pixels on tile faces join their neighbours in other tiles
//      (global union-find, atomicMin: the smaller root wins). A component's
//      root is therefore its first pixel in raster order.
//   3. number: a block per segment of 1024 consecutive pixels points every
//      pixel at its root and counts the roots, each root keeping its rank
//      in the segment (tagged, so that walks stop there);
//   4. an exclusive scan of the segments' counts (CUB);
//   5. output: label = the segments' offset + rank + 1, in raster order.
// Two neighbours join when both are foreground and hold the same key: 1 for
// every nonzero pixel, or the value itself with equal values.
#include <cuda_runtime.h>
#include <string.h>

#include <cub/device/device_scan.cuh>

#include "core/device_internal.h"
#include "cuda/cuda_check.h"
#include "cuda/launch.h"
#include "cuda/union_find.cuh"
#include "label/label.h"

namespace labelk {
namespace {

using namespace parac_uf;

constexpr uint32_t BG = 0xffffffffu;  // a background pixel's label
constexpr uint32_t TAG = 0x80000000u; // a numbered root: TAG | rank in its segment
constexpr int TX = 32;
constexpr int TILE = 512;
constexpr int SEG = 1024;             // pixels per numbering segment (one block)

struct src {
    const char *data;
    int64_t rp, sp;       // row and slice pitch, bytes
    int w, h, d;
    int dtype;
    int equal;            // keys are values (else 1 for every nonzero pixel)
    int bg_exact;         // the background value is one the dtype holds
    uint32_t bg_key;
};

struct tiles {
    int ty, tz, ty_shift;
    int row_lines, col_lines; // face lines per tile the merge visits (2 where an offset points forward)
    offsets off;
};

// A pixel's key and whether it is foreground.
__device__ inline bool key_at(const src &v, int x, int y, int z, uint32_t &key)
{
    const char *row = v.data + z * v.sp + y * v.rp;
    uint32_t raw;
    bool nonzero;
    switch (v.dtype) {
    case PARAC_U8: raw = ((const uint8_t *)row)[x]; nonzero = raw != 0; break;
    case PARAC_U16: raw = ((const uint16_t *)row)[x]; nonzero = raw != 0; break;
    case PARAC_I32: raw = (uint32_t)((const int32_t *)row)[x]; nonzero = raw != 0; break;
    default: {
        const float f = ((const float *)row)[x];
        nonzero = f != 0.0f; // NaN is nonzero, as numpy's
        raw = nonzero ? __float_as_uint(f) : 0u; // -0 is 0
    }
    }
    if (!v.equal) {
        key = 1;
        return nonzero;
    }
    key = raw;
    return !(v.bg_exact && raw == v.bg_key);
}

__device__ inline uint32_t gindex(const src &v, int x, int y, int z)
{
    return ((uint32_t)z * (uint32_t)v.h + (uint32_t)y) * (uint32_t)v.w + (uint32_t)x;
}

__device__ inline bool bit(uint32_t m, int i) { return (m >> i) & 1u; }

// Pass 1.
__global__ void __launch_bounds__(TILE) local_kernel(src v, tiles t, uint32_t *L)
{
    __shared__ uint32_t s[TILE], keys[TILE], run_root[TILE];
    __shared__ uint32_t fg_mask[TILE / TX], same_mask[TILE / TX];
    volatile uint32_t *vs = s;
    const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
    const int x = blockIdx.x * TX + tx, y = blockIdx.y * t.ty + ty, z = blockIdx.z * t.tz + tz;
    const int row = tz * t.ty + ty, me = row * TX + tx;
    const bool inside = x < v.w && y < v.h && z < v.d;
    uint32_t k = 0;
    const bool fg = inside && key_at(v, x, y, z, k);
    keys[me] = k;
    const uint32_t fgm = __ballot_sync(0xffffffffu, fg);
    const uint32_t left_key = __shfl_up_sync(0xffffffffu, k, 1);
    const bool same_left = fg && tx > 0 && bit(fgm, tx - 1) && left_key == k;
    const uint32_t same = __ballot_sync(0xffffffffu, same_left);
    if (tx == 0) fg_mask[row] = fgm, same_mask[row] = same;
    // the first pixel of my run: the last position at or before me that does not continue its left neighbour
    const uint32_t starts = ~same & (tx == 31 ? 0xffffffffu : (2u << tx) - 1u);
    const int start = 31 - __clz(starts);
    s[me] = (uint32_t)(row * TX + start);
    __syncthreads();
    if (fg) {
        #pragma unroll
        for (int j = 0; j < 13; j++) { // unrolled: constant indices keep the offsets out of local memory
            if (j >= t.off.n) break;
            const int dx = t.off.d[j][0], dy = t.off.d[j][1], dz = t.off.d[j][2];
            if (dy == 0 && dz == 0) continue; // the same row: runs
            const int nx = tx + dx, ny = ty + dy, nz = tz + dz;
            if (nx < 0 || nx >= TX || ny < 0 || ny >= t.ty || nz < 0) continue;
            const int nrow = nz * t.ty + ny, n = nrow * TX + nx;
            if (!bit(fg_mask[nrow], nx) || keys[n] != k) continue;
            if (dx == 0) {
                // the overlap started further left: joined there
                if (same_left && bit(same_mask[nrow], nx)) continue;
            } else if (dz == 0 || dy == 0) {
                // a diagonal in a plane with x: a pixel beside both with the same key joins them
                if ((bit(fg_mask[row], nx) && keys[row * TX + nx] == k) || (bit(fg_mask[nrow], tx) && keys[nrow * TX + tx] == k))
                    continue;
            }
            unite_local(vs, (uint32_t)me, (uint32_t)n);
        }
    }
    __syncthreads();
    if (fg && start == tx) run_root[me] = find_local(vs, (uint32_t)me);
    __syncthreads();
    if (!inside) return;
    uint32_t label = BG;
    if (fg) {
        const uint32_t r = run_root[row * TX + start];
        const int rx = (int)(r & (TX - 1)), ry = (int)(r >> 5) & (t.ty - 1), rz = (int)(r >> (5 + t.ty_shift));
        label = gindex(v, blockIdx.x * TX + rx, blockIdx.y * t.ty + ry, blockIdx.z * t.tz + rz);
    }
    L[gindex(v, x, y, z)] = label;
}

// Pass 2 for one pixel on a tile face: its neighbours in other tiles.
__device__ void join_pixel(const src &v, const tiles &t, uint32_t *L, int x, int y, int z)
{
    uint32_t k, kn, kb;
    if (!key_at(v, x, y, z, k)) return;
    const int tx = x & (TX - 1), ty = y & (t.ty - 1), tz = z & (t.tz - 1);
    const uint32_t me = gindex(v, x, y, z);
    #pragma unroll
    for (int j = 0; j < 13; j++) {
        if (j >= t.off.n) break;
        const int dx = t.off.d[j][0], dy = t.off.d[j][1], dz = t.off.d[j][2];
        const int nx = x + dx, ny = y + dy, nz = z + dz;
        if (nx < 0 || nx >= v.w || ny < 0 || ny >= v.h || nz < 0) continue;
        const int ntx = tx + dx, nty = ty + dy, ntz = tz + dz;
        if (ntx >= 0 && ntx < TX && nty >= 0 && nty < t.ty && ntz >= 0) continue; // the same tile: pass 1
        if (!key_at(v, nx, ny, nz, kn) || kn != k) continue;
        const int axes = (dx != 0) + (dy != 0) + (dz != 0);
        if (axes == 1) {
            // the pair before along the face (before in x, else in y) joins through the same pixels
            if (dx == 0 && tx > 0 && key_at(v, x - 1, y, z, kb) && kb == k && key_at(v, nx - 1, ny, nz, kb) && kb == k)
                continue;
            if (dy == 0 && ty > 0 && key_at(v, x, y - 1, z, kb) && kb == k && key_at(v, nx, ny - 1, nz, kb) && kb == k)
                continue;
        } else if (axes == 2 && dz == 0) {
            // a diagonal in the plane with a pixel beside both of the same key
            if ((key_at(v, x + dx, y, z, kb) && kb == k) || (key_at(v, x, y + dy, z, kb) && kb == k)) continue;
        }
        unite_halving(L, me, gindex(v, nx, ny, nz));
    }
}

// Pass 2, over the pixels that can have a neighbour in another tile: the
// first (and, where an offset points forward in y, the last) row of each
// tile, every x; the first (and last) column of each tile, every row; in 3D
// the first slice of each tile layer. Pixels in several sets join twice,
// which is harmless.
__global__ void merge_rows_kernel(src v, tiles t, uint32_t *L, uint32_t items)
{
    const uint32_t lines = t.row_lines * ((v.h + t.ty - 1) >> t.ty_shift);
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < items; i += gridDim.x * blockDim.x) {
        const int x = (int)(i % (uint32_t)v.w);
        const uint32_t r = i / (uint32_t)v.w;
        const int f = (int)(r % lines), z = (int)(r / lines);
        const int last = t.row_lines == 2 && (f & 1);
        const int y = (f / t.row_lines) * t.ty + (last ? t.ty - 1 : 0);
        if (y < v.h) join_pixel(v, t, L, x, y, z);
    }
}

__global__ void merge_cols_kernel(src v, tiles t, uint32_t *L, uint32_t items)
{
    const uint32_t cols = t.col_lines * ((v.w + TX - 1) / TX);
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < items; i += gridDim.x * blockDim.x) {
        const int c = (int)(i % cols);
        const uint32_t r = i / cols;
        const int y = (int)(r % (uint32_t)v.h), z = (int)(r / (uint32_t)v.h);
        const int last = t.col_lines == 2 && (c & 1);
        const int x = (c / t.col_lines) * TX + (last ? TX - 1 : 0);
        if (x < v.w) join_pixel(v, t, L, x, y, z);
    }
}

__global__ void merge_slices_kernel(src v, tiles t, uint32_t *L, uint32_t items)
{
    const uint32_t plane = (uint32_t)v.w * (uint32_t)v.h;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < items; i += gridDim.x * blockDim.x) {
        const int x = (int)(i % (uint32_t)v.w), y = (int)((i / (uint32_t)v.w) % (uint32_t)v.h);
        const int z = (int)(i / plane) * t.tz;
        if (z < v.d) join_pixel(v, t, L, x, y, z);
    }
}

// A walk to the root that stops at a numbered root too, halving the path
// as it goes (atomicMin with the grandparent, never on a root: every thread
// of the pass walks, and the walks of one component shorten each other's).
__device__ inline uint32_t root_of(uint32_t *L, uint32_t a)
{
    volatile uint32_t *vL = L;
    for (;;) {
        const uint32_t b = vL[a];
        if (b == a || (b & TAG)) return a;
        const uint32_t c = vL[b];
        if (c == b || (c & TAG)) return b;
        atomicMin(&L[a], c);
        a = c;
    }
}

// Pass 3: a block per segment of SEG pixels.
__global__ void __launch_bounds__(SEG) number_kernel(uint32_t *L, uint32_t n, uint32_t *counts)
{
    __shared__ uint32_t warp_roots[SEG / 32];
    const uint32_t p = blockIdx.x * SEG + threadIdx.x;
    bool root = false;
    if (p < n) {
        const uint32_t l = L[p];
        if (l != BG) {
            const uint32_t r = root_of(L, p);
            root = r == p;
            if (!root && l != r) L[p] = r; // an ancestor: walks that read either value still end at r
        }
    }
    const uint32_t ballot = __ballot_sync(0xffffffffu, root);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_roots[warp] = __popc(ballot);
    __syncthreads();
    if (warp == 0) { // exclusive scan of the 32 warps' counts
        const uint32_t c = warp_roots[lane];
        uint32_t incl = c;
        for (int o = 1; o < 32; o <<= 1) {
            const uint32_t u = __shfl_up_sync(0xffffffffu, incl, o);
            if (lane >= o) incl += u;
        }
        warp_roots[lane] = incl - c;
        if (lane == 31) counts[blockIdx.x] = incl;
    }
    __syncthreads();
    if (root) L[p] = TAG | (warp_roots[warp] + __popc(ballot & ((1u << lane) - 1u)));
}

// Pass 5.
__global__ void output_kernel(const uint32_t *L, const uint32_t *offsets, src v, char *out, int64_t orp, int64_t osp,
                              uint32_t n)
{
    for (uint32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x) {
        const uint32_t l = L[p];
        int32_t label = 0;
        if (l != BG) {
            const uint32_t r = (l & TAG) ? p : l, t = (l & TAG) ? l : L[r];
            label = (int32_t)(offsets[r / SEG] + (t & ~TAG) + 1);
        }
        const uint32_t x = p % (uint32_t)v.w, rest = p / (uint32_t)v.w, y = rest % (uint32_t)v.h, z = rest / (uint32_t)v.h;
        ((int32_t *)(out + z * osp + y * orp))[x] = label;
    }
}

tiles tiles_for(int conn, bool is3d)
{
    tiles t{is3d ? 4 : TILE / TX, is3d ? 4 : 1, is3d ? 2 : 4, 1, 1, backward_offsets(conn, is3d)};
    for (int k = 0; k < t.off.n; k++) {
        if (t.off.d[k][1] > 0) t.row_lines = 2;
        if (t.off.d[k][0] > 0) t.col_lines = 2;
    }
    return t;
}

src source_of(const parac__label_spec *s, const parac_image *in)
{
    src v{(const char *)in->data, in->row_pitch, in->slice_pitch, (int)in->width, (int)in->height, (int)in->depth,
          (int)in->dtype, s->equal_values, 0, 0};
    const double b = s->background;
    switch (in->dtype) {
    case PARAC_U8: v.bg_exact = b >= 0 && b <= 255 && b == (double)(uint32_t)b; v.bg_key = v.bg_exact ? (uint32_t)b : 0; break;
    case PARAC_U16: v.bg_exact = b >= 0 && b <= 65535 && b == (double)(uint32_t)b; v.bg_key = v.bg_exact ? (uint32_t)b : 0; break;
    case PARAC_I32:
        v.bg_exact = b >= INT32_MIN && b <= INT32_MAX && b == (double)(int32_t)b;
        v.bg_key = v.bg_exact ? (uint32_t)(int32_t)b : 0;
        break;
    default: {
        const float f = (float)b;
        v.bg_exact = (double)f == b;
        float g = f == 0.0f ? 0.0f : f; // -0 is 0
        uint32_t bits;
        memcpy(&bits, &g, sizeof bits);
        v.bg_key = bits;
    }
    }
    return v;
}

parac_status launch_passes(const src &v, const tiles &t, uint32_t *L, cudaStream_t st)
{
    const dim3 block(TX, t.ty, t.tz);
    const dim3 grid((unsigned)((v.w + TX - 1) / TX), (unsigned)((v.h + t.ty - 1) / t.ty), (unsigned)((v.d + t.tz - 1) / t.tz));
    local_kernel<<<grid, block, 0, st>>>(v, t, L);
    PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    const int64_t rows = (int64_t)v.w * t.row_lines * grid.y * v.d;
    const int64_t cols = (int64_t)t.col_lines * grid.x * v.h * v.d;
    merge_rows_kernel<<<parac__grid_for(rows, 256), 256, 0, st>>>(v, t, L, (uint32_t)rows);
    PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    merge_cols_kernel<<<parac__grid_for(cols, 256), 256, 0, st>>>(v, t, L, (uint32_t)cols);
    PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    if (t.tz > 1) {
        const int64_t slices = (int64_t)v.w * v.h * grid.z;
        merge_slices_kernel<<<parac__grid_for(slices, 256), 256, 0, st>>>(v, t, L, (uint32_t)slices);
        PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    }
    return PARAC_OK;
}

} // namespace
} // namespace labelk

using namespace labelk;

extern "C" parac_status parac__label_cuda(const parac__label_spec *s, const parac_image *in, parac_image *out,
                                          int64_t *count, void *stream)
{
    PARAC_TRY(parac__label_check(s, in, out));
    const uint64_t n64 = (uint64_t)in->width * (uint64_t)in->height * (uint64_t)in->depth;
    if (n64 >= TAG)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: the CUDA method takes fewer than 2^31 pixels (labels and "
                           "their tag share 32 bits); this image has %llu: use --device cpu", s->op,
                           (unsigned long long)n64);
    const bool is3d = in->depth > 1;
    const tiles t = tiles_for(s->conn, is3d);
    if ((in->height + t.ty - 1) / t.ty > 65535 || (in->depth + t.tz - 1) / t.tz > 65535)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: the CUDA method takes up to %d rows and %d slices", s->op,
                           65535 * t.ty, 65535 * t.tz);
    cudaStream_t st = (cudaStream_t)stream;
    const uint32_t n = (uint32_t)n64, segments = (n + SEG - 1) / SEG;
    const src v = source_of(s, in);
    size_t scan_bytes = 0;
    PARAC_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, (const uint32_t *)nullptr, (uint32_t *)nullptr,
                                                 (int)segments, st));
    void *labels = nullptr, *counts = nullptr, *offsets = nullptr, *scratch = nullptr;
    const size_t label_bytes = (size_t)n * sizeof(uint32_t), seg_bytes = (size_t)segments * sizeof(uint32_t);
    parac_status rc = parac__cuda_alloc(in->device, label_bytes, &labels);
    if (rc == PARAC_OK) rc = parac__cuda_alloc(in->device, seg_bytes, &counts);
    if (rc == PARAC_OK) rc = parac__cuda_alloc(in->device, seg_bytes, &offsets);
    if (rc == PARAC_OK) rc = parac__cuda_alloc(in->device, scan_bytes ? scan_bytes : 1, &scratch);
    uint32_t *L = (uint32_t *)labels, *C = (uint32_t *)counts, *O = (uint32_t *)offsets;
    if (rc == PARAC_OK) rc = launch_passes(v, t, L, st);
    if (rc == PARAC_OK) {
        number_kernel<<<segments, SEG, 0, st>>>(L, n, C);
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch, scan_bytes, C, O, (int)segments, st));
    if (rc == PARAC_OK) {
        output_kernel<<<parac__grid_for(n, 256), 256, 0, st>>>(L, O, v, (char *)out->data, out->row_pitch,
                                                               out->slice_pitch, n);
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    uint32_t tail[2] = {0, 0}; // the last segment's offset and count: the total
    if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaMemcpyAsync(&tail[0], O + segments - 1, 4, cudaMemcpyDeviceToHost, st));
    if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaMemcpyAsync(&tail[1], C + segments - 1, 4, cudaMemcpyDeviceToHost, st));
    // the buffers go back to the pool: let the kernels finish first
    const parac_status sync = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    if (labels) parac__cuda_release(in->device, labels, label_bytes);
    if (counts) parac__cuda_release(in->device, counts, seg_bytes);
    if (offsets) parac__cuda_release(in->device, offsets, seg_bytes);
    if (scratch) parac__cuda_release(in->device, scratch, scan_bytes ? scan_bytes : 1);
    if (rc == PARAC_OK && sync == PARAC_OK) *count = (int64_t)tail[0] + tail[1];
    return rc != PARAC_OK ? rc : sync;
}
