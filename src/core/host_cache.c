/* Host blocks kept between calls: the scratch arrays of the CPU methods that
 * work on runs (labelling, the fill's ccl: tens to hundreds of MB per call,
 * 16 bytes a run) and the pixels of host images above 32 MiB (image.c: a
 * destroyed image's block comes back here). glibc maps blocks that large
 * afresh on every allocation, and the kernel zeroes each new page when it is
 * first touched: on the H200 machine one thread labelling 8K noise spent 59
 * of 470 ms on the pages of its 133 MB output alone, and its 133 MB of run
 * arrays cost as much again. Blocks come in size classes (three significant
 * bits: at most 1/8 wasted), so that arrays of near sizes reuse one another; up to
 * CACHE_SLOTS blocks and CACHE_BYTES are kept, the oldest let go first, and
 * all of them when an allocation fails or on parac_memory_trim(). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "core/image_internal.h"
#include "parac/image.h"

enum { CACHE_SLOTS = 64 }; /* a Dask worker's blocks of 16 MiB fill 1 GiB */
#define CACHE_BYTES ((size_t)1 << 30)

static struct {
    void *p;
    size_t bytes;
} slots[CACHE_SLOTS]; /* oldest first */
static int used;
static size_t held;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

/* A fork while another thread holds the lock would leave the child's copy
 * locked for good: the lock is taken across fork() and released on both
 * sides. */
static void before_fork(void) { pthread_mutex_lock(&lock); }
static void after_fork(void) { pthread_mutex_unlock(&lock); }
static void watch_fork(void) { pthread_atfork(before_fork, after_fork, after_fork); }

static void enter(void)
{
    pthread_once(&fork_once, watch_fork);
    pthread_mutex_lock(&lock);
}

/* The size class of a request: rounded up to three significant bits, then
 * to whole huge pages. 0 when it overflows. */
static size_t class_of(size_t bytes)
{
    int top = 0;
    while (top < 63 && ((size_t)1 << (top + 1)) <= bytes) top++;
    const size_t step = top >= 3 ? (size_t)1 << (top - 3) : 1, huge = (size_t)2 << 20;
    size_t c = (bytes + step - 1) / step * step;
    if (c < bytes) return 0;
    const size_t h = (c + huge - 1) / huge * huge;
    return h < c ? 0 : h;
}

static void drop(int i)
{
    free(slots[i].p);
    held -= slots[i].bytes;
    for (int k = i + 1; k < used; k++) slots[k - 1] = slots[k];
    used--;
}

void parac__kept_blocks_trim(void)
{
    enter();
    while (used) drop(used - 1);
    pthread_mutex_unlock(&lock);
}

void *parac__kept_block_take(size_t bytes)
{
    if (bytes < PARAC__HUGE_MIN) return parac__host_alloc_scratch(bytes);
    const size_t c = class_of(bytes);
    /* every request counts, cached or not, so that the k-th is the same in
     * every run of a failure test */
    if (!c || parac__alloc_injected()) return NULL;
    if (c > CACHE_BYTES) return parac__host_map_huge(bytes); /* never kept: no rounding up */
    enter();
    for (int i = used - 1; i >= 0; i--) {
        if (slots[i].bytes != c) continue;
        void *p = slots[i].p;
        held -= c;
        for (int k = i + 1; k < used; k++) slots[k - 1] = slots[k];
        used--;
        pthread_mutex_unlock(&lock);
#if !defined(NDEBUG) || defined(PARAC_POISON_REUSED)
        /* a block comes back with its last user's bytes: debug builds fill it
         * with junk, so that code counting on fresh (zeroed) memory fails */
        memset(p, 0xA5, bytes);
#endif
        return p;
    }
    pthread_mutex_unlock(&lock);
    void *p = parac__host_map_huge(c);
    if (!p) { /* the cached blocks may be what is missing */
        parac__kept_blocks_trim();
        p = parac__host_map_huge(c);
    }
    return p;
}

void parac__kept_block_give(void *p, size_t bytes)
{
    if (!p) return;
    if (bytes < PARAC__HUGE_MIN) {
        free(p);
        return;
    }
    const size_t c = class_of(bytes);
    if (c > CACHE_BYTES) {
        free(p);
        return;
    }
    enter();
    while (used && (used == CACHE_SLOTS || held + c > CACHE_BYTES)) drop(0);
    slots[used].p = p;
    slots[used].bytes = c;
    used++;
    held += c;
    pthread_mutex_unlock(&lock);
}

void parac_memory_trim(void)
{
    parac__kept_blocks_trim();
    parac_cuda_pool_trim();
}
