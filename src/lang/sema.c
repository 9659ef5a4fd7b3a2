/* Semantic analysis: names, types and the ParaC rules.
 *
 * - resolves names into objects (unknown names are taken as macros or
 *   declarations from headers and passed through);
 * - turns M[i][j] on a matrix into ND_MAT_ELEM and M[i:l:s][j] into ND_WINDOW,
 *   and types small-matrix expressions (windows, constant matrices, products,
 *   transe, .*) by their compile-time shape;
 * - checks iterators (index names, no nesting, no writes to host variables,
 *   compile-time strides), border rules (form, widths, no border value
 *   depending on another), operators and their operands;
 * - rewrites whole-image statements `Dst = expr;` into iterators. */
#include <string.h>

#include "lang/lang.h"

typedef struct Scope {
    struct Scope *parent;
    Obj **objs;
    int n, cap;
    BorderRule **rules;
    int nrules, caprules;
} Scope;

typedef struct Sema {
    Program *prog;
    Scope *scope;
    Iterator *iter;       /* enclosing iterator */
    Scope *iter_scope;    /* scope opened by the iterator body */
    int loop_depth;       /* loops/switches inside the iterator body */
    /* Host code: matrices in scope declared since the innermost loop (for
     * continue) and loop or switch (for break), and in the function (for
     * goto). A jump out of their block would skip their release. */
    int mats_since_loop, mats_since_break_target, mats_in_func;
    const char *last_mat;
    Node *first_goto;     /* of the function, reported at its end if it declares a matrix */
    Node *func;
    int next_id;
} Sema;

static Node *sema_expr(Sema *S, Node *n);
static void sema_stmt(Sema *S, Node *n);

static void push(Sema *S)
{
    Scope *s = lang_alloc(sizeof *s);
    s->parent = S->scope;
    S->scope = s;
}
static void pop(Sema *S) { S->scope = S->scope->parent; }

static void add_obj(Sema *S, Obj *o)
{
    Scope *s = S->scope;
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 8;
        Obj **a = lang_alloc(sizeof *a * (size_t)cap);
        if (s->n) memcpy(a, s->objs, sizeof *a * (size_t)s->n);
        s->objs = a;
        s->cap = cap;
    }
    s->objs[s->n++] = o;
    o->id = S->next_id++;
}

static Obj *find_obj(Sema *S, const char *name)
{
    for (Scope *s = S->scope; s; s = s->parent)
        for (int i = s->n - 1; i >= 0; i--)
            if (!strcmp(s->objs[i]->name, name)) return s->objs[i];
    return NULL;
}

static void add_rule(Sema *S, BorderRule *r)
{
    Scope *s = S->scope;
    if (s->nrules == s->caprules) {
        int cap = s->caprules ? s->caprules * 2 : 4;
        BorderRule **a = lang_alloc(sizeof *a * (size_t)cap);
        if (s->nrules) memcpy(a, s->rules, sizeof *a * (size_t)s->nrules);
        s->rules = a;
        s->caprules = cap;
    }
    s->rules[s->nrules++] = r;
}

static BorderRule *find_rule(Sema *S, const char *name)
{
    for (Scope *s = S->scope; s; s = s->parent)
        for (int i = s->nrules - 1; i >= 0; i--)
            if (!strcmp(s->rules[i]->name, name)) return s->rules[i];
    return NULL;
}

/* ---- types -------------------------------------------------------------- */
static Type *resolve_type(Sema *S, Type *t)
{
    if (!t) return ty_basic(TY_INT, false);
    if (t->kind == TY_OPAQUE && t->name) {
        Obj *o = find_obj(S, t->name);
        if (o && o->is_typedef) {
            if (!t->is_const) return o->ty;
            Type *c = lang_alloc(sizeof *c);
            *c = *o->ty;
            c->is_const = true;
            return c;
        }
        static const struct { const char *name; TypeKind k; bool u; } std[] = {
            {"uint8_t", TY_CHAR, true}, {"int8_t", TY_CHAR, false}, {"uint16_t", TY_SHORT, true},
            {"int16_t", TY_SHORT, false}, {"uint32_t", TY_INT, true}, {"int32_t", TY_INT, false},
            {"uint64_t", TY_LONG, true}, {"int64_t", TY_LONG, false}, {"size_t", TY_LONG, true},
            {"ptrdiff_t", TY_LONG, false}, {"ssize_t", TY_LONG, false}, {"bool", TY_BOOL, false},
            {"intptr_t", TY_LONG, false}, {"uintptr_t", TY_LONG, true},
        };
        for (size_t i = 0; i < sizeof std / sizeof *std; i++)
            if (!strcmp(t->name, std[i].name)) {
                Type *r = ty_basic(std[i].k, std[i].u);
                r->is_const = t->is_const;
                return r;
            }
        return t;
    }
    if (t->kind == TY_PTR || t->kind == TY_ARRAY || t->kind == TY_MATRIX || t->kind == TY_FUNC) {
        Type *c = lang_alloc(sizeof *c);
        *c = *t;
        c->base = resolve_type(S, t->base);
        return c;
    }
    return t;
}

