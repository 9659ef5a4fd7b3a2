/* Stacks of element indices, one per grey level, for the downhill method:
 * every stack is a chain of fixed-size chunks drawn from one shared pool, so
 * a push is a store and a count in the common case, stacks grow without
 * copying, and a chunk emptied at one level is reused by the next. */
#ifndef PARAC_MORPH_RECON_LEVELS_H
#define PARAC_MORPH_RECON_LEVELS_H

#include <stdint.h>

#include "parac/parac.h"

#define PARAC__LEVEL_CHUNK 2040 /* entries: a chunk and its header fill 16 KiB */

typedef struct parac__level_chunk {
    struct parac__level_chunk *below; /* the chunk under this one in its stack */
    int64_t n;
    int64_t e[PARAC__LEVEL_CHUNK];
} parac__level_chunk;

typedef struct parac__level_stacks {
    parac__level_chunk **top; /* per level: its newest chunk, NULL when empty */
    int64_t levels;
    parac__level_chunk *spare; /* emptied chunks, linked through `below` */
} parac__level_stacks;

parac_status parac__levels_init(parac__level_stacks *s, int64_t levels);
void parac__levels_free(parac__level_stacks *s);
/* Put a fresh chunk on top of `level`; returns it, or NULL (error set) without memory. */
parac__level_chunk *parac__levels_grow(parac__level_stacks *s, int64_t level);

static inline int parac__levels_push(parac__level_stacks *s, int64_t level, int64_t p)
{
    parac__level_chunk *c = s->top[level];
    if (!c || c->n == PARAC__LEVEL_CHUNK) {
        c = parac__levels_grow(s, level);
        if (!c) return 0;
    }
    c->e[c->n++] = p;
    return 1;
}

/* Take the newest entry of `level` into *p; returns 0 when the level is empty. */
static inline int parac__levels_pop(parac__level_stacks *s, int64_t level, int64_t *p)
{
    for (;;) {
        parac__level_chunk *c = s->top[level];
        if (!c) return 0;
        if (c->n > 0) {
            *p = c->e[--c->n];
            return 1;
        }
        s->top[level] = c->below;
        c->below = s->spare;
        s->spare = c;
    }
}

#endif
