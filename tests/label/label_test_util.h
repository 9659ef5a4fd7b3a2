/* What the labelling tests share: the context (CUDA when built with
 * PARAC_LABEL_TEST_GPU, then skipped without a GPU; else the CPU), pixel
 * access by dtype and the connectivity rule of their oracles. */
#ifndef PARAC_LABEL_TEST_UTIL_H
#define PARAC_LABEL_TEST_UTIL_H

#include <stdint.h>

#include "parac/context.h"
#include "parac/image.h"
#include "test_util.h"

static parac_context *ctx;

static int setup(void **state)
{
    (void)state;
#ifdef PARAC_LABEL_TEST_GPU
    if (!test_have_gpu()) return -1;
    return parac_context_create(&ctx, "cuda") == PARAC_OK ? 0 : -1;
#else
    return parac_context_create(&ctx, "cpu") == PARAC_OK ? 0 : -1;
#endif
}

static int teardown(void **state)
{
    (void)state;
    parac_context_destroy(ctx);
    return 0;
}

static inline double value_at(const parac_image *im, int64_t x, int64_t y, int64_t z)
{
    const void *p = parac_image_at(im, x, y, z);
    switch (im->dtype) {
    case PARAC_U8: return *(const uint8_t *)p;
    case PARAC_U16: return *(const uint16_t *)p;
    case PARAC_I32: return *(const int32_t *)p;
    case PARAC_I64: return (double)*(const int64_t *)p;
    default: return *(const float *)p;
    }
}

static inline void set_value(parac_image *im, int64_t x, int64_t y, int64_t z, double v)
{
    void *p = parac_image_at(im, x, y, z);
    switch (im->dtype) {
    case PARAC_U8: *(uint8_t *)p = (uint8_t)v; break;
    case PARAC_U16: *(uint16_t *)p = (uint16_t)v; break;
    case PARAC_I32: *(int32_t *)p = (int32_t)v; break;
    case PARAC_I64: *(int64_t *)p = (int64_t)v; break;
    default: *(float *)p = (float)v; break;
    }
}

/* Whether connectivity conn reaches the step (dx, dy, dz): the oracles'
 * own statement of the rule, not the library's. */
static inline int reaches(int conn, int dx, int dy, int dz)
{
    const int steps = (dx != 0) + (dy != 0) + (dz != 0);
    if (steps == 0) return 0;
    if (conn == 4 || conn == 6) return steps == 1;
    if (conn == 18) return steps <= 2;
    return 1;
}

#endif
