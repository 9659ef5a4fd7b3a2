/* Operators over windows of run-time length (sema_windows.c): each becomes a
 * loop printed just before its statement, into a local the operator then
 * reads. The loop visits the window's elements in the order an unrolled
 * small window's are added (rows, then columns), starting from the first
 * element, so a sum's rounding is the same as a constant window's; the
 * first element is taken before the loops (no test in them, which would keep
 * the compiler from vectorising across iterations). */
#include <string.h>

#include "lang/print.h"

static bool over_run_time_window(const Node *n)
{
    if (!n || n->kind != ND_PARAC_OP) return false;
    for (const Node *a = n->args; a; a = a->next)
        if (lang_window_is_dynamic(a)) return true;
    return false;
}

bool print_is_run_time_op(const Node *n)
{
    return over_run_time_window(n);
}

static void find_ops(Node *n, Node **ops, int *k, int cap, int depth)
{
    if (!n || depth > 400) return;
    NodeKids kids = {.n = n};
    for (Node *c; (c = lang_next_kid(&kids));) find_ops(c, ops, k, cap, depth + 1);
    if (over_run_time_window(n) && *k < cap) ops[(*k)++] = n;
}

bool print_has_run_time_ops(Node *e)
{
    Node *ops[1];
    int k = 0;
    find_ops(e, ops, &k, 1, 0);
    return k > 0;
}

static Node *var_node(Token *tok, const char *name)
{
    Node *v = new_node(ND_VAR, tok);
    v->name = name;
    v->ty = ty_basic(TY_INT, false);
    return v;
}

/* window w's element at the loop's counters: on each windowed axis (the
 * first counted by ci, a second by cj) start + counter * stride */
static void print_window_elem(PrintCtx *p, Node *w, const char *ci, const char *cj)
{
    Node *e[3];
    long add[3] = {0, 0, 0};
    int ax[2];
    lang_window_axes(w, ax);
    for (int d = 0; d < w->nidx; d++) {
        Node *ix = w->idx[d];
        if (ix->kind != ND_SLICE) {
            e[d] = ix;
            continue;
        }
        Node *k = var_node(ix->tok, d == ax[0] ? ci : cj);
        if (ix->reduction_id != 1) {
            Node *m = new_node(ND_BINARY, ix->tok);
            m->op = "*";
            m->lhs = k;
            m->rhs = lang_int_node(ix->tok, ix->reduction_id);
            m->ty = k->ty;
            k = m;
        }
        Node *s = new_node(ND_BINARY, ix->tok);
        s->op = "+";
        s->lhs = ix->lhs;
        s->rhs = k;
        s->ty = k->ty;
        e[d] = s;
    }
    print_access(p, w->var, e, add, w->nidx, true);
}

/* the count of w's windowed axis d (its constant or run-time length) */
static void print_count(PrintCtx *p, const Node *w, int d)
{
    const Node *ix = d >= 0 ? w->idx[d] : NULL;
    if (!ix) {
        out(p, "1");
        return;
    }
    if (ix->axis > 0) {
        fprintf(p->out, "%d", ix->axis);
        return;
    }
    out(p, "(int)(");
    print_expr(p, ix->rhs);
    out(p, ")");
}

/* for (int counter = from; counter < the count of w's axis; counter++)TAIL */
static void print_for(PrintCtx *p, const Node *w, const char *counter, int from, int axis, const char *tail)
{
    print_indent(p);
    fprintf(p->out, "for (int %s = %d; %s < ", counter, from, counter);
    print_count(p, w, axis);
    fprintf(p->out, "; %s++)%s\n", counter, tail);
}

/* min / max as print_operator spells them for the target */
static const char *extreme_fn(const PrintCtx *p, const Node *n)
{
    if (p->cuda) return n->pop == OP_MIN ? "parac_min" : "parac_max";
    if (p->opencl) return n->pop == OP_MIN ? "min" : "max";
    if (ty_is_float(n->ty)) return n->pop == OP_MIN ? "parac__min_f" : "parac__max_f";
    return n->pop == OP_MIN ? "parac__min_i" : "parac__max_i";
}

