/* Linear forms of an index over the host's scalars, and the ranges an access
 * covers over an iterator's space: what tells two accesses apart (merged
 * launches' writes; a read beside the writes of its own iterator). */
#include <string.h>

#include "lang/lang.h"

enum { MAX_ATOMS = 8 };

typedef struct Lin {
    bool ok;
    long c;
    int n;
    const Node *atom[MAX_ATOMS]; /* a scalar, an iterator index, or an expression taken whole */
    long k[MAX_ATOMS];
} Lin;

static Lin lin_const(long c) { return (Lin){.ok = true, .c = c}; }

static void lin_add_atom(Lin *l, const Node *a, long k)
{
    for (int i = 0; i < l->n; i++)
        if (tree_same(l->atom[i], a)) {
            l->k[i] += k;
            return;
        }
    if (l->n == MAX_ATOMS) {
        l->ok = false;
        return;
    }
    l->atom[l->n] = a;
    l->k[l->n++] = k;
}

/* a + s * b */
static Lin lin_axpy(Lin a, long s, const Lin *b)
{
    if (!a.ok || !b->ok) return (Lin){0};
    a.c += s * b->c;
    for (int i = 0; i < b->n; i++) lin_add_atom(&a, b->atom[i], s * b->k[i]);
    return a;
}

static bool is_integer(const Type *t)
{
    return t && (t->kind == TY_CHAR || t->kind == TY_SHORT || t->kind == TY_INT || t->kind == TY_LONG ||
                 t->kind == TY_LLONG || t->kind == TY_BOOL);
}

static Lin lin_of(const Node *e, int depth)
{
    if (!e || depth > 100) return (Lin){0};
    bool ok;
    long v = const_eval((Node *)e, &ok);
    if (ok) return lin_const(v);
    if (e->kind == ND_BINARY && e->op && (!strcmp(e->op, "+") || !strcmp(e->op, "-"))) {
        Lin l = lin_of(e->lhs, depth + 1), r = lin_of(e->rhs, depth + 1);
        return lin_axpy(l, e->op[0] == '-' ? -1 : 1, &r);
    }
    if (e->kind == ND_BINARY && e->op && !strcmp(e->op, "*")) {
        long k = const_eval(e->lhs, &ok);
        const Node *other = e->rhs;
        if (!ok) {
            k = const_eval(e->rhs, &ok);
            other = e->lhs;
        }
        if (ok) {
            Lin r = lin_of(other, depth + 1);
            return lin_axpy(lin_const(0), k, &r);
        }
    }
    if (e->kind == ND_UNARY && e->op && !strcmp(e->op, "-")) {
        Lin r = lin_of(e->lhs, depth + 1);
        return lin_axpy(lin_const(0), -1, &r);
    }
    if (e->kind == ND_CAST && is_integer(e->cast_ty) && ty_rank(e->cast_ty) >= ty_rank(ty_basic(TY_INT, false)) &&
        e->lhs && is_integer(e->lhs->ty))
        return lin_of(e->lhs, depth + 1);
    if (!is_integer(e->ty) || tree_assigns(e)) return (Lin){0};
    Lin l = lin_const(0);
    lin_add_atom(&l, e, 1);
    return l;
}

static bool mentions_index(const Node *n, int depth)
{
    if (!n) return false;
    if (depth > 100 || n->kind == ND_ITER_INDEX) return true;
    if (mentions_index(n->lhs, depth + 1) || mentions_index(n->rhs, depth + 1) || mentions_index(n->cond, depth + 1) ||
        mentions_index(n->then, depth + 1) || mentions_index(n->els, depth + 1))
        return true;
    for (const Node *a = n->args; a; a = a->next)
        if (mentions_index(a, depth + 1)) return true;
    for (int i = 0; i < n->nidx; i++)
        if (mentions_index(n->idx[i], depth + 1)) return true;
    return false;
}

/* The least and greatest value of l over iterator it's space (its index
 * atoms replaced by their bounds). */
static bool lin_bounds(const Lin *l, const Iterator *it, Lin *lo, Lin *hi)
{
    if (!l->ok) return false;
    *lo = lin_const(l->c);
    *hi = lin_const(l->c);
    for (int i = 0; i < l->n; i++) {
        const Node *a = l->atom[i];
        const long k = l->k[i];
        if (k == 0) continue;
        if (a->kind != ND_ITER_INDEX) {
            if (mentions_index(a, 0)) return false; /* an index inside an expression taken whole */
            lin_add_atom(lo, a, k);
            lin_add_atom(hi, a, k);
            continue;
        }
        if (a->iter != it) return false;
        Lin first = lin_of(it->r[a->axis].lb, 0), last = lin_of(it->r[a->axis].ub, 0);
        last.c -= 1; /* at most ub - 1 (strides only end sooner) */
        *lo = lin_axpy(*lo, k, k > 0 ? &first : &last);
        *hi = lin_axpy(*hi, k, k > 0 ? &last : &first);
    }
    return lo->ok && hi->ok;
}

