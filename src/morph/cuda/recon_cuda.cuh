// What the CUDA reconstruction engines share: the framed grids they work on
// (the CPU engines' layout, recon_grid.h, in the dilation domain), value
// helpers per dtype, and the engines' entry points. recon_cuda.cu loads the
// grids from the images, runs an engine and stores the result.
#ifndef PARAC_MORPH_RECON_CUDA_CUH
#define PARAC_MORPH_RECON_CUDA_CUH

#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "core/device_internal.h"
#include "morph/recon.h"

namespace parac_morph {

struct grid_d {
    int64_t w, h, d, sy, sz, z0;
    int64_t total() const { return sz * (d > 1 ? d + 2 : 1); }
};

template <typename T> struct num;
template <> struct num<uint8_t> {
    static constexpr bool is_float = false;
    __host__ __device__ static uint8_t lo() { return 0; }
    __device__ static uint8_t flip(uint8_t v, int e) { return e ? (uint8_t)(255 - v) : v; }
    // order-preserving 32-bit key, 0 kept free as "no entry"
    __device__ static uint32_t key(uint8_t v) { return (uint32_t)v + 1u; }
    __device__ static uint8_t from_key(uint32_t k) { return (uint8_t)(k - 1u); }
};
template <> struct num<uint16_t> {
    static constexpr bool is_float = false;
    __host__ __device__ static uint16_t lo() { return 0; }
    __device__ static uint16_t flip(uint16_t v, int e) { return e ? (uint16_t)(65535 - v) : v; }
    __device__ static uint32_t key(uint16_t v) { return (uint32_t)v + 1u; }
    __device__ static uint16_t from_key(uint32_t k) { return (uint16_t)(k - 1u); }
};
template <> struct num<float> {
    static constexpr bool is_float = true;
    __host__ __device__ static float lo() { return -INFINITY; }
    __device__ static float flip(float v, int e) { return e ? -v : v; }
    // IEEE order as unsigned order (no NaN here); -inf maps to 0x007fffff > 0
    __device__ static uint32_t key(float v)
    {
        uint32_t u = __float_as_uint(v);
        return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    }
    __device__ static float from_key(uint32_t k)
    {
        return __uint_as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
    }
};

// Bytes of one framed grid of `dt`.
size_t grid_bytes(parac_dtype dt, const grid_d &g);
// The framed grid of a w x h x d image (or strip of rows).
grid_d grid_for(int64_t w, int64_t h, int64_t d);

// Device memory from the pool, given back when it goes out of scope.
struct pooled {
    int dev = -1;
    size_t bytes = 0;
    void *p = nullptr;
    pooled() = default;
    pooled(const pooled &) = delete;
    pooled &operator=(const pooled &) = delete;
    parac_status alloc(int device, size_t n)
    {
        dev = device, bytes = n;
        return parac__cuda_alloc(device, n, &p);
    }
    ~pooled()
    {
        if (p) parac__cuda_release(dev, p, bytes);
    }
};

// Image rows as the load and store kernels read them: `data` is the first
// pixel of the first row wanted, the pitches in bytes.
struct image_rows {
    const char *data;
    int64_t ps, rp, sp;
};
image_rows rows_of(const parac_image *im, int64_t y0);

// Fill grid g (I, J on the current device) from the rows of marker and mask
// that start at image row y0 (g.h rows; marker rows unused unless the rule
// is IMAGE), in the dilation domain; *bad (device, preset to all ones) takes
// the lowest index*4 + kind of a problem pixel. Asynchronous on st.
parac_status load_grids(const parac__recon_spec *s, const parac_image *mask, image_rows marker_rows,
                        image_rows mask_rows, int64_t y0, const grid_d &g, void *I, void *J,
                        unsigned long long *bad, cudaStream_t st);
// Write the interior of I back to `out` rows, in the original domain.
parac_status store_grid(parac_dtype dt, const void *I, const grid_d &g, int erosion, image_rows out,
                        cudaStream_t st);
// The error for a problem pixel's code from load_grids.
parac_status violation_error(const parac__recon_spec *s, unsigned long long code, const parac_image *marker,
                             const parac_image *mask);

// The tile wavefront (recon_wavefront.cu): I raised in place to the
// reconstruction under J. `start`: 0 starts from every tile; otherwise
// from the tiles next to the halo rows that changed, PARAC__HALO_TOP (grid
// row 0) and/or PARAC__HALO_BOTTOM (grid row h + 1), when the rest of the
// grid is already at its fix point for the old halos. `batch`: rounds
// queued per look from the host, 0 adaptive (PARAC_WAVEFRONT_BATCH).
parac_status wavefront_run(parac_dtype dt, int conn, const grid_d &g, void *I, const void *J,
                           int device, unsigned start, int batch, cudaStream_t st);

// The parallel heap cluster (recon_heap.cu). heaps/node_size: 0 = defaults;
// updates: PARAC__HEAP_AUTO, _PIPELINED (level by level) or _SERIAL (one
// update after another).
parac_status heap_run(parac_dtype dt, int conn, const grid_d &g, void *I, const void *J, int device,
                      int heaps, int node_size, int serial, cudaStream_t st);

// Neighbour offsets of a connectivity in a framed grid, raster order.
int grid_offsets(int conn, const grid_d &g, int64_t off[26]);

} // namespace parac_morph

#endif
