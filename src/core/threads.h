/* Running one phase of a CPU method on several POSIX threads (not OpenMP,
 * so that ThreadSanitizer sees every synchronisation): the fill and the
 * labelling. */
#ifndef PARAC_CORE_THREADS_H
#define PARAC_CORE_THREADS_H

#define PARAC__MAX_THREADS 256

/* Calls fn(arg, i, threads) for i = 0..threads-1, concurrently, and returns
 * when all have returned. A thread that cannot be started runs its share on
 * the caller's thread. */
void parac__run_threads(int threads, void (*fn)(void *arg, int index, int threads), void *arg);

/* The thread count for a CPU method: the context's, within 1..256. */
static inline int parac__thread_count(int threads)
{
    return threads < 1 ? 1 : threads > PARAC__MAX_THREADS ? PARAC__MAX_THREADS : threads;
}

#endif
