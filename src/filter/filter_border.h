/* Border index mapping shared by the CPU and CUDA filters (included from C
 * and from CUDA), so every method forms out-of-range pixels identically.
 * The rules are those of parac/filter.h; reflections and wrap repeat as often
 * as needed, so any index maps into 0..n-1 even when a kernel is many times
 * wider than the image. */
#ifndef PARAC_FILTER_BORDER_H
#define PARAC_FILTER_BORDER_H

#include <stdint.h>

#include "parac/filter.h"

#include "../core/host_device.h"

/* i mod m in 0..m-1 for any sign of i (m > 0). */
PARAC_HD int64_t parac__pos_mod(int64_t i, int64_t m)
{
    int64_t r = i % m;
    return r < 0 ? r + m : r;
}

/* Map index i of an axis of n >= 1 samples into 0..n-1. Returns -1 for
 * PARAC_BORDER_CONSTANT outside the axis (the caller uses the constant).
 *   reflect101: period 2n-2, edge sample not repeated (n == 1: always 0)
 *   reflect:    period 2n, edge sample repeated
 *   replicate:  clamp
 *   wrap:       period n */
PARAC_HD int64_t parac__border_index(int64_t i, int64_t n, int mode)
{
    if (i >= 0 && i < n) return i;
    switch (mode) {
    case PARAC_BORDER_REFLECT101: {
        if (n == 1) return 0;
        int64_t p = 2 * n - 2, r = parac__pos_mod(i, p);
        return r < n ? r : p - r;
    }
    case PARAC_BORDER_REFLECT: {
        int64_t p = 2 * n, r = parac__pos_mod(i, p);
        return r < n ? r : p - 1 - r;
    }
    case PARAC_BORDER_REPLICATE: return i < 0 ? 0 : n - 1;
    case PARAC_BORDER_WRAP: return parac__pos_mod(i, n);
    default: return -1; /* constant */
    }
}

/* 32-bit variant for device code on axes below 2^30 samples. */
PARAC_HD int parac__border_index32(int i, int n, int mode)
{
    if (i >= 0 && i < n) return i;
    switch (mode) {
    case PARAC_BORDER_REFLECT101: {
        if (n == 1) return 0;
        int p = 2 * n - 2, r = i % p;
        r = r < 0 ? r + p : r;
        return r < n ? r : p - r;
    }
    case PARAC_BORDER_REFLECT: {
        int p = 2 * n, r = i % p;
        r = r < 0 ? r + p : r;
        return r < n ? r : p - 1 - r;
    }
    case PARAC_BORDER_REPLICATE: return i < 0 ? 0 : n - 1;
    case PARAC_BORDER_WRAP: {
        int r = i % n;
        return r < 0 ? r + n : r;
    }
    default: return -1;
    }
}

#endif