static Type *small_type(Type *elem, int rows, int cols)
{
    Type *t = lang_alloc(sizeof *t);
    t->kind = TY_SMALL;
    t->base = elem;
    t->rows = rows;
    t->cols = cols;
    return t;
}

static bool is_small(Node *n) { return n && n->ty && n->ty->kind == TY_SMALL; }

/* Unrolling a small-matrix expression prints every term of every element:
 * keep that bounded (a chain of products grows geometrically). */
enum { MAX_UNROLL_TERMS = 4096 };
static long cost_of(Node *n) { return n && n->cost > 0 ? n->cost : 1; }
/* Record the terms per element of n, reporting once when too many. */
static void set_cost3(Node *n, long c, Node *a, Node *b)
{
    if (c > MAX_UNROLL_TERMS) {
        bool reported = (a && a->cost > MAX_UNROLL_TERMS) || (b && b->cost > MAX_UNROLL_TERMS);
        if (!reported)
            diag_error_tok(n->tok, "this small-matrix expression unrolls to more than %d terms per element",
                           MAX_UNROLL_TERMS);
        c = MAX_UNROLL_TERMS + 1;
    }
    n->cost = c;
}
static bool is_matrix(Node *n) { return n && n->ty && n->ty->kind == TY_MATRIX; }

/* ---- declarations --------------------------------------------------------- */
static Obj *declare(Sema *S, Node *d, Type *ty, bool is_param)
{
    Obj *o = lang_alloc(sizeof *o);
    o->name = d->name;
    o->tok = d->tok;
    o->ty = ty;
    o->is_param = is_param;
    o->is_global = S->scope->parent == NULL;
    o->is_local_to_iter = S->iter != NULL;
    d->var = o;
    if (S->scope->parent) {
        for (int i = 0; i < S->scope->n; i++)
            if (!strcmp(S->scope->objs[i]->name, o->name) && !S->scope->objs[i]->is_func &&
                !o->is_global) {
                diag_error_tok(d->tok, "redefinition of '%s'", o->name);
                diag_note_tok(S->scope->objs[i]->tok, "'%s' was declared here", o->name);
                break;
            }
    }
    add_obj(S, o);
    return o;
}

static void sema_matrix_decl(Sema *S, Node *d, Obj *o, bool is_param)
{
    Type *m = o->ty;
    for (int i = 0; i < m->ndim; i++) {
        m->dims[i] = sema_expr(S, m->dims[i]);
        if (m->dims[i] && m->dims[i]->ty && !ty_is_integer(m->dims[i]->ty) &&
            m->dims[i]->ty->kind != TY_OPAQUE)
            diag_error_tok(m->dims[i]->tok, "the size of '%s' must be an integer", o->name);
    }
    if (!ty_is_arith(m->base))
        diag_error_tok(d->tok, "the elements of parac_matrix '%s' must have an arithmetic type", o->name);
    o->is_ref = d->is_typedef || is_param;
    if (S->iter) {
        diag_error_tok(d->tok, "parac_matrix '%s' cannot be declared inside an iterator", o->name);
        return;
    }
    if (is_param) return;
    if (o->is_ref) {
        if (!d->init || d->init->kind == ND_INIT_LIST) {
            diag_error_tok(d->tok, "reference '%s' must be bound to C storage: &%s[...] = pointer;",
                           o->name, o->name);
            return;
        }
        o->bound = sema_expr(S, d->init);
        if (o->bound->kind == ND_VAR && o->bound->var) o->bound_obj = o->bound->var;
        Type *bt = o->bound->ty;
        if (bt && bt->kind != TY_PTR && bt->kind != TY_ARRAY && bt->kind != TY_OPAQUE)
            diag_error_tok(o->bound->tok, "reference '%s' must be bound to a pointer or an array", o->name);
        return;
    }
    if (d->init) {
        if (d->init->kind != ND_INIT_LIST) {
            diag_error_tok(d->init->tok, "initialise parac_matrix '%s' with { values }, or declare "
                           "a reference with '&' to bind it to C storage", o->name);
            return;
        }
        long count = 1;
        for (int i = 0; i < m->ndim; i++) {
            bool ok;
            long v = const_eval(m->dims[i], &ok);
            if (!ok || v <= 0 || v > 64) {
                diag_error_tok(m->dims[i] ? m->dims[i]->tok : d->tok,
                               "constant matrix '%s' needs constant sizes between 1 and 64", o->name);
                return;
            }
            count *= v;
        }
        if (m->ndim > 2) {
            diag_error_tok(d->tok, "constant matrix '%s' has at most 2 dimensions", o->name);
            return;
        }
        long n = 0;
        for (Node *e = d->init->args; e; e = e->next) {
            n++;
            e = sema_expr(S, e);
        }
        /* re-link after sema (sema_expr returns nodes in place for literals) */
        if (n > count) {
            diag_error_tok(d->init->tok, "too many values for '%s': %ld given, %ld expected", o->name, n, count);
            return;
        }
        o->is_small_const = true;
        o->init = d->init;
        return;
    }
}

