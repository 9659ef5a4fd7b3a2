/* Semantic analysis of expressions: names, matrix accesses and windows, ParaC
 * operators, the types of small-matrix values (sema.c is the pass). */
#include <string.h>

#include "lang/sema.h"

/* ---- expressions ---------------------------------------------------------- */
static Node *iter_index(Sema *S, Node *n)
{
    for (Iterator *it = S->iter; it; it = NULL) {
        size_t l = strlen(it->name);
        if (strncmp(n->name, it->name, l) != 0 || strlen(n->name) != l + 1) continue;
        char c = n->name[l];
        int axis = c == 'x' ? 0 : c == 'y' ? 1 : c == 'z' ? 2 : -1;
        if (axis < 0) continue;
        if (axis >= it->ndim) {
            diag_error_tok(n->tok, "iterator '%s' has %d dimension%s: '%s' does not exist", it->name,
                           it->ndim, it->ndim == 1 ? "" : "s", n->name);
            axis = 0;
        }
        Node *r = new_node(ND_ITER_INDEX, n->tok);
        r->axis = axis;
        r->iter = it;
        r->name = n->name;
        r->ty = ty_basic(TY_INT, false);
        return r;
    }
    return NULL;
}

/* M[a][b:l:s]... on a matrix: flatten the index chain. */
static Node *matrix_access(Sema *S, Node *n)
{
    Node *chain[4];
    int k = 0;
    Node *base = n;
    while (base->kind == ND_INDEX && k < 4) {
        chain[k++] = base;
        base = base->lhs;
    }
    Obj *o = base->var;
    Type *m = o->ty;
    if (base->kind == ND_INDEX) k = 5; /* too many */
    if (k != m->ndim) {
        diag_error_tok(n->tok, "'%s' has %d dimension%s but %d ind%s given", o->name, m->ndim,
                       m->ndim == 1 ? "" : "s", k > 4 ? 4 : k, k == 1 ? "ex is" : "ices are");
        Node *r = new_node(ND_NUM, n->tok);
        r->ty = m->base;
        return r;
    }
    Node *r = new_node(ND_MAT_ELEM, base->tok);
    r->var = o;
    r->nidx = k;
    int lens[3] = {1, 1, 1};
    bool window = false, dynamic = false;
    for (int i = 0; i < k; i++) {
        Node *ix = chain[k - 1 - i]->rhs;
        if (ix->kind == ND_SLICE) {
            window = true;
            ix->lhs = sema_expr(S, ix->lhs);
            bool ok;
            long len = const_eval(ix->rhs, &ok);
            const Node *unknown = NULL;
            bool run_time = false;
            if (!ok && ix->rhs && S->run_time_windows && S->iter) {
                /* a run-time length (sema_windows.c): the operator's loop counts it */
                ix->rhs = sema_expr(S, ix->rhs);
                unknown = sema_unresolved_name(ix->rhs);
                if (!unknown) {
                    sema_window_length(S, ix->rhs);
                    len = 0;
                    dynamic = run_time = true;
                }
            }
            if (unknown) {
                /* a macro defined twice or #undef'd has no one value; an unknown name none */
                diag_error_tok(unknown->tok, "a window length must be a constant between 1 and 64, or a run-time "
                               "value of the program's variables: '%s' is neither (a macro defined twice or "
                               "#undef'd has no one value)", unknown->name);
                len = 1;
            } else if (!run_time && (!ok || len < 1 || len > 64)) {
                diag_error_tok(ix->rhs ? ix->rhs->tok : ix->tok,
                               ok ? "a window length must be a constant between 1 and 64"
                                  : "a window length must be a constant between 1 and 64, or a run-time value "
                                    "inside parac_matrix_sum, _min, _max, _mean or parac_convolution");
                len = 1;
            }
            long st = 1;
            if (ix->inc) {
                st = const_eval(ix->inc, &ok);
                if (!ok || st < 1) {
                    diag_error_tok(ix->inc->tok, "a window stride must be a positive constant");
                    st = 1;
                }
            }
            ix->axis = (int)len;       /* length */
            ix->reduction_id = (int)st; /* stride */
            lens[i] = (int)len;
        } else if (ix->kind == ND_WILDCARD) {
            diag_error_tok(ix->tok, "'*' is only an index inside a parac_border_rule");
        } else {
            ix = sema_expr(S, ix);
            if (is_small(ix) || is_matrix(ix))
                diag_error_tok(ix->tok, "an index must be a scalar");
        }
        r->idx[i] = ix;
    }
    if (dynamic) {
        /* a window of run-time length: its operator loops over it (print.c);
         * typed as its elements, which the operator combines */
        r->kind = ND_WINDOW;
        int ax[2];
        if (lang_window_axes(r, ax) > 2)
            diag_error_tok(base->tok, "a window of '%s' spans at most two of its three axes (a small matrix has "
                           "rows and columns)", o->name);
        r->ty = m->base;
        return r;
    }
    if (window) {
        r->kind = ND_WINDOW;
        int rows = 1, cols = 1;
        if (m->ndim == 1)
            cols = lens[0];
        else if (m->ndim == 2) {
            rows = lens[0];
            cols = lens[1];
        } else {
            /* 3-D: the small matrix of the windowed axes (lang_window_axes) */
            int ax[2];
            const int nw = lang_window_axes(r, ax);
            if (nw > 2)
                diag_error_tok(base->tok, "a window of '%s' spans at most two of its three axes (a small matrix has "
                               "rows and columns)", o->name);
            else if (nw == 2) {
                rows = lens[ax[0]];
                cols = lens[ax[1]];
            } else if (ax[0] == 2)
                cols = lens[2];
            else
                rows = lens[ax[0]];
        }
        if (rows * cols > 256) diag_error_tok(n->tok, "window larger than 256 elements");
        r->ty = sema_small_type(m->base, rows, cols);
    } else {
        r->ty = m->base;
    }
    if (!S->iter && window)
        diag_error_tok(n->tok, "a window access of '%s' is only allowed inside a parac_iterator", o->name);
    return r;
}


