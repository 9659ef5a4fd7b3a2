/* Small independent iterators merged into one launch (-fmerge-launches, on at
 * -O2 for the device targets).
 *
 *     parac_iterator a(0:Nd - 1:1) { up[0][ax * 4 + 2:4:1] = ...; }
 *     parac_iterator b(0:Md - 1:1) { up[bx * 4 + 2:4:1][0] = ...; }
 *     parac_iterator c(0:2:1; 0:2:1) { up[cx][cy] = ...; }
 *
 * Each is a kernel of a few hundred work-items whose time is mostly its
 * launch's. Merged, one iterator over the sum of their iteration counts runs
 * each body in turn:
 *
 *     parac_iterator a_3(0:na + nb + nc:1) {
 *         if (h < na) { <a's body, ax = h> }
 *         else if (h < na + nb) { <b's body, bx = h - na> }
 *         else { <c's body, cx = (h - na - nb) / 2, cy = (h - na - nb) % 2> }
 *     }
 *
 * Conditions, each needed for the result to stay the same in any order:
 *   - consecutive iterators (only border-rule declarations between), each of
 *     one axis or of two of constant extent (at most 64 iterations: a merged
 *     body is not coarsened, so big 2D stages stay apart), with no border
 *     rule, element iterator or jump;
 *   - none reads a matrix another writes;
 *   - where two write the same matrix, the two writes' index ranges lie apart
 *     on some axis by a constant: ranges as linear forms of the host's
 *     scalars, the iterator's bounds put in for its index (the upsampling's
 *     borders: rows 0, 1, 4Md-2 and 4Md-1 against rows 2 .. 4Md-3;
 *     linear.c).
 */
#include <string.h>

#include "lang/fuse.h"
#include "lang/lang.h"

enum { MAX_MEMBERS = 8, MAX_WRITES = 16, MAX_SMALL_2D = 64 };

static long const_count(const Iterator *it, int d)
{
    bool a, b;
    const long lb = const_eval(it->r[d].lb, &a), ub = const_eval(it->r[d].ub, &b);
    return ub > lb ? (ub - lb + it->r[d].stride - 1) / it->r[d].stride : 0;
}

/* ---- what a member reads and writes ----------------------------------- */
typedef struct Member {
    Node *stmt;
    Iterator *it;
    const Node *writes[MAX_WRITES];
    int nwrites;
    Obj *read[32];
    int nread;
    bool overflow;
} Member;

static void note_read(Member *m, Obj *o)
{
    for (int i = 0; i < m->nread; i++)
        if (m->read[i] == o) return;
    if (m->nread == 32) m->overflow = true;
    else m->read[m->nread++] = o;
}

static void collect(Member *m, Node *n, int depth)
{
    if (!n) return;
    /* a call inside an iterator is given numbers only (sema_calls.c refuses a
       matrix there), so it reads and writes no matrix but through its arguments,
       which are walked as any expression (powf in a table's iterator) */
    if (depth > 400 || n->kind == ND_ITERATOR) {
        m->overflow = true;
        return;
    }
    const bool mat = (n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW) && n->var;
    if (tree_assigns(n) && n->kind != ND_COMMA && n->lhs && (n->lhs->kind == ND_MAT_ELEM || n->lhs->kind == ND_WINDOW) &&
        n->lhs->var) {
        if (m->nwrites == MAX_WRITES) m->overflow = true;
        else m->writes[m->nwrites++] = n->lhs;
        if (n->kind != ND_ASSIGN || strcmp(n->op, "=")) note_read(m, n->lhs->var); /* op= and ++ read it too */
        for (int i = 0; i < n->lhs->nidx; i++)
            collect(m, n->lhs->idx[i] && n->lhs->idx[i]->kind == ND_SLICE ? n->lhs->idx[i]->lhs : n->lhs->idx[i],
                    depth + 1);
        collect(m, n->rhs, depth + 1);
        return;
    }
    if (mat) note_read(m, n->var);
    collect(m, n->lhs, depth + 1);
    collect(m, n->rhs, depth + 1);
    collect(m, n->cond, depth + 1);
    collect(m, n->then, depth + 1);
    collect(m, n->els, depth + 1);
    collect(m, n->init, depth + 1);
    collect(m, n->inc, depth + 1);
    collect(m, n->body, depth + 1);
    for (Node *a = n->args; a; a = a->next) collect(m, a, depth + 1);
    for (Node *d = n->decls; d; d = d->next) collect(m, d->init, depth + 1);
    for (int i = 0; i < n->nidx; i++) collect(m, n->idx[i] && n->idx[i]->kind == ND_SLICE ? n->idx[i]->lhs : n->idx[i], depth + 1);
}

