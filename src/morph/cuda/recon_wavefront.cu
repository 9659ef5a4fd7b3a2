// The CUDA "wavefront" method of reconstruction by dilation on framed grids
// (recon_cuda.cuh).
//
// The image is cut into tiles (32x32 in 2D, 32x8x8 in 3D); one warp owns a
// tile, loads it with a one-pixel halo into shared memory and sweeps it
// along every axis in both directions, a plane at a time (pixels of one
// plane read only the previous plane, so a sweep carries a value along a
// straight path in one pass), until a round of sweeps changes nothing. It
// writes back what changed and queues the neighbouring tiles whose shared
// faces changed. Rounds run until no tile is queued.
//
// A wavefront that has become a thin thread of tiles (a 1-pixel serpentine,
// a spiral) would need one round per tile crossed. When only a few tiles stay
// active for many rounds, the rest is a sequential walk: the grid is copied
// to the host and finished there by the fast hybrid method, which is linear
// in the image size. Values only rise towards the fix point on either side,
// so the result is the same bits.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/device_internal.h"
#include "core/neighbourhood.h"
#include "cuda/cuda_check.h"
#include "morph/recon_grid.h"
#include "recon_cuda.cuh"

using namespace parac_morph;

namespace {

// ---- tiles ------------------------------------------------------------------------------
constexpr int TX = 32;
// Rows of a tile whose loads are issued together (and rows written back
// together), and the warps held per SM: 32 one-warp blocks need at most 64
// registers a thread, which groups of 6 and 8 rows fit (2D kernels spill 8
// to 36 bytes, 3D none); groups of 17 without the cap took 80 registers, 25
// warps per SM, and ran 1.7x slower.
constexpr int LOAD_ROWS = 6, STORE_ROWS = 8, BLOCKS_PER_SM = 32;

template <bool IS3D> struct tile_shape {
    static constexpr int TY = IS3D ? 8 : 32, TZ = IS3D ? 8 : 1;
    static constexpr int SX = TX + 2, SY = TY + 2, SZ = IS3D ? TZ + 2 : 1;
};

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
                        if (da != -S || !parac__conn_reaches(CONN, dx, dy, dz)) continue;
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
    const unsigned *list;  // tiles of this round; NULL: all tiles
    const unsigned *count; // how many: on the device, read by the kernel (list != NULL)
    unsigned *flag;        // per tile: already queued for the next round
    unsigned *next;        // the next round's list
    unsigned *next_count;
};

