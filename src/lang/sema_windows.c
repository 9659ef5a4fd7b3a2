/* Windows of run-time length: `parac_matrix_sum(in[x][y - r:2 * r + 1])`,
 * `parac_convolution(k, in[x][y - r:2 * r + 1])` with k a parac_vector.
 * A small matrix has its shape at compile time; such a window has none, so
 * it may only be what a sum, minimum, maximum, mean or convolution runs
 * over, and print.c computes that operator by a loop printed just before its
 * statement. Hence the rules checked here: the length is the same for every
 * iteration (the host's values), and the operator stands where its
 * statement evaluates it exactly once. */
#include <string.h>

#include "lang/sema.h"

static void length_walk(const Node *n, const Node *len, int depth)
{
    if (!n || depth > 200) return;
    const char *why = NULL;
    if (n->kind == ND_ITER_INDEX) why = "the iterator's indices";
    else if (n->kind == ND_VAR && n->var && n->var->is_local_to_iter) why = "the iterator's local variables";
    else if (n->kind == ND_CALL) why = "calls";
    else if (n->kind == ND_ASSIGN || n->kind == ND_POSTFIX ||
             (n->kind == ND_UNARY && n->op && (!strcmp(n->op, "++") || !strcmp(n->op, "--"))))
        why = "assignments";
    else if (n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW)
        why = "matrix elements";
    if (why) {
        diag_error_tok(n->tok, "a window's run-time length is the same for every iteration: an expression of the "
                       "host's values, without %s", why);
        return;
    }
    NodeKids k = {.n = n};
    for (Node *c; (c = lang_next_kid(&k));) length_walk(c, len, depth + 1);
}

const Node *sema_unresolved_name(const Node *n)
{
    if (!n) return NULL;
    if (n->kind == ND_VAR && !n->var) return n;
    NodeKids k = {.n = n};
    for (Node *c; (c = lang_next_kid(&k));) {
        const Node *u = sema_unresolved_name(c);
        if (u) return u;
    }
    return NULL;
}

void sema_window_length(Sema *S, Node *len)
{
    (void)S;
    length_walk(len, len, 0);
}

/* the run-time length of w's one windowed axis (NULL: not one such axis) */
static Node *one_axis_length(const Node *w)
{
    int ax[2];
    if (!lang_window_is_dynamic(w) || lang_window_axes(w, ax) != 1) return NULL;
    return w->idx[ax[0]]->rhs;
}

Node *sema_run_time_window_op(Sema *S, Node *r, const char *name)
{
    (void)S;
    Node *a = r->args, *b = a ? a->next : NULL;
    if (r->pop != OP_CONV) {
        Type *et = a->ty;
        if (r->pop == OP_SUM)
            r->ty = ty_is_float(et) ? et : ty_rank(et) < 4 ? ty_basic(TY_INT, false) : ty_basic(TY_LONG, false);
        else if (r->pop == OP_MEAN)
            r->ty = et && et->kind == TY_DOUBLE ? et : ty_basic(TY_FLOAT, false);
        else
            r->ty = et;
        return r;
    }
    r->ty = ty_basic(TY_INT, false);
    if (!lang_window_is_dynamic(b)) {
        diag_error_tok(a->tok, "%s(filter, window): the window of run-time length is the second argument", name);
        return r;
    }
    Node *len = one_axis_length(b);
    if (!len) {
        diag_error_tok(b->tok, "a convolution over a window of run-time length takes a window along one axis "
                       "(a row or a column) of one run-time length");
        return r;
    }
    if (a->kind == ND_VAR && a->var && a->ty && a->ty->kind == TY_MATRIX && a->ty->ndim == 1) {
        /* k as the window k[0:len]: its reads are the region's accesses */
        Node *s = new_node(ND_SLICE, a->tok);
        s->lhs = lang_int_node(a->tok, 0);
        s->lhs->ty = ty_basic(TY_INT, false);
        const Subst plain = {0};
        s->rhs = tree_copy(len, &plain);
        s->axis = 0;
        s->reduction_id = 1;
        s->whole_vector = true;
        Node *w = new_node(ND_WINDOW, a->tok);
        w->var = a->var;
        w->nidx = 1;
        w->idx[0] = s;
        w->ty = a->ty->base;
        w->next = b;
        r->args = a = w;
    } else if (!one_axis_length(a) || !tree_same(one_axis_length(a), len)) {
        diag_error_tok(a->tok, "the filter of a convolution over a window of run-time length is a parac_vector "
                       "(its length checked against the window's when the iterator runs) or a window along one "
                       "axis with the same length expression");
        return r;
    }
    r->ty = ty_common(a->ty, b->ty);
    return r;
}