/* A bound the merged iterator may copy into its count and its body: numbers
 * and host scalars under arithmetic (no call, assignment or matrix read). */
static bool plain_bound(const Node *n, int depth)
{
    if (!n) return true;
    if (depth > 100) return false;
    switch (n->kind) {
    case ND_NUM: return true;
    case ND_VAR: return n->var && !n->var->is_func && n->var->ty && n->var->ty->kind != TY_MATRIX;
    case ND_BINARY: case ND_UNARY: case ND_CAST: case ND_COND:
        if (tree_assigns(n) || (n->op && (!strcmp(n->op, "&") || !strcmp(n->op, "*")) && n->kind == ND_UNARY))
            return false;
        return plain_bound(n->lhs, depth + 1) && plain_bound(n->rhs, depth + 1) && plain_bound(n->cond, depth + 1) &&
               plain_bound(n->then, depth + 1) && plain_bound(n->els, depth + 1);
    default: return false;
    }
}

/* An iterator that may join a merged launch. */
static bool small_and_plain(Node *s)
{
    if (!s || s->kind != ND_ITERATOR || !s->iter || !s->iter->body) return false;
    Iterator *it = s->iter;
    if (it->rule || it->nstages || it->iter_element || it->ndim > 2 || lang_any_jump(it->body)) return false;
    for (int d = 0; d < it->ndim; d++)
        if (it->r[d].stride < 1 || !it->r[d].lb || !it->r[d].ub || !plain_bound(it->r[d].lb, 0) ||
            !plain_bound(it->r[d].ub, 0))
            return false;
    if (it->ndim == 1) return true;
    long count = 1;
    for (int d = 0; d < it->ndim; d++) {
        bool a, b;
        const_eval(it->r[d].lb, &a);
        const_eval(it->r[d].ub, &b);
        if (!a || !b) return false;
        count *= const_count(it, d);
    }
    return count <= MAX_SMALL_2D;
}

/* m may run in the same launch as the members before it. */
static bool independent(const Member *ms, int n, const Member *m)
{
    for (int i = 0; i < n; i++) {
        const Member *o = &ms[i];
        for (int w = 0; w < o->nwrites; w++)
            if (obj_listed(m->read, m->nread, o->writes[w]->var)) return false;
        for (int w = 0; w < m->nwrites; w++)
            if (obj_listed(o->read, o->nread, m->writes[w]->var)) return false;
        for (int w = 0; w < o->nwrites; w++)
            for (int v = 0; v < m->nwrites; v++)
                if (o->writes[w]->var == m->writes[v]->var &&
                    !lang_accesses_apart(o->writes[w], o->it, m->writes[v], m->it))
                    return false;
    }
    return true;
}

/* ---- the merged iterator ------------------------------------------------ */
static Node *int_node(Token *t, long v) { return lang_int_node(t, v); }

static Node *binary(Token *t, const char *op, Node *l, Node *r)
{
    Node *n = new_node(ND_BINARY, t);
    n->op = op;
    n->lhs = l;
    n->rhs = r;
    n->ty = ty_basic(TY_INT, false);
    return n;
}

static Node *copy(Node *n)
{
    const Subst none = {0};
    return tree_copy(n, &none);
}

/* The iterations of axis d of it: ub > lb ? (ub - lb + s - 1) / s : 0. */
static Node *axis_count(const Iterator *it, int d)
{
    Token *t = it->tok;
    const Range *r = &it->r[d];
    Node *span = binary(t, "-", copy(r->ub), copy(r->lb));
    if (r->stride > 1) span = binary(t, "/", binary(t, "+", span, int_node(t, r->stride - 1)), int_node(t, r->stride));
    Node *c = new_node(ND_COND, t);
    c->cond = binary(t, ">", copy(r->ub), copy(r->lb));
    c->then = span;
    c->els = int_node(t, 0);
    c->ty = ty_basic(TY_INT, false);
    return c;
}

static Node *member_count(const Iterator *it)
{
    Node *n = axis_count(it, 0);
    for (int d = 1; d < it->ndim; d++) n = binary(it->tok, "*", n, axis_count(it, d));
    return n;
}

