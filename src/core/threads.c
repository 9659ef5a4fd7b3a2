/* Thread phases for the CPU methods of the fill and the labelling: a pool of POSIX threads started
 * once and kept (starting threads for every phase costs milliseconds on
 * some machines). One phase runs at a time; a caller that finds the pool
 * busy (another thread's call) runs its phase on fresh threads instead. */
#include <pthread.h>
#include <stdint.h>

#include "threads.h"

typedef struct job {
    void (*fn)(void *, int, int);
    void *arg;
    int threads;
} job;

static struct {
    pthread_mutex_t busy; /* held by the caller whose phase is running */
    pthread_mutex_t m;
    pthread_cond_t go, done;
    int workers;          /* started, with indices 1..workers */
    uint64_t generation;
    job current;
    int remaining;
    uint64_t born[PARAC__MAX_THREADS]; /* the generation each worker starts after */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
          PTHREAD_COND_INITIALIZER, 0, 0, {0, 0, 0}, 0, {0}};

static void *pool_worker(void *p)
{
    const int index = (int)(intptr_t)p;
    pthread_mutex_lock(&pool.m);
    uint64_t seen = pool.born[index];
    for (;;) {
        while (pool.generation == seen) pthread_cond_wait(&pool.go, &pool.m);
        seen = pool.generation;
        const job j = pool.current;
        pthread_mutex_unlock(&pool.m);
        if (index < j.threads) j.fn(j.arg, index, j.threads);
        pthread_mutex_lock(&pool.m);
        if (--pool.remaining == 0) pthread_cond_signal(&pool.done);
    }
    return NULL;
}

/* After fork() the child has none of the parent's workers. */
static void forget_workers(void) { pool.workers = 0; }
static void watch_fork(void) { pthread_atfork(NULL, NULL, forget_workers); }

typedef struct slot {
    void (*fn)(void *, int, int);
    void *arg;
    int index, threads;
} slot;

static void *start(void *p)
{
    slot *s = p;
    s->fn(s->arg, s->index, s->threads);
    return NULL;
}

static void run_fresh(int threads, void (*fn)(void *, int, int), void *arg)
{
    pthread_t tid[PARAC__MAX_THREADS];
    slot slots[PARAC__MAX_THREADS];
    int started[PARAC__MAX_THREADS] = {0};
    for (int i = 0; i < threads; i++) slots[i] = (slot){fn, arg, i, threads};
    for (int i = 1; i < threads; i++) started[i] = pthread_create(&tid[i], NULL, start, &slots[i]) == 0;
    fn(arg, 0, threads);
    for (int i = 1; i < threads; i++) {
        if (started[i]) pthread_join(tid[i], NULL);
        else fn(arg, i, threads);
    }
}

void parac__run_threads(int threads, void (*fn)(void *arg, int index, int threads), void *arg)
{
    threads = parac__thread_count(threads);
    if (threads == 1) {
        fn(arg, 0, 1);
        return;
    }
    if (pthread_mutex_trylock(&pool.busy) != 0) {
        run_fresh(threads, fn, arg);
        return;
    }
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, watch_fork);
    pthread_mutex_lock(&pool.m);
    while (pool.workers < threads - 1) { /* grow: workers stay for the process's life */
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pool.born[pool.workers + 1] = pool.generation;
        const int ok = pthread_create(&t, &attr, pool_worker, (void *)(intptr_t)(pool.workers + 1)) == 0;
        pthread_attr_destroy(&attr);
        if (!ok) break;
        pool.workers++;
    }
    const int have = pool.workers + 1 < threads ? pool.workers + 1 : threads;
    pool.current = (job){fn, arg, threads};
    pool.remaining = pool.workers;
    pool.generation++;
    pthread_cond_broadcast(&pool.go);
    pthread_mutex_unlock(&pool.m);
    fn(arg, 0, threads);
    pthread_mutex_lock(&pool.m);
    while (pool.remaining > 0) pthread_cond_wait(&pool.done, &pool.m);
    pthread_mutex_unlock(&pool.m);
    pthread_mutex_unlock(&pool.busy);
    /* shares no worker ran (not every thread could be started) */
    for (int i = have; i < threads; i++) fn(arg, i, threads);
}
