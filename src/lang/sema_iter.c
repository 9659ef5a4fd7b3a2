/* Semantic analysis of border rules, iterators and whole-image statements
 * (rewritten into iterators); sema.c is the pass. */
#include <string.h>

#include "lang/sema.h"

/* ---- border rules --------------------------------------------------------- */
static bool border_index(Node *ix, int *side, const Obj *dist)
{
    if (ix->kind == ND_WILDCARD) {
        *side = 0;
        return true;
    }
    if (dist && ix->kind == ND_UNARY && (!strcmp(ix->op, "-") || !strcmp(ix->op, "+")) && ix->lhs &&
        ix->lhs->kind == ND_VAR && ix->lhs->name && !strcmp(ix->lhs->name, dist->name)) {
        *side = ix->op[0] == '-' ? -PARAC_SIDE_ANY : PARAC_SIDE_ANY; /* at every distance */
        return true;
    }
    if (ix->kind == ND_UNARY && (!strcmp(ix->op, "-") || !strcmp(ix->op, "+"))) {
        bool ok;
        long k = const_eval(ix->lhs, &ok);
        if (ok && k >= 1 && k <= 16) {
            *side = ix->op[0] == '-' ? -(int)k : (int)k;
            return true;
        }
    }
    return false;
}

/* Check that the value of a border entry reads only interior pixels of the
 * ruled matrix, and resolve its names. */
static Node *rule_value(Sema *S, BorderRule *r, BorderEntry *e, Node *n)
{
    if (!n) return n;
    if (n->kind == ND_INDEX) {
        Node *base = n;
        int k = 0;
        Node *ixs[4];
        while (base->kind == ND_INDEX && k < 4) {
            ixs[k++] = base->rhs;
            base = base->lhs;
        }
        if (base->kind == ND_VAR && r->var && !strcmp(base->name, r->var->name)) {
            for (int i = 0; i < k; i++) {
                Node *ix = ixs[k - 1 - i];
                int side;
                if (ix->kind == ND_WILDCARD) {
                    if (i < 3 && e->side[i] != 0)
                        diag_error_tok(ix->tok, "'*' in a border value must match a '*' of the rule's left side");
                    continue;
                }
                bool ok;
                long v = const_eval(ix, &ok);
                if ((border_index(ix, &side, r->dist) && ix->kind == ND_UNARY && (ix->op[0] == '+' || side)) ||
                    (ok && v < 0)) {
                    diag_error_tok(ix->tok, "border value of %s depends on another border value; "
                                   "a border value may read only pixels inside the image", r->var->name);
                    return n;
                }
            }
        }
    }
    if (n->kind == ND_WILDCARD) return n;
    if (n->kind == ND_INDEX) {
        /* resolve names inside the indices, keeping wildcards */
        Node *nx = n->next;
        Node *base = n;
        while (base->kind == ND_INDEX) {
            if (base->rhs->kind != ND_WILDCARD) base->rhs = rule_value(S, r, e, base->rhs);
            base = base->lhs;
        }
        if (base->kind == ND_VAR) {
            Node *b = sema_expr(S, base);
            if (b->kind != ND_VAR || !b->var || b->var->ty->kind != TY_MATRIX)
                ; /* a C array in a border value: left as is */
            else {
                base->var = b->var;
                base->ty = b->ty;
            }
        }
        n->next = nx;
        /* type it by its element */
        n->ty = base->ty && base->ty->kind == TY_MATRIX ? base->ty->base : ty_basic(TY_INT, false);
        return n;
    }
    switch (n->kind) {
    case ND_BINARY: case ND_EWMUL: case ND_ASSIGN: case ND_COMMA:
        if (n->kind == ND_EWMUL) {
            diag_error_tok(n->tok, "'.*' needs matrices or windows; a border value is a scalar");
            n->kind = ND_BINARY;
            n->op = "*";
        }
        n->lhs = rule_value(S, r, e, n->lhs);
        n->rhs = rule_value(S, r, e, n->rhs);
        if (n->kind == ND_ASSIGN) diag_error_tok(n->tok, "a border value cannot assign");
        n->ty = ty_common(n->lhs->ty, n->rhs->ty);
        return n;
    case ND_UNARY: case ND_CAST:
        n->lhs = rule_value(S, r, e, n->lhs);
        n->ty = n->kind == ND_CAST ? sema_resolve_type(S, n->cast_ty) : n->lhs->ty;
        if (n->kind == ND_CAST) n->cast_ty = n->ty;
        return n;
    case ND_COND:
        n->cond = rule_value(S, r, e, n->cond);
        n->then = rule_value(S, r, e, n->then);
        n->els = rule_value(S, r, e, n->els);
        n->ty = ty_common(n->then->ty, n->els->ty);
        return n;
    case ND_CALL:
        for (Node **a = &n->args; *a; a = &(*a)->next) {
            Node *an = (*a)->next;
            *a = rule_value(S, r, e, *a);
            (*a)->next = an;
        }
        n->ty = ty_basic(TY_DOUBLE, false);
        return n;
    default:
        return sema_expr(S, n);
    }
}