// One tile of a round: load, sweep to its fix point, write back, queue the
// neighbours next to a changed face.
template <typename T, bool IS3D, int CONN>
__device__ void tile_step(T *sI, T *sJ, T *I, const T *J, const grid_d &g, const tile_work &tw,
                          int64_t id)
{
    using sh = tile_shape<IS3D>;
    const int lane = threadIdx.x;
    const int64_t tx = id % tw.ntx, ty = (id / tw.ntx) % tw.nty, tz = id / (tw.ntx * tw.nty);
    const int64_t X0 = tx * TX, Y0 = ty * sh::TY, Z0 = IS3D ? tz * sh::TZ : 0; // grid coords of halo corner
    // load: the halo'd tile of I, the core of J; beyond the grid: the dtype's
    // minimum. A lane takes column x = lane of every row (lanes 0 and 1 also
    // the last two halo columns) and the core column x = lane + 1 of J. The
    // loads of LOAD_ROWS rows are issued before any is stored: a loop that
    // stores each load before the next waits for memory on every row.
    constexpr int ROWS = sh::SY * sh::SZ;
    for (int r0 = 0; r0 < ROWS; r0 += LOAD_ROWS) {
        T a[LOAD_ROWS], e[LOAD_ROWS], m[LOAD_ROWS];
#pragma unroll
        for (int k = 0; k < LOAD_ROWS; k++) {
            const int r = r0 + k, y = r % sh::SY, z = r / sh::SY;
            const int64_t gy = Y0 + y, gz = Z0 + z;
            const bool row_ok = r < ROWS && gy <= g.h + 1 && (!IS3D || gz <= g.d + 1);
            const int64_t row = gz * g.sz + gy * g.sy + X0;
            a[k] = row_ok && X0 + lane <= g.w + 1 ? I[row + lane] : num<T>::lo();
            e[k] = row_ok && lane < sh::SX - 32 && X0 + 32 + lane <= g.w + 1 ? I[row + 32 + lane]
                                                                               : num<T>::lo();
            const bool core = y >= 1 && y <= sh::TY && (!IS3D || (z >= 1 && z <= sh::TZ));
            m[k] = row_ok && core && X0 + 1 + lane <= g.w + 1 ? J[row + 1 + lane] : num<T>::lo();
        }
#pragma unroll
        for (int k = 0; k < LOAD_ROWS; k++) {
            const int r = r0 + k, y = r % sh::SY, z = r / sh::SY;
            if (r >= ROWS) break;
            sI[r * sh::SX + lane] = a[k];
            if (lane < sh::SX - 32) sI[r * sh::SX + 32 + lane] = e[k];
            if (y >= 1 && y <= sh::TY && (!IS3D || (z >= 1 && z <= sh::TZ)))
                sJ[((z - (IS3D ? 1 : 0)) * sh::TY + (y - 1)) * TX + lane] = m[k];
        }
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
    // write back what changed (the old values of STORE_ROWS rows loaded
    // together, as above); faces: bit 0/1 x-/x+, 2/3 y-/y+, 4/5 z-/z+
    unsigned faces = 0;
    constexpr int CORE_ROWS = sh::TY * sh::TZ;
    const int x = lane + 1;
    const bool col_ok = X0 + x <= g.w;
    for (int r0 = 0; r0 < CORE_ROWS; r0 += STORE_ROWS) {
        T old[STORE_ROWS];
#pragma unroll
        for (int k = 0; k < STORE_ROWS; k++) {
            const int r = r0 + k, y = 1 + r % sh::TY, z = (IS3D ? 1 : 0) + r / sh::TY;
            const int64_t gy = Y0 + y, gz = Z0 + z;
            const bool ok = col_ok && gy <= g.h && (!IS3D || gz <= g.d);
            old[k] = ok ? I[gz * g.sz + gy * g.sy + X0 + x] : num<T>::lo();
        }
#pragma unroll
        for (int k = 0; k < STORE_ROWS; k++) {
            const int r = r0 + k, y = 1 + r % sh::TY, z = (IS3D ? 1 : 0) + r / sh::TY;
            const int64_t gy = Y0 + y, gz = Z0 + z;
            if (!col_ok || gy > g.h || (IS3D && gz > g.d)) continue;
            const T v = sI[(z * sh::SY + y) * sh::SX + x];
            if (v == old[k]) continue;
            I[gz * g.sz + gy * g.sy + X0 + x] = v;
            faces |= (x == 1 ? 1u : 0u) | (x == TX ? 2u : 0u) | (y == 1 ? 4u : 0u) |
                     (y == sh::TY ? 8u : 0u);
            if (IS3D) faces |= (z == 1 ? 16u : 0u) | (z == sh::TZ ? 32u : 0u);
        }
    }
    faces = __reduce_or_sync(0xffffffffu, faces);
    if (faces == 0) return;
    // queue the neighbours next to a changed face (a diagonal one needs all its faces)
    for (int n = lane; n < 27; n += 32) {
        const int dx = n % 3 - 1, dy = (n / 3) % 3 - 1, dz = n / 9 - 1;
        if (!IS3D && dz != 0) continue;
        if (!parac__conn_reaches(CONN, dx, dy, dz)) continue;
        if ((dx < 0 && !(faces & 1)) || (dx > 0 && !(faces & 2)) || (dy < 0 && !(faces & 4)) ||
            (dy > 0 && !(faces & 8)) || (dz < 0 && !(faces & 16)) || (dz > 0 && !(faces & 32)))
            continue;
        const int64_t nx = tx + dx, ny = ty + dy, nz = tz + dz;
        if (nx < 0 || ny < 0 || nz < 0 || nx >= tw.ntx || ny >= tw.nty || nz >= tw.ntz) continue;
        const int64_t nid = (nz * tw.nty + ny) * tw.ntx + nx;
        if (atomicExch(&tw.flag[nid], 1u) == 0u) tw.next[atomicAdd(tw.next_count, 1u)] = (unsigned)nid;
    }
}

// A round: the blocks (one warp each, as many as fit on the device at once)
// take the round's tiles in turn, so the host need not know how many there are.
template <typename T, bool IS3D, int CONN>
__global__ void __launch_bounds__(32, BLOCKS_PER_SM) tile_kernel(T *I, const T *J, grid_d g, tile_work tw,
                                                  unsigned tiles)
{
    using sh = tile_shape<IS3D>;
    __shared__ T sI[sh::SX * sh::SY * sh::SZ];
    __shared__ T sJ[TX * sh::TY * sh::TZ];
    const unsigned n = tw.list ? *tw.count : tiles;
    for (unsigned i = blockIdx.x; i < n; i += gridDim.x) {
        tile_step<T, IS3D, CONN>(sI, sJ, I, J, g, tw, tw.list ? (int64_t)tw.list[i] : (int64_t)i);
        __syncwarp();
    }
}

// After a round: unflag the tiles queued for the next one (so that round can
// queue them again), record how many there are in the round's history.
__global__ void clear_flags(unsigned *flag, const unsigned *list, const unsigned *count,
                            unsigned *history)
{
    const unsigned n = *count;
    if (blockIdx.x == 0 && threadIdx.x == 0) *history = n;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        flag[list[i]] = 0;
}

// The first round's list when only halo rows changed: the tiles of the first
// and/or last tile row (every tx, and every tz in 3D).
__global__ void halo_tiles(unsigned *list, unsigned *count, int64_t ntx, int64_t nty, int64_t ntz,
                           unsigned start)
{
    const bool both = (start & PARAC__HALO_TOP) && (start & PARAC__HALO_BOTTOM) && nty > 1;
    const int64_t per_row = ntx * ntz, n = both ? 2 * per_row : per_row;
    if (blockIdx.x == 0 && threadIdx.x == 0) *count = (unsigned)n;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t k = i % per_row, tx = k % ntx, tz = k / ntx;
        const int64_t ty = (both ? i >= per_row : !(start & PARAC__HALO_TOP)) ? nty - 1 : 0;
        list[i] = (unsigned)((tz * nty + ty) * ntx + tx);
    }
}

