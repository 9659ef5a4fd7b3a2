/* Host / device split: decides what crosses into each kernel and in which
 * order its arguments go. Matrices go first (a buffer plus pitch and sizes),
 * then host scalars by value, sorted by declaration so the signature is
 * stable. Objects used on the device are marked, which the host code uses to
 * create buffers and insert transfers. */
#include <stdlib.h>

#include "lang/lang.h"

static int by_id(const void *a, const void *b)
{
    const Obj *x = *(Obj *const *)a, *y = *(Obj *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

void split_program(Program *prog)
{
    for (Region *r = prog->regions; r; r = r->next) {
        if (r->nmats) qsort(r->mats, (size_t)r->nmats, sizeof *r->mats, by_id);
        if (r->nscalars) qsort(r->scalars, (size_t)r->nscalars, sizeof *r->scalars, by_id);
        for (int i = 0; i < r->nmats; i++) r->mats[i]->used_in_kernel = true;
        for (int i = 0; i < r->nscalars; i++) {
            Obj *o = r->scalars[i];
            if (o->is_global && !o->ty->is_const)
                diag_error_tok(o->tok, "global '%s' is used inside a parallel region", o->name);
        }
    }
}
