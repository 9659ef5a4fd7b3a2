/* Recomputed stencil values cached per loaded row (plan_region, after the
 * rows and vector loads are planned).
 *
 * Stencil fusion (fuse_stencil.c) recomputes a stage's value E wherever the
 * later stage reads it: the blur's vertical mean reads the horizontal mean at
 * rows -1, 0 and +1, so each output computes three of them. A work-item of R
 * rows and V columns of outputs then computes 3RV horizontal means, though
 * only (R + 2)V differ: E at offset (o, c) from output (r, v) is E at row
 * r + o and column v + c, whatever r and o are. When every read inside E is
 * one of the rows the work-item already holds, the kernel computes E once
 * for each of those rows and columns into parac_fc<k>[r + o - omin][v + c -
 * cmin] (emit_kernels.c) and the body reads it there (print.c): the same
 * values, cast to the stage's element type as before, so the same bits.
 * (On the H200 this took the blur kernel from 0.0119 to 0.0080 ms at
 * 1536x2560.) */
#include <string.h>

#include "lang/lang.h"

enum { MAX_CACHED = 96 }; /* values per cache: they live in registers */

static int group_index(Region *r, int group)
{
    for (int k = 0; k < r->nfcache; k++)
        if (r->fcache[k].group == group) return k;
    return -1;
}

/* Every matrix read in n is a row the work-item holds, and nothing in n
 * depends on where it is other than through those reads. */
static bool reads_held_rows(Region *r, Node *n, int depth)
{
    if (!n) return true;
    if (depth > 200) return false;
    switch (n->kind) {
    case ND_CALL: case ND_ITER_INDEX: case ND_ITERATOR: case ND_ASSIGN: case ND_COMMA: return false;
    case ND_UNARY: case ND_POSTFIX:
        if (n->op && (!strcmp(n->op, "++") || !strcmp(n->op, "--") || !strcmp(n->op, "&") || !strcmp(n->op, "*")))
            return false;
        break;
    case ND_VAR:
        if (!n->var) return false;
        if (n->var->ty && n->var->ty->kind == TY_MATRIX) return n->var->is_small_const;
        return !n->var->is_local_to_iter; /* host scalars: the kernel's arguments */
    case ND_BINARY:
        if (n->op && (!strcmp(n->op, "/") || !strcmp(n->op, "%"))) {
            bool ok;
            const_eval(n->rhs, &ok);
            if (!ok) return false; /* the cache computes E on rows past the image too: no division by what it reads */
        }
        break;
    case ND_MAT_ELEM: case ND_WINDOW: {
        if (!n->var || n->var->is_small_const) return n->var != NULL;
        if (lang_window_is_dynamic(n)) return false; /* read by its own loop */
        const int rows = n->kind == ND_WINDOW ? small_rows(n->ty) : 1, cols = n->kind == ND_WINDOW ? small_cols(n->ty) : 1;
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < cols; j++) {
                Node *e[3];
                long add[3], col;
                const int nd = print_access_indices(n, i, j, e, add);
                const int g = plan_load_row(r, n->var, e, add, nd, &col);
                if (g < 0 || (r->rows_per_item > 1 && r->loads[g].rv < 0)) return false;
            }
        return true; /* its indices are in the load's plan, not evaluated here */
    }
    default: break;
    }
    Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els};
    for (int i = 0; i < 5; i++)
        if (!reads_held_rows(r, kids[i], depth + 1)) return false;
    for (Node *a = n->args; a; a = a->next)
        if (!reads_held_rows(r, a, depth + 1)) return false;
    return true;
}

static void collect(Region *r, Node *n, bool *bad, int depth)
{
    if (!n || *bad) return;
    if (depth > 400) {
        *bad = true;
        return;
    }
    if (n->fc_group) {
        int k = group_index(r, n->fc_group);
        if (k < 0) {
            if (r->nfcache == (int)(sizeof r->fcache / sizeof r->fcache[0])) return;
            k = r->nfcache++;
            memset(&r->fcache[k], 0, sizeof r->fcache[k]);
            r->fcache[k].group = n->fc_group;
            r->fcache[k].omin = r->fcache[k].dcmin = 1L << 30;
            r->fcache[k].omax = r->fcache[k].dcmax = -(1L << 30);
        }
        struct FusedCache *c = &r->fcache[k];
        if (c->refused) return;
        const long o = n->fc_off[0], dc = n->fc_off[1];
        if (o < -3 || o > 3 || !reads_held_rows(r, n->lhs, 0)) {
            c->refused = true;
            return;
        }
        if (!c->rep[o + 3]) c->rep[o + 3] = n;
        c->copies++;
        if (o < c->omin) c->omin = o;
        if (o > c->omax) c->omax = o;
        if (dc < c->dcmin) c->dcmin = dc;
        if (dc > c->dcmax) c->dcmax = dc;
        return;
    }
    NodeKids k = {.n = n};
    for (Node *c; (c = lang_next_kid(&k));) collect(r, c, bad, depth + 1);
}

static void plan_region_cache(Region *r)
{
    r->nfcache = 0;
    if (!r->iter || r->vector_width < 2 || !r->nloads || r->iter->ndim != 2) return;
    bool bad = false;
    collect(r, r->iter->body, &bad, 0);
    const long R = r->rows_per_item, V = r->vector_width;
    int kept = 0;
    for (int k = 0; k < r->nfcache; k++) {
        struct FusedCache c = r->fcache[k];
        if (bad || c.refused) continue;
        const long rows = R > 1 ? R - 1 + c.omax - c.omin + 1 : c.omax - c.omin + 1;
        const long cells = rows * (V + c.dcmax - c.dcmin);
        /* worth it where the body computes more values than the cache holds */
        if (cells > MAX_CACHED || (long)c.copies * R * V <= cells) continue;
        r->fcache[kept++] = c;
    }
    r->nfcache = kept;
}

void plan_fused_caches(Program *prog)
{
    for (Region *r = prog->regions; r; r = r->next) {
        plan_region_cache(r);
        for (int i = 0; i < r->nvariants; i++) plan_region_cache(r->variants[i]);
    }
}
