/* Kernel time per kernel name (see kernel_times.h). */
#include <stdio.h>
#include <string.h>

#include "runtime/common/kernel_times.h"

void parac__kernel_times_add(parac__kernel_times *t, const char *name, unsigned long long ns)
{
    pthread_mutex_lock(&t->lock);
    t->total_ns += ns;
    int i = 0;
    while (i < t->n && strcmp(t->k[i].name, name)) i++;
    if (i == t->n && t->n < (int)(sizeof t->k / sizeof t->k[0])) {
        snprintf(t->k[i].name, sizeof t->k[i].name, "%s", name);
        t->n++;
    }
    if (i < t->n) t->k[i].ns += ns;
    pthread_mutex_unlock(&t->lock);
}

unsigned long long parac__kernel_times_total(parac__kernel_times *t)
{
    pthread_mutex_lock(&t->lock);
    unsigned long long v = t->total_ns;
    pthread_mutex_unlock(&t->lock);
    return v;
}

int parac__kernel_times_get(parac__kernel_times *t, int i, const char **name, unsigned long long *ns)
{
    pthread_mutex_lock(&t->lock);
    int ok = i >= 0 && i < t->n;
    if (ok) {
        *name = t->k[i].name;
        *ns = t->k[i].ns;
    }
    pthread_mutex_unlock(&t->lock);
    return ok;
}
