// The CUDA "wavefront" method of reconstruction by dilation (erosion by
// inverted values, as on the CPU; recon.h).
//
// Marker and mask are loaded into framed grids of the CPU engines' layout
// (recon_grid.h). The image is cut into tiles (32x32 in 2D, 32x8x8 in 3D);
// one warp owns a tile, loads it with a one-pixel halo into shared memory
// and sweeps it along every axis in both directions, a plane at a time
// (pixels of one plane read only the previous plane, so a sweep carries a
// value along a straight path in one pass), until a round of sweeps changes
// nothing. It writes back what changed and queues the neighbouring tiles
// whose shared faces changed. Rounds run until no tile is queued.
//
// A wavefront that has become a thin thread of tiles (a 1-pixel serpentine,
// a spiral) would need one round per tile crossed. When only a few tiles stay
// active for many rounds, the rest is a sequential walk: the grid is copied
// to the host and finished there by the fast hybrid method, which is linear
// in the image size. Values only rise towards the fix point on either side,
// so the result is the same bits.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/device_internal.h"
#include "cuda/cuda_check.h"
#include "morph/recon.h"
#include "morph/recon_grid.h"

namespace {

struct img_desc {
    const char *data;
    int64_t ps, rp, sp; // pixel stride, row pitch, slice pitch (bytes)
};

img_desc desc(const parac_image *im)
{
    return img_desc{(const char *)im->data, im->pixel_stride, im->row_pitch, im->slice_pitch};
}

template <typename T> struct num;
template <> struct num<uint8_t> {
    static constexpr bool is_float = false;
    __device__ static uint8_t lo() { return 0; }
    __device__ static uint8_t flip(uint8_t v, int e) { return e ? (uint8_t)(255 - v) : v; }
};
template <> struct num<uint16_t> {
    static constexpr bool is_float = false;
    __device__ static uint16_t lo() { return 0; }
    __device__ static uint16_t flip(uint16_t v, int e) { return e ? (uint16_t)(65535 - v) : v; }
};
template <> struct num<float> {
    static constexpr bool is_float = true;
    __device__ static float lo() { return -INFINITY; }
    __device__ static float flip(float v, int e) { return e ? -v : v; }
};

struct spec_d {
    int erosion, clip, rule;
    double h;
    int64_t border;
    int64_t W, H, D; // image size
};

struct grid_d {
    int64_t w, h, d, sy, sz, z0;
};

template <typename T>
__device__ T px(const img_desc &im, int64_t x, int64_t y, int64_t z)
{
    return *(const T *)(im.data + z * im.sp + y * im.rp + x * im.ps);
}

// Fill the framed grids; record the first problem pixel as index*4 + kind
// (0 NaN in the mask, 1 NaN in the marker, 2 marker above the mask).
template <typename T>
__global__ void load_kernel(img_desc marker, img_desc mask, spec_d s, grid_d g, T *I, T *J,
                            unsigned long long *bad)
{
    const int64_t W2 = g.w + 2, rows = g.sz / W2 * (g.d > 1 ? g.d + 2 : 1);
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const int64_t gz = r / (g.h + 2), gy = r % (g.h + 2);
        const int64_t z = gz - g.z0, y = gy - 1;
        for (int64_t gx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; gx < W2;
             gx += (int64_t)gridDim.x * blockDim.x) {
            const int64_t p = gz * g.sz + gy * g.sy + gx, x = gx - 1;
            if (x < 0 || x >= g.w || y < 0 || y >= g.h || z < 0 || z >= g.d) {
                I[p] = J[p] = num<T>::lo();
                continue;
            }
            const T raw = px<T>(mask, x, y, z);
            const T m = num<T>::flip(raw, s.erosion);
            T mk;
            switch (s.rule) {
            case PARAC__MARKER_IMAGE: mk = num<T>::flip(px<T>(marker, x, y, z), s.erosion); break;
            case PARAC__MARKER_SUB_H:
                if (num<T>::is_float) mk = (T)((float)m - (float)s.h);
                else mk = (double)m > s.h ? (T)(m - (T)s.h) : num<T>::lo();
                break;
            case PARAC__MARKER_PRED:
                if (num<T>::is_float) mk = m == num<T>::lo() ? m : (T)nextafterf((float)m, -INFINITY);
                else mk = m > num<T>::lo() ? (T)(m - 1) : m;
                break;
            default: {
                const int64_t b = s.border;
                const bool edge = x < b || y < b || x >= s.W - b || y >= s.H - b ||
                                  (s.D > 1 && (z < b || z >= s.D - b));
                mk = edge ? m : num<T>::lo();
            }
            }
            int kind = -1;
            if (raw != raw) kind = 0;
            else if (mk != mk) kind = 1;
            else if (mk > m && !s.clip) kind = 2;
            if (kind >= 0) {
                atomicMin(bad, (unsigned long long)(((z * s.H + y) * s.W + x) * 4 + kind));
                mk = m;
            }
            if (mk > m) mk = m;
            I[p] = mk;
            J[p] = m;
        }
    }
}

