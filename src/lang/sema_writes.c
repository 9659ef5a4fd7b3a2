/* The writes of a parallel iterator: every iteration must write elements of
 * its own. A write whose indices do not tell the iterations apart (an index
 * read from data, as in a histogram's hist[in[x][y]] += 1; an accumulation
 * into fixed elements; an index that mixes two axes or divides one; windows
 * of neighbouring iterations that overlap) would race on every target, so
 * it is rejected where it stands.
 *
 * Each index is put in the form coef * k + c, where k counts the
 * iterations along one axis (the index variable steps by the range's
 * stride, and by the element size of an iter_element iterator) and c does
 * not change within the iterator (numbers, host scalars, which an iterator
 * may not assign, and locals of the iterator that are never assigned after
 * their initialiser, which is itself of such a form). An axis is told apart
 * when some index follows it with |coef| at least the span of the window
 * written there (1 for an element). A coefficient that is a host scalar
 * (B[cx * (H - 1)][...]: the corners) counts as nonzero, which is as far as
 * the compiler can know sizes; for a window it does not count.
 *
 * Such a write is allowed in one form: an update `M[i][j] += v`, `-= v`,
 * `++` or `--` of int or unsigned int elements by an integer v (a
 * histogram, a sum into shared elements). It is marked atomic_update and
 * each target prints it as its atomic add, so the totals are exact in any
 * order; the matrix may not be read otherwise in that iterator (below).
 * A write or update of elements of any type whose other indices follow
 * every axis with constant coefficients (acc[x][y][bin] += v, bin from data;
 * grid[x][y][z] = h[z], z a loop's) gives each iteration elements of its own
 * whatever the data: it is a plain write (scatter_own), under the same rule
 * on reads.
 *
 * A matrix the iterator writes may be read only where the iteration writes
 * it (the same indices as one of its writes: node for node, or the same
 * linear form) or where no
 * iteration writes it (apart from every write by a constant on some axis:
 * the sharpening's rows_tail reads row 4Md - 1 and writes rows 4Md ..). A
 * read of an element or window that other iterations write (A[x][y] =
 * A[x + 1][y - 1] / 2) would see their old or their new value depending on
 * the order the targets run them in. The ranges ignore strides, so a read
 * of rows a stride skips is refused too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lang.h"

typedef enum { FORM_INVARIANT, FORM_AXIS, FORM_OTHER } FormKind;

typedef struct IndexForm {
    FormKind kind;
    int axis;        /* FORM_AXIS: the iterator's axis */
    long coef;       /* FORM_AXIS: per iteration along it */
    bool has_offset; /* FORM_AXIS: an invariant term is added */
    bool symbolic;   /* FORM_AXIS: coef times a host scalar */
} IndexForm;

static const IndexForm other = {FORM_OTHER, -1, 0, false, false};
static const IndexForm invariant = {FORM_INVARIANT, -1, 0, false, false};

static IndexForm axis_form(int axis, long coef, bool has_offset)
{
    if (coef == 0) return invariant;
    return (IndexForm){FORM_AXIS, axis, coef, has_offset, false};
}

/* The iterator's locals: each one's initialiser, and whether anything
 * assigns it afterwards. */
typedef struct Local {
    const Obj *var;
    Node *init;
    bool assigned;
} Local;

typedef struct Walk {
    const Iterator *it;
    Local locals[64];
    int nlocals;
    bool too_many;
    char why[160]; /* what made the first index FORM_OTHER */
} Walk;

/* FORM_OTHER, with the first reason kept for the message. */
static IndexForm other_because(Walk *w, const char *fmt, const char *name)
{
    if (!w->why[0]) snprintf(w->why, sizeof w->why, fmt, name ? name : "?");
    return other;
}

static Local *local_of(Walk *w, const Obj *var)
{
    for (int i = 0; i < w->nlocals; i++)
        if (w->locals[i].var == var) return &w->locals[i];
    return NULL;
}