/* ---- where such operators may stand ------------------------------------ */
static bool op_over_run_time_window(const Node *n)
{
    if (!n || n->kind != ND_PARAC_OP) return false;
    for (const Node *a = n->args; a; a = a->next)
        if (lang_window_is_dynamic(a)) return true;
    return false;
}

/* once: the expression is evaluated once each time its statement runs */
static void check_expr(const Node *n, bool once, int depth)
{
    if (!n || depth > 400) return;
    if (op_over_run_time_window(n)) {
        if (!once)
            diag_error_tok(n->tok, "an operator over a window of run-time length runs as a loop before its "
                           "statement, so it cannot stand where the statement may skip or repeat it (an operand "
                           "of '?:', the right of '&&' or '||', a loop's condition or step): assign it to a "
                           "variable first");
        for (const Node *a = n->args; a; a = a->next)
            if (lang_window_is_dynamic(a))
                for (int d = 0; d < a->nidx; d++) check_expr(a->idx[d], once, depth + 1);
            else
                check_expr(a, once, depth + 1);
        return;
    }
    if (lang_window_is_dynamic(n)) {
        diag_error_tok(n->tok, "a window of run-time length has no shape at compile time: it can only be what "
                       "parac_matrix_sum, _min, _max, _mean or parac_convolution runs over");
        return;
    }
    if (n->kind == ND_COND) {
        check_expr(n->cond, once, depth + 1);
        check_expr(n->then, false, depth + 1);
        check_expr(n->els, false, depth + 1);
        return;
    }
    if (n->kind == ND_BINARY && n->op && (!strcmp(n->op, "&&") || !strcmp(n->op, "||"))) {
        check_expr(n->lhs, once, depth + 1);
        check_expr(n->rhs, false, depth + 1);
        return;
    }
    NodeKids k = {.n = n};
    for (Node *c; (c = lang_next_kid(&k));) check_expr(c, once, depth + 1);
}

void sema_check_run_time_windows(Node *n)
{
    if (!n) return;
    switch (n->kind) {
    case ND_BLOCK:
        for (Node *s = n->args; s; s = s->next) sema_check_run_time_windows(s);
        return;
    case ND_DECL:
        for (Node *d = n->decls; d; d = d->next) check_expr(d->init, true, 0);
        return;
    case ND_EXPR_STMT: case ND_RETURN:
        check_expr(n->lhs, true, 0);
        return;
    case ND_IF:
        check_expr(n->cond, true, 0);
        sema_check_run_time_windows(n->then);
        sema_check_run_time_windows(n->els);
        return;
    case ND_SWITCH:
        check_expr(n->cond, true, 0);
        sema_check_run_time_windows(n->body);
        return;
    case ND_FOR:
        sema_check_run_time_windows(n->init);
        check_expr(n->cond, false, 0);
        check_expr(n->inc, false, 0);
        sema_check_run_time_windows(n->body);
        return;
    case ND_WHILE: case ND_DO:
        check_expr(n->cond, false, 0);
        sema_check_run_time_windows(n->body);
        return;
    default: {
        NodeKids k = {.n = n};
        for (Node *c; (c = lang_next_kid(&k));) check_expr(c, false, 0);
    }
    }
}
