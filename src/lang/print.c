/* Printing C / OpenCL C from the typed AST, shared by both back ends.
 *
 * Matrices are flat arrays with a row pitch in elements: M[x][y] prints as
 * M[(x) * M_pitch + (y)]; a channel index c of M[c][x][y] adds
 * c * M_d1 rows. Small-matrix values (windows, constant matrices, products,
 * transe) are expanded element by element at compile time (print_elem), so
 * no small matrix exists at run time. In a border variant, reads of the
 * ruled matrix go through the rule's values. */
#include <stdarg.h>
#include <string.h>

#include "lang/print.h"

void print_indent(PrintCtx *p)
{
    for (int i = 0; i < p->indent; i++) fputs("    ", p->out);
}

void print_line(PrintCtx *p, const char *fmt, ...)
{
    print_indent(p);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(p->out, fmt, ap);
    va_end(ap);
    fputc('\n', p->out);
}

void print_fmt(PrintCtx *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(p->out, fmt, ap);
    va_end(ap);
}

/* ---- types ------------------------------------------------------------------ */
void print_type_decl(FILE *o, Type *ty, const char *name, bool opencl)
{
    if (!ty) {
        fprintf(o, "int %s", name);
        return;
    }
    if (ty->kind == TY_ARRAY) {
        /* element type, then the brackets */
        Type *t = ty;
        while (t->kind == TY_ARRAY) t = t->base;
        print_type_decl(o, t, name, opencl);
        for (t = ty; t->kind == TY_ARRAY; t = t->base) {
            fputc('[', o);
            if (t->array_len) {
                PrintCtx p = {0};
                p.out = o;
                p.opencl = opencl;
                print_expr(&p, t->array_len);
            }
            fputc(']', o);
        }
        return;
    }
    if (ty->kind == TY_PTR) {
        int stars = 0;
        Type *t = ty;
        while (t->kind == TY_PTR) {
            stars++;
            t = t->base;
        }
        if (t->kind == TY_ARRAY || t->kind == TY_FUNC) {
            fprintf(o, "void *%s", name); /* pointer to array/function: opaque */
            return;
        }
        fprintf(o, "%s%s ", t->is_const ? "const " : "", ty_c_name(t, opencl));
        for (int i = 0; i < stars; i++) fputc('*', o);
        fputs(name, o);
        return;
    }
    if (ty->kind == TY_MATRIX) {
        fprintf(o, "%s *%s", ty_c_name(ty->base, opencl), name);
        return;
    }
    fprintf(o, "%s%s %s", ty->is_const ? "const " : "", ty_c_name(ty, opencl), name);
}

/* ---- operators ------------------------------------------------------------ */
/* The k of an order statistic over cnt elements. */
static long order_k(const Node *n, int cnt)
{
    if (n->pop == OP_MEDIAN) return (cnt - 1) / 2;
    bool ok;
    long k = n->args && n->args->next ? const_eval(n->args->next, &ok) : 0;
    return k < 0 ? 0 : k >= cnt ? cnt - 1 : k;
}

/* A type's C name as part of an identifier: "unsigned char" -> "unsigned_char". */
static const char *order_type_name(Type *t, bool opencl)
{
    const char *c = ty_c_name(t, opencl);
    char *s = lang_strndup(c, strlen(c));
    for (char *q = s; *q; q++)
        if (*q == ' ') *q = '_';
    return s;
}

typedef struct OrderUse {
    Type *ty;
    int cnt;
    long k;
} OrderUse;

static void collect_order_uses(Node *n, OrderUse *u, int *nu, int cap, bool opencl, int depth)
{
    if (!n || depth > 400) return;
    if (n->kind == ND_PARAC_OP && (n->pop == OP_KTH || n->pop == OP_MEDIAN) && n->args && n->args->ty &&
        n->args->ty->kind == TY_SMALL) {
        const int cnt = n->args->ty->rows * n->args->ty->cols;
        const long k = order_k(n, cnt);
        bool seen = false;
        for (int i = 0; i < *nu; i++)
            seen |= u[i].cnt == cnt && u[i].k == k &&
                    !strcmp(ty_c_name(u[i].ty, opencl), ty_c_name(n->ty, opencl));
        if (!seen && *nu < cap) u[(*nu)++] = (OrderUse){n->ty, cnt, k};
    }
    Node *c;
    for (NodeKids kid = {.n = n}; (c = lang_next_kid(&kid));) collect_order_uses(c, u, nu, cap, opencl, depth + 1);
}

/* The order statistics the program uses, as functions of the target: the
 * k-th smallest of cnt values by passes of compare-exchanges (each a min and
 * a max, no branch), as many as put position k in place: k + 1 passes that
 * carry minima to the front, or cnt - k that carry maxima to the back. */