static void note_assigned(Walk *w, Node *lhs)
{
    if (!lhs || lhs->kind != ND_VAR || !lhs->var) return;
    Local *l = local_of(w, lhs->var);
    if (l) l->assigned = true;
}

static void collect_locals(Walk *w, Node *n)
{
    if (!n) return;
    if (n->kind == ND_DECL)
        for (Node *d = n->decls; d; d = d->next) {
            if (!d->var) continue;
            if (w->nlocals == (int)(sizeof w->locals / sizeof w->locals[0])) {
                w->too_many = true;
                continue;
            }
            w->locals[w->nlocals++] = (Local){d->var, d->init, false};
        }
    if (n->kind == ND_ASSIGN) note_assigned(w, n->lhs);
    if ((n->kind == ND_UNARY || n->kind == ND_POSTFIX) && n->op && (!strcmp(n->op, "++") || !strcmp(n->op, "--")))
        note_assigned(w, n->lhs);
    if (n->kind == ND_UNARY && n->op && !strcmp(n->op, "&")) note_assigned(w, n->lhs); /* may be written through */
    Node *c;
    for (NodeKids k = {.n = n}; (c = lang_next_kid(&k));) collect_locals(w, c);
}

/* The form of e when every part of it is invariant, else FORM_OTHER. */
static IndexForm all_invariant(Walk *w, Node *e, int depth);

static IndexForm form_of(Walk *w, Node *e, int depth)
{
    const Iterator *it = w->it;
    if (!e || depth > 64) return other;
    bool ok;
    const_eval(e, &ok); /* a constant: its value does not matter, only that it is one */
    if (ok) return invariant;
    switch (e->kind) {
    case ND_ITER_INDEX: {
        if (e->iter != it) return other;
        long step = it->r[e->axis].stride > 0 ? it->r[e->axis].stride : 1;
        if (it->iter_element && it->elem[e->axis] > 0) step *= it->elem[e->axis];
        return axis_form(e->axis, step, false);
    }
    case ND_VAR: {
        /* a name sema did not resolve is a macro or an enum constant */
        if (!e->var) return invariant;
        if (e->var->ty->kind == TY_MATRIX) return other_because(w, "it uses matrix '%s' as a number", e->var->name);
        if (!e->var->is_local_to_iter) return invariant;
        Local *l = local_of(w, e->var);
        if (!l || !l->init || !ty_is_integer(e->var->ty))
            return other_because(w, "local variable '%s' has no integer initialiser", e->var->name);
        if (l->assigned) return other_because(w, "local variable '%s' is assigned after its initialiser", e->var->name);
        return form_of(w, l->init, depth + 1);
    }
    case ND_CAST:
        return ty_is_integer(e->ty) ? form_of(w, e->lhs, depth + 1) : other;
    case ND_UNARY: {
        IndexForm f = form_of(w, e->lhs, depth + 1);
        if (!strcmp(e->op, "+")) return f;
        if (!strcmp(e->op, "-") && f.kind == FORM_AXIS) {
            f.coef = -f.coef;
            return f;
        }
        return f.kind == FORM_INVARIANT && strcmp(e->op, "++") && strcmp(e->op, "--") ? invariant : other;
    }
    case ND_BINARY: {
        IndexForm l = form_of(w, e->lhs, depth + 1), r = form_of(w, e->rhs, depth + 1);
        if (l.kind == FORM_OTHER || r.kind == FORM_OTHER) return other;
        if (l.kind == FORM_INVARIANT && r.kind == FORM_INVARIANT) return invariant;
        const char *op = e->op;
        if (!strcmp(op, "+") || !strcmp(op, "-")) {
            long sign = op[0] == '-' ? -1 : 1;
            if (l.kind == FORM_AXIS && r.kind == FORM_AXIS) {
                if (l.axis != r.axis || l.symbolic || r.symbolic)
                    return other_because(w, "it adds %s's index variables", it->name);
                return axis_form(l.axis, l.coef + sign * r.coef, l.has_offset || r.has_offset);
            }
            IndexForm f = l.kind == FORM_AXIS ? l : r;
            if (r.kind == FORM_AXIS) f.coef *= sign;
            f.has_offset = true;
            return f;
        }
        if (l.kind == FORM_AXIS && r.kind == FORM_AXIS)
            return other_because(w, "it applies '%s' to two of the iterator's indices", op);
        /* the other operators keep the form only with an invariant operand */
        IndexForm f = l.kind == FORM_AXIS ? l : r;
        Node *k = l.kind == FORM_AXIS ? e->rhs : e->lhs;
        long c = const_eval(k, &ok);
        if (!strcmp(op, "*")) {
            if (!ok) { /* times a host scalar: nonzero as far as can be known */
                f.symbolic = true;
                return f;
            }
            f.coef *= c;
            return f.coef ? f : invariant;
        }
        if (!ok || f.symbolic) return other;
        if (l.kind == FORM_AXIS && !f.has_offset && c > 0) {
            /* k * coef / c with c dividing coef: still one value per iteration */
            if (!strcmp(op, "/") && f.coef % c == 0) return axis_form(f.axis, f.coef / c, false);
            if (!strcmp(op, ">>") && c < 62 && f.coef % (1L << c) == 0)
                return axis_form(f.axis, f.coef / (1L << c), false);
            if (!strcmp(op, "<<") && c < 32) return axis_form(f.axis, f.coef * (1L << c), false);
        }
        return other_because(w, "'%s' maps several iterations to one index", op);
    }
    default:
        return all_invariant(w, e, depth);
    }
}

