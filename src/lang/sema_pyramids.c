/* Pyramids: parac_pyramid P[L][H][W] declares L matrices, level 0 of H x W
 * and each level below of half the rows and columns of the one above,
 * rounded up; P[L][C][H][W] has C planes of rows and columns at every
 * level. The levels live, like a declared matrix, until the end of the
 * block; on the device targets each has its device copy, which the
 * functions it is passed to read and write.
 *
 * A level is named P[l], l any integer expression of host code without side
 * effects (the index is evaluated with the arguments, once per use), and is
 * passed to a function of this file with matrix parameters (sema_calls.c),
 * which sees a matrix of the level's sizes: per-level work is a function,
 * and a host loop runs it over the levels. P[l] anywhere else, P alone, a
 * pyramid as a parameter or inside an iterator are located errors; an index
 * outside 0..L-1 is refused at run time with the call's place. */
#include <string.h>

#include "lang/sema.h"

/* Whether evaluating n may change something (or costs a call). */
static bool has_side_effects(const Node *n, int depth)
{
    if (!n) return false;
    if (depth > 400) return true;
    if (n->kind == ND_ASSIGN || n->kind == ND_CALL || n->kind == ND_POSTFIX || n->kind == ND_PARAC_OP)
        return true;
    if (n->kind == ND_UNARY && n->op && (!strcmp(n->op, "++") || !strcmp(n->op, "--"))) return true;
    NodeKids k = {.n = n};
    for (const Node *c; (c = lang_next_kid(&k));)
        if (has_side_effects(c, depth + 1)) return true;
    return false;
}

void sema_pyramid_decl(Sema *S, Node *d, Obj *o)
{
    Type *py = o->ty, *m = py->base;
    if (S->iter) {
        diag_error_tok(d->tok, "parac_pyramid '%s' cannot be declared inside an iterator", o->name);
        return;
    }
    if (o->is_param) {
        diag_error_tok(d->tok, "a parac_pyramid is not a parameter: pass its levels (%s[l]) to parameters "
                       "T parac_matrix &M[..][..]", o->name);
        return;
    }
    if (o->is_global) {
        diag_error_tok(d->tok, "parac_pyramid '%s' is declared in a function: its levels live until the end "
                       "of the block that declares it", o->name);
        return;
    }
    if (d->init) diag_error_tok(d->init->tok, "parac_pyramid '%s' starts as zeros and takes no initialiser", o->name);
    if (m->is_vector || m->ndim < 2)
        diag_error_tok(d->tok, "the levels of parac_pyramid '%s' are 2-D or 3-D matrices (rows and columns, "
                       "or planes of rows and columns)", o->name);
    if (!ty_is_arith(m->base))
        diag_error_tok(d->tok, "the elements of parac_pyramid '%s' must have an arithmetic type", o->name);
    py->array_len = sema_expr(S, py->array_len);
    Node *sizes[4] = {py->array_len, m->dims[0], m->dims[1], m->dims[2]};
    for (int i = 0; i < 1 + m->ndim && i < 4; i++) {
        if (i > 0) sizes[i] = m->dims[i - 1] = sema_expr(S, m->dims[i - 1]);
        Node *e = sizes[i];
        if (e && e->ty && !ty_is_integer(e->ty) && e->ty->kind != TY_OPAQUE)
            diag_error_tok(e->tok, "the %s of '%s' must be an integer", i ? "size" : "number of levels", o->name);
        else if (e && has_side_effects(e, 0))
            diag_error_tok(e->tok, "the %s of '%s' is computed once: it cannot assign or call", i ? "size" :
                           "number of levels", o->name);
    }
}

/* P[l] in host code: a level, when it is an argument of a call; anything
 * else naming a pyramid is an error (returns a placeholder). */
Node *sema_pyramid_access(Sema *S, Node *n, Node *base, Obj *py, bool call_arg)
{
    Node *r = new_node(ND_LEVEL, base->tok);
    r->var = py;
    r->ty = py->ty->base;
    if (S->iter) {
        diag_error_tok(base->tok, "pyramid '%s' inside iterator '%s': an iterator reads and writes matrices; pass a "
                       "level to a function of this file (f(..., %s[l], ...)) and iterate there", py->name,
                       S->iter->name, py->name);
        return r;
    }
    if (n == base || n->lhs != base) {
        diag_error_tok(base->tok, n == base ? "pyramid '%s' is used by its levels: %s[l] passed to a function of "
                       "this file with a matrix parameter" : "'%s[l]' is a level, a matrix: pass it to a function of "
                       "this file with a matrix parameter, which reads its elements", py->name, py->name);
        return r;
    }
    if (n->rhs && n->rhs->kind == ND_SLICE) {
        diag_error_tok(n->rhs->tok, "a level of pyramid '%s' is named by one index, not a window", py->name);
        return r;
    }
    r->lhs = sema_expr(S, n->rhs);
    r->tok = n->tok;
    if (r->lhs->ty && !ty_is_integer(r->lhs->ty) && r->lhs->ty->kind != TY_OPAQUE)
        diag_error_tok(r->lhs->tok, "the level of pyramid '%s' must be an integer", py->name);
    else if (has_side_effects(r->lhs, 0))
        diag_error_tok(r->lhs->tok, "the level of pyramid '%s' is evaluated more than once in the call: it cannot "
                       "assign, increment or call (compute it in a variable first)", py->name);
    else if (!call_arg)
        diag_error_tok(base->tok, "'%s[...]' is a level of a pyramid: pass it to a function of this file with a "
                       "matrix parameter, which reads and writes its elements", py->name);
    return r;
}
