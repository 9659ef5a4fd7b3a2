/* A declared matrix whose elements are all written before any is read needs
 * no zeroing (C target): its first use is an iterator that writes a box of
 * it at each iteration's own point (every plane, where a loop-free body
 * names them by constants), and every later use is an iterator that reads
 * inside that box. Zeroing a large intermediate is a whole pass over memory:
 * on two cores it cost harris, camera_pipe and resize 10-40 %.
 *
 * Conservative by construction: any mention the rules below do not read as
 * such a write or read (host code, a call, a border rule, an index that is
 * not the iterator's own plus a constant) keeps the zeroing. */
#include "lang.h"

#include <stdio.h>
#include <string.h>

enum { MAX_PLANES = 64 };

/* The box the first use writes: rows/columns [lb, ub) of the trailing axes
 * (the writer's ranges), the planes of a leading axis. */
typedef struct Box {
    const Node *fn;           /* the function's body */
    const Obj *o;
    const Iterator *w;
    int lead;                 /* 0, or 1: a leading axis of planes */
    unsigned long long planes; /* bit p: plane p written (lead 1) */
} Box;

/* Mentions of o in statement s. A declaration's declarators carry their
 * block (emit_host.c) as a kid: only their initialisers count. */
static int stmt_mentions(const Node *s, const Obj *o)
{
    if (!s || s->kind != ND_DECL) return tree_mentions((Node *)s, o, 0);
    int k = 0;
    for (const Node *d = s->decls; d; d = d->next) k += tree_mentions(d->init, o, 0);
    return k;
}

static bool stmt_jumps(const Node *s) { return s && s->kind != ND_DECL && lang_any_jump(s); }

/* it's bounds have one value through the function (tree_fixed_value), so
 * bounds of two iterators that differ by a constant in text do at run time */
static bool fixed_ranges(const Iterator *it, const Node *fn)
{
    for (int d = 0; d < it->ndim; d++)
        if (!tree_fixed_value(it->r[d].lb, fn) || !tree_fixed_value(it->r[d].ub, fn)) return false;
    return true;
}

/* Only the iterator's own indices (no other iterator's, no matrix reads). */
static bool only_indices_of(const Node *e, const Iterator *it, int depth)
{
    if (!e) return true;
    if (depth > 100) return false;
    if (e->kind == ND_ITER_INDEX) return e->iter == it;
    if (e->kind == ND_MAT_ELEM || e->kind == ND_WINDOW || e->kind == ND_CALL || tree_assigns(e)) return false;
    NodeKids k = {.n = (Node *)e};
    for (Node *c; (c = lang_next_kid(&k));)
        if (!only_indices_of(c, it, depth + 1)) return false;
    return true;
}

/* s writes o at the writer's own point: o[p][wx][wy] = E, E not naming o. */
static bool own_write(const Node *s, const Obj *o, const Iterator *w, int lead, long *plane)
{
    const Node *e = s && s->kind == ND_EXPR_STMT ? s->lhs : NULL;
    if (!e || e->kind != ND_ASSIGN || !e->op || strcmp(e->op, "=") || e->atomic_update || e->scatter_own) return false;
    const Node *l = e->lhs;
    if (!l || l->kind != ND_MAT_ELEM || l->var != o || l->nidx != o->ty->ndim) return false;
    for (int d = 0; d < w->ndim; d++) {
        const Node *x = l->idx[lead + d];
        if (!x || x->kind != ND_ITER_INDEX || x->iter != w || x->axis != d) return false;
    }
    bool ok = true;
    *plane = lead ? const_eval(l->idx[0], &ok) : 0;
    return ok && *plane >= 0 && *plane < MAX_PLANES && !tree_mentions(e->rhs, o, 0);
}

/* Whether the statement s (an iterator) writes a box of o before anything
 * reads it; fills the box. */