static IndexForm all_invariant(Walk *w, Node *e, int depth)
{
    if (e->kind == ND_MAT_ELEM || e->kind == ND_WINDOW)
        return other_because(w, "it reads matrix '%s'", e->var ? e->var->name : NULL);
    if (e->kind == ND_CALL) return other_because(w, "it calls '%s'", e->name);
    if (e->kind == ND_ASSIGN) return other_because(w, "it assigns%s", "");
    Node *c;
    for (NodeKids k = {.n = e}; (c = lang_next_kid(&k));)
        if (form_of(w, c, depth + 1).kind != FORM_INVARIANT) return other;
    return invariant;
}

static const char *axis_name(int axis)
{
    static const char *const letters[] = {"x", "y", "z"};
    return axis >= 0 && axis < 3 ? letters[axis] : "?";
}

/* n updates a matrix element: +=, -=, ++ or -- (of any element type). */
static bool update_form(const Node *n)
{
    const Node *lhs = n->lhs;
    if (!lhs || lhs->kind != ND_MAT_ELEM || !lhs->var || !lhs->var->ty || !lhs->var->ty->base) return false;
    if (n->kind == ND_ASSIGN) return n->op && (!strcmp(n->op, "+=") || !strcmp(n->op, "-="));
    return true; /* ++ / -- */
}

/* n writes one matrix element, by any assignment or ++ / --. */
static bool element_write(const Node *n)
{
    const Node *lhs = n->lhs;
    if (!lhs || lhs->kind != ND_MAT_ELEM || !lhs->var || !lhs->var->ty || !lhs->var->ty->base) return false;
    return n->kind != ND_ASSIGN || n->op;
}

/* The update n can be an atomic add: an update of an int or unsigned int
 * matrix element, by an integer. */
static bool atomic_form(const Node *n)
{
    if (!update_form(n)) return false;
    const Type *t = n->lhs->var->ty->base;
    if (t->kind != TY_INT || ty_size(t) != 4) return false;
    return n->kind != ND_ASSIGN || (n->rhs && ty_is_integer(n->rhs->ty));
}