static void print_loop(PrintCtx *p, Node *n)
{
    const int id = p->run_time_ops++;
    Node *w = n->pop == OP_CONV ? n->args->next : n->args, *f = n->pop == OP_CONV ? n->args : NULL;
    const char *acc = lang_format("parac_dw%d", id), *ci = lang_format("parac_di%d", id),
               *cj = lang_format("parac_dj%d", id);
    Type *base = w->ty;
    /* the sum's type as print_operator's: a mean sums in the elements' type (int, long long for wide integers) */
    Type *sum_ty = n->pop == OP_MEAN ? (ty_is_float(base) ? base : ty_rank(base) >= 4 ? ty_basic(TY_LLONG, false)
                                                                                      : ty_basic(TY_INT, false))
                                     : n->ty;
    const char *T = ty_c_name(n->ty, p->opencl), *S = ty_c_name(sum_ty, p->opencl);
    int ax[2];
    lang_window_axes(w, ax);
    print_line(p, "%s %s = 0; /* %s:%d: %s over a window of run-time length */", T, acc,
               n->tok->file ? n->tok->file->name : "", n->tok->line, parac_op_name(n->pop));
    print_line(p, "{");
    p->indent++;
    if (n->pop == OP_MEAN) print_line(p, "%s parac_ds%d = 0;", S, id);
    const char *into = n->pop == OP_MEAN ? lang_format("parac_ds%d", id) : acc;
    /* the first element starts the value, then row 0's others, then the rows below: no
     * test of a first element in the loop (a length is at least 1, checked on the host) */
    const bool extreme = n->pop == OP_MIN || n->pop == OP_MAX;
    const bool opencl_cast = p->opencl && extreme;
    const char *dt = lang_format("parac_dt%d", id);
    /* one windowed axis: the second counter is always 0, its loops are left out */
    const bool one_axis = ax[1] < 0 || !w->idx[ax[1]] || w->idx[ax[1]]->kind != ND_SLICE;
    for (int part = 0; part < 3; part++) {
        const char *i = part < 2 ? "0" : ci, *j = part == 0 || one_axis ? "0" : cj;
        if (part == 1 && one_axis) continue;
        if (part == 0)
            print_line(p, "{");
        else if (part == 1 || one_axis) /* row 0's other columns; or the one axis's other elements */
            print_for(p, w, part == 1 ? cj : ci, 1, ax[part == 1], " {");
        else { /* the rows below, every column */
            print_for(p, w, ci, 1, ax[0], "");
            p->indent++;
            print_for(p, w, cj, 0, ax[1], " {");
            p->indent--;
        }
        p->indent += part == 2 && !one_axis ? 2 : 1;
        /* the element's term: the element, or filter times element */
        print_indent(p);
        fprintf(p->out, "const %s %s = %s(", n->pop == OP_CONV || n->pop == OP_SUM ? T : S, dt,
                opencl_cast ? lang_format("(%s)", T) : "");
        if (f) {
            print_window_elem(p, f, i, j);
            out(p, " * ");
        }
        print_window_elem(p, w, i, j);
        out(p, ");\n");
        if (part == 0)
            print_line(p, "%s = %s;", into, dt);
        else if (extreme)
            print_line(p, "%s = %s(%s, %s);", acc, extreme_fn(p, n), acc, dt);
        else
            print_line(p, "%s = %s + %s;", into, into, dt);
        p->indent -= part == 2 && !one_axis ? 2 : 1;
        print_line(p, part == 2 && !one_axis ? "    }" : "}");
    }
    if (n->pop == OP_MEAN) {
        print_indent(p);
        fprintf(p->out, "%s = (%s)parac_ds%d / (", acc, T, id);
        print_count(p, w, ax[0]);
        out(p, " * ");
        print_count(p, w, ax[1]);
        out(p, ");\n");
    }
    p->indent--;
    print_line(p, "}");
    n->hoisted = acc;
}

void print_run_time_loops(PrintCtx *p, Node *e)
{
    enum { CAP = 64 };
    Node *ops[CAP];
    int k = 0;
    find_ops(e, ops, &k, CAP, 0);
    for (int i = 0; i < k; i++) print_loop(p, ops[i]);
}
