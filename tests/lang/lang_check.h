/* Helpers for the example checks: random images, comparisons, and the
 * device skip when none exists. Each check_<example>.c is linked with the C
 * target's, the OpenCL target's and the CUDA target's generated code. */
#ifndef PARAC_LANG_CHECK_H
#define PARAC_LANG_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(PARAC_CHECK_CUDA)
#include "parac/context.h"
#include "parac/cuda.h"
/* No CUDA device: the test is skipped (exit 77). */
static inline void check_need_device(void)
{
    int n = 0;
    if (parac_cuda_device_count(&n) != PARAC_OK || n == 0) {
        printf("no CUDA device: skipped\n");
        exit(77);
    }
}
typedef parac_cu_transfers check_transfer_counts_t;
#define check_transfer_counts parac_cu_transfer_counts
#define check_search_counts parac_cu_search_counts
#define CHECK_SEARCH_ENV "PARAC_CU_SEARCH"
#elif defined(PARAC_CHECK_OPENCL)
#include "parac/opencl.h"
/* No OpenCL device at all: the test is skipped (exit 77). */
static inline void check_need_device(void)
{
    parac_opencl_device_info info[4];
    int n = 0;
    if (parac_opencl_devices(info, 4, &n) != PARAC_OK || n == 0) {
        printf("no OpenCL device: skipped\n");
        exit(77);
    }
}
typedef parac_cl_transfers check_transfer_counts_t;
#define check_transfer_counts parac_cl_transfer_counts
#define check_search_counts parac_cl_search_counts
#define CHECK_SEARCH_ENV "PARAC_CL_SEARCH"
#endif

#if defined(PARAC_CHECK_CUDA) || defined(PARAC_CHECK_OPENCL)
/* The copies between host and device since the last call must not exceed
 * `up` uploads and `down` downloads: a pipeline moves only its inputs and
 * outputs, never its intermediate matrices. Fails the check otherwise. */
static inline int check_transfers(const char *name, long long up, long long down)
{
    static check_transfer_counts_t last;
    check_transfer_counts_t now;
    check_transfer_counts(&now);
    const long long u = now.uploads - last.uploads, d = now.downloads - last.downloads;
    last = now;
    if (getenv("PARAC_CHECK_SHOW_TRANSFERS")) printf("%s: %lld uploads, %lld downloads\n", name, u, d);
    if (getenv(CHECK_SEARCH_ENV)) {
        long searched = 0, reused = 0;
        check_search_counts(&searched, &reused);
        printf("%s: work-group searches %ld, from the cache %ld\n", name, searched, reused);
    }
    if (u > up || d > down) {
        fprintf(stderr, "%s: %lld uploads and %lld downloads, expected at most %lld and %lld\n", name, u, d, up,
                down);
        return 1;
    }
    return 0;
}
#else
static inline void check_need_device(void) {}
static inline int check_transfers(const char *name, long long up, long long down)
{
    (void)name, (void)up, (void)down;
    return 0;
}
#endif

static uint64_t check_state = 0x9E3779B97F4A7C15ULL;
static inline uint32_t check_rand(void)
{
    uint64_t x = check_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    check_state = x;
    return (uint32_t)((x * 0x2545F4914F6CDD1DULL) >> 32);
}

static inline void *check_alloc(size_t n)
{
    void *p = calloc(n ? n : 1, 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* Exact comparison of integer images; prints the first difference. */
#define CHECK_EXACT(name, got, want, H, W)                                                         \
    do {                                                                                           \
        for (long i_ = 0; i_ < (long)(H) * (W); i_++)                                              \
            if ((got)[i_] != (want)[i_]) {                                                         \
                fprintf(stderr, "%s %dx%d: differs at (%ld,%ld): got %ld, want %ld\n", name, (int)(H), \
                        (int)(W), i_ / (W), i_ % (W), (long)(got)[i_], (long)(want)[i_]);         \
                return 1;                                                                          \
            }                                                                                      \
    } while (0)

/* Float comparison: relative error at most tol (absolute near zero). */
static inline int check_close(const char *name, const float *got, const float *want, long n, int H, int W,
                              double tol)
{
    for (long i = 0; i < n; i++) {
        double g = got[i], w = want[i];
        double err = fabs(g - w) / (fabs(w) > 1.0 ? fabs(w) : 1.0);
        if (!(err <= tol)) {
            fprintf(stderr, "%s %dx%d: differs at %ld: got %.9g, want %.9g (rel %.3g)\n", name, H, W, i, g, w, err);
            return 1;
        }
    }
    return 0;
}

/* Sizes: odd and even, square and not. */
static const int check_sizes[][2] = {{5, 7}, {8, 8}, {13, 6}, {16, 33}, {31, 20}, {64, 47}, {9, 517}};
#define CHECK_NSIZES ((int)(sizeof check_sizes / sizeof check_sizes[0]))

#endif