static Node *merge(Member *ms, int n)
{
    Iterator *first = ms[0].it;
    Token *t = ms[0].stmt->tok;
    Iterator *it = lang_alloc(sizeof *it);
    it->name = lang_format("%s_%d", first->name, n);
    it->tok = first->tok;
    it->ndim = 1;
    Node *h = new_node(ND_ITER_INDEX, t);
    h->iter = it;
    h->axis = 0;
    h->name = lang_format("%sx", it->name);
    h->ty = ty_basic(TY_INT, false);
    /* the counts before each member, summed */
    Node *before = NULL, *chain = NULL, **tail = &chain;
    const char *names = "";
    for (int i = 0; i < n; i++) {
        Iterator *mi = ms[i].it;
        Node *k = before ? binary(t, "-", copy(h), copy(before)) : copy(h); /* the member's own counter */
        Subst sub = {.from = mi, .to = it};
        long inner = 1;
        for (int d = mi->ndim - 1; d >= 0; d--) {
            /* counter of axis d: (k / inner) % count_d (the last axis fastest), then lb + that * stride */
            Node *q = inner > 1 ? binary(t, "/", copy(k), int_node(t, inner)) : copy(k);
            if (d > 0) q = binary(t, "%", q, copy(axis_count(mi, d)));
            if (mi->r[d].stride > 1) q = binary(t, "*", q, int_node(t, mi->r[d].stride));
            sub.to_expr[d] = binary(t, "+", copy(mi->r[d].lb), q);
            if (d > 0) inner *= const_count(mi, d); /* 2D members have constant extents */
        }
        Node *body = tree_copy(mi->body, &sub);
        if (body->kind != ND_BLOCK) {
            Node *b = new_node(ND_BLOCK, t);
            b->args = body;
            body = b;
        }
        Node *upto = before ? binary(t, "+", copy(before), member_count(mi)) : member_count(mi);
        if (i == n - 1) {
            *tail = body;
        } else {
            Node *iff = new_node(ND_IF, t);
            iff->cond = binary(t, "<", copy(h), upto);
            iff->then = body;
            *tail = iff;
            tail = &iff->els;
        }
        before = upto;
        names = lang_format("%s%s%s (line %d)", names, i ? ", " : "", mi->name, ms[i].stmt->tok->line);
    }
    it->r[0].lb = int_node(t, 0);
    it->r[0].ub = before;
    it->r[0].stride = 1;
    Node *blk = new_node(ND_BLOCK, t);
    blk->args = chain;
    it->body = blk;
    it->merged = lang_format("%s in one launch: they read nothing another writes, and their writes of the same "
                             "matrix lie apart", names);
    Node *s = new_node(ND_ITERATOR, t);
    s->iter = it;
    s->body = blk;
    s->name = it->name;
    return s;
}

static void merge_in(Node *block, int depth)
{
    if (!block || depth > 200) return;
    if (block->kind != ND_BLOCK) {
        Node *kids[] = {block->then, block->els, block->body};
        for (int i = 0; i < 3; i++) merge_in(kids[i], depth + 1);
        return;
    }
    for (Node **link = &block->args; *link; link = &(*link)->next) {
        Node *s = *link;
        if (s->kind != ND_ITERATOR) {
            merge_in(s, depth + 1);
            continue;
        }
        Member ms[MAX_MEMBERS];
        int n = 0;
        Node *after = s;
        for (Node *c = s; c && n < MAX_MEMBERS;) {
            if (!small_and_plain(c)) break;
            Member *m = &ms[n];
            memset(m, 0, sizeof *m);
            m->stmt = c;
            m->it = c->iter;
            collect(m, c->iter->body, 0);
            if (m->overflow || !independent(ms, n, m)) break;
            n++;
            after = c->next;
            while (after && (after->kind == ND_BORDER_RULE || after->kind == ND_NULL_STMT)) after = after->next;
            c = after;
        }
        if (n < 2) continue;
        /* the border-rule declarations between stay, before the merged iterator */
        Node *merged = merge(ms, n), *rules = NULL, **rt = &rules;
        for (Node *c = s->next; c != after; c = c->next)
            if (c->kind == ND_BORDER_RULE || c->kind == ND_NULL_STMT) {
                Node *k = new_node(c->kind, c->tok);
                *k = *c;
                k->next = NULL;
                *rt = k;
                rt = &k->next;
            }
        *rt = merged;
        merged->next = after;
        *link = rules;
        while (*link != merged) link = &(*link)->next;
    }
}

void merge_launches(Program *prog)
{
    const CompileOptions *opt = prog->opt;
    if (!opt || !target_has_device(opt->target) || !plan_flag(opt, opt->merge_launches, 2)) return;
    for (Node *n = prog->top; n; n = n->next)
        if (n->kind == ND_FUNC && n->body) merge_in(n->body, 0);
}