/* b - a is a constant greater than 0 */
static bool surely_below(const Lin *a, const Lin *b)
{
    Lin d = lin_axpy(*b, -1, a);
    if (!d.ok) return false;
    for (int i = 0; i < d.n; i++)
        if (d.k[i]) return false;
    return d.c > 0;
}

/* The index range of axis i of access n (an element or a window). */
static bool access_range(const Node *n, int i, const Iterator *it, Lin *lo, Lin *hi)
{
    const Node *ix = n->idx[i];
    if (!ix) return false;
    if (ix->kind == ND_SLICE) {
        Lin s = lin_of(ix->lhs, 0), l2, h2;
        if (!lin_bounds(&s, it, &l2, &h2)) return false;
        const long step = ix->reduction_id > 0 ? ix->reduction_id : 1;
        *lo = l2;
        *hi = h2;
        hi->c += (long)(ix->axis - 1) * step;
        return ix->axis >= 1;
    }
    Lin e = lin_of(ix, 0);
    return lin_bounds(&e, it, lo, hi);
}

/* Accesses a (in iterator ia) and b (in ib) touch no common element: on
 * some axis their index ranges lie apart by a constant. */
bool lang_accesses_apart(const Node *a, const Iterator *ia, const Node *b, const Iterator *ib)
{
    if (a->nidx != b->nidx) return false;
    for (int i = 0; i < a->nidx; i++) {
        Lin alo, ahi, blo, bhi;
        if (!access_range(a, i, ia, &alo, &ahi) || !access_range(b, i, ib, &blo, &bhi)) continue;
        if (surely_below(&ahi, &blo) || surely_below(&bhi, &alo)) return true;
    }
    return false;
}


/* a and b are the same linear form (s2x + (0) and s2x; 2 * x + 1 and x + 1 + x) */
bool lang_same_linear(const Node *a, const Node *b)
{
    Lin la = lin_of(a, 0), lb = lin_of(b, 0);
    Lin d = lin_axpy(la, -1, &lb);
    if (!d.ok || d.c) return false;
    for (int i = 0; i < d.n; i++)
        if (d.k[i]) return false;
    return true;
}

/* a - b is a constant (H + 2 * R and H: 2 * R), in *d */
bool lang_constant_difference(const Node *a, const Node *b, long *d)
{
    Lin la = lin_of(a, 0), lb = lin_of(b, 0);
    Lin x = lin_axpy(la, -1, &lb);
    if (!x.ok) return false;
    for (int i = 0; i < x.n; i++)
        if (x.k[i]) return false;
    *d = x.c;
    return true;
}

bool lang_bounded_index(const Node *e, const LoopBound *b, int nb, int *axis, long *coef, long *lo, long *hi)
{
    Lin l = lin_of(e, 0);
    if (!l.ok) return false;
    *axis = -1;
    *coef = 0;
    *lo = *hi = l.c;
    for (int i = 0; i < l.n; i++) {
        const Node *a = l.atom[i];
        const long k = l.k[i];
        if (k == 0) continue;
        if (a->kind == ND_ITER_INDEX) {
            if (*axis >= 0) return false; /* two iterator indices on one axis */
            *axis = a->axis;
            *coef = k;
            continue;
        }
        const LoopBound *found = NULL;
        for (int j = 0; a->kind == ND_VAR && j < nb; j++)
            if (b[j].var == a->var) found = &b[j];
        if (!found) return false;
        *lo += k > 0 ? k * found->lo : k * found->hi;
        *hi += k > 0 ? k * found->hi : k * found->lo;
    }
    return true;
}

/* Whether the host can evaluate e before the iterator runs: constants, host
 * scalars and arithmetic (no iterator index or local, matrix read, call or
 * assignment). */