/* Every axis of the iterator is followed by an index of lhs with a constant
 * nonzero coefficient: two iterations differ in some such index, whatever
 * the other indices hold, so each iteration's elements are its own. */
static bool axes_followed_by_constants(Walk *w, const Node *lhs)
{
    for (int d = 0; d < w->it->ndim; d++) {
        bool follows = false;
        for (int p = 0; p < lhs->nidx && p < 3 && !follows; p++) {
            IndexForm f = form_of(w, lhs->idx[p], 0);
            follows = f.kind == FORM_AXIS && f.axis == d && !f.symbolic && f.coef != 0;
        }
        if (!follows) return false;
    }
    return true;
}

/* Reports write `lhs` (a matrix element or window written in iterator it)
 * unless it gives each iteration elements of its own; an update of the
 * atomic form (n) that does not is marked atomic instead. */
static void check_write(Walk *w, Node *n, const Node *lhs, const Token *at)
{
    if (element_write(n)) {
        /* an index from data or a loop beside indices that follow every
         * axis (a histogram per pixel or per cell: acc[x][y][bin] += v; a
         * cell's bins stored by a loop: grid[x][y][z] = h[z]): the
         * iteration's elements are its own, a plain write of any type */
        bool data = false;
        for (int p = 0; p < lhs->nidx && p < 3; p++) data |= form_of(w, lhs->idx[p], 0).kind == FORM_OTHER;
        if (data && axes_followed_by_constants(w, lhs)) {
            n->scatter_own = true;
            return;
        }
    }
    if (atomic_form(n)) {
        bool own = true;
        for (int p = 0; p < lhs->nidx && p < 3 && own; p++) own = form_of(w, lhs->idx[p], 0).kind != FORM_OTHER;
        for (int d = 0; d < w->it->ndim && own; d++) {
            bool follows = false;
            for (int p = 0; p < lhs->nidx && p < 3; p++) {
                IndexForm f = form_of(w, lhs->idx[p], 0);
                follows |= f.kind == FORM_AXIS && f.axis == d;
            }
            own = follows;
        }
        if (!own) {
            n->atomic_update = true;
            return;
        }
    }
    const Iterator *it = w->it;
    const char *m = lhs->var ? lhs->var->name : "?";
    IndexForm f[3];
    long span[3];
    for (int p = 0; p < lhs->nidx && p < 3; p++) {
        Node *ix = lhs->idx[p];
        span[p] = 1;
        if (ix && ix->kind == ND_SLICE) {
            span[p] = (long)(ix->axis - 1) * (ix->reduction_id > 0 ? ix->reduction_id : 1) + 1;
            ix = ix->lhs;
        }
        w->why[0] = '\0';
        f[p] = form_of(w, ix, 0);
        if (f[p].kind == FORM_OTHER) {
            diag_error_tok(at, "'%s' is written at an index that does not follow the iterator '%s' (index %d: %s): "
                           "its iterations run in parallel and may write the same element; a scatter or a sum "
                           "into shared elements is supported only as an update (+=, -=, ++, --) of int or "
                           "unsigned int elements by an integer, which is made atomic, or as a write of any elements "
                           "where the other indices follow every axis of '%s'", m, it->name, p + 1,
                           w->why[0] ? w->why : "it is not of the form a * index + b", it->name);
            return;
        }
    }
    for (int d = 0; d < it->ndim; d++) {
        bool apart = false, overlap = false;
        for (int p = 0; p < lhs->nidx && p < 3 && !apart; p++) {
            if (f[p].kind != FORM_AXIS || f[p].axis != d) continue;
            if (span[p] == 1 || (!f[p].symbolic && labs(f[p].coef) >= span[p])) apart = true;
            else overlap = true;
        }
        if (apart) continue;
        if (overlap)
            diag_error_tok(at, "the windows of '%s' that neighbouring iterations of '%s' write overlap along %s%s: "
                           "its iterations run in parallel and would write the same elements", m, it->name,
                           it->name, axis_name(d));
        else
            diag_error_tok(at, "'%s' is written at the same element by every iteration along %s%s (no index "
                           "follows it): the iterations of '%s' run in parallel; a sum into shared elements is "
                           "supported only as an update (+=, -=, ++, --) of int or unsigned int elements by an "
                           "integer, which is made atomic", m, it->name, axis_name(d), it->name);
        return;
    }
}

