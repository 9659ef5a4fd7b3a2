/* The downhill method's per-level stacks (recon_levels.h). */
#include <inttypes.h>
#include <stdlib.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "recon_levels.h"

parac_status parac__levels_init(parac__level_stacks *s, int64_t levels)
{
    s->levels = levels;
    s->spare = NULL;
    s->top = parac__calloc((size_t)levels, sizeof *s->top);
    if (!s->top)
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "downhill: no memory for %" PRId64 " level stacks",
                           levels);
    return PARAC_OK;
}

static void free_chain(parac__level_chunk *c)
{
    while (c) {
        parac__level_chunk *below = c->below;
        free(c);
        c = below;
    }
}

void parac__levels_free(parac__level_stacks *s)
{
    if (s->top)
        for (int64_t i = 0; i < s->levels; i++) free_chain(s->top[i]);
    free_chain(s->spare);
    free(s->top);
    s->top = NULL;
    s->spare = NULL;
}

parac__level_chunk *parac__levels_grow(parac__level_stacks *s, int64_t level)
{
    parac__level_chunk *c = s->spare;
    if (c) {
        s->spare = c->below;
    } else if (!(c = parac__malloc(sizeof *c))) {
        parac__fail(PARAC_ERR_OUT_OF_MEMORY, "downhill: no memory for its level stacks");
        return NULL;
    }
    c->n = 0;
    c->below = s->top[level];
    s->top[level] = c;
    return c;
}