static void sema_decl(Sema *S, Node *n)
{
    Type *base = resolve_type(S, n->cast_ty);
    (void)base;
    for (Node *d = n->decls; d; d = d->next) {
        if (!d->name) continue;
        Type *ty = resolve_type(S, d->ty);
        Obj *o = declare(S, d, ty, false);
        if (n->is_typedef) {
            o->is_typedef = true;
            continue;
        }
        if (ty->kind == TY_MATRIX) {
            sema_matrix_decl(S, d, o, false);
            continue;
        }
        if (ty->kind == TY_FUNC) {
            o->is_func = true;
            continue;
        }
        if (d->init) {
            if (d->init->kind == ND_INIT_LIST) {
                for (Node **e = &d->init->args; *e; e = &(*e)->next) {
                    Node *nx = (*e)->next;
                    *e = sema_expr(S, *e);
                    (*e)->next = nx;
                }
            } else {
                d->init = sema_expr(S, d->init);
                if (is_small(d->init))
                    diag_error_tok(d->init->tok, "a %dx%d matrix value cannot initialise scalar '%s'",
                                   d->init->ty->rows, d->init->ty->cols, o->name);
                if (is_matrix(d->init) && ty->kind != TY_PTR)
                    diag_error_tok(d->init->tok, "parac_matrix '%s' used as a scalar value", d->init->var ? d->init->var->name : "?");
            }
        }
    }
}

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
    bool window = false;
    for (int i = 0; i < k; i++) {
        Node *ix = chain[k - 1 - i]->rhs;
        if (ix->kind == ND_SLICE) {
            window = true;
            ix->lhs = sema_expr(S, ix->lhs);
            bool ok;
            long len = const_eval(ix->rhs, &ok);
            if (!ok || len < 1 || len > 64) {
                diag_error_tok(ix->rhs ? ix->rhs->tok : ix->tok,
                               "a window length must be a constant between 1 and 64");
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
            if (i == 0 && m->ndim == 3) {
                diag_error_tok(ix->tok, "the channel index of '%s' cannot be a window", o->name);
            }
        } else if (ix->kind == ND_WILDCARD) {
            diag_error_tok(ix->tok, "'*' is only an index inside a parac_border_rule");
        } else {
            ix = sema_expr(S, ix);
            if (is_small(ix) || is_matrix(ix))
                diag_error_tok(ix->tok, "an index must be a scalar");
        }
        r->idx[i] = ix;
    }
    if (window) {
        r->kind = ND_WINDOW;
        int rows = 1, cols = 1;
        if (m->ndim == 1)
            cols = lens[0];
        else {
            rows = lens[m->ndim - 2];
            cols = lens[m->ndim - 1];
        }
        if (rows * cols > 256) diag_error_tok(n->tok, "window larger than 256 elements");
        r->ty = small_type(m->base, rows, cols);
    } else {
        r->ty = m->base;
    }
    if (!S->iter && window)
        diag_error_tok(n->tok, "a window access of '%s' is only allowed inside a parac_iterator", o->name);
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
            r->ty = small_type(a->ty->base, a->ty->cols, a->ty->rows);
        r->cost = a->cost;
        return r;
    }
    Node *r = new_node(ND_PARAC_OP, n->tok);
    r->pop = !strcmp(name, "parac_matrix_sum") ? OP_SUM
             : !strcmp(name, "parac_matrix_min") ? OP_MIN
             : !strcmp(name, "parac_matrix_max") ? OP_MAX
             : !strcmp(name, "parac_matrix_mean") ? OP_MEAN : OP_CONV;
    int want = r->pop == OP_CONV ? 2 : 1;
    if (nargs != want) {
        diag_error_tok(n->tok, "%s takes %d argument%s", name, want, want == 1 ? "" : "s");
        r->ty = ty_basic(TY_INT, false);
        return r;
    }
    Node *a = sema_expr(S, n->args);
    Node *b = r->pop == OP_CONV ? sema_expr(S, n->args->next) : NULL;
    a->next = b;
    r->args = a;
    if (is_small(a)) set_cost3(r, (long)a->ty->rows * a->ty->cols * (cost_of(a) + (b && is_small(b) ? cost_of(b) : 0)), a, b);
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