template <typename T>
__global__ void store_kernel(const T *I, grid_d g, int erosion, char *out, int64_t ps, int64_t rp,
                             int64_t sp)
{
    const int64_t rows = g.h * g.d;
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const int64_t z = r / g.h, y = r % g.h;
        const T *row = I + (z + g.z0) * g.sz + (y + 1) * g.sy + 1;
        for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < g.w;
             x += (int64_t)gridDim.x * blockDim.x)
            *(T *)(out + z * sp + y * rp + x * ps) = num<T>::flip(row[x], erosion);
    }
}

// ---- tiles ------------------------------------------------------------------------------
constexpr int TX = 32;

template <bool IS3D> struct tile_shape {
    static constexpr int TY = IS3D ? 8 : 32, TZ = IS3D ? 8 : 1;
    static constexpr int SX = TX + 2, SY = TY + 2, SZ = IS3D ? TZ + 2 : 1;
};

__device__ __forceinline__ bool in_conn(int conn, int dx, int dy, int dz)
{
    const int steps = (dx != 0) + (dy != 0) + (dz != 0);
    if (steps == 0) return false;
    if (conn == 4 || conn == 6) return steps == 1;
    if (conn == 18) return steps <= 2;
    return true;
}

// One sweep along AXIS in direction S: planes in order, each pixel of a plane
// taking the maximum over its neighbours in the previous plane, clipped by
// the mask. Returns whether this lane changed a pixel.
template <typename T, bool IS3D, int CONN, int AXIS, int S>
__device__ bool sweep(T *sI, const T *sJ, int lane)
{
    using sh = tile_shape<IS3D>;
    constexpr int NP = AXIS == 0 ? TX : AXIS == 1 ? sh::TY : sh::TZ;
    constexpr int PA = AXIS == 0 ? sh::TY : TX;               // plane's first extent
    constexpr int PB = AXIS == 2 ? sh::TY : sh::TZ;           // plane's second extent
    bool changed = false;
    for (int k = 0; k < NP; k++) {
        const int c = S > 0 ? 1 + k : NP - k;
        for (int q = lane; q < PA * PB; q += 32) {
            const int a = 1 + q % PA, b = (IS3D ? 1 : 0) + q / PA;
            const int x = AXIS == 0 ? c : a;
            const int y = AXIS == 1 ? c : (AXIS == 0 ? a : b);
            const int z = AXIS == 2 ? c : (IS3D ? b : 0);
            const int p = (z * sh::SY + y) * sh::SX + x;
            T v = sI[p];
#pragma unroll
            for (int dz = (IS3D ? -1 : 0); dz <= (IS3D ? 1 : 0); dz++)
#pragma unroll
                for (int dy = -1; dy <= 1; dy++)
#pragma unroll
                    for (int dx = -1; dx <= 1; dx++) {
                        const int da = AXIS == 0 ? dx : AXIS == 1 ? dy : dz;
                        if (da != -S || !in_conn(CONN, dx, dy, dz)) continue;
                        const T u = sI[p + (dz * sh::SY + dy) * sh::SX + dx];
                        v = u > v ? u : v;
                    }
            const T m = sJ[((z - (IS3D ? 1 : 0)) * sh::TY + (y - 1)) * TX + (x - 1)];
            v = v < m ? v : m;
            if (v != sI[p]) {
                sI[p] = v;
                changed = true;
            }
        }
        __syncwarp();
    }
    return changed;
}

