/* A growable stack of runs for the scanline fills. */
#ifndef PARAC_FILL_STACK_H
#define PARAC_FILL_STACK_H

#include <stdlib.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "fill.h"

typedef struct parac__fill_stack {
    parac__fill_run *runs;
    size_t n, cap;
} parac__fill_stack;

static inline parac_status parac__fill_push(parac__fill_stack *s, parac__fill_run r)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        parac__fill_run *p = parac__realloc(s->runs, cap * sizeof *p);
        if (!p) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "fill: a stack of %zu runs", cap);
        s->runs = p;
        s->cap = cap;
    }
    s->runs[s->n++] = r;
    return PARAC_OK;
}

static inline int parac__fill_pop(parac__fill_stack *s, parac__fill_run *r)
{
    if (s->n == 0) return 0;
    *r = s->runs[--s->n];
    return 1;
}

static inline void parac__fill_stack_free(parac__fill_stack *s)
{
    free(s->runs);
    *s = (parac__fill_stack){0};
}

#endif
