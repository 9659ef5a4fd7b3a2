// What the CUDA reconstruction engines share: the framed grids they work on
// (the CPU engines' layout, recon_grid.h, in the dilation domain), value
// helpers per dtype, and the engines' entry points. recon_cuda.cu loads the
// grids from the images, runs an engine and stores the result.
#ifndef PARAC_MORPH_RECON_CUDA_CUH
#define PARAC_MORPH_RECON_CUDA_CUH

#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

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

// The tile wavefront (recon_wavefront.cu): I raised in place to the
// reconstruction under J.
parac_status wavefront_run(parac_dtype dt, int conn, const grid_d &g, void *I, const void *J,
                           int device, cudaStream_t st);

// The parallel heap cluster (recon_heap.cu). heaps/node_size: 0 = defaults;
// updates: PARAC__HEAP_AUTO, _PIPELINED (level by level) or _SERIAL (one
// update after another).
parac_status heap_run(parac_dtype dt, int conn, const grid_d &g, void *I, const void *J, int device,
                      int heaps, int node_size, int serial, cudaStream_t st);

// Neighbour offsets of a connectivity in a framed grid, raster order.
int grid_offsets(int conn, const grid_d &g, int64_t off[26]);

} // namespace parac_morph

#endif