struct tile_work {
    int64_t ntx, nty, ntz;
    const unsigned *list; // tiles of this round; NULL: all tiles
    unsigned *flag;       // per tile: already queued for the next round
    unsigned *next;       // the next round's list
    unsigned *next_count;
};

template <typename T, bool IS3D, int CONN>
__global__ void __launch_bounds__(32) tile_kernel(T *I, const T *J, grid_d g, tile_work tw)
{
    using sh = tile_shape<IS3D>;
    __shared__ T sI[sh::SX * sh::SY * sh::SZ];
    __shared__ T sJ[TX * sh::TY * sh::TZ];
    const int lane = threadIdx.x;
    const int64_t id = tw.list ? tw.list[blockIdx.x] : blockIdx.x;
    const int64_t tx = id % tw.ntx, ty = (id / tw.ntx) % tw.nty, tz = id / (tw.ntx * tw.nty);
    const int64_t X0 = tx * TX, Y0 = ty * sh::TY, Z0 = IS3D ? tz * sh::TZ : 0; // grid coords of halo corner
    // load: the halo'd tile of I, the core of J; beyond the grid: the dtype's minimum
    for (int z = 0; z < sh::SZ; z++)
        for (int y = 0; y < sh::SY; y++)
            for (int x = lane; x < sh::SX; x += 32) {
                const int64_t gx = X0 + x, gy = Y0 + y, gz = Z0 + z;
                const bool ok = gx <= g.w + 1 && gy <= g.h + 1 && (!IS3D || gz <= g.d + 1);
                const int64_t p = gz * g.sz + gy * g.sy + gx;
                sI[(z * sh::SY + y) * sh::SX + x] = ok ? I[p] : num<T>::lo();
                const bool core = x >= 1 && x <= TX && y >= 1 && y <= sh::TY &&
                                  (!IS3D || (z >= 1 && z <= sh::TZ));
                if (core)
                    sJ[((z - (IS3D ? 1 : 0)) * sh::TY + (y - 1)) * TX + (x - 1)] =
                        ok ? J[p] : num<T>::lo();
            }
    __syncwarp();
    for (;;) {
        bool c = sweep<T, IS3D, CONN, 1, 1>(sI, sJ, lane);
        c |= sweep<T, IS3D, CONN, 1, -1>(sI, sJ, lane);
        c |= sweep<T, IS3D, CONN, 0, 1>(sI, sJ, lane);
        c |= sweep<T, IS3D, CONN, 0, -1>(sI, sJ, lane);
        if (IS3D) {
            c |= sweep<T, IS3D, CONN, 2, 1>(sI, sJ, lane);
            c |= sweep<T, IS3D, CONN, 2, -1>(sI, sJ, lane);
        }
        if (!__any_sync(0xffffffffu, c)) break;
    }
    // write back what changed; faces: bit 0/1 x-/x+, 2/3 y-/y+, 4/5 z-/z+
    unsigned faces = 0;
    for (int z = IS3D ? 1 : 0; z < (IS3D ? sh::TZ + 1 : 1); z++)
        for (int y = 1; y <= sh::TY; y++)
            for (int x = lane + 1; x <= TX; x += 32) {
                const int64_t gx = X0 + x, gy = Y0 + y, gz = Z0 + z;
                if (gx > g.w || gy > g.h || (IS3D && gz > g.d)) continue;
                const int64_t p = gz * g.sz + gy * g.sy + gx;
                const T v = sI[(z * sh::SY + y) * sh::SX + x];
                if (v == I[p]) continue;
                I[p] = v;
                faces |= (x == 1 ? 1u : 0u) | (x == TX ? 2u : 0u) | (y == 1 ? 4u : 0u) |
                         (y == sh::TY ? 8u : 0u);
                if (IS3D) faces |= (z == 1 ? 16u : 0u) | (z == sh::TZ ? 32u : 0u);
            }
    faces = __reduce_or_sync(0xffffffffu, faces);
    if (faces == 0) return;
    // queue the neighbours next to a changed face (a diagonal one needs all its faces)
    for (int n = lane; n < 27; n += 32) {
        const int dx = n % 3 - 1, dy = (n / 3) % 3 - 1, dz = n / 9 - 1;
        if (!IS3D && dz != 0) continue;
        if (!in_conn(CONN, dx, dy, dz)) continue;
        if ((dx < 0 && !(faces & 1)) || (dx > 0 && !(faces & 2)) || (dy < 0 && !(faces & 4)) ||
            (dy > 0 && !(faces & 8)) || (dz < 0 && !(faces & 16)) || (dz > 0 && !(faces & 32)))
            continue;
        const int64_t nx = tx + dx, ny = ty + dy, nz = tz + dz;
        if (nx < 0 || ny < 0 || nz < 0 || nx >= tw.ntx || ny >= tw.nty || nz >= tw.ntz) continue;
        const int64_t nid = (nz * tw.nty + ny) * tw.ntx + nx;
        if (atomicExch(&tw.flag[nid], 1u) == 0u) tw.next[atomicAdd(tw.next_count, 1u)] = (unsigned)nid;
    }
}