void sema_rule(Sema *S, Node *n)
{
    BorderRule *r = lang_alloc(sizeof *r);
    r->name = n->name;
    r->tok = n->tok;
    n->rule = r;
    if (!n->name) return;
    if (sema_find_rule(S, n->name) && S->scope->parent) {
        for (int i = 0; i < S->scope->nrules; i++)
            if (!strcmp(S->scope->rules[i]->name, n->name))
                diag_error_tok(n->tok, "border rule '%s' is defined twice", n->name);
    }
    sema_add_rule(S, r);
    if (S->iter) diag_error_tok(n->tok, "a border rule cannot be defined inside an iterator");
    if (n->args) {
        /* NAME(d): entries at -d / +d hold at every distance d >= 1 their
         * values name (an int in the values' scope) */
        if (n->args->next) diag_error_tok(n->args->next->tok, "a border rule has one distance");
        Obj *d = lang_alloc(sizeof *d);
        d->name = n->args->name;
        d->tok = n->args->tok;
        d->ty = ty_basic(TY_INT, false);
        d->is_local_to_iter = true; /* bound where a read falls, not an argument of the kernels */
        r->dist = d;
        sema_push_scope(S);
        sema_add_obj(S, d);
    }
    BorderEntry head = {0}, *cur = &head;
    for (Node *st = n->body; st; st = st->next) {
        Node *e = st->lhs;
        /* A[..] = B[..] = value: every left side gets the value */
        Node *targets[8];
        int nt = 0;
        while (e && e->kind == ND_ASSIGN && !strcmp(e->op, "=") && nt < 8) {
            targets[nt++] = e->lhs;
            e = e->rhs;
        }
        if (nt == 0) {
            diag_error_tok(st->tok, "a border rule entry reads M[*][-1] = value;");
            continue;
        }
        for (int t = 0; t < nt; t++) {
            Node *l = targets[t];
            Node *ix[3];
            int k = 0;
            while (l->kind == ND_INDEX && k < 3) {
                ix[k++] = l->rhs;
                l = l->lhs;
            }
            if (l->kind != ND_VAR) {
                diag_error_tok(targets[t]->tok, "a border rule entry must name a matrix: M[*][-1] = ...");
                continue;
            }
            Obj *o = sema_find_obj(S, l->name);
            if (!o || o->ty->kind != TY_MATRIX) {
                diag_error_tok(l->tok, "'%s' is not a parac_matrix", l->name);
                continue;
            }
            if (!r->var) r->var = o;
            else if (r->var != o) {
                diag_error_tok(l->tok, "border rule '%s' is about '%s'; one rule describes one matrix",
                               r->name, r->var->name);
                continue;
            }
            if (k != o->ty->ndim) {
                diag_error_tok(targets[t]->tok, "'%s' has %d dimension%s", o->name, o->ty->ndim,
                               o->ty->ndim == 1 ? "" : "s");
                continue;
            }
            BorderEntry *be = lang_alloc(sizeof *be);
            be->tok = targets[t]->tok;
            bool good = true;
            int nz = 0;
            for (int i = 0; i < k; i++) {
                int side;
                if (!border_index(ix[k - 1 - i], &side, r->dist)) {
                    diag_error_tok(ix[k - 1 - i]->tok, "a border rule index is '*', -k (before the image) or +k (after it)");
                    good = false;
                    break;
                }
                be->side[i] = side;
                if (side) nz++;
            }
            if (!good) continue;
            if (nz == 0) {
                diag_error_tok(targets[t]->tok, "a border rule entry needs -k or +k on some axis");
                continue;
            }
            bool any = false;
            for (int i = 0; i < k; i++) any |= be->side[i] == PARAC_SIDE_ANY || be->side[i] == -PARAC_SIDE_ANY;
            if (any && nz > 1) {
                diag_error_tok(targets[t]->tok, "an entry at every distance '%s' runs along one axis: its other "
                               "indices are '*' (corners are given one by one)", r->dist->name);
                continue;
            }
            be->value = e;
            cur = cur->next = be;
        }
        if (cur != &head) {
            Node *v = rule_value(S, r, cur, e);
            for (BorderEntry *b = head.next; b; b = b->next)
                if (b->value == e) b->value = v;
            if (v && is_small(v)) diag_error_tok(v->tok, "a border value must be a scalar");
        }
    }
    r->entries = head.next;
    if (r->dist) sema_pop_scope(S);
    if (!r->var) return;
    lang_rule_widths(r, NULL);
}

