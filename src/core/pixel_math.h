/* Per-element conversions shared by the CPU and CUDA code, so both backends
 * compute identical values. Included from C and from CUDA. */
#ifndef PARAC_PIXEL_MATH_H
#define PARAC_PIXEL_MATH_H

#include <math.h>
#include <stdint.h>

#include "parac/image.h"
#include "host_device.h"

PARAC_HD double parac__load_elem(const void *p, int dtype)
{
    switch (dtype) {
    case PARAC_U8: return *(const uint8_t *)p;
    case PARAC_U16: return *(const uint16_t *)p;
    case PARAC_I32: return *(const int32_t *)p;
    case PARAC_F32: return *(const float *)p;
    case PARAC_I64: return (double)*(const int64_t *)p; /* exact to 2^53 */
    default: return *(const double *)p;
    }
}

/* Integers: round half to even (as numpy and OpenCV) and saturate; NaN -> 0. */
PARAC_HD void parac__store_elem(void *p, int dtype, double v)
{
    if (dtype == PARAC_F32) {
        *(float *)p = (float)v;
        return;
    }
    if (dtype == PARAC_F64) {
        *(double *)p = v;
        return;
    }
    if (dtype == PARAC_I64) {
        /* 2^63 is the first double past the range */
        v = v != v ? 0 : rint(v);
        *(int64_t *)p = v >= 9223372036854775808.0 ? INT64_MAX : v < -9223372036854775808.0 ? INT64_MIN : (int64_t)v;
        return;
    }
    double lo = 0, hi = 255;
    if (dtype == PARAC_U16) hi = 65535;
    if (dtype == PARAC_I32) lo = -2147483648.0, hi = 2147483647.0;
    v = v != v ? 0 : rint(v);
    v = v < lo ? lo : (v > hi ? hi : v);
    switch (dtype) {
    case PARAC_U8: *(uint8_t *)p = (uint8_t)v; break;
    case PARAC_U16: *(uint16_t *)p = (uint16_t)v; break;
    default: *(int32_t *)p = (int32_t)v; break;
    }
}

/* The nominal value range of a dtype, used by scaled conversions:
 * u8 0..255, u16 0..65535, i32 0..2147483647, floats 0..1 (i64, labels
 * and counts, is never scaled: see convert.c). */
PARAC_HD double parac__nominal_max(int dtype)
{
    switch (dtype) {
    case PARAC_U8: return 255.0;
    case PARAC_U16: return 65535.0;
    case PARAC_I32: return 2147483647.0;
    default: return 1.0;
    }
}

/* Channel mapping of one pixel: `in` holds `cin` values, `out` receives
 * `cout` values. Gray from colour is BT.601 luma; alpha added is `opaque`. */
PARAC_HD void parac__map_channels(const double *in, int cin, double *out, int cout, double opaque)
{
    int in_alpha = cin == 2 || cin == 4;
    int out_alpha = cout == 2 || cout == 4;
    int in_color = cin >= 3, out_color = cout >= 3;
    double alpha = in_alpha ? in[cin - 1] : opaque;
    if (cin == cout) {
        for (int c = 0; c < cin; c++) out[c] = in[c];
        return;
    }
    if (out_color) {
        for (int c = 0; c < 3; c++) out[c] = in_color ? in[c] : in[0];
    } else {
        out[0] = in_color ? parac__mul_add(0.114, in[2], parac__mul_add(0.587, in[1], 0.299 * in[0])) : in[0];
    }
    if (out_alpha) out[cout - 1] = alpha;
}

#endif