/* parac_matrix_kth(w, k) / parac_matrix_median(w): an order statistic of a
 * window or constant small matrix inside an iterator, of the element type;
 * k a constant in [0, count), the median's count odd. */
static Node *order_statistic(Sema *S, Node *r, const char *name, Node *a, Node *k)
{
    r->ty = ty_basic(TY_INT, false);
    if (!S->iter || !is_small(a)) {
        diag_error_tok(a->tok, "%s needs a window or a constant small matrix inside an iterator (a median of a "
                       "whole matrix is not supported)", name);
        return r;
    }
    r->ty = a->ty->base;
    const long count = (long)a->ty->rows * a->ty->cols;
    sema_set_cost3(r, count * (cost_of(a) + 4), a, NULL);
    if (r->pop == OP_MEDIAN) {
        if (count % 2 == 0)
            diag_error_tok(r->tok, "parac_matrix_median needs an odd number of elements (this window has %ld): "
                           "use parac_matrix_kth(window, k) to choose one of the two middle ones", count);
        return r;
    }
    bool ok;
    long kv = const_eval(k, &ok);
    if (!ok || kv < 0 || kv >= count)
        diag_error_tok(k->tok, "the k of parac_matrix_kth must be a constant from 0 to %ld (the window's elements "
                       "less one)", count - 1);
    return r;
}