void print_order_helpers(PrintCtx *p, Program *prog)
{
    enum { CAP = 64 };
    OrderUse u[CAP];
    int nu = 0;
    for (Node *f = prog->top; f; f = f->next)
        if (f->kind == ND_FUNC) collect_order_uses(f->body, u, &nu, CAP, p->opencl, 0);
    for (int i = 0; i < nu; i++) {
        const char *T = ty_c_name(u[i].ty, p->opencl);
        const int n = u[i].cnt;
        const long k = u[i].k;
        fprintf(p->out, "%s%s parac__kth_%s_%d_%ld(", p->cuda ? "__device__ static inline " : p->opencl ? "" : "static inline ",
                T, order_type_name(u[i].ty, p->opencl), n, k);
        for (int e = 0; e < n; e++) fprintf(p->out, "%s%s v%d", e ? ", " : "", T, e);
        fprintf(p->out, ")\n{\n    %s t;\n", T);
        const bool front = k + 1 <= n - k;
        const long passes = front ? k + 1 : n - k;
        for (long s = 0; s < passes; s++) {
            if (front) /* the s-th smallest to position s */
                for (int j = n - 1; j > s; j--)
                    fprintf(p->out, "    t = v%d < v%d ? v%d : v%d; v%d = v%d < v%d ? v%d : v%d; v%d = t;\n", j, j - 1, j, j - 1,
                            j, j, j - 1, j - 1, j, j - 1);
            else /* the s-th largest to position n - 1 - s */
                for (int j = 0; j < n - 1 - s; j++)
                    fprintf(p->out, "    t = v%d < v%d ? v%d : v%d; v%d = v%d < v%d ? v%d : v%d; v%d = t;\n", j + 1, j, j, j + 1,
                            j, j + 1, j, j + 1, j, j + 1);
        }
        fprintf(p->out, "    return v%ld;\n}\n\n", k);
    }
}

static void print_operator(PrintCtx *p, Node *n)
{
    if (print_is_run_time_op(n)) {
        /* its loop stands before the statement (print_windows.c); an
         * operator printed elsewhere names nothing and fails to compile */
        out(p, n->hoisted ? n->hoisted : "parac__run_time_window_outside_its_statement");
        return;
    }
    if (n->reduction_id >= 0 && !p->in_kernel && n->pop != OP_CONV) {
        fprintf(p->out, "parac_red_%d", n->reduction_id);
        return;
    }
    Node *a = n->args;
    if (n->pop == OP_CONV) {
        Node *f = a, *w = a ? a->next : NULL;
        if (!is_small_node(f) || !is_small_node(w)) {
            out(p, "0");
            return;
        }
        int fc = f->ty->cols, wc = w->ty->cols, cnt = f->ty->rows * f->ty->cols;
        out(p, "(");
        for (int k = 0; k < cnt; k++) {
            if (k) out(p, " + ");
            print_elem(p, f, k / fc, k % fc);
            out(p, " * ");
            print_elem(p, w, k / wc, k % wc);
        }
        out(p, ")");
        return;
    }
    if (!is_small_node(a)) {
        out(p, "0");
        return;
    }
    int R = a->ty->rows, C = a->ty->cols;
    const char *acc = ty_c_name(n->pop == OP_MEAN ? (ty_is_float(a->ty->base) && a->ty->base->kind == TY_DOUBLE ? a->ty->base : n->ty) : n->ty, p->opencl);
    if (n->pop == OP_SUM || n->pop == OP_MEAN) {
        if (n->pop == OP_MEAN) fprintf(p->out, "((%s)", acc);
        const char *sum_ty = ty_c_name(n->pop == OP_SUM ? n->ty : (ty_is_float(a->ty->base) ? a->ty->base : ty_basic(TY_INT, false)), p->opencl);
        if (n->pop == OP_MEAN && ty_rank(a->ty->base) >= 4 && !ty_is_float(a->ty->base)) sum_ty = p->opencl ? "long" : "long long";
        fprintf(p->out, "((%s)", sum_ty);
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++) {
                if (i || j) out(p, " + ");
                print_elem(p, a, i, j);
            }
        out(p, ")");
        if (n->pop == OP_MEAN) fprintf(p->out, " / %d)", R * C);
        return;
    }
    if (n->pop == OP_KTH || n->pop == OP_MEDIAN) {
        const int cnt = R * C;
        const long k = order_k(n, cnt);
        fprintf(p->out, "parac__kth_%s_%d_%ld(", order_type_name(n->ty, p->opencl), cnt, k);
        for (int e = 0; e < cnt; e++) {
            if (e) out(p, ", ");
            print_elem(p, a, e / C, e % C);
        }
        out(p, ")");
        return;
    }
    /* min / max: a chain of calls (functions, not macros: a macro would copy
     * its arguments and the chain would grow exponentially) */
    const char *T = ty_c_name(n->ty, p->opencl);
    const char *f;
    if (p->cuda)
        f = n->pop == OP_MIN ? "parac_min" : "parac_max"; /* templates of the CUDA prelude */
    else if (p->opencl)
        f = n->pop == OP_MIN ? "min" : "max";
    else if (ty_is_float(n->ty))
        f = n->pop == OP_MIN ? "parac__min_f" : "parac__max_f";
    else
        f = n->pop == OP_MIN ? "parac__min_i" : "parac__max_i";
    int cnt = R * C;
    fprintf(p->out, "((%s)", T);
    for (int k = 0; k < cnt - 1; k++) fprintf(p->out, "%s(", f);
    for (int k = 0; k < cnt; k++) {
        if (p->opencl) fprintf(p->out, "(%s)", T);
        print_elem(p, a, k / C, k % C);
        if (k > 0) out(p, ")");
        if (k < cnt - 1) out(p, ", ");
    }
    out(p, ")");
}

