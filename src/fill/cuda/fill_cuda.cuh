// What the CUDA fill methods share: a view of a pitched image, the contour
// test and the output rule (the neighbour offsets and the union-find are
// cuda/union_find.cuh's).
#ifndef PARAC_FILL_CUDA_CUH
#define PARAC_FILL_CUDA_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/union_find.cuh"
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

using namespace parac_uf;

} // namespace fillk

#endif