template <typename T, bool IS3D, int CONN>
cudaError_t launch_tiles(unsigned blocks, unsigned tiles, T *I, const T *J, grid_d g, tile_work tw,
                         cudaStream_t st)
{
    tile_kernel<T, IS3D, CONN><<<blocks, 32, 0, st>>>(I, J, g, tw, tiles);
    return cudaGetLastError();
}

template <typename T>
cudaError_t launch_tiles_conn(int conn, unsigned blocks, unsigned tiles, T *I, const T *J, grid_d g,
                              tile_work tw, cudaStream_t st)
{
    switch (conn) {
    case 4: return launch_tiles<T, false, 4>(blocks, tiles, I, J, g, tw, st);
    case 8: return launch_tiles<T, false, 8>(blocks, tiles, I, J, g, tw, st);
    case 6: return launch_tiles<T, true, 6>(blocks, tiles, I, J, g, tw, st);
    case 18: return launch_tiles<T, true, 18>(blocks, tiles, I, J, g, tw, st);
    default: return launch_tiles<T, true, 26>(blocks, tiles, I, J, g, tw, st);
    }
}

template <typename T>
cudaError_t occupancy_conn(int conn, int *per_sm)
{
    switch (conn) {
    case 4: return cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, tile_kernel<T, false, 4>, 32, 0);
    case 8: return cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, tile_kernel<T, false, 8>, 32, 0);
    case 6: return cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, tile_kernel<T, true, 6>, 32, 0);
    case 18: return cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, tile_kernel<T, true, 18>, 32, 0);
    default: return cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, tile_kernel<T, true, 26>, 32, 0);
    }
}

// Rounds before the stall rule may apply, and how long the active set must
// stay under the limit.
constexpr int STALL_WARMUP = 64, STALL_ROUNDS = 32;
// Rounds queued between two looks from the host: short batches while most
// images settle (4096² smoothed noise: 8 to 12 rounds), then batches double
// up to the maximum. A round queued after the end costs two empty launches
// (about 8 us on an H100), a look from the host about as much.
constexpr int BATCH_FIRST = 6, BATCH_SHORT_ROUNDS = 48, BATCH_MAX = 64;

struct tile_buffers {
    int dev = -1;
    size_t bytes = 0;
    void *flag = nullptr, *list[2] = {nullptr, nullptr}, *count = nullptr, *history = nullptr;
    ~tile_buffers()
    {
        if (flag) parac__cuda_release(dev, flag, bytes);
        for (void *l : list)
            if (l) parac__cuda_release(dev, l, bytes);
        if (count) parac__cuda_release(dev, count, 8);
        if (history) parac__cuda_release(dev, history, sizeof(unsigned) * BATCH_MAX);
    }
};