static bool first_write(const Node *s, const Node *fn, const Obj *o, Box *b)
{
    if (!s || s->kind != ND_ITERATOR || !s->iter) return false;
    const Iterator *w = s->iter;
    const Type *m = o->ty;
    const int lead = m->ndim - w->ndim;
    if (lead < 0 || lead > 1 || w->iter_element || w->nstages || w->nloops) return false;
    for (int i = 0; i < w->nrules; i++)
        if (w->rules[i] && w->rules[i]->var == o) return false;
    for (int d = 0; d < w->ndim; d++)
        if (w->r[d].stride != 1) return false;
    if (!fixed_ranges(w, fn)) return false;
    long planes = 1;
    if (lead) {
        bool ok;
        planes = const_eval(m->dims[0], &ok);
        if (!ok || planes < 1 || planes > MAX_PLANES) return false;
    }
    const unsigned long long all = planes == 64 ? ~0ull : (1ull << planes) - 1;
    unsigned long long seen = 0;
    int writes = 0;
    const Node *body = w->body;
    const bool block = body && body->kind == ND_BLOCK;
    for (const Node *st = block ? body->args : body; st; st = block ? st->next : NULL) {
        long p;
        if (own_write(st, o, w, lead, &p)) {
            seen |= 1ull << p;
            writes++;
            if (seen == all) break;
            continue;
        }
        /* before every plane is written: nothing reads o or skips a write */
        if (stmt_mentions(st, o) || stmt_jumps(st)) return false;
    }
    if (seen != all || tree_mentions((Node *)body, o, 0) != writes) return false;
    *b = (Box){.fn = fn, .o = o, .w = w, .lead = lead, .planes = seen};
    return true;
}

/* k * e as a node (for the linear forms of bounds) */
static Node *times(long k, Node *e)
{
    if (!e || k == 1) return e;
    if (!e->tok) return NULL; /* (a number needs a location) */
    Node *n = new_node(ND_BINARY, e->tok);
    n->op = "*";
    n->lhs = lang_int_node(e->tok, k);
    n->rhs = e;
    n->ty = e->ty;
    return n;
}

/* Reads of index x (of the reader r) stay within the writer's axis d: x is
 * k times r's index of some axis plus a constant (or a constant), with r's
 * locals of one value put in, plus, for a window, up to `reach` more. */
static bool index_inside(Node *x, long reach, const Iterator *r, const Iterator *w, int d)
{
    x = lang_inline_locals(x, (Iterator *)r, 0);
    if (!only_indices_of(x, r, 0)) return false;
    const Affine a = lang_affine(x);
    if (!a.ok) return false;
    long lo_gap, hi_gap; /* first read - w's first; w's last - last read */
    if (a.axis < 0) {
        bool ok1, ok2;
        const long lb = const_eval(w->r[d].lb, &ok1), ub = const_eval(w->r[d].ub, &ok2);
        if (!ok1 || !ok2) return false;
        lo_gap = a.offset - lb;
        hi_gap = ub - 1 - (a.offset + reach);
    } else {
        if (a.coef < 1 || a.axis >= r->ndim) return false;
        /* the reader's indices run from lb to at most ub - 1: it reads from
         * k lb + offset to k (ub - 1) + offset + reach */
        long dl, du;
        Node *klb = times(a.coef, r->r[a.axis].lb), *kub = times(a.coef, r->r[a.axis].ub);
        if (!klb || !kub || !w->r[d].lb || !w->r[d].ub || !lang_constant_difference(klb, w->r[d].lb, &dl) ||
            !lang_constant_difference(w->r[d].ub, kub, &du))
            return false;
        lo_gap = dl + a.offset;
        hi_gap = du + a.coef - 1 - a.offset - reach;
    }
    return lo_gap >= 0 && hi_gap >= 0;
}

/* An access of o (an element or a window) inside the reader r reads only
 * the box. */
static bool access_inside(const Node *n, const Iterator *r, const Box *b)
{
    if (n->nidx != b->o->ty->ndim) return false;
    if (b->lead) {
        if (n->idx[0]->kind == ND_SLICE) return false;
        bool ok;
        const long p = const_eval(n->idx[0], &ok);
        if (!ok || p < 0 || p >= MAX_PLANES || !(b->planes >> p & 1)) return false;
    }
    for (int d = 0; d < b->w->ndim; d++) {
        Node *x = n->idx[b->lead + d];
        long reach = 0;
        if (x && x->kind == ND_SLICE) {
            bool ok;
            const long len = const_eval(x->rhs, &ok);
            if (!ok || len < 1 || x->axis != len || x->reduction_id < 1) return false;
            reach = (len - 1) * x->reduction_id;
            x = x->lhs;
        }
        if (!x || !index_inside(x, reach, r, b->w, d)) return false;
    }
    return true;
}

/* Every mention of o in n, the body of reader r, is an access inside the box. */
static bool reads_inside(const Node *n, const Iterator *r, const Box *b, int depth)
{
    if (!n) return true;
    if (depth > 400) return false;
    if (n->kind == ND_ITERATOR) return false; /* not nested in a body */
    if (n->kind == ND_VAR && n->var == b->o) return false;
    if (n->kind == ND_BORDER_RULE && n->rule && n->rule->var == b->o) return false;
    if ((n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW) && n->var == b->o && !access_inside(n, r, b)) return false;
    NodeKids k = {.n = (Node *)n};
    for (Node *c; (c = lang_next_kid(&k));)
        if (!reads_inside(c, r, b, depth + 1)) return false;
    return true;
}