static bool host_scalar_expr(const Node *e, int depth)
{
    if (!e || depth > 100) return false;
    switch (e->kind) {
    case ND_NUM: case ND_CHARLIT: return true;
    case ND_VAR:
        return e->var && e->var->ty && !e->var->is_local_to_iter && !e->var->is_func &&
               e->var->ty->kind != TY_MATRIX && e->var->ty->kind != TY_PYRAMID && is_integer(e->var->ty);
    case ND_BINARY: case ND_UNARY: case ND_CAST: case ND_COND:
        break;
    default:
        return false;
    }
    if (tree_assigns((Node *)e)) return false;
    NodeKids k = {.n = e};
    for (const Node *c; (c = lang_next_kid(&k));)
        if (!host_scalar_expr(c, depth + 1)) return false;
    return true;
}

/* Whether n assigns `local` (=, op=, ++, --) or takes its address. */
static bool assigns_local(const Node *n, const Obj *local, int depth)
{
    if (!n) return false;
    if (depth > 400) return true;
    const bool on_local = n->lhs && n->lhs->kind == ND_VAR && n->lhs->var == local;
    if (n->kind == ND_ASSIGN && on_local) return true;
    if ((n->kind == ND_UNARY || n->kind == ND_POSTFIX) && on_local && n->op &&
        (!strcmp(n->op, "++") || !strcmp(n->op, "--") || !strcmp(n->op, "&")))
        return true;
    NodeKids k = {.n = (Node *)n};
    for (const Node *c; (c = lang_next_kid(&k));)
        if (assigns_local(c, local, depth + 1)) return true;
    return false;
}

/* The value of a local of the iterator where it is declared by a statement
 * of the body's own block (so it runs before the statements after it) and
 * never assigned again; NULL otherwise. */
static Node *single_value(const Iterator *it, const Obj *local)
{
    const Node *body = it->body;
    if (!body || body->kind != ND_BLOCK) return NULL;
    Node *value = NULL;
    for (const Node *st = body->args; st; st = st->next)
        if (st->kind == ND_DECL)
            for (const Node *d = st->decls; d; d = d->next)
                if (d->var == local) value = d->init;
    if (!value || value->kind == ND_INIT_LIST || assigns_local(body, local, 0)) return NULL;
    /* the value as the local holds it: a signed integer no narrower than it */
    const Type *lt = local->ty, *vt = value->ty;
    if (!is_integer(lt) || !is_integer(vt) || lt->is_unsigned || vt->is_unsigned ||
        ty_rank(lt) < ty_rank(ty_basic(TY_INT, false)) || ty_rank(vt) > ty_rank(lt))
        return NULL;
    return value;
}

/* e with the iterator's locals that have one value replaced by it (in
 * copies: `int s = ty - r; in[tx][s:n]` reads at ty - r), up to `depth`
 * levels of locals defined by locals; e itself where none is. */
Node *lang_inline_locals(Node *e, Iterator *it, int depth)
{
    if (!e || depth > 8) return e;
    if (e->kind == ND_VAR && e->var && e->var->is_local_to_iter) {
        Node *v = single_value(it, e->var);
        return v ? lang_inline_locals(v, it, depth + 1) : e;
    }
    if (e->kind != ND_BINARY && e->kind != ND_UNARY && e->kind != ND_CAST && e->kind != ND_COND) return e;
    if (tree_assigns(e)) return e;
    Node *l = lang_inline_locals(e->lhs, it, depth), *r = lang_inline_locals(e->rhs, it, depth),
         *c = lang_inline_locals(e->cond, it, depth), *t = lang_inline_locals(e->then, it, depth),
         *f = lang_inline_locals(e->els, it, depth);
    if (l == e->lhs && r == e->rhs && c == e->cond && t == e->then && f == e->els) return e;
    Node *n = new_node(e->kind, e->tok);
    *n = *e;
    n->lhs = l, n->rhs = r, n->cond = c, n->then = t, n->els = f;
    return n;
}

bool lang_split_index_term(Node *e, Iterator *it, int *axis, long *coef, Node **rest)
{
    Lin l = lin_of(e, 0);
    if (!l.ok) return false;
    *axis = -1;
    *coef = 0;
    for (int i = 0; i < l.n; i++) {
        const Node *a = l.atom[i];
        if (l.k[i] == 0) continue;
        if (a->kind == ND_ITER_INDEX && a->iter == it) {
            if (*axis >= 0) return false;
            *axis = a->axis;
            *coef = l.k[i];
        } else if (!host_scalar_expr(a, 0))
            return false;
    }
    if (*axis < 0) return false;
    /* e with the index at 0: the constant and the scalars' terms */
    Subst s = {.from = it};
    for (int d = 0; d < 3; d++) s.to_expr[d] = lang_int_node(e->tok, 0);
    *rest = tree_copy(e, &s);
    return true;
}