__global__ void clear_flags(unsigned *flag, const unsigned *list, unsigned n)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        flag[list[i]] = 0;
}

template <typename T, bool IS3D, int CONN>
cudaError_t launch_tiles(unsigned blocks, T *I, const T *J, grid_d g, tile_work tw, cudaStream_t st)
{
    tile_kernel<T, IS3D, CONN><<<blocks, 32, 0, st>>>(I, J, g, tw);
    return cudaGetLastError();
}

template <typename T>
cudaError_t launch_tiles_conn(int conn, unsigned blocks, T *I, const T *J, grid_d g, tile_work tw,
                              cudaStream_t st)
{
    switch (conn) {
    case 4: return launch_tiles<T, false, 4>(blocks, I, J, g, tw, st);
    case 8: return launch_tiles<T, false, 8>(blocks, I, J, g, tw, st);
    case 6: return launch_tiles<T, true, 6>(blocks, I, J, g, tw, st);
    case 18: return launch_tiles<T, true, 18>(blocks, I, J, g, tw, st);
    default: return launch_tiles<T, true, 26>(blocks, I, J, g, tw, st);
    }
}

// Rounds before the stall rule may apply, and how long the active set must
// stay under the limit.
constexpr int STALL_WARMUP = 64, STALL_ROUNDS = 32;

struct buffers {
    int dev = -1;
    void *I = nullptr, *J = nullptr, *flag = nullptr, *list[2] = {nullptr, nullptr}, *counts = nullptr;
    size_t grid_bytes = 0, tile_bytes = 0;
    ~buffers()
    {
        if (I) parac__cuda_release(dev, I, grid_bytes);
        if (J) parac__cuda_release(dev, J, grid_bytes);
        if (flag) parac__cuda_release(dev, flag, tile_bytes);
        for (void *l : list)
            if (l) parac__cuda_release(dev, l, tile_bytes);
        if (counts) parac__cuda_release(dev, counts, 64);
    }
};

