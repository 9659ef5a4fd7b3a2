/* Kernel time per kernel name, for the device runtimes' profiling mode
 * (PARAC_CL_PROFILE, PARAC_CU_PROFILE): a total and a table by name. */
#ifndef PARAC_CORE_KERNEL_TIMES_H
#define PARAC_CORE_KERNEL_TIMES_H

#include <pthread.h>

typedef struct parac__kernel_times {
    unsigned long long total_ns;
    struct {
        char name[120];
        unsigned long long ns;
    } k[256];
    int n;
    pthread_mutex_t lock;
} parac__kernel_times;

#define PARAC__KERNEL_TIMES_INIT {0, {{{0}, 0}}, 0, PTHREAD_MUTEX_INITIALIZER}

void parac__kernel_times_add(parac__kernel_times *t, const char *name, unsigned long long ns);
unsigned long long parac__kernel_times_total(parac__kernel_times *t);
/* The i-th name and its total; 0 past the last. */
int parac__kernel_times_get(parac__kernel_times *t, int i, const char **name, unsigned long long *ns);

#endif