/* The same index of a written and a read access: the same expression, and
 * for a window the same start, length and stride. */
static bool same_index(const Node *a, const Node *b)
{
    if (!a || !b) return a == b;
    if (a->kind == ND_SLICE || b->kind == ND_SLICE)
        return a->kind == b->kind && a->axis == b->axis && a->reduction_id == b->reduction_id &&
               (tree_same(a->lhs, b->lhs) || lang_same_linear(a->lhs, b->lhs));
    return tree_same(a, b) || lang_same_linear(a, b);
}

static bool same_access(const Node *a, const Node *b)
{
    if (a->var != b->var || a->nidx != b->nidx) return false;
    for (int p = 0; p < a->nidx; p++)
        if (!same_index(a->idx[p], b->idx[p])) return false;
    return true;
}

static bool is_write_of_matrix(const Node *n)
{
    bool incdec = (n->kind == ND_UNARY || n->kind == ND_POSTFIX) && n->op && (!strcmp(n->op, "++") || !strcmp(n->op, "--"));
    return (n->kind == ND_ASSIGN || incdec) && n->lhs && (n->lhs->kind == ND_MAT_ELEM || n->lhs->kind == ND_WINDOW);
}

typedef struct Writes {
    const Node *at[64];
    bool atomic[64];  /* any element may change: an atomic update or an update at an index from data */
    bool scatter[64]; /* the latter */
    int n;
    bool too_many;
} Writes;

static void collect_writes(Writes *ws, const Node *n)
{
    if (!n) return;
    if (is_write_of_matrix(n)) {
        if (ws->n < (int)(sizeof ws->at / sizeof ws->at[0])) {
            ws->atomic[ws->n] = n->atomic_update || n->scatter_own;
            ws->scatter[ws->n] = n->scatter_own;
            ws->at[ws->n++] = n->lhs;
        } else
            ws->too_many = true;
    }
    Node *c;
    for (NodeKids k = {.n = (Node *)n}; (c = lang_next_kid(&k));) collect_writes(ws, c);
}

/* Reports the first read of each written matrix at an element that is not
 * one this iteration writes. */
static void check_reads(const Iterator *it, const Writes *ws, const Node *n, const Obj **reported, int *nreported)
{
    if (!n) return;
    if ((n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW) && n->var) {
        bool written = false, same = false;
        for (int i = 0; i < ws->n; i++)
            if (ws->at[i]->var == n->var && ws->atomic[i]) {
                /* updated atomically: any element may change under any read but the update's own */
                bool own_update = false;
                for (int j = 0; j < ws->n; j++) own_update |= ws->at[j] == n; /* a plain write beside it: reported below */
                if (!own_update) written = true;
            } else if (ws->at[i]->var == n->var) {
                if (same_access(ws->at[i], n)) same = true;
                else if (!lang_accesses_apart(ws->at[i], it, n, it)) written = true;
            }
        bool seen = false;
        for (int i = 0; i < *nreported; i++) seen |= reported[i] == n->var;
        bool atomic = false;
        for (int i = 0; i < ws->n; i++) atomic |= ws->at[i]->var == n->var && ws->atomic[i];
        const Node *scatter = NULL; /* a write at an index from data or a loop (scatter_own) */
        for (int i = 0; i < ws->n && !scatter; i++)
            if (ws->at[i]->var == n->var && ws->atomic[i] && ws->scatter[i] && ws->at[i] != n) scatter = ws->at[i];
        if (written && scatter && !seen && *nreported < 64) {
            reported[(*nreported)++] = n->var;
            diag_error_tok(n->tok, "'%s' is read here and written at an index from data or a loop in '%s' (line %d): "
                           "read it in a later iterator", n->var->name, it->name, scatter->tok->line);
        } else if (written && (!same || atomic) && !seen && *nreported < 64) {
            reported[(*nreported)++] = n->var;
            diag_error_tok(n->tok, "'%s' is read at %s that other iterations of '%s' write: its iterations run in "
                           "parallel, so the value read would depend on their order; read '%s' only where the "
                           "iteration writes it, or write the result to another matrix", n->var->name,
                           n->kind == ND_WINDOW ? "a window" : "an element", it->name, n->var->name);
        }
    }
    Node *c;
    for (NodeKids k = {.n = (Node *)n}; (c = lang_next_kid(&k));) check_reads(it, ws, c, reported, nreported);
}