/* ---- iterators ------------------------------------------------------------ */
static BorderRule *find_rule(void *S, const char *name)
{
    return sema_find_rule(S, name);
}

static void find_element_sizes(Node *n, Iterator *it)
{
    if (!n) return;
    if (n->kind == ND_WINDOW) {
        for (int i = 0; i < n->nidx; i++) {
            Node *ix = n->idx[i];
            if (ix->kind == ND_SLICE && ix->lhs && ix->lhs->kind == ND_ITER_INDEX && ix->lhs->iter == it) {
                int a = ix->lhs->axis;
                long len = ix->axis;
                if (it->elem[a] == 0) it->elem[a] = len;
                else if (it->elem[a] != len)
                    diag_error_tok(ix->tok, "iter_element: windows starting at %s have lengths %ld and %ld",
                                   ix->lhs->name, it->elem[a], len);
            }
        }
    }
    find_element_sizes(n->lhs, it);
    find_element_sizes(n->rhs, it);
    find_element_sizes(n->cond, it);
    find_element_sizes(n->then, it);
    find_element_sizes(n->els, it);
    find_element_sizes(n->init, it);
    find_element_sizes(n->inc, it);
    find_element_sizes(n->body, it);
    for (Node *a = n->args; a; a = a->next) find_element_sizes(a, it);
    for (Node *d = n->decls; d; d = d->next) find_element_sizes(d->init, it);
    for (int i = 0; i < n->nidx; i++) find_element_sizes(n->idx[i], it);
}

void sema_iterator(Sema *S, Node *n)
{
    Iterator *it = n->iter;
    if (!it || !it->name) return;
    for (int d = 0; d < it->ndim; d++) {
        it->r[d].lb = sema_expr(S, it->r[d].lb);
        it->r[d].ub = sema_expr(S, it->r[d].ub);
        if (is_small(it->r[d].lb) || is_small(it->r[d].ub) || is_matrix(it->r[d].lb) || is_matrix(it->r[d].ub))
            diag_error_tok(it->tok, "iterator bounds must be scalars");
    }
    lang_resolve_rules(it, find_rule, S);
    if (S->iter) return; /* nested: reported by the parser */
    S->iter = it;
    int saved_loop = S->loop_depth;
    S->loop_depth = 0;
    sema_push_scope(S);
    S->iter_scope = S->scope;
    sema_stmt(S, it->body);
    sema_check_run_time_windows(it->body);
    sema_pop_scope(S);
    S->iter = NULL;
    S->iter_scope = NULL;
    S->loop_depth = saved_loop;
    if (it->iter_element) {
        find_element_sizes(it->body, it);
        for (int d = 0; d < it->ndim; d++)
            if (it->elem[d] == 0) it->elem[d] = 1;
    }
}

/* Dst = E; with whole matrices: an iterator over Dst. */
static Node *whole_elem(Sema *S, Node *e, Iterator *it, Obj *dst, bool *bad);

static Node *mk_index(Iterator *it, int axis)
{
    Node *r = new_node(ND_ITER_INDEX, it->tok);
    r->axis = axis;
    r->iter = it;
    r->name = lang_format("%s%c", it->name, "xyz"[axis]);
    r->ty = ty_basic(TY_INT, false);
    return r;
}