// Finish on the host by the fast hybrid method from the grid's current state.
parac_status finish_on_host(parac_dtype dtype, int conn, const grid_d &g, void *dI, const void *dJ,
                            size_t bytes, cudaStream_t st)
{
    parac__grid h;
    PARAC_TRY(parac__grid_alloc(&h, dtype, conn, g.w, g.h, g.d));
    parac_status s = PARAC_CUDA_CHECK(cudaMemcpyAsync(h.I, dI, bytes, cudaMemcpyDeviceToHost, st));
    if (s == PARAC_OK) s = PARAC_CUDA_CHECK(cudaMemcpyAsync(h.J, dJ, bytes, cudaMemcpyDeviceToHost, st));
    if (s == PARAC_OK) s = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    parac__queue q = {};
    if (s == PARAC_OK) s = parac__engine_for(dtype)->hybrid(&h, &q);
    parac__queue_free(&q);
    if (s == PARAC_OK) s = PARAC_CUDA_CHECK(cudaMemcpyAsync(dI, h.I, bytes, cudaMemcpyHostToDevice, st));
    if (s == PARAC_OK) s = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    parac__grid_free(&h);
    return s;
}

template <typename T>
parac_status wavefront(const parac__recon_spec *s, const parac_image *marker,
                       const parac_image *mask, parac_image *out, cudaStream_t st)
{
    const bool is3d = mask->depth > 1;
    grid_d g{mask->width, mask->height, mask->depth, mask->width + 2,
             (mask->width + 2) * (mask->height + 2), is3d ? 1 : 0};
    const int64_t total = g.sz * (is3d ? g.d + 2 : 1);
    const int TY = is3d ? 8 : 32, TZ = is3d ? 8 : 1;
    tile_work tw{(g.w + TX - 1) / TX, (g.h + TY - 1) / TY, (g.d + TZ - 1) / TZ, nullptr, nullptr,
                 nullptr, nullptr};
    const int64_t tiles = tw.ntx * tw.nty * tw.ntz;
    if (tiles >= (int64_t)UINT32_MAX)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: %lld tiles exceed the tile index range",
                           s->op, (long long)tiles);
    buffers b;
    b.dev = mask->device;
    b.grid_bytes = sizeof(T) * (size_t)total;
    b.tile_bytes = sizeof(unsigned) * (size_t)tiles;
    PARAC_TRY(parac__cuda_alloc(b.dev, b.grid_bytes, &b.I));
    PARAC_TRY(parac__cuda_alloc(b.dev, b.grid_bytes, &b.J));
    PARAC_TRY(parac__cuda_alloc(b.dev, b.tile_bytes, &b.flag));
    PARAC_TRY(parac__cuda_alloc(b.dev, b.tile_bytes, &b.list[0]));
    PARAC_TRY(parac__cuda_alloc(b.dev, b.tile_bytes, &b.list[1]));
    PARAC_TRY(parac__cuda_alloc(b.dev, 64, &b.counts));
    unsigned long long *bad = (unsigned long long *)b.counts;
    unsigned *count = (unsigned *)((char *)b.counts + 8);
    PARAC_CUDA_TRY(cudaMemsetAsync(b.counts, 0xff, 8, st));
    PARAC_CUDA_TRY(cudaMemsetAsync(count, 0, 8, st));
    PARAC_CUDA_TRY(cudaMemsetAsync(b.flag, 0, b.tile_bytes, st));

    spec_d sd{s->erosion, s->clip, (int)s->rule, s->h, s->border, mask->width, mask->height, mask->depth};
    img_desc mk = marker ? desc(marker) : desc(mask);
    const int64_t rows = g.sz / g.sy * (is3d ? g.d + 2 : 1);
    dim3 lg((unsigned)((g.sy + 255) / 256), (unsigned)(rows < 65535 ? rows : 65535));
    load_kernel<T><<<lg, 256, 0, st>>>(mk, desc(mask), sd, g, (T *)b.I, (T *)b.J, bad);
    PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    unsigned long long first_bad = 0;
    PARAC_CUDA_TRY(cudaMemcpyAsync(&first_bad, bad, 8, cudaMemcpyDeviceToHost, st));
    PARAC_CUDA_TRY(cudaStreamSynchronize(st));
    if (first_bad != ~0ull) {
        parac__recon_violation v = {};
        const unsigned long long idx = first_bad / 4;
        const int kind = (int)(first_bad % 4);
        v.found = 1;
        v.x = (int64_t)(idx % (unsigned long long)mask->width);
        v.y = (int64_t)(idx / (unsigned long long)mask->width % (unsigned long long)mask->height);
        v.z = (int64_t)(idx / (unsigned long long)mask->width / (unsigned long long)mask->height);
        v.nan_in = kind == 0 ? 2 : kind == 1 ? 1 : 0;
        if (kind == 2) {
            T a, c;
            PARAC_CUDA_TRY(cudaMemcpy(&a, parac_image_at(marker, v.x, v.y, v.z), sizeof a, cudaMemcpyDeviceToHost));
            PARAC_CUDA_TRY(cudaMemcpy(&c, parac_image_at(mask, v.x, v.y, v.z), sizeof c, cudaMemcpyDeviceToHost));
            v.marker = (double)a;
            v.mask = (double)c;
        }
        return parac__recon_violation_error(s, &v);
    }

    int sms = 0;
    PARAC_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, b.dev));
    const unsigned stall_limit = (unsigned)(sms > 0 ? sms : 64);
    unsigned active = (unsigned)tiles;
    int cur = 0, quiet = 0;
    for (int64_t round = 0; active > 0; round++) {
        tw.list = round == 0 ? nullptr : (const unsigned *)b.list[cur];
        tw.flag = (unsigned *)b.flag;
        tw.next = (unsigned *)b.list[cur ^ 1];
        tw.next_count = count;
        PARAC_CUDA_TRY(cudaMemsetAsync(count, 0, 4, st));
        PARAC_CUDA_TRY(launch_tiles_conn<T>(s->conn, active, (T *)b.I, (const T *)b.J, g, tw, st));
        PARAC_CUDA_TRY(cudaMemcpyAsync(&active, count, 4, cudaMemcpyDeviceToHost, st));
        PARAC_CUDA_TRY(cudaStreamSynchronize(st));
        if (active == 0) break;
        clear_flags<<<(active + 255) / 256 < 4096 ? (active + 255) / 256 : 4096, 256, 0, st>>>(
            (unsigned *)b.flag, (const unsigned *)b.list[cur ^ 1], active);
        PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
        cur ^= 1;
        quiet = active <= stall_limit ? quiet + 1 : 0;
        if (round >= STALL_WARMUP && quiet >= STALL_ROUNDS) {
            PARAC_TRY(finish_on_host(mask->dtype, s->conn, g, b.I, b.J, b.grid_bytes, st));
            break;
        }
    }
    dim3 sg((unsigned)((g.w + 255) / 256), (unsigned)(g.h * g.d < 65535 ? g.h * g.d : 65535));
    store_kernel<T><<<sg, 256, 0, st>>>((const T *)b.I, g, s->erosion, (char *)out->data,
                                        out->pixel_stride, out->row_pitch, out->slice_pitch);
    PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    // the buffers go back to the pool when this returns: let the kernels finish
    PARAC_CUDA_TRY(cudaStreamSynchronize(st));
    return PARAC_OK;
}

} // namespace

extern "C" parac_status parac__recon_cuda(const char *method, const parac__recon_spec *s,
                                          const parac_image *marker, const parac_image *mask,
                                          parac_image *out, void *stream)
{
    PARAC_TRY(parac__recon_check(s, marker, mask));
    if (strcmp(method, "wavefront") != 0)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: unknown CUDA method '%s'", s->op, method);
    PARAC_CUDA_TRY(cudaSetDevice(mask->device));
    cudaStream_t st = (cudaStream_t)stream;
    switch (mask->dtype) {
    case PARAC_U8: return wavefront<uint8_t>(s, marker, mask, out, st);
    case PARAC_U16: return wavefront<uint16_t>(s, marker, mask, out, st);
    default: return wavefront<float>(s, marker, mask, out, st);
    }
}
