/* Host allocations of the library: every malloc, calloc, realloc,
 * aligned_alloc and strdup of parac goes through these, so that a test can
 * make the n-th one fail (SQLite's discipline: every failure path is run).
 * They behave as the C library's functions; release with free(). */
#ifndef PARAC_ALLOC_INTERNAL_H
#define PARAC_ALLOC_INTERNAL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void *parac__malloc(size_t size);
void *parac__calloc(size_t count, size_t size);
void *parac__realloc(void *p, size_t size);
void *parac__aligned_alloc(size_t alignment, size_t size);
char *parac__strdup(const char *s);

/* Tests: from now, the n-th allocation fails, and every one after it too
 * when `sticky` (n = 0: none fails). parac__alloc_failures() counts the
 * allocations made to fail since the last call of parac__alloc_fail_after. */
void parac__alloc_fail_after(long n, int sticky);
long parac__alloc_failures(void);
/* For allocations that are not the C library's (device memory, page-locked
 * host memory): 1 when the countdown says this one fails. Host and device
 * allocations share one countdown, so a test fails each of a run's
 * allocations in turn whatever memory it asks for. */
int parac__alloc_injected(void);

#ifdef __cplusplus
}
#endif

#endif