static Node *parac_call(Sema *S, Node *n, const char *name)
{
    int nargs = 0;
    for (Node *a = n->args; a; a = a->next) nargs++;
    if (!strcmp(name, "transe")) {
        if (nargs != 1) {
            diag_error_tok(n->tok, "transe() takes one matrix");
            return n;
        }
        Node *a = sema_expr(S, n->args);
        Node *r = new_node(ND_TRANSE, n->tok);
        r->lhs = a;
        if (!is_small(a)) {
            diag_error_tok(n->tok, "transe() needs a small matrix (a constant matrix or a window)");
            r->ty = a->ty;
        } else
            r->ty = sema_small_type(a->ty->base, a->ty->cols, a->ty->rows);
        r->cost = a->cost;
        return r;
    }
    Node *r = new_node(ND_PARAC_OP, n->tok);
    r->pop = !strcmp(name, "parac_matrix_sum") ? OP_SUM
             : !strcmp(name, "parac_matrix_min") ? OP_MIN
             : !strcmp(name, "parac_matrix_max") ? OP_MAX
             : !strcmp(name, "parac_matrix_mean") ? OP_MEAN
             : !strcmp(name, "parac_matrix_kth") ? OP_KTH
             : !strcmp(name, "parac_matrix_median") ? OP_MEDIAN : OP_CONV;
    int want = r->pop == OP_CONV || r->pop == OP_KTH ? 2 : 1;
    if (nargs != want) {
        diag_error_tok(n->tok, "%s takes %d argument%s", name, want, want == 1 ? "" : "s");
        r->ty = ty_basic(TY_INT, false);
        return r;
    }
    /* sums, extremes, means and convolutions also take windows of run-time length */
    const bool saved = S->run_time_windows;
    S->run_time_windows = r->pop != OP_KTH && r->pop != OP_MEDIAN;
    Node *a = sema_expr(S, n->args);
    Node *b = r->pop == OP_CONV || r->pop == OP_KTH ? sema_expr(S, n->args->next) : NULL;
    S->run_time_windows = saved;
    a->next = b;
    r->args = a;
    if (r->pop == OP_KTH || r->pop == OP_MEDIAN) return order_statistic(S, r, name, a, b);
    if (lang_window_is_dynamic(a) || lang_window_is_dynamic(b)) return sema_run_time_window_op(S, r, name);
    if (is_small(a)) sema_set_cost3(r, (long)a->ty->rows * a->ty->cols * (cost_of(a) + (b && is_small(b) ? cost_of(b) : 0)), a, b);
    if (r->pop != OP_CONV) {
        Type *et = a->ty && (a->ty->kind == TY_SMALL || a->ty->kind == TY_MATRIX) ? a->ty->base : a->ty;
        if (is_matrix(a)) {
            if (S->iter) {
                diag_error_tok(a->tok, "inside an iterator, %s needs a window such as %s[x:3][y:3], not the whole matrix",
                               name, a->var ? a->var->name : "M");
            }
            /* an independent operator: a global reduction over the whole matrix */
            r->reduction_id = -1;
        } else if (!is_small(a)) {
            diag_error_tok(a->tok, "%s needs a matrix or a window", name);
            et = ty_basic(TY_INT, false);
        }
        if (r->pop == OP_SUM)
            r->ty = ty_is_float(et) ? et
                    : (!is_matrix(a) && ty_rank(et) < 4) ? ty_basic(TY_INT, false)
                                                          : ty_basic(TY_LONG, false);
        else if (r->pop == OP_MEAN)
            r->ty = et && et->kind == TY_DOUBLE ? et : ty_basic(TY_FLOAT, false);
        else
            r->ty = et;
        return r;
    }
    /* convolution */
    if (is_matrix(b)) {
        r->reduction_id = -2; /* whole-image convolution: only in `Dst = ...;` */
        r->ty = b->ty->base;
        if (!is_small(a)) diag_error_tok(a->tok, "the filter of parac_convolution must be a small matrix");
        return r;
    }
    if (!is_small(a) || !is_small(b)) {
        diag_error_tok(n->tok, "parac_convolution(filter, window) needs two small matrices");
        r->ty = ty_basic(TY_INT, false);
        return r;
    }
    if (a->ty->rows * a->ty->cols != b->ty->rows * b->ty->cols)
        diag_error_tok(n->tok, "parac_convolution: filter has %dx%d elements but the window %dx%d",
                       a->ty->rows, a->ty->cols, b->ty->rows, b->ty->cols);
    r->ty = ty_common(a->ty->base, b->ty->base);
    return r;
}

