/* Queries on the tree and the regions that several passes ask: no pass
 * asks another pass, they all ask here (and types.c, walk.c). */
#include <string.h>

#include "lang/lang.h"

/* ---- outputs a region overwrites whole ------------------------------------- */
bool lang_any_jump(const Node *n)
{
    if (!n) return false;
    if (n->kind == ND_BREAK || n->kind == ND_CONTINUE || n->kind == ND_GOTO || n->kind == ND_RETURN ||
        n->kind == ND_LABEL)
        return true;
    if (lang_any_jump(n->lhs) || lang_any_jump(n->rhs) || lang_any_jump(n->then) || lang_any_jump(n->els) ||
        lang_any_jump(n->body))
        return true;
    for (const Node *a = n->args; a; a = a->next)
        if (lang_any_jump(a)) return true;
    return false;
}

/* Whether every iteration of the region writes m[it0][it1]... (each index
 * exactly its iterator variable, axis by axis) in a statement of the body's
 * top level, and nothing in the region reads m. Then, when the iteration
 * space is m's whole index space (checked at run time), the kernels overwrite
 * every element and m's host copy need not be uploaded first. A matrix with
 * one more (leading) dimension than the iterator counts too when such
 * statements write m[0][it0].., m[1][it0].., ... m[K-1][it0].. (the planes
 * of a fused channel loop, fuse.c): *planes is then K, to be checked
 * against m's first size; else 0. */
bool lang_writes_whole(Region *r, Obj *m, int *planes)
{
    Iterator *it = r->iter;
    const int lead = m->ty->ndim - (it ? it->ndim : 0);
    *planes = 0;
    if (!it || it->iter_element || lead < 0 || lead > 1 || lang_any_jump(it->body)) return false;
    for (int d = 0; d < it->ndim; d++)
        if (it->r[d].stride != 1) return false;
    Node *body = it->body;
    bool seen[16] = {false}, any = false;
    for (Node *st = body && body->kind == ND_BLOCK ? body->args : body; st; st = st->next) {
        Node *as = st->kind == ND_EXPR_STMT ? st->lhs : NULL;
        if (as && as->kind == ND_ASSIGN && !strcmp(as->op, "=") && as->lhs && as->lhs->kind == ND_MAT_ELEM &&
            as->lhs->var == m) {
            const Access *w = NULL;
            for (Access *a = r->accesses; a; a = a->next)
                if (a->node == as->lhs) w = a;
            bool ok = w && w->ndim == m->ty->ndim;
            for (int d = 0; ok && d < it->ndim; d++) {
                const Affine *f = &w->aff[lead + d];
                ok = f->ok && f->axis == d && f->coef == 1 && f->offset == 0;
            }
            if (ok && lead) {
                const Affine *f = &w->aff[0];
                ok = f->ok && f->axis < 0 && f->offset >= 0 && f->offset < 16;
                if (ok) seen[f->offset] = true;
            }
            any |= ok;
        }
        if (body->kind != ND_BLOCK) break;
    }
    if (!any) return false;
    for (Access *a = r->accesses; a; a = a->next)
        if (a->var == m && (!a->is_write || a->is_window)) return false; /* read in the region */
    if (lead) {
        while (*planes < 16 && seen[*planes]) (*planes)++;
        for (int k = *planes; k < 16; k++)
            if (seen[k]) return false; /* a gap: the planes past it are not written */
    }
    return true;
}
