/* Small helpers shared by the C unit tests. */
#ifndef PARAC_TEST_UTIL_H
#define PARAC_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "parac/parac.h"

/* Fail the current cmocka test with the library's message. */
#define assert_ok(expr)                                                                  \
    do {                                                                                 \
        parac_status st_ = (expr);                                                       \
        if (st_ != PARAC_OK)                                                             \
            fail_msg("%s -> %s: %s", #expr, parac_status_string(st_), parac_error_message()); \
    } while (0)

/* Exit code that CTest reports as "skipped". */
#define PARAC_TEST_SKIP 77

/* A CUDA device is usable (for tests labelled gpu). */
static inline int test_have_gpu(void)
{
    int n = 0;
    return parac_cuda_device_count(&n) == PARAC_OK && n > 0;
}

/* Deterministic pseudo-random numbers (xorshift64*). */
static inline uint64_t test_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* A path in the test scratch folder. */
static inline const char *test_path(char *buf, size_t size, const char *name)
{
    const char *dir = getenv("PARAC_TEST_TMPDIR");
    snprintf(buf, size, "%s/%s", dir ? dir : "/tmp", name);
    return buf;
}

/* Fill every element of a host image with random values valid for its dtype. */
void test_fill_random(parac_image *img, uint64_t seed);

#endif
