/* Thread phases for the CPU fill methods. */
#include <pthread.h>

#include "fill_threads.h"

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

void parac__fill_threads(int threads, void (*fn)(void *arg, int index, int threads), void *arg)
{
    threads = parac__fill_thread_count(threads);
    pthread_t tid[PARAC__FILL_MAX_THREADS];
    slot slots[PARAC__FILL_MAX_THREADS];
    int started[PARAC__FILL_MAX_THREADS] = {0};
    for (int i = 0; i < threads; i++) slots[i] = (slot){fn, arg, i, threads};
    for (int i = 1; i < threads; i++) started[i] = pthread_create(&tid[i], NULL, start, &slots[i]) == 0;
    fn(arg, 0, threads);
    for (int i = 1; i < threads; i++) {
        if (started[i]) pthread_join(tid[i], NULL);
        else fn(arg, i, threads);
    }
}