static void check_node(Walk *w, Node *n, bool value_unused)
{
    if (!n) return;
    if (n->kind == ND_ASSIGN && n->lhs && (n->lhs->kind == ND_MAT_ELEM || n->lhs->kind == ND_WINDOW))
        check_write(w, n, n->lhs, n->tok);
    else if ((n->kind == ND_UNARY || n->kind == ND_POSTFIX) && n->op &&
             (!strcmp(n->op, "++") || !strcmp(n->op, "--")) && n->lhs && n->lhs->kind == ND_MAT_ELEM)
        check_write(w, n, n->lhs, n->tok);
    if (n->atomic_update && !value_unused)
        diag_error_tok(n->tok, "the value of this update of '%s' is used, but several iterations may update the "
                       "element at once (it is made atomic): make the update a statement of its own",
                       n->lhs->var->name);
    Node *c;
    for (NodeKids k = {.n = n}; (c = lang_next_kid(&k));) check_node(w, c, n->kind == ND_EXPR_STMT && c == n->lhs);
}

static void check_iterator(const Iterator *it)
{
    if (!it || !it->body) return;
    Walk *w = lang_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    w->it = it;
    collect_locals(w, it->body);
    check_node(w, it->body, false);
    Writes *ws = lang_alloc(sizeof *ws);
    memset(ws, 0, sizeof *ws);
    collect_writes(ws, it->body);
    const Obj **reported = lang_alloc(64 * sizeof *reported);
    int nreported = 0;
    if (!ws->too_many) check_reads(it, ws, it->body, reported, &nreported);
    /* an atomic update's elements may be any: no other write of that matrix beside it */
    for (int i = 0; i < ws->n; i++)
        for (int j = 0; j < ws->n; j++)
            if (ws->atomic[i] && !ws->atomic[j] && ws->at[i]->var == ws->at[j]->var) {
                if (ws->scatter[i])
                    diag_error_tok(ws->at[j]->tok, "'%s' is written here and at an index from data or a loop "
                                   "elsewhere in '%s' (line %d): write it in an iterator of its own",
                                   ws->at[j]->var->name, it->name, ws->at[i]->tok->line);
                else
                    diag_error_tok(ws->at[j]->tok, "'%s' is written here and updated atomically elsewhere in '%s' "
                                   "(line %d), where any iteration may update any element: the two would race; "
                                   "write it in an iterator of its own", ws->at[j]->var->name, it->name,
                                   ws->at[i]->tok->line);
                return;
            }
}

static void check_iterators_in(Node *n)
{
    if (!n) return;
    if (n->kind == ND_ITERATOR) check_iterator(n->iter);
    Node *c;
    for (NodeKids k = {.n = n}; (c = lang_next_kid(&k));) check_iterators_in(c);
}

void sema_check_writes(Program *prog)
{
    for (Node *n = prog->top; n; n = n->next)
        if (n->kind == ND_FUNC) check_iterators_in(n->body);
}
