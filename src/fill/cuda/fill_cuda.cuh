// What the CUDA fill methods share: a view of a pitched image, the contour
// test, the output rule and the neighbour offsets of a connectivity.
#ifndef PARAC_FILL_CUDA_CUH
#define PARAC_FILL_CUDA_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "fill/fill.h"

namespace fillk {

struct view {
    const char *data;
    char *out;
    int64_t rp, sp, orp, osp; // row and slice pitches of input and output, bytes
    int w, h, d;
    int wide_in, wide_out;    // u16 input, u16 output
    int f32_in;               // f32 input (floodfill)
};

inline view make_view(const parac_image *in, parac_image *out)
{
    return view{(const char *)in->data, out ? (char *)out->data : nullptr, in->row_pitch, in->slice_pitch,
                out ? out->row_pitch : 0, out ? out->slice_pitch : 0, (int)in->width, (int)in->height,
                (int)in->depth, in->dtype == PARAC_U16, out && out->dtype == PARAC_U16, in->dtype == PARAC_F32};
}

__device__ inline uint32_t in_at(const view &v, int x, int y, int z)
{
    const char *row = v.data + z * v.sp + y * v.rp;
    return v.wide_in ? ((const uint16_t *)row)[x] : ((const uint8_t *)row)[x];
}

// Any input dtype as a number (floodfill's ranges).
__device__ inline double value_at(const view &v, int x, int y, int z)
{
    if (!v.f32_in) return (double)in_at(v, x, y, z);
    return (double)((const float *)(v.data + z * v.sp + y * v.rp))[x];
}

struct rule {
    uint32_t threshold;
    int contour;
    uint8_t inside, outside;
};

inline rule make_rule(const parac__fill_spec *s) { return rule{s->threshold, s->contour, s->inside, s->outside}; }

// The output value of a pixel of class cls: 0 inside, 1 outside, 2 contour
// (value: the input value).
__device__ inline uint32_t out_value(const rule &r, int cls, uint32_t value)
{
    if (cls == 2) {
        if (r.contour != PARAC_FILL_CONTOUR_KEEP) cls = r.contour == PARAC_FILL_CONTOUR_OUTSIDE;
    }
    return cls == 2 ? value : cls ? r.outside : r.inside;
}

__device__ inline void out_put(const view &v, const rule &r, int x, int y, int z, int cls, uint32_t value)
{
    const uint32_t o = out_value(r, cls, value);
    char *row = v.out + z * v.osp + y * v.orp;
    if (v.wide_out) ((uint16_t *)row)[x] = (uint16_t)o;
    else ((uint8_t *)row)[x] = (uint8_t)o;
}

// Neighbours that come earlier in raster order: (dx, dy, dz).
struct offsets {
    int n;
    int8_t d[13][3];
};

inline offsets backward_offsets(int conn, int is3d)
{
    offsets o{};
    auto add = [&](int dx, int dy, int dz) { o.d[o.n][0] = (int8_t)dx, o.d[o.n][1] = (int8_t)dy, o.d[o.n][2] = (int8_t)dz, o.n++; };
    const int diag = conn == 8 || conn == 18 || conn == 26;
    add(-1, 0, 0);
    add(0, -1, 0);
    if (diag) add(-1, -1, 0), add(1, -1, 0);
    if (is3d && conn != 4 && conn != 8) {
        add(0, 0, -1);
        if (conn >= 18) add(-1, 0, -1), add(1, 0, -1), add(0, -1, -1), add(0, 1, -1);
        if (conn == 26) add(-1, -1, -1), add(1, -1, -1), add(-1, 1, -1), add(1, 1, -1);
    }
    return o;
}

// Union-find over a global array of parents with parent <= index: the
// smaller root wins (atomicMin). Reads are volatile: other threads lower
// roots while one walks.
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

// The same over a shared-memory array of one block or warp.
__device__ inline uint32_t find_local(const volatile uint32_t *s, uint32_t a)
{
    while (s[a] != a) a = s[a];
    return a;
}

// find_local for the unions, halving the path as it goes (each visited entry
// skips to its grandparent): long chains form where a component winds
// through many rows (40 % background noise is near the percolation
// threshold), and later finds walk half as far. Parents always have smaller
// indices (unite_local links the larger root under the smaller), so the
// skip is an atomicMin: it never undoes a concurrent link, and the
// grandparent is in the entry's set.
__device__ inline uint32_t find_halving(volatile uint32_t *s, uint32_t a)
{
    for (;;) {
        const uint32_t p = s[a];
        if (p == a) return a;
        const uint32_t g = s[p];
        if (g == p) return p;
        atomicMin((uint32_t *)&s[a], g);
        a = g;
    }
}

__device__ inline void unite_local(volatile uint32_t *s, uint32_t a, uint32_t b)
{
    for (;;) {
        a = find_halving(s, a);
        b = find_halving(s, b);
        if (a == b) return;
        if (a > b) {
            const uint32_t t = a;
            a = b;
            b = t;
        }
        const uint32_t old = atomicMin((uint32_t *)&s[b], a);
        if (old == b) return;
        b = old;
    }
}

} // namespace fillk

#endif