static Node *sema_expr(Sema *S, Node *n)
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
        Obj *o = find_obj(S, n->name);
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
        if (o->is_small_const) {
            Type *m = o->ty;
            bool ok;
            int r = m->ndim == 2 ? (int)const_eval(m->dims[0], &ok) : 1;
            int c = (int)const_eval(m->dims[m->ndim - 1], &ok);
            n->ty = small_type(m->base, r, c);
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
        else if (t && t->kind == TY_SMALL) n->ty = small_type(t->base, 1, t->cols); /* row of const */
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
                !strcmp(n->name, "parac_convolution") || !strcmp(n->name, "transe")) {
                Node *r = parac_call(S, n, n->name);
                r->next = nx;
                return r;
            }
            diag_error_tok(n->tok, "unknown ParaC operator '%s'", n->name);
        }
        if (n->lhs->kind != ND_VAR) n->lhs = sema_expr(S, n->lhs);
        else {
            Obj *o = find_obj(S, n->name);
            n->lhs->var = o;
            if (S->iter && o && !o->is_func)
                diag_error_tok(n->tok, "'%s' is not a function", n->name);
        }
        for (Node **a = &n->args; *a; a = &(*a)->next) {
            Node *an = (*a)->next;
            *a = sema_expr(S, *a);
            (*a)->next = an;
            if (is_small(*a)) diag_error_tok((*a)->tok, "a small matrix cannot be passed to a C function");
            Obj *m = (*a)->kind == ND_VAR ? (*a)->var : NULL;
            if (m && m->ty && m->ty->kind == TY_MATRIX && !m->is_param && !m->is_ref)
                /* the callee takes packed rows in host memory; a declared matrix has padded rows and may
                 * live on the device only */
                diag_error_tok((*a)->tok, "'%s' is a matrix declared in this function (its rows padded, its data possibly on "
                               "the device only) and cannot be passed to '%s', which takes rows one after another "
                               "in host memory; pass a matrix bound to C storage (parac_matrix &M[..] = pointer) "
                               "or a parameter", m->name, n->name ? n->name : "the function");
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
        n->cast_ty = resolve_type(S, n->cast_ty);
        n->lhs = sema_expr(S, n->lhs);
        n->ty = n->cast_ty;
        if (is_small(n->lhs)) n->ty = small_type(n->cast_ty, n->lhs->ty->rows, n->lhs->ty->cols);
        n->cost = n->lhs->cost;
        break;
    case ND_SIZEOF_TYPE:
        n->cast_ty = resolve_type(S, n->cast_ty);
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
                n->ty = small_type(et, is_small(a) ? a->ty->rows : b->ty->rows,
                                   is_small(a) ? a->ty->cols : b->ty->cols);
            } else if (!strcmp(op, "*")) {
                if (is_small(a) && is_small(b)) {
                    if (a->ty->cols != b->ty->rows)
                        diag_error_tok(n->tok, "matrix product of %dx%d and %dx%d: inner sizes differ",
                                       a->ty->rows, a->ty->cols, b->ty->rows, b->ty->cols);
                    n->ty = small_type(et, a->ty->rows, b->ty->cols);
                    if (n->ty->rows * n->ty->cols > 256) diag_error_tok(n->tok, "matrix product too large");
                    set_cost3(n, (long)a->ty->cols * (cost_of(a) + cost_of(b)), a, b);
                } else {
                    n->ty = small_type(et, is_small(a) ? a->ty->rows : b->ty->rows,
                                       is_small(a) ? a->ty->cols : b->ty->cols);
                }
            } else if (!strcmp(op, "/") && is_small(a) && !is_small(b)) {
                n->ty = small_type(et, a->ty->rows, a->ty->cols);
            } else {
                diag_error_tok(n->tok, "operator '%s' does not apply to small matrices", op);
                n->ty = et;
            }
            if (n->cost == 0) set_cost3(n, cost_of(a) + cost_of(b), a, b);
            break;
        }
        if (n->kind == ND_EWMUL) {
            if (is_small(a) || is_small(b)) set_cost3(n, cost_of(a) + cost_of(b), a, b);
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

/* ---- border rules --------------------------------------------------------- */
static bool border_index(Node *ix, int *side)
{
    if (ix->kind == ND_WILDCARD) {
        *side = 0;
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
                    if (i < 2 && e->side[i] != 0)
                        diag_error_tok(ix->tok, "'*' in a border value must match a '*' of the rule's left side");
                    continue;
                }
                bool ok;
                long v = const_eval(ix, &ok);
                if ((border_index(ix, &side) && ix->kind == ND_UNARY && ix->op[0] == '+') || (ok && v < 0)) {
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
        n->ty = n->kind == ND_CAST ? resolve_type(S, n->cast_ty) : n->lhs->ty;
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

static void sema_rule(Sema *S, Node *n)
{
    BorderRule *r = lang_alloc(sizeof *r);
    r->name = n->name;
    r->tok = n->tok;
    n->rule = r;
    if (!n->name) return;
    if (find_rule(S, n->name) && S->scope->parent) {
        for (int i = 0; i < S->scope->nrules; i++)
            if (!strcmp(S->scope->rules[i]->name, n->name))
                diag_error_tok(n->tok, "border rule '%s' is defined twice", n->name);
    }
    add_rule(S, r);
    if (S->iter) diag_error_tok(n->tok, "a border rule cannot be defined inside an iterator");
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
            Obj *o = find_obj(S, l->name);
            if (!o || o->ty->kind != TY_MATRIX) {
                diag_error_tok(l->tok, "'%s' is not a parac_matrix", l->name);
                continue;
            }
            if (o->ty->ndim > 2) {
                diag_error_tok(l->tok, "border rules apply to matrices of 1 or 2 dimensions");
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
                if (!border_index(ix[k - 1 - i], &side)) {
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
    if (!r->var) return;
    int nd = r->var->ty->ndim;
    /* widths per axis from the side rules ('*' on the other axis), checked for gaps */
    for (int a = 0; a < nd; a++) {
        for (BorderEntry *b = r->entries; b; b = b->next) {
            bool side_rule = nd == 1 || b->side[1 - a] == 0;
            if (!side_rule || b->side[a] == 0) continue;
            if (b->side[a] < 0 && -b->side[a] > r->width_lo[a]) r->width_lo[a] = -b->side[a];
            if (b->side[a] > 0 && b->side[a] > r->width_hi[a]) r->width_hi[a] = b->side[a];
        }
        for (int dir = -1; dir <= 1; dir += 2) {
            int w = dir < 0 ? r->width_lo[a] : r->width_hi[a];
            for (int k = 1; k <= w; k++) {
                bool found = false;
                for (BorderEntry *b = r->entries; b; b = b->next)
                    if (b->side[a] == dir * k && (nd == 1 || b->side[1 - a] == 0)) found = true;
                if (!found) {
                    const char *idx = lang_format("%s%d", dir < 0 ? "-" : "+", k);
                    diag_error_tok(r->tok, "border rule '%s' covers %s%d on axis %s but has no entry for %s[%s]%s",
                                   r->name, dir < 0 ? "-" : "+", w, a == 0 ? "x (rows)" : "y (columns)",
                                   r->var->name, nd == 1 ? idx : a == 0 ? idx : "*",
                                   nd == 1 ? "" : a == 0 ? "[*]" : lang_format("[%s]", idx));
                }
            }
        }
    }
    /* duplicates */
    for (BorderEntry *b = r->entries; b; b = b->next)
        for (BorderEntry *c = b->next; c; c = c->next)
            if (b->side[0] == c->side[0] && b->side[1] == c->side[1])
                diag_error_tok(c->tok, "border rule '%s' gives this border twice", r->name);
}

/* ---- iterators ------------------------------------------------------------ */
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

static void sema_iterator(Sema *S, Node *n)
{
    Iterator *it = n->iter;
    if (!it || !it->name) return;
    for (int d = 0; d < it->ndim; d++) {
        it->r[d].lb = sema_expr(S, it->r[d].lb);
        it->r[d].ub = sema_expr(S, it->r[d].ub);
        if (is_small(it->r[d].lb) || is_small(it->r[d].ub) || is_matrix(it->r[d].lb) || is_matrix(it->r[d].ub))
            diag_error_tok(it->tok, "iterator bounds must be scalars");
    }
    if (it->rule_name) {
        it->rule = find_rule(S, it->rule_name->name);
        if (!it->rule)
            diag_error_tok(it->rule_name->tok, "unknown border rule '%s'", it->rule_name->name);
    }
    if (S->iter) return; /* nested: reported by the parser */
    S->iter = it;
    int saved_loop = S->loop_depth;
    S->loop_depth = 0;
    push(S);
    S->iter_scope = S->scope;
    sema_stmt(S, it->body);
    pop(S);
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
            w->ty = small_type(o->ty->base, rows, cols);
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

static bool whole_image_stmt(Sema *S, Node *n)
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
        it->rule = find_rule(S, n->whole_rule_name->name);
        if (!it->rule) diag_error_tok(n->whole_rule_name->tok, "unknown border rule '%s'", n->whole_rule_name->name);
    }
    n->kind = ND_ITERATOR;
    n->iter = it;
    n->body = body;
    n->name = it->name;
    n->lhs = NULL;
    return true;
}

/* ---- statements ------------------------------------------------------------ */
static void sema_stmt(Sema *S, Node *n)
{
    if (!n) return;
    switch (n->kind) {
    case ND_BLOCK: {
        const int since_loop = S->mats_since_loop, since_target = S->mats_since_break_target;
        push(S);
        for (Node *s = n->args; s; s = s->next) sema_stmt(S, s);
        pop(S);
        S->mats_since_loop = since_loop;
        S->mats_since_break_target = since_target;
        break;
    }
    case ND_DECL:
        sema_decl(S, n);
        if (!S->iter)
            for (Node *d = n->decls; d; d = d->next)
                if (d->var && d->var->ty && d->var->ty->kind == TY_MATRIX && !d->var->is_small_const) {
                    S->mats_since_loop++;
                    S->mats_since_break_target++;
                    S->mats_in_func++;
                    S->last_mat = d->var->name;
                }
        break;
    case ND_EXPR_STMT:
        if (n->lhs && n->lhs->kind == ND_ASSIGN) {
            n->lhs = sema_expr(S, n->lhs);
            if (whole_image_stmt(S, n)) break;
        } else
            n->lhs = sema_expr(S, n->lhs);
        if (n->whole_rule_name)
            diag_error_tok(n->rule_tok, "parac_border_rule(...) after a statement needs a whole-image assignment Dst = ...");
        if (n->lhs && is_matrix(n->lhs) && n->lhs->kind != ND_VAR)
            diag_error_tok(n->lhs->tok, "whole-matrix expression must be assigned to a parac_matrix");
        break;
    case ND_IF:
        n->cond = sema_expr(S, n->cond);
        sema_stmt(S, n->then);
        sema_stmt(S, n->els);
        break;
    case ND_WHILE: case ND_DO: {
        n->cond = sema_expr(S, n->cond);
        const int since_loop = S->mats_since_loop, since_target = S->mats_since_break_target;
        S->mats_since_loop = S->mats_since_break_target = 0;
        S->loop_depth++;
        sema_stmt(S, n->body);
        S->loop_depth--;
        S->mats_since_loop = since_loop;
        S->mats_since_break_target = since_target;
        break;
    }
    case ND_FOR: {
        push(S);
        if (n->init) sema_stmt(S, n->init);
        n->cond = sema_expr(S, n->cond);
        n->inc = sema_expr(S, n->inc);
        const int since_loop = S->mats_since_loop, since_target = S->mats_since_break_target;
        S->mats_since_loop = S->mats_since_break_target = 0;
        S->loop_depth++;
        sema_stmt(S, n->body);
        S->loop_depth--;
        S->mats_since_loop = since_loop;
        S->mats_since_break_target = since_target;
        pop(S);
        break;
    }
    case ND_SWITCH: {
        n->cond = sema_expr(S, n->cond);
        const int since_target = S->mats_since_break_target;
        S->mats_since_break_target = 0;
        S->loop_depth++;
        sema_stmt(S, n->body);
        S->loop_depth--;
        S->mats_since_break_target = since_target;
        break;
    }
    case ND_CASE:
        n->lhs = sema_expr(S, n->lhs);
        break;
    case ND_RETURN:
        if (S->iter) diag_error_tok(n->tok, "'return' inside iterator '%s': an iteration cannot leave the region", S->iter->name);
        n->lhs = sema_expr(S, n->lhs);
        if (n->lhs && (is_small(n->lhs)))
            diag_error_tok(n->lhs->tok, "a small matrix cannot be returned");
        break;
    case ND_BREAK: case ND_CONTINUE:
        if (S->iter && S->loop_depth == 0)
            diag_error_tok(n->tok, "'%s' outside a loop inside iterator '%s' (use 'if' to skip work)",
                           n->kind == ND_BREAK ? "break" : "continue", S->iter->name);
        if (!S->iter && (n->kind == ND_BREAK ? S->mats_since_break_target : S->mats_since_loop) > 0)
            diag_error_tok(n->tok, "'%s' leaves the block that declares parac_matrix '%s', which would not be "
                           "released (declare it outside the loop)", n->kind == ND_BREAK ? "break" : "continue",
                           S->last_mat);
        break;
    case ND_GOTO: case ND_LABEL:
        if (S->iter) diag_error_tok(n->tok, "goto and labels are not allowed inside an iterator");
        else if (n->kind == ND_GOTO && !S->first_goto)
            S->first_goto = n;
        break;
    case ND_ITERATOR:
        sema_iterator(S, n);
        break;
    case ND_BORDER_RULE:
        sema_rule(S, n);
        break;
    default:
        break;
    }
}

static void sema_func(Sema *S, Node *f)
{
    Obj *fo = find_obj(S, f->name);
    if (!fo) {
        Node d = {0};
        d.name = f->name;
        d.tok = f->tok;
        fo = declare(S, &d, f->ty, false);
        fo->is_func = true;
    }
    fo->func_def = f;
    fo->ty = f->ty;
    f->var = fo;
    f->ty->base = resolve_type(S, f->ty->base);
    S->func = f;
    S->mats_since_loop = S->mats_since_break_target = S->mats_in_func = 0;
    S->first_goto = NULL;
    push(S);
    for (Node *p = f->ty->params; p; p = p->next) {
        if (!p->name) continue;
        Type *ty = resolve_type(S, p->ty);
        p->ty = ty;
        Obj *o = declare(S, p, ty, true);
        if (ty->kind == TY_MATRIX) sema_matrix_decl(S, p, o, true);
    }
    sema_stmt(S, f->body);
    if (S->first_goto && S->mats_in_func > 0)
        diag_error_tok(S->first_goto->tok, "goto in a function that declares parac_matrix '%s': a jump could skip "
                       "its allocation or its release", S->last_mat);
    pop(S);
    S->func = NULL;
}

void sema_program(Program *prog)
{
    Sema S = {0};
    S.prog = prog;
    push(&S);
    for (Node *n = prog->top; n; n = n->next) {
        switch (n->kind) {
        case ND_FUNC:
            sema_func(&S, n);
            break;
        case ND_DECL:
            if (n->decls && n->decls->ty && n->decls->ty->kind == TY_FUNC && !n->is_typedef) {
                for (Node *d = n->decls; d; d = d->next) {
                    Obj *o = find_obj(&S, d->name);
                    if (!o) {
                        o = declare(&S, d, resolve_type(&S, d->ty), false);
                        o->is_func = true;
                    }
                    d->var = o;
                }
            } else
                sema_decl(&S, n);
            break;
        case ND_VERBATIM:
            for (Node *d = n->decls; d; d = d->next) {
                if (!d->name) continue;
                Obj *o = declare(&S, d, d->ty, false);
                o->is_typedef = n->is_typedef;
            }
            break;
        case ND_BORDER_RULE:
            sema_rule(&S, n);
            break;
        default:
            break;
        }
    }
}