// Finish on the host by the fast hybrid method from the grid's current state.
parac_status finish_on_host(parac_dtype dtype, int conn, const grid_d &g, void *dI, const void *dJ,
                            cudaStream_t st)
{
    const size_t bytes = grid_bytes(dtype, g);
    parac__grid h;
    PARAC_TRY(parac__grid_alloc(&h, dtype, conn, g.w, g.h, g.d));
    parac__count_transfer(1, bytes); /* marker and mask down, the result back up */
    parac__count_transfer(1, bytes);
    parac__count_transfer(0, bytes);
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
parac_status rounds(parac_dtype dt, int conn, const grid_d &g, T *I, const T *J, int device,
                    unsigned start, int fixed, cudaStream_t st)
{
    const bool is3d = g.d > 1;
    const int TY = is3d ? 8 : 32, TZ = is3d ? 8 : 1;
    tile_work tw{(g.w + TX - 1) / TX, (g.h + TY - 1) / TY, (g.d + TZ - 1) / TZ, nullptr, nullptr, nullptr,
                 nullptr, nullptr};
    const int64_t tiles = tw.ntx * tw.nty * tw.ntz;
    if (tiles >= (int64_t)UINT32_MAX)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "wavefront: %lld tiles exceed the tile index range",
                           (long long)tiles);
    tile_buffers b;
    b.dev = device;
    b.bytes = sizeof(unsigned) * (size_t)tiles;
    PARAC_TRY(parac__cuda_alloc(b.dev, b.bytes, &b.flag));
    PARAC_TRY(parac__cuda_alloc(b.dev, b.bytes, &b.list[0]));
    PARAC_TRY(parac__cuda_alloc(b.dev, b.bytes, &b.list[1]));
    PARAC_TRY(parac__cuda_alloc(b.dev, 8, &b.count));
    PARAC_TRY(parac__cuda_alloc(b.dev, sizeof(unsigned) * BATCH_MAX, &b.history));
    unsigned *count = (unsigned *)b.count, *history = (unsigned *)b.history;
    PARAC_CUDA_TRY(cudaMemsetAsync(b.flag, 0, b.bytes, st));
    int sms = 0, per_sm = 0;
    PARAC_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    PARAC_CUDA_TRY(occupancy_conn<T>(conn, &per_sm));
    if (sms < 1) sms = 1;
    if (per_sm < 1) per_sm = 1;
    const unsigned blocks = (unsigned)((int64_t)sms * per_sm < tiles ? (int64_t)sms * per_sm : tiles);
    const unsigned stall_limit = (unsigned)sms;
    unsigned seen[BATCH_MAX];
    int cur = 0, quiet = 0, batch = fixed > 0 ? (fixed < BATCH_MAX ? fixed : BATCH_MAX) : BATCH_FIRST;
    if (start) {
        halo_tiles<<<(unsigned)((tw.ntx * tw.ntz * 2 + 255) / 256), 256, 0, st>>>(
            (unsigned *)b.list[0], count, tw.ntx, tw.nty, tw.ntz, start);
        PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    }
    for (int64_t round = 0;;) {
        // queue a batch of rounds; round r reads list[cur] (count[cur]) and fills list[cur^1]
        for (int k = 0; k < batch; k++, round++) {
            tw.list = round == 0 && !start ? nullptr : (const unsigned *)b.list[cur];
            tw.count = count + cur;
            tw.flag = (unsigned *)b.flag;
            tw.next = (unsigned *)b.list[cur ^ 1];
            tw.next_count = count + (cur ^ 1);
            PARAC_CUDA_TRY(cudaMemsetAsync(count + (cur ^ 1), 0, 4, st));
            PARAC_CUDA_TRY(launch_tiles_conn<T>(conn, blocks, (unsigned)tiles, I, J, g, tw, st));
            clear_flags<<<blocks / 8 + 1, 256, 0, st>>>((unsigned *)b.flag, (const unsigned *)b.list[cur ^ 1],
                                                       count + (cur ^ 1), history + k);
            PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
            cur ^= 1;
        }
        PARAC_CUDA_TRY(cudaMemcpyAsync(seen, history, sizeof(unsigned) * batch, cudaMemcpyDeviceToHost, st));
        PARAC_CUDA_TRY(cudaStreamSynchronize(st));
        if (seen[batch - 1] == 0) break;
        for (int k = 0; k < batch; k++) quiet = seen[k] <= stall_limit ? quiet + 1 : 0;
        if (round >= STALL_WARMUP && quiet >= STALL_ROUNDS) return finish_on_host(dt, conn, g, I, J, st);
        if (fixed <= 0 && round >= BATCH_SHORT_ROUNDS && batch < BATCH_MAX) batch = 2 * batch < BATCH_MAX ? 2 * batch : BATCH_MAX;
    }
    return PARAC_OK;
}

} // namespace

namespace parac_morph {

parac_status wavefront_run(parac_dtype dt, int conn, const grid_d &g, void *I, const void *J,
                           int device, unsigned start, int batch, cudaStream_t st)
{
    switch (dt) {
    case PARAC_U8: return rounds<uint8_t>(dt, conn, g, (uint8_t *)I, (const uint8_t *)J, device, start, batch, st);
    case PARAC_U16:
        return rounds<uint16_t>(dt, conn, g, (uint16_t *)I, (const uint16_t *)J, device, start, batch, st);
    default: return rounds<float>(dt, conn, g, (float *)I, (const float *)J, device, start, batch, st);
    }
}

} // namespace parac_morph