/* C library float functions under their OpenCL names. */
static const char *opencl_func_name(const char *name)
{
    static const char *map[][2] = {
        {"sqrtf", "sqrt"}, {"fabsf", "fabs"}, {"expf", "exp"}, {"logf", "log"}, {"powf", "pow"},
        {"floorf", "floor"}, {"ceilf", "ceil"}, {"roundf", "round"}, {"fminf", "fmin"},
        {"fmaxf", "fmax"}, {"sinf", "sin"}, {"cosf", "cos"}, {"tanf", "tan"}, {"atan2f", "atan2"},
        {"hypotf", "hypot"}, {"truncf", "trunc"}, {"labs", "abs"}, {"llabs", "abs"},
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (!strcmp(name, map[i][0])) return map[i][1];
    return name;
}

/* ---- parentheses only where C needs them (and where gcc -Wparentheses
 * would ask for them) ---------------------------------------------------- */
static int binary_prec(const char *op)
{
    static const struct { const char *op; int prec; } t[] = {
        {"||", 4}, {"&&", 5}, {"|", 6}, {"^", 7}, {"&", 8}, {"==", 9}, {"!=", 9}, {"<", 10},
        {"<=", 10}, {">", 10}, {">=", 10}, {"<<", 11}, {">>", 11}, {"+", 12}, {"-", 12},
        {"*", 13}, {"/", 13}, {"%", 13}, {".*", 13},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (!strcmp(op, t[i].op)) return t[i].prec;
    return 0;
}

/* Precedence of an expression as printed: 16 for primaries and postfix forms. */
int print_expr_prec(Node *n)
{
    switch (n->kind) {
    case ND_COMMA: return 1;
    case ND_ASSIGN: return 2;
    case ND_COND: return 3;
    case ND_BINARY: return n->ty && n->ty->kind == TY_SMALL ? 16 : binary_prec(n->op);
    case ND_UNARY: case ND_CAST: case ND_SIZEOF_EXPR: case ND_SIZEOF_TYPE: return 14;
    default: return 16;
    }
}

/* Child `c` of binary operator `op` (on the right when `right`). */
static bool needs_parens(Node *c, const char *op, bool right)
{
    int cp = print_expr_prec(c), pp = binary_prec(op);
    if (cp >= 14) return false;
    if (cp < 4) return true;
    if (pp >= 12) return cp < pp || (cp == pp && right);   /* arithmetic */
    if (pp == 9 || pp == 10) return cp < 11 || cp == 11;    /* comparisons: arithmetic children only */
    if (pp == 4 || pp == 5) return cp < 9;                  /* && ||: comparisons and arithmetic */
    return true;                                            /* bitwise and shifts: always */
}

static void print_sub(PrintCtx *p, Node *c, bool parens)
{
    if (parens) fputc('(', p->out);
    print_expr(p, c);
    if (parens) fputc(')', p->out);
}

/* An update of a matrix privatised per work-group (plan_histograms.c): the
 * element of the copy parac_wh<k>, its indices flattened (the sizes are
 * constants), updated by the local-memory atomic add; on the C target the
 * thread's own copy, of unsigned words, updated plainly. */
static void print_hist_update(PrintCtx *p, Node *n, int k, const char *ty, bool sub)
{
    const Node *lhs = n->lhs;
    const bool device = p->cuda || p->opencl;
    if (p->cuda)
        fprintf(p->out, "atomic%s(&", sub ? "Sub" : "Add");
    else if (p->opencl)
        fprintf(p->out, "atomic_%s((volatile __local %s *)&", sub ? "sub" : "add", ty);
    fprintf(p->out, "parac_wh%d[", k);
    for (int d = 1; d < lhs->nidx; d++) out(p, "(");
    for (int d = 0; d < lhs->nidx; d++) {
        if (d) fprintf(p->out, " * %ld + ", p->region->hist_dims[k][d]);
        out(p, "(int)(");
        print_expr(p, lhs->idx[d]);
        out(p, d ? "))" : ")");
    }
    out(p, "]");
    if (device)
        fprintf(p->out, ", (%s)(", ty);
    else
        fprintf(p->out, " %s= (unsigned int)(", sub ? "-" : "+");
    if (n->kind == ND_ASSIGN)
        print_expr(p, n->rhs);
    else
        out(p, "1");
    out(p, device ? "))" : ")");
}

/* An update several iterations may make to one element (sema_writes.c: a
 * statement, its value unused): the target's atomic add of the value
 * converted to the element type, so the totals are exact in any order. */
static void print_atomic_update(PrintCtx *p, Node *n)
{
    const bool uns = n->lhs->var->ty->base->is_unsigned;
    const char *ty = uns ? "unsigned int" : "int";
    const bool sub = (n->op && n->op[0] == '-');
    const int k = p->in_kernel ? lang_hist_index(p->region, n->lhs->var) : -1;
    if (k >= 0) {
        print_hist_update(p, n, k, ty, sub);
        return;
    }
    bool w = p->writing;
    p->writing = true;
    if (p->cuda)
        fprintf(p->out, "atomic%s(&", sub ? "Sub" : "Add");
    else if (p->opencl)
        fprintf(p->out, "atomic_%s((volatile __global %s *)&", sub ? "sub" : "add", ty);
    else
        fprintf(p->out, "__atomic_fetch_%s(&", sub ? "sub" : "add");
    print_expr(p, n->lhs);
    p->writing = w;
    fprintf(p->out, ", (%s)(", ty);
    if (n->kind == ND_ASSIGN)
        print_expr(p, n->rhs);
    else
        out(p, "1");
    out(p, p->cuda || p->opencl ? "))" : "), __ATOMIC_RELAXED)");
}

/* A local kept per lane in an array while a body prints lanes at a time: its index, else -1. */
static int lane_var(const PrintCtx *p, const Obj *o)
{
    if (!p->lanes || !o) return -1;
    for (int i = 0; i < p->lanes->nlane_vars; i++)
        if (p->lanes->lane_vars[i] == o) return i;
    return -1;
}

void print_expr(PrintCtx *p, Node *n)
{
    if (!n) return;
    if (n->fc_group && p->merging && !p->fc_fill && p->region) {
        /* a recomputed value the work-item computed once per row and column (plan_cache.c) */
        const Region *r = p->region;
        for (int k = 0; k < r->nfcache; k++) {
            const struct FusedCache *c = &r->fcache[k];
            if (c->group != n->fc_group) continue;
            if (r->rows_per_item > 1)
                fprintf(p->out, "parac_fc%d[parac_r + %ld][parac_v + %ld]", k, n->fc_off[0] - c->omin,
                        n->fc_off[1] - c->dcmin);
            else
                fprintf(p->out, "parac_fc%d[%ld][parac_v + %ld]", k, n->fc_off[0] - c->omin, n->fc_off[1] - c->dcmin);
            return;
        }
    }
    if (p->lane_clamps && (n->kind == ND_COND || n->kind == ND_CALL)) {
        Node *v = lanes_clamp_value(p->lane_clamps, n);
        if (v) { /* the interior of a row's lanes: the clamp holds (plan_lane_clamps.c) */
            out(p, "(");
            print_expr(p, v);
            out(p, ")");
            return;
        }
    }
    switch (n->kind) {
    case ND_NUM: case ND_CHARLIT:
        fprintf(p->out, "%.*s", n->tok->len, n->tok->loc);
        return;
    case ND_STR:
        if (n->text) out(p, n->text);
        else fprintf(p->out, "%.*s", n->tok->len, n->tok->loc);
        return;
    case ND_VAR:
        if (n->var && n->var == p->dist_var) {
            print_distance(p);
            return;
        }
        if (lane_var(p, n->var) >= 0) {
            fprintf(p->out, "parac_lane_v%d[parac_l]", lane_var(p, n->var));
            return;
        }
        out(p, n->var ? n->var->name : n->name);
        return;
    case ND_ITER_INDEX:
        out(p, n->name);
        return;
    case ND_WILDCARD:
        out(p, "0");
        return;
    case ND_MAT_ELEM: {
        if (p->merging && p->writing && p->region)
            for (int i = 0; i < p->region->nmerge; i++)
                if (p->region->merge_lhs[i] == n) {
                    fprintf(p->out, "parac_st%d_%s[parac_v]", i, n->var->name);
                    return;
                }
        Node *e[3];
        long add[3];
        int nd = print_access_indices(n, 0, 0, e, add);
        print_access(p, n->var, e, add, nd, !p->writing);
        return;
    }
    case ND_WINDOW: case ND_TRANSE: case ND_EWMUL:
        if (!is_small_node(n)) { /* only after an error: never recurse */
            out(p, "0");
            return;
        }
        print_elem(p, n, p->elem_i, p->elem_j);
        return;
    case ND_PARAC_OP:
        print_operator(p, n);
        return;
    case ND_BINARY:
        if (is_small_node(n)) {
            print_elem(p, n, p->elem_i, p->elem_j);
            return;
        }
        print_sub(p, n->lhs, needs_parens(n->lhs, n->op, false));
        fprintf(p->out, " %s ", n->op);
        print_sub(p, n->rhs, needs_parens(n->rhs, n->op, true));
        return;
    case ND_ASSIGN: {
        if (n->atomic_update) {
            print_atomic_update(p, n);
            return;
        }
        if (is_small_node(n) || (n->lhs && n->lhs->kind == ND_WINDOW)) {
            print_elem(p, n, p->elem_i, p->elem_j);
            return;
        }
        bool w = p->writing;
        p->writing = true;
        print_expr(p, n->lhs);
        p->writing = w;
        fprintf(p->out, " %s ", n->op);
        print_expr(p, n->rhs);
        return;
    }
    case ND_UNARY: {
        if (n->atomic_update) {
            print_atomic_update(p, n);
            return;
        }
        out(p, n->op);
        bool par = print_expr_prec(n->lhs) < 14 || n->lhs->kind == ND_UNARY ||
                   (n->lhs->kind == ND_NUM && n->lhs->tok->loc[0] == '-');
        bool w = p->writing;
        if (!strcmp(n->op, "++") || !strcmp(n->op, "--")) p->writing = true;
        print_sub(p, n->lhs, par);
        p->writing = w;
        return;
    }
    case ND_POSTFIX: {
        if (n->atomic_update) {
            print_atomic_update(p, n);
            return;
        }
        bool w = p->writing;
        p->writing = true;
        print_sub(p, n->lhs, print_expr_prec(n->lhs) < 16);
        p->writing = w;
        out(p, n->op);
        return;
    }
    case ND_COND:
        print_sub(p, n->cond, print_expr_prec(n->cond) <= 3);
        out(p, " ? ");
        print_sub(p, n->then, print_expr_prec(n->then) <= 2);
        out(p, " : ");
        print_sub(p, n->els, print_expr_prec(n->els) < 3);
        return;
    case ND_COMMA:
        out(p, "(");
        print_expr(p, n->lhs);
        out(p, ", ");
        print_expr(p, n->rhs);
        out(p, ")");
        return;
    case ND_CALL: {
        /* a host call passing matrices to a function of the file (sema_calls.c) */
        const bool handles = n->handle_call && !p->in_kernel && p->hooks && p->hooks->matrix_extras;
        if (n->lhs && n->lhs->kind != ND_VAR) {
            print_expr(p, n->lhs);
        } else if (handles) {
            out(p, "parac__m_");
            out(p, n->name);
        } else
            out(p, p->opencl && !p->cuda ? opencl_func_name(n->name) : n->name);
        out(p, "(");
        for (Node *a = n->args; a; a = a->next) {
            if (a != n->args) out(p, ", ");
            if (handles && a->kind == ND_LEVEL && a->handle_param && p->hooks->level_arg) {
                p->hooks->level_arg(p, a); /* a pyramid's level: its storage, sizes and device copy */
                continue;
            }
            print_expr(p, a);
            if (handles && a->handle_param) p->hooks->matrix_extras(p, a->var);
        }
        out(p, ")");
        return;
    }
    case ND_INDEX: {
        /* C arrays, constant matrices, and matrix reads inside border values */
        Node *base = n;
        Node *ix[3];
        int k = 0;
        while (base->kind == ND_INDEX && k < 3) {
            ix[k++] = base->rhs;
            base = base->lhs;
        }
        if (base->kind == ND_VAR && base->var && base->var->ty->kind == TY_MATRIX &&
            !base->var->is_small_const && base->kind != ND_INDEX && k == base->var->ty->ndim) {
            Node *e[3];
            long add[3] = {0, 0, 0};
            for (int d = 0; d < k; d++) {
                Node *x = ix[k - 1 - d];
                if (x->kind == ND_WILDCARD) {
                    e[d] = p->wild_e[d] ? p->wild_e[d] : x;
                    add[d] = p->wild_add[d];
                } else
                    e[d] = x;
            }
            print_mat_index(p, base->var, e, add, k);
            return;
        }
        const int la = p->in_kernel && base->kind == ND_VAR && k == 1 ? lang_local_array(p->region, base->var) : -1;
        if (la >= 0) { /* a work-item's array in local memory: its slice (plan_local_arrays.c) */
            fprintf(p->out, "parac_la%d[(", la);
            print_expr(p, n->rhs);
            fprintf(p->out, ") * %d + parac_lid]", p->region->larr_stride);
            return;
        }
        print_sub(p, n->lhs, print_expr_prec(n->lhs) < 16);
        out(p, "[");
        print_expr(p, n->rhs);
        out(p, "]");
        return;
    }
    case ND_MEMBER:
        print_sub(p, n->lhs, print_expr_prec(n->lhs) < 16);
        fprintf(p->out, "%s%s", n->op, n->name);
        return;
    case ND_CAST:
        if (is_small_node(n)) {
            print_elem(p, n, p->elem_i, p->elem_j);
            return;
        }
        fprintf(p->out, "(%s)", ty_c_name(n->cast_ty, p->opencl));
        print_sub(p, n->lhs, print_expr_prec(n->lhs) < 14);
        return;
    case ND_SIZEOF_TYPE:
        fprintf(p->out, "sizeof(%s)", ty_c_name(n->cast_ty, p->opencl));
        return;
    case ND_SIZEOF_EXPR:
        out(p, "sizeof(");
        print_expr(p, n->lhs);
        out(p, ")");
        return;
    case ND_SLICE:
        print_expr(p, n->lhs);
        return;
    case ND_INIT_LIST:
        out(p, "{");
        for (Node *a = n->args; a; a = a->next) {
            if (a != n->args) out(p, ", ");
            print_expr(p, a);
        }
        out(p, "}");
        return;
    case ND_VERBATIM: /* generated host code (fuse_choice.c) */
        out(p, n->text);
        return;
    default:
        out(p, "0");
        return;
    }
}

static void print_decl(PrintCtx *p, Node *n)
{
    for (Node *d = n->decls; d; d = d->next) {
        if (!d->name || !d->var) continue;
        Obj *o = d->var;
        if (o->ty->kind == TY_MATRIX || o->ty->kind == TY_PYRAMID) {
            if (p->hooks && p->hooks->decl_matrix) p->hooks->decl_matrix(p, d);
            continue;
        }
        if (lane_var(p, o) >= 0) { /* one of a lane's values, declared for a block of lanes (emit_host_lanes.c) */
            if (!d->init) continue;
            print_indent(p);
            fprintf(p->out, "parac_lane_v%d[parac_l] = ", lane_var(p, o));
            print_expr(p, d->init);
            out(p, ";\n");
            continue;
        }
        const int la = p->in_kernel ? lang_local_array(p->region, o) : -1;
        if (la >= 0) { /* declared at the kernel's start (emit_kernels.c) */
            print_indent(p);
            fprintf(p->out, "/* %s: parac_la%d in local memory */\n", o->name, la);
            continue;
        }
        print_indent(p);
        if (n->is_typedef) out(p, "typedef ");
        if (n->is_static) out(p, "static ");
        if (n->is_extern) out(p, "extern ");
        if (o->ty->kind == TY_FUNC) {
            print_type_decl(p->out, o->ty->base, o->name, p->opencl);
            out(p, "(");
            if (!o->ty->params) out(p, o->ty->variadic ? "" : "void");
            for (Node *q = o->ty->params; q; q = q->next) {
                if (q != o->ty->params) out(p, ", ");
                print_type_decl(p->out, q->ty, q->var ? q->var->name : q->name ? q->name : "", p->opencl);
            }
            if (o->ty->variadic) out(p, ", ...");
            out(p, ");\n");
            continue;
        }
        print_type_decl(p->out, o->ty, o->name, p->opencl);
        if (d->init) {
            out(p, " = ");
            print_expr(p, d->init);
        }
        out(p, ";\n");
    }
}

/* A condition or loop step of host code: the back end may need the host
 * copies of matrices it reads (a loop condition is evaluated again after
 * every iteration, so the transfer goes inside the expression). */
static void print_cond(PrintCtx *p, Node *e)
{
    if (!p->in_kernel && p->hooks && p->hooks->cond_expr) {
        p->hooks->cond_expr(p, e);
        return;
    }
    print_expr(p, e);
}

/* A kernel's loop around more than its body (emit_kernels_staged.c): the
 * header of `for` loop n and its opening braces, and the closing ones. */
static void print_for_head(PrintCtx *p, Node *n)
{
    print_indent(p);
    out(p, "{\n");
    p->indent++;
    if (n->init) print_stmt(p, n->init);
    print_indent(p);
    out(p, "for (; ");
    print_cond(p, n->cond);
    out(p, "; ");
    print_cond(p, n->inc);
    out(p, ")");
}

void print_loop_open(PrintCtx *p, Node *n)
{
    print_for_head(p, n);
    out(p, " {\n");
    p->indent++;
}

void print_loop_close(PrintCtx *p)
{
    for (int i = 0; i < 2; i++) {
        p->indent--;
        print_indent(p);
        out(p, "}\n");
    }
}

static void print_body(PrintCtx *p, Node *n)
{
    if (n && n->kind == ND_BLOCK) {
        print_stmt(p, n);
    } else {
        print_indent(p);
        out(p, "{\n");
        p->indent++;
        print_stmt(p, n);
        p->indent--;
        print_indent(p);
        out(p, "}\n");
    }
}

/* An expression statement whose value is a small matrix: one statement per element. */
static void print_expr_stmt(PrintCtx *p, Node *e)
{
    if (e && (is_small_node(e) || (e->kind == ND_ASSIGN && e->lhs && e->lhs->kind == ND_WINDOW))) {
        Node *t = e;
        while (t->kind == ND_ASSIGN) t = t->lhs;
        int R = small_rows(t->ty), C = small_cols(t->ty);
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++) {
                print_indent(p);
                print_elem(p, e, i, j);
                out(p, ";\n");
            }
        return;
    }
    print_indent(p);
    const Region *r = p->in_kernel ? p->region : NULL;
    if (r && r->fold_red && e && e->kind == ND_ASSIGN && !strcmp(e->op, "=") && e->lhs &&
        e->lhs->kind == ND_MAT_ELEM && e->lhs->var == r->fold_red->red_var) {
        /* the matrix a folded reduction sums: the value stored, added up too */
        out(p, "parac_racc += (long long)(");
        print_expr(p, e);
        out(p, ");\n");
        return;
    }
    print_expr(p, e);
    out(p, ";\n");
}

void print_stmt(PrintCtx *p, Node *n)
{
    if (!n) return;
    bool host = !p->in_kernel && p->hooks;
    bool wrap = host && stmt_needs_wrap(p, n);
    if (wrap) {
        print_indent(p);
        out(p, "{\n");
        p->indent++;
    }
    if (host && p->hooks->before_stmt && n->kind != ND_BLOCK) p->hooks->before_stmt(p, n);
    /* the statement's own text maps back to its line of the .pc file, what
     * the compiler adds around it to the generated file */
    const bool mark = p->line_marks && n->kind != ND_BLOCK && n->tok && n->tok->file;
    if (mark) {
        fprintf(p->out, "#line %d \"", n->tok->line);
        for (const char *c = n->tok->file->name; *c; c++) {
            if (*c == '"' || *c == '\\') fputc('\\', p->out);
            fputc(*c, p->out);
        }
        fputs("\"\n", p->out);
    }
    /* operators over windows of run-time length: their loops first */
    switch (n->kind) {
    case ND_DECL:
        for (Node *d = n->decls; d; d = d->next) print_run_time_loops(p, d->init);
        break;
    case ND_EXPR_STMT: case ND_RETURN: print_run_time_loops(p, n->lhs); break;
    case ND_IF: case ND_SWITCH: print_run_time_loops(p, n->cond); break;
    default: break;
    }
    switch (n->kind) {
    case ND_BLOCK:
        print_indent(p);
        out(p, "{\n");
        p->indent++;
        for (Node *s = n->args; s;) {
            int k = host && p->hooks->stmt_run ? p->hooks->stmt_run(p, s) : 0;
            if (k <= 0) {
                print_stmt(p, s);
                k = 1;
            }
            while (k-- > 0 && s) s = s->next;
        }
        if (host && p->hooks->block_end) p->hooks->block_end(p, n);
        p->indent--;
        print_indent(p);
        out(p, "}\n");
        break;
    case ND_DECL:
        print_decl(p, n);
        break;
    case ND_EXPR_STMT:
        print_expr_stmt(p, n->lhs);
        break;
    case ND_NULL_STMT:
        break;
    case ND_IF:
        print_indent(p);
        out(p, "if (");
        print_cond(p, n->cond);
        out(p, ")\n");
        print_body(p, n->then);
        while (n->els && n->els->kind == ND_IF && !(host && stmt_needs_wrap(p, n->els)) &&
               !print_has_run_time_ops(n->els->cond)) {
            n = n->els;
            print_indent(p);
            out(p, "else if (");
            print_cond(p, n->cond);
            out(p, ")\n");
            print_body(p, n->then);
        }
        if (n->els) {
            print_indent(p);
            out(p, "else\n");
            print_body(p, n->els);
        }
        break;
    case ND_WHILE:
        print_indent(p);
        out(p, "while (");
        print_cond(p, n->cond);
        out(p, ")\n");
        print_body(p, n->body);
        break;
    case ND_DO:
        print_indent(p);
        out(p, "do\n");
        print_body(p, n->body);
        print_indent(p);
        out(p, "while (");
        print_cond(p, n->cond);
        out(p, ");\n");
        break;
    case ND_FOR:
        print_for_head(p, n);
        out(p, "\n");
        print_body(p, n->body);
        p->indent--;
        print_indent(p);
        out(p, "}\n");
        break;
    case ND_SWITCH:
        print_indent(p);
        out(p, "switch (");
        print_cond(p, n->cond);
        out(p, ")\n");
        print_body(p, n->body);
        break;
    case ND_CASE:
        print_indent(p);
        out(p, "case ");
        print_expr(p, n->lhs);
        out(p, ":;\n");
        break;
    case ND_DEFAULT:
        print_indent(p);
        out(p, "default:;\n");
        break;
    case ND_RETURN:
        if (host && p->hooks->before_return) {
            p->hooks->before_return(p, n);
            break;
        }
        print_indent(p);
        out(p, "return");
        if (n->lhs) {
            out(p, " ");
            print_expr(p, n->lhs);
        }
        out(p, ";\n");
        break;
    case ND_BREAK:
        print_indent(p);
        out(p, "break;\n");
        break;
    case ND_CONTINUE:
        print_indent(p);
        out(p, "continue;\n");
        break;
    case ND_GOTO:
        print_indent(p);
        fprintf(p->out, "goto %s;\n", n->name);
        break;
    case ND_LABEL:
        fprintf(p->out, "%s:;\n", n->name);
        break;
    case ND_ITERATOR:
        if (host && p->hooks->iterator) p->hooks->iterator(p, n);
        break;
    case ND_VERBATIM:
        print_indent(p);
        out(p, n->text);
        out(p, "\n");
        break;
    case ND_BORDER_RULE:
        print_indent(p);
        fprintf(p->out, "/* %s:%d: border rule %s: compiled into the border code of the regions that use it */\n",
                n->tok->file->name, n->tok->line, n->name ? n->name : "?");
        break;
    default:
        break;
    }
    if (mark) fputs(LANG_LINE_MARK "\n", p->out);
    if (host && p->hooks->after_stmt && n->kind != ND_BLOCK) p->hooks->after_stmt(p, n);
    if (wrap) {
        p->indent--;
        print_indent(p);
        out(p, "}\n");
    }
}

/* A file function for the device: same body, device types. */
void print_func(PrintCtx *p, Node *f)
{
    Type *ft = f->ty;
    if (p->cuda) out(p, "__device__ ");
    print_type_decl(p->out, ft->base, f->name, p->opencl);
    out(p, "(");
    if (!ft->params) out(p, "void");
    for (Node *q = ft->params; q; q = q->next) {
        if (q != ft->params) out(p, ", ");
        print_type_decl(p->out, q->ty, q->var ? q->var->name : q->name ? q->name : "", p->opencl);
    }
    out(p, ")\n");
    bool k = p->in_kernel;
    p->in_kernel = true;
    print_stmt(p, f->body);
    p->in_kernel = k;
}

bool stmt_needs_wrap(PrintCtx *p, Node *n)
{
    return p->hooks && p->hooks->needs_wrap && n->kind != ND_DECL && n->kind != ND_BLOCK &&
           p->hooks->needs_wrap(p, n);
}

void lang_fix_line_marks(const char *text, const char *name, FILE *out)
{
    const size_t mlen = strlen(LANG_LINE_MARK);
    long line = 1;
    for (const char *s = text; *s;) {
        const char *eol = strchr(s, '\n');
        const size_t len = eol ? (size_t)(eol - s) : strlen(s);
        if (len == mlen && !memcmp(s, LANG_LINE_MARK, mlen)) {
            /* the line after this one is line + 1 of the generated file */
            fprintf(out, "#line %ld \"", line + 1);
            for (const char *c = name; *c; c++) {
                if (*c == '"' || *c == '\\') fputc('\\', out);
                fputc(*c, out);
            }
            fputs("\"", out);
        } else
            fwrite(s, 1, len, out);
        if (!eol) break;
        fputc('\n', out);
        line++;
        s = eol + 1;
    }
}