static bool writes_host_var(Sema *S, Node *lhs)
{
    return S->iter && lhs && lhs->kind == ND_VAR && lhs->var && !lhs->var->is_local_to_iter &&
           lhs->var->ty->kind != TY_MATRIX;
}

Node *sema_expr(Sema *S, Node *n)
{
    if (!n) return n;
    Node *nx = n->next;
    switch (n->kind) {
    case ND_NUM:
        n->ty = n->tok->is_float ? ty_basic(
                    (n->tok->loc[n->tok->len - 1] | 32) == 'f' ? TY_FLOAT : TY_DOUBLE, false)
                                 : ty_basic(TY_INT, false);
        break;
    case ND_STR: n->ty = ty_basic(TY_PTR, false); n->ty->base = ty_basic(TY_CHAR, false); break;
    case ND_CHARLIT: n->ty = ty_basic(TY_INT, false); break;
    case ND_WILDCARD:
        diag_error_tok(n->tok, "'*' is only an index inside a parac_border_rule");
        n->ty = ty_basic(TY_INT, false);
        break;
    case ND_VAR: {
        if (n->ty) break; /* resolved already (the base of an index chain) */
        Node *ix = iter_index(S, n);
        if (ix) return ix;
        Obj *o = sema_find_obj(S, n->name);
        n->var = o;
        if (!o) {
            /* a macro, an enum constant or a name from a header */
            n->ty = ty_basic(TY_OPAQUE, false);
            n->ty->name = "int";
            break;
        }
        if (o->is_typedef) {
            diag_error_tok(n->tok, "'%s' is a type, not a value", o->name);
            n->ty = ty_basic(TY_INT, false);
            break;
        }
        if (is_pyramid_obj(o)) {
            Node *r = sema_pyramid_access(S, n, n, o, false);
            r->next = nx;
            return r;
        }
        if (o->is_small_const) {
            Type *m = o->ty;
            bool ok;
            int r = m->ndim == 2 ? (int)const_eval(m->dims[0], &ok) : 1;
            int c = (int)const_eval(m->dims[m->ndim - 1], &ok);
            n->ty = sema_small_type(m->base, r, c);
        } else
            n->ty = o->ty;
        if (S->iter && !o->is_local_to_iter && !o->is_func && o->ty->kind != TY_MATRIX &&
            !o->is_small_const && !ty_is_arith(o->ty) && !o->is_global) {
            diag_error_tok(n->tok, "'%s' cannot be used inside an iterator: only numbers, matrices "
                           "and constant matrices cross into a parallel region", o->name);
        }
        if (S->iter && o->is_global && !o->is_func && o->ty->kind != TY_MATRIX) {
            if (!(o->ty->is_const && ty_is_arith(o->ty)))
                diag_error_tok(n->tok, "global variable '%s' cannot be used inside an iterator "
                               "(only const numbers or #define constants)", o->name);
        }
        break;
    }
    case ND_INDEX: {
        Node *base = n;
        while (base->kind == ND_INDEX) base = base->lhs;
        if (base->kind == ND_VAR && !base->ty && is_pyramid_obj(sema_find_obj(S, base->name))) {
            Node *r = sema_pyramid_access(S, n, base, sema_find_obj(S, base->name), S->call_arg == n);
            r->next = nx;
            return r;
        }
        if (base->kind == ND_VAR) {
            Node *b = sema_expr(S, base);
            if (b->kind == ND_VAR && b->var && b->var->ty->kind == TY_MATRIX) {
                if (b->var->is_small_const) {
                    /* element of a constant matrix: keep C indexing */
                } else {
                    base->var = b->var;
                    Node *r = matrix_access(S, n);
                    r->next = nx;
                    return r;
                }
            }
        }
        n->lhs = sema_expr(S, n->lhs);
        if (n->rhs && n->rhs->kind == ND_SLICE) {
            diag_error_tok(n->rhs->tok, "window access needs a parac_matrix or parac_vector");
            n->rhs = n->rhs->lhs;
        }
        n->rhs = sema_expr(S, n->rhs);
        Type *t = n->lhs->ty;
        if (t && (t->kind == TY_PTR || t->kind == TY_ARRAY)) n->ty = t->base;
        else if (t && t->kind == TY_SMALL) n->ty = sema_small_type(t->base, 1, t->cols); /* row of const */
        else if (t && t->kind == TY_MATRIX) n->ty = t->base;
        else n->ty = ty_basic(TY_INT, false);
        if (n->lhs->ty && n->lhs->ty->kind == TY_SMALL && n->lhs->kind == ND_INDEX)
            n->ty = n->lhs->ty->base;
        else if (n->lhs->kind == ND_VAR && n->lhs->var && n->lhs->var->is_small_const) {
            if (n->lhs->var->ty->ndim == 1) n->ty = n->lhs->var->ty->base;
        }
        break;
    }
    case ND_CALL: {
        if (n->name && (!strncmp(n->name, "parac_matrix_", 13) || !strcmp(n->name, "parac_convolution") ||
                        !strcmp(n->name, "transe"))) {
            if (!strcmp(n->name, "parac_matrix_sum") || !strcmp(n->name, "parac_matrix_min") ||
                !strcmp(n->name, "parac_matrix_max") || !strcmp(n->name, "parac_matrix_mean") ||
                !strcmp(n->name, "parac_matrix_kth") || !strcmp(n->name, "parac_matrix_median") ||
                !strcmp(n->name, "parac_convolution") || !strcmp(n->name, "transe")) {
                Node *r = parac_call(S, n, n->name);
                r->next = nx;
                return r;
            }
            diag_error_tok(n->tok, "unknown ParaC operator '%s'", n->name);
        }
        if (n->lhs->kind != ND_VAR) n->lhs = sema_expr(S, n->lhs);
        else {
            Obj *o = sema_find_obj(S, n->name);
            n->lhs->var = o;
            if (S->iter && o && !o->is_func)
                diag_error_tok(n->tok, "'%s' is not a function", n->name);
        }
        for (Node **a = &n->args; *a; a = &(*a)->next) {
            Node *an = (*a)->next;
            S->call_arg = *a;
            *a = sema_expr(S, *a);
            S->call_arg = NULL;
            (*a)->next = an;
            if (is_small(*a)) diag_error_tok((*a)->tok, "a small matrix cannot be passed to a C function");
        }
        Obj *f = n->lhs->var;
        n->ty = f && f->ty->kind == TY_FUNC ? f->ty->base : ty_basic(TY_INT, false);
        if (!f && n->name) { /* math functions from headers: double */
            static const char *dbl[] = {"sqrt", "exp", "log", "pow", "fabs", "floor", "ceil", "sin",
                                        "cos", "tan", "atan2", "fmin", "fmax", "round", "hypot"};
            for (size_t i = 0; i < sizeof dbl / sizeof *dbl; i++)
                if (!strcmp(n->name, dbl[i])) n->ty = ty_basic(TY_DOUBLE, false);
            const char *nm = n->name;
            size_t l = strlen(nm);
            if (l > 1 && nm[l - 1] == 'f') n->ty = ty_basic(TY_FLOAT, false);
        }
        break;
    }
    case ND_MEMBER:
        n->lhs = sema_expr(S, n->lhs);
        n->ty = ty_basic(TY_OPAQUE, false);
        n->ty->name = "int";
        break;
    case ND_CAST:
        n->cast_ty = sema_resolve_type(S, n->cast_ty);
        n->lhs = sema_expr(S, n->lhs);
        n->ty = n->cast_ty;
        if (is_small(n->lhs)) n->ty = sema_small_type(n->cast_ty, n->lhs->ty->rows, n->lhs->ty->cols);
        n->cost = n->lhs->cost;
        break;
    case ND_SIZEOF_TYPE:
        n->cast_ty = sema_resolve_type(S, n->cast_ty);
        n->ty = ty_basic(TY_LONG, true);
        break;
    case ND_SIZEOF_EXPR:
        n->lhs = sema_expr(S, n->lhs);
        n->ty = ty_basic(TY_LONG, true);
        break;
    case ND_UNARY:
    case ND_POSTFIX:
        n->lhs = sema_expr(S, n->lhs);
        if ((!strcmp(n->op, "++") || !strcmp(n->op, "--")) && writes_host_var(S, n->lhs))
            diag_error_tok(n->tok, "iterator body modifies host variable '%s'; iterations run in "
                           "parallel (declare it inside the iterator)", n->lhs->var->name);
        if (is_matrix(n->lhs) && strcmp(n->op, "&"))
            diag_error_tok(n->tok, "operator '%s' cannot apply to parac_matrix '%s'", n->op,
                           n->lhs->var ? n->lhs->var->name : "?");
        if (!strcmp(n->op, "&")) {
            n->ty = ty_basic(TY_PTR, false);
            n->ty->base = n->lhs->ty;
        } else if (!strcmp(n->op, "*")) {
            Type *t = n->lhs->ty;
            n->ty = t && (t->kind == TY_PTR || t->kind == TY_ARRAY) ? t->base : ty_basic(TY_INT, false);
        } else if (!strcmp(n->op, "!"))
            n->ty = ty_basic(TY_INT, false);
        else if (is_small(n->lhs)) {
            n->ty = n->lhs->ty;
            n->cost = n->lhs->cost;
        }
        else
            n->ty = ty_common(n->lhs->ty, ty_basic(TY_INT, false));
        if (is_small(n->lhs) && strcmp(n->op, "-") && strcmp(n->op, "+"))
            diag_error_tok(n->tok, "operator '%s' does not apply to a small matrix", n->op);
        break;
    case ND_EWMUL:
    case ND_BINARY: {
        n->lhs = sema_expr(S, n->lhs);
        n->rhs = sema_expr(S, n->rhs);
        Node *a = n->lhs, *b = n->rhs;
        if (is_matrix(a) || is_matrix(b)) {
            /* whole-matrix arithmetic: only as a whole-image statement */
            if (S->iter) diag_error_tok(n->tok, "inside an iterator, index the matrix (M[x][y]) or take a window");
            n->ty = is_matrix(a) ? a->ty : b->ty;
            break;
        }
        if (is_small(a) || is_small(b)) {
            const char *op = n->op;
            Type *et = ty_common(is_small(a) ? a->ty->base : a->ty, is_small(b) ? b->ty->base : b->ty);
            if (n->kind == ND_EWMUL || !strcmp(op, "+") || !strcmp(op, "-")) {
                if (is_small(a) && is_small(b) &&
                    (a->ty->rows != b->ty->rows || a->ty->cols != b->ty->cols)) {
                    diag_error_tok(n->tok, "element-wise '%s' needs equal shapes: %dx%d and %dx%d",
                                   n->kind == ND_EWMUL ? ".*" : op, a->ty->rows, a->ty->cols, b->ty->rows, b->ty->cols);
                }
                if ((!is_small(a) || !is_small(b)) && n->kind != ND_EWMUL)
                    diag_error_tok(n->tok, "'%s' between a matrix and a scalar: use '*' to scale", op);
                n->ty = sema_small_type(et, is_small(a) ? a->ty->rows : b->ty->rows,
                                   is_small(a) ? a->ty->cols : b->ty->cols);
            } else if (!strcmp(op, "*")) {
                if (is_small(a) && is_small(b)) {
                    if (a->ty->cols != b->ty->rows)
                        diag_error_tok(n->tok, "matrix product of %dx%d and %dx%d: inner sizes differ",
                                       a->ty->rows, a->ty->cols, b->ty->rows, b->ty->cols);
                    n->ty = sema_small_type(et, a->ty->rows, b->ty->cols);
                    if (n->ty->rows * n->ty->cols > 256) diag_error_tok(n->tok, "matrix product too large");
                    sema_set_cost3(n, (long)a->ty->cols * (cost_of(a) + cost_of(b)), a, b);
                } else {
                    n->ty = sema_small_type(et, is_small(a) ? a->ty->rows : b->ty->rows,
                                       is_small(a) ? a->ty->cols : b->ty->cols);
                }
            } else if (!strcmp(op, "/") && is_small(a) && !is_small(b)) {
                n->ty = sema_small_type(et, a->ty->rows, a->ty->cols);
            } else {
                diag_error_tok(n->tok, "operator '%s' does not apply to small matrices", op);
                n->ty = et;
            }
            if (n->cost == 0) sema_set_cost3(n, cost_of(a) + cost_of(b), a, b);
            break;
        }
        if (n->kind == ND_EWMUL) {
            if (is_small(a) || is_small(b)) sema_set_cost3(n, cost_of(a) + cost_of(b), a, b);
            diag_error_tok(n->tok, "'.*' needs matrices or windows");
            n->kind = ND_BINARY;
            n->op = "*";
        }
        const char *op = n->op;
        if (!strcmp(op, "==") || !strcmp(op, "!=") || !strcmp(op, "<") || !strcmp(op, "<=") ||
            !strcmp(op, ">") || !strcmp(op, ">=") || !strcmp(op, "&&") || !strcmp(op, "||"))
            n->ty = ty_basic(TY_INT, false);
        else if (!strcmp(op, "<<") || !strcmp(op, ">>"))
            n->ty = ty_common(a->ty, ty_basic(TY_INT, false));
        else if (a->ty && (a->ty->kind == TY_PTR || a->ty->kind == TY_ARRAY))
            n->ty = a->ty;
        else
            n->ty = ty_common(a->ty, b->ty);
        break;
    }
    case ND_ASSIGN: {
        n->lhs = sema_expr(S, n->lhs);
        n->rhs = sema_expr(S, n->rhs);
        Node *l = n->lhs, *r = n->rhs;
        if (writes_host_var(S, l))
            diag_error_tok(n->tok, "iterator body assigns host variable '%s'; iterations run in "
                           "parallel (declare it inside the iterator)", l->var->name);
        if (l->kind == ND_VAR && l->var && l->var->is_small_const)
            diag_error_tok(n->tok, "constant matrix '%s' cannot be assigned", l->var->name);
        if (is_small(r) || l->kind == ND_WINDOW) {
            if (l->kind != ND_WINDOW)
                diag_error_tok(n->tok, "a %dx%d matrix value can only be assigned to a window", small_rows(r->ty), small_cols(r->ty));
            else if (is_small(r) && (l->ty->rows != r->ty->rows || l->ty->cols != r->ty->cols))
                diag_error_tok(n->tok, "assigning a %dx%d value to a %dx%d window", r->ty->rows,
                               r->ty->cols, l->ty->rows, l->ty->cols);
            else if (strcmp(n->op, "="))
                diag_error_tok(n->tok, "only '=' assigns a window");
        }
        n->ty = l->ty;
        break;
    }
    case ND_COND:
        n->cond = sema_expr(S, n->cond);
        n->then = sema_expr(S, n->then);
        n->els = sema_expr(S, n->els);
        if (is_small(n->then) || is_small(n->els) || is_small(n->cond))
            diag_error_tok(n->tok, "'?:' does not apply to small matrices");
        n->ty = ty_common(n->then->ty, n->els->ty);
        if (n->then->ty && n->then->ty->kind == TY_PTR) n->ty = n->then->ty;
        break;
    case ND_COMMA:
        n->lhs = sema_expr(S, n->lhs);
        n->rhs = sema_expr(S, n->rhs);
        n->ty = n->rhs->ty;
        break;
    case ND_SLICE:
        diag_error_tok(n->tok, "a window 'start:length:stride' is only an index of a parac_matrix");
        n->lhs = sema_expr(S, n->lhs);
        return n->lhs;
    case ND_INIT_LIST:
        diag_error_tok(n->tok, "an initialiser list is not an expression here");
        n->ty = ty_basic(TY_INT, false);
        break;
    default:
        n->ty = ty_basic(TY_INT, false);
        break;
    }
    n->next = nx;
    return n;
}