/* A later statement uses o only in iterators that read inside the box. */
static bool later_use_inside(const Node *s, const Box *b, int depth)
{
    if (!s || !stmt_mentions(s, b->o)) return true;
    if (depth > 400) return false;
    if (s->kind == ND_ITERATOR) {
        const Iterator *r = s->iter;
        if (!r || r->iter_element || r->nstages || r->nloops) return false;
        for (int i = 0; i < r->nrules; i++)
            if (r->rules[i] && r->rules[i]->var == b->o) return false;
        for (int d = 0; d < r->ndim; d++)
            if (tree_mentions(r->r[d].lb, b->o, 0) || tree_mentions(r->r[d].ub, b->o, 0)) return false;
        if (!fixed_ranges(r, b->fn)) return false;
        return s->body == r->body && reads_inside(r->body, r, b, 0);
    }
    /* host statements: only as the blocks and loops around iterators */
    switch (s->kind) {
    case ND_BLOCK:
        for (const Node *c = s->args; c; c = c->next)
            if (!later_use_inside(c, b, depth + 1)) return false;
        return true;
    case ND_IF:
        return !tree_mentions(s->cond, b->o, 0) && later_use_inside(s->then, b, depth + 1) &&
               later_use_inside(s->els, b, depth + 1);
    case ND_FOR: case ND_WHILE: case ND_DO:
        return !tree_mentions(s->init, b->o, 0) && !tree_mentions(s->cond, b->o, 0) &&
               !tree_mentions(s->inc, b->o, 0) && later_use_inside(s->body, b, depth + 1);
    default:
        return false;
    }
}

bool lang_written_before_read(const Node *fn, const Node *block, const Node *decl, const Obj *o)
{
    if (!block || block->kind != ND_BLOCK || !o || !o->ty || o->ty->kind != TY_MATRIX || o->is_ref || o->init)
        return false;
    /* the statement that declares o, then what follows it */
    const Node *s = block->args;
    for (; s; s = s->next) {
        if (s == decl) break;
        if (s->kind == ND_DECL) {
            const Node *d = s->decls;
            while (d && d != decl) d = d->next;
            if (d) {
                for (d = d->next; d; d = d->next)
                    if (tree_mentions(d->init, o, 0)) return false;
                break;
            }
        }
    }
    return s && lang_written_first_from(fn, s->next, o);
}

bool lang_written_first_from(const Node *fn, const Node *s, const Obj *o)
{
    if (!o || !o->ty || o->ty->kind != TY_MATRIX || o->is_ref || o->init) return false;
    Box b;
    for (; s; s = s->next) {
        if (first_write(s, fn, o, &b)) break;
        if (stmt_mentions(s, o) || stmt_jumps(s)) return false;
    }
    if (!s) return false;
    for (s = s->next; s; s = s->next)
        if (!later_use_inside(s, &b, 0)) return false;
    return true;
}

static void append_name(char *buf, size_t cap, const char *name)
{
    const size_t n = strlen(buf);
    if (n + strlen(name) + 2 < cap) snprintf(buf + n, cap - n, "%s%s", n ? " " : "", name);
}

static void names_in(const Node *fn, const Node *n, char *buf, size_t cap, int depth)
{
    if (!n || depth > 200) return;
    switch (n->kind) {
    case ND_BLOCK:
        for (const Node *s = n->args; s; s = s->next) {
            if (s->kind == ND_DECL)
                for (const Node *d = s->decls; d; d = d->next)
                    if (d->var && lang_written_before_read(fn, n, d, d->var)) append_name(buf, cap, d->var->name);
            names_in(fn, s, buf, cap, depth + 1);
        }
        return;
    case ND_IF:
        names_in(fn, n->then, buf, cap, depth + 1);
        names_in(fn, n->els, buf, cap, depth + 1);
        return;
    case ND_FOR: case ND_WHILE: case ND_DO: case ND_SWITCH:
        names_in(fn, n->body, buf, cap, depth + 1);
        return;
    default:
        return;
    }
}

void lang_written_first_names(const Node *body, char *buf, size_t cap)
{
    if (cap) buf[0] = 0;
    names_in(body, body, buf, cap, 0);
}
