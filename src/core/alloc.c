/* The library's host allocations, with the countdown that tests use to make
 * one of them (or all from one on) fail. The countdown is atomic: allocations
 * happen on OpenMP and worker threads too. */
#include "core/alloc_internal.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static _Atomic long countdown; /* allocations left before the failing one; 0: off */
static _Atomic int sticky_failure;
static _Atomic long failures;

void parac__alloc_fail_after(long n, int sticky)
{
    atomic_store(&sticky_failure, 0);
    atomic_store(&failures, 0);
    atomic_store(&countdown, n > 0 ? n : 0);
    atomic_store(&sticky_failure, n > 0 && sticky);
}

long parac__alloc_failures(void) { return atomic_load(&failures); }

/* Whether this allocation is the one to fail (or one after it, sticky). */
static int fails(void)
{
    long left = atomic_load(&countdown);
    while (left > 0) {
        if (atomic_compare_exchange_weak(&countdown, &left, left - 1)) {
            if (left != 1) return 0;
            atomic_fetch_add(&failures, 1);
            return 1;
        }
    }
    if (atomic_load(&sticky_failure)) {
        atomic_fetch_add(&failures, 1);
        return 1;
    }
    return 0;
}

int parac__alloc_injected(void) { return fails(); }

void *parac__malloc(size_t size) { return fails() ? NULL : malloc(size); }

void *parac__calloc(size_t count, size_t size) { return fails() ? NULL : calloc(count, size); }

void *parac__realloc(void *p, size_t size) { return fails() ? NULL : realloc(p, size); }

void *parac__aligned_alloc(size_t alignment, size_t size) { return fails() ? NULL : aligned_alloc(alignment, size); }

char *parac__strdup(const char *s)
{
    if (fails()) return NULL;
    const size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, s, n);
    return c;
}
