// What the labelling's kernels read of a pixel: whether it is foreground
// and its key. Two neighbouring foreground pixels join when their keys are
// equal: 1 for every nonzero pixel, or the value itself with equal values
// (floats by their bits, -0 as 0). Shared by the 2D (label2d_cuda.cu) and
// the 3D (label_cuda.cu) kernels.
#ifndef PARAC_LABEL_CUDA_LABEL_KEYS_CUH
#define PARAC_LABEL_CUDA_LABEL_KEYS_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "label/label.h"

namespace labelk {

struct src {
    const char *data;
    int64_t rp, sp;       // row and slice pitch, bytes
    int w, h, d;
    int dtype;
    int equal;            // keys are values (else 1 for every nonzero pixel)
    int bg_exact;         // the background value is one the dtype holds
    uint32_t bg_key;
    int64_t bg64;         // i64: the background value
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
    case PARAC_I64: {
        // the low 32 bits: exact where the values span less than 2^32
        // (parac__label_cuda checks); the background by the whole value
        const int64_t q = ((const int64_t *)row)[x];
        key = v.equal ? (uint32_t)q : 1u;
        return v.equal ? !(v.bg_exact && q == v.bg64) : q != 0;
    }
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

inline src source_of(const parac__label_spec *s, const parac_image *in)
{
    src v{(const char *)in->data, in->row_pitch, in->slice_pitch, (int)in->width, (int)in->height, (int)in->depth,
          (int)in->dtype, s->equal_values, 0, 0, 0};
    const double b = s->background;
    switch (in->dtype) {
    case PARAC_U8: v.bg_exact = b >= 0 && b <= 255 && b == (double)(uint32_t)b; v.bg_key = v.bg_exact ? (uint32_t)b : 0; break;
    case PARAC_U16: v.bg_exact = b >= 0 && b <= 65535 && b == (double)(uint32_t)b; v.bg_key = v.bg_exact ? (uint32_t)b : 0; break;
    case PARAC_I32:
        v.bg_exact = b >= INT32_MIN && b <= INT32_MAX && b == (double)(int32_t)b;
        v.bg_key = v.bg_exact ? (uint32_t)(int32_t)b : 0;
        break;
    case PARAC_I64: // INT64_MAX is no double: 2^63 is out of range
        v.bg_exact = b >= -0x1p63 && b < 0x1p63 && b == (double)(int64_t)b;
        v.bg64 = v.bg_exact ? (int64_t)b : 0;
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

} // namespace labelk

#endif