static Node *whole_elem(Sema *S, Node *e, Iterator *it, Obj *dst, bool *bad)
{
    if (!e) return e;
    if (is_matrix(e) && e->kind == ND_VAR) {
        Obj *o = e->var;
        if (o->ty->ndim != dst->ty->ndim) {
            diag_error_tok(e->tok, "'%s' has %d dimensions but '%s' has %d", o->name, o->ty->ndim,
                           dst->name, dst->ty->ndim);
            *bad = true;
            return e;
        }
        Node *r = new_node(ND_MAT_ELEM, e->tok);
        r->var = o;
        r->nidx = o->ty->ndim;
        for (int i = 0; i < r->nidx; i++) r->idx[i] = mk_index(it, i);
        r->ty = o->ty->base;
        r->next = e->next;
        return r;
    }
    if (e->kind == ND_PARAC_OP) {
        if (e->pop == OP_CONV && e->reduction_id == -2) {
            Node *f = e->args, *m = e->args->next;
            Obj *o = m->var;
            if (!o || !is_small(f) || o->ty->ndim > 2 || o->ty->ndim != dst->ty->ndim) {
                diag_error_tok(e->tok, "whole-image parac_convolution needs a small filter and a matrix "
                               "shaped like '%s'", dst->name);
                *bad = true;
                return e;
            }
            int rows = f->ty->rows, cols = f->ty->cols;
            if (o->ty->ndim == 1) { cols = rows * cols; rows = 1; }
            Node *w = new_node(ND_WINDOW, m->tok);
            w->var = o;
            w->nidx = o->ty->ndim;
            int len[2] = {rows, cols};
            int base = o->ty->ndim == 1 ? 1 : 0;
            for (int i = 0; i < w->nidx; i++) {
                Node *s = new_node(ND_SLICE, m->tok);
                Node *sub = new_node(ND_BINARY, m->tok);
                sub->op = "-";
                sub->lhs = mk_index(it, i);
                sub->rhs = lang_int_node(m->tok, len[base + i] / 2);
                sub->ty = ty_basic(TY_INT, false);
                s->lhs = sub;
                s->rhs = lang_int_node(m->tok, len[base + i]);
                s->axis = len[base + i];
                s->reduction_id = 1;
                w->idx[i] = s;
            }
            w->ty = sema_small_type(o->ty->base, rows, cols);
            e->args->next = w;
            e->reduction_id = 0;
            return e;
        }
        if (e->reduction_id == -1) {
            diag_error_tok(e->tok, "compute %s in its own statement before using it in a whole-image "
                           "expression", parac_op_name(e->pop));
            *bad = true;
        }
        return e;
    }
    if (is_small(e)) {
        diag_error_tok(e->tok, "a small matrix cannot be mixed into a whole-image expression");
        *bad = true;
        return e;
    }
    Node *nx = e->next;
    if (e->kind == ND_EWMUL) e->kind = ND_BINARY, e->op = "*";
    switch (e->kind) {
    case ND_BINARY:
        e->lhs = whole_elem(S, e->lhs, it, dst, bad);
        e->rhs = whole_elem(S, e->rhs, it, dst, bad);
        e->ty = ty_common(e->lhs->ty, e->rhs->ty);
        break;
    case ND_UNARY: case ND_CAST:
        e->lhs = whole_elem(S, e->lhs, it, dst, bad);
        if (e->kind == ND_UNARY) e->ty = e->lhs->ty;
        break;
    case ND_COND:
        e->cond = whole_elem(S, e->cond, it, dst, bad);
        e->then = whole_elem(S, e->then, it, dst, bad);
        e->els = whole_elem(S, e->els, it, dst, bad);
        break;
    case ND_CALL:
        for (Node **a = &e->args; *a; a = &(*a)->next) *a = whole_elem(S, *a, it, dst, bad);
        break;
    case ND_VAR:
        if (e->var && !ty_is_arith(e->var->ty) && e->var->ty->kind != TY_OPAQUE) {
            diag_error_tok(e->tok, "'%s' cannot be used in a whole-image expression", e->var->name);
            *bad = true;
        }
        break;
    default:
        break;
    }
    e->next = nx;
    return e;
}

bool sema_whole_image_stmt(Sema *S, Node *n)
{
    Node *a = n->lhs;
    if (!a || a->kind != ND_ASSIGN || !a->lhs || a->lhs->kind != ND_VAR || !is_matrix(a->lhs) ||
        !a->lhs->var)
        return false;
    Obj *dst = a->lhs->var;
    if (S->iter) {
        diag_error_tok(a->tok, "inside an iterator, assign elements (%s[x][y] = ...) or windows", dst->name);
        return true;
    }
    if (strcmp(a->op, "=")) {
        diag_error_tok(a->tok, "whole-image statements use '='");
        return true;
    }
    if (dst->is_small_const) {
        diag_error_tok(a->tok, "constant matrix '%s' cannot be assigned", dst->name);
        return true;
    }
    Iterator *it = lang_alloc(sizeof *it);
    it->name = lang_format("whole_L%d_", n->tok->line);
    it->tok = n->tok;
    it->ndim = dst->ty->ndim;
    it->synthetic = true;
    for (int i = 0; i < it->ndim; i++) {
        it->r[i].lb = lang_int_node(n->tok, 0);
        Node *ub = new_node(ND_VAR, n->tok);
        ub->name = lang_format("%s_d%d", dst->name, i);
        ub->ty = ty_basic(TY_INT, false);
        it->r[i].ub = ub;
        it->r[i].stride = 1;
    }
    bool bad = false;
    Node *rhs = whole_elem(S, a->rhs, it, dst, &bad);
    if (bad) return true;
    Node *lhs = whole_elem(S, a->lhs, it, dst, &bad);
    Node *as = new_node(ND_ASSIGN, a->tok);
    as->op = "=";
    as->lhs = lhs;
    as->rhs = rhs;
    as->ty = lhs->ty;
    Node *body = new_node(ND_EXPR_STMT, n->tok);
    body->lhs = as;
    it->body = body;
    if (n->whole_rule_name) {
        it->rule_name = n->whole_rule_name;
        lang_resolve_rules(it, find_rule, S);
    }
    n->kind = ND_ITERATOR;
    n->iter = it;
    n->body = body;
    n->name = it->name;
    n->lhs = NULL;
    return true;
}
