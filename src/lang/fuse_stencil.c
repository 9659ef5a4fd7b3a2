/* Stencil fusion by recomputation (-ffuse-stencils; on at -O2 for the
 * device targets).
 *
 *     parac_iterator p(0:H:1; 0:W:1) parac_border_rule(RX) { M[px][py] = E; }
 *     parac_iterator c(0:H:1; 0:W:1) parac_border_rule(RM) { ... M[cx + a][cy + b] ... }
 *
 * becomes one iterator c whose reads of M are E evaluated where they read,
 * cast to M's element type: M is never written, and a pass over memory and
 * a launch are saved, at the price of computing E once per read of M. Sums
 * and convolutions over a window of M are spelled out element by element,
 * exactly as the back ends print them, so the result keeps its bits.
 *
 * Borders. E reads one matrix X. On every axis on which c reads M away from
 * its point, E must read X at p's own index on that axis; then M's border
 * rule there, each entry M[-k][*] = M[f][*] (M at an index inside it), is
 * the same rule for X: E at row f reads X's row f. The fused iterator gets
 * one rule about X: RX's entries on the other axes, RM's entries made X's,
 * and the corners between them (RX's value with '*' on RM's axis made f).
 *
 * Conditions, each needed for the result to stay the same: p is two-
 * dimensional, covers M whole (0 to M's sizes, stride 1) and its body is the
 * one statement M[px][py] = E; M is declared in the function and nothing but
 * p, c and border rules about M mention it; E assigns nothing and calls
 * nothing, and reads one matrix X (besides constant small matrices) whose
 * sizes on RM's axes are M's; c iterates p's space, writes neither M nor X,
 * and reads M as elements or as the window of a sum or a convolution by a
 * constant matrix; RM has no corner entries; no name E uses is declared in
 * c's body. A cost model keeps E's reads times c's reads of M small. */
#include <string.h>

#include "lang/fuse.h"
#include "lang/lang.h"

enum { MAX_RECOMPUTED_READS = 32 }; /* reads of X per output after fusion */

typedef struct Pair {
    Iterator *p, *c;
    Obj *m, *x;
    Node *e;            /* M's value at p's point */
    bool ruled[2];      /* axes on which c reads M away from its point */
    long e_reads;       /* elements of X that E reads */
    int group;          /* marks E's copies (Node.fc_group) */
    long m_reads;       /* elements of M that c reads */
} Pair;

static bool at_own_index(Node *ix, const Iterator *it, int d);

/* ---- what E is ------------------------------------------------------------ */
static long window_elems(const Node *n)
{
    return n->ty && n->ty->kind == TY_SMALL ? (long)small_rows(n->ty) * small_cols(n->ty) : 1;
}

/* E assigns and calls nothing, reads one matrix (pr->x) and, on the ruled
 * axes, reads it at p's own index. */
static bool plain_expr(Pair *pr, Node *n, int depth)
{
    if (!n) return true;
    if (depth > 200 || tree_assigns(n)) return false;
    switch (n->kind) {
    case ND_CALL: case ND_ITERATOR: return false;
    case ND_ITER_INDEX:
        return n->iter == pr->p;
    case ND_VAR:
        if (n->var && n->var->ty && n->var->ty->kind == TY_MATRIX) return n->var->is_small_const;
        return true;
    case ND_MAT_ELEM: case ND_WINDOW: {
        Obj *v = n->var;
        if (!v || v->ty->kind != TY_MATRIX || v->is_small_const) return v && v->is_small_const;
        if (pr->x && pr->x != v) return false;
        pr->x = v;
        if (v->ty->ndim != 2 || n->nidx != 2 || lang_window_is_dynamic(n)) return false;
        for (int d = 0; d < 2; d++) {
            Node *ix = n->idx[d];
            if (pr->ruled[d] && !at_own_index(ix, pr->p, d)) return false;
            if (ix && ix->kind == ND_SLICE ? !plain_expr(pr, ix->lhs, depth + 1) : !plain_expr(pr, ix, depth + 1))
                return false;
        }
        pr->e_reads += n->kind == ND_WINDOW ? window_elems(n) : 1;
        return true;
    }
    default:
        break;
    }
    if (!plain_expr(pr, n->lhs, depth + 1) || !plain_expr(pr, n->rhs, depth + 1) ||
        !plain_expr(pr, n->cond, depth + 1) || !plain_expr(pr, n->then, depth + 1) ||
        !plain_expr(pr, n->els, depth + 1))
        return false;
    for (Node *a = n->args; a; a = a->next)
        if (!plain_expr(pr, a, depth + 1)) return false;
    return true;
}

/* ---- how c reads M ---------------------------------------------------------- */
/* ix is it's own index on axis d (it<d>, or it<d> - 0 as whole-image
 * statements write it). */
static bool at_own_index(Node *ix, const Iterator *it, int d)
{
    if (!ix || ix->kind == ND_SLICE) return false;
    const Affine a = lang_affine(ix);
    return a.ok && a.axis == d && a.coef == 1 && a.offset == 0 && fuse_mentions_iter(ix, it);
}

static bool is_const_small(const Node *n)
{
    return n && n->kind == ND_VAR && n->var && n->var->is_small_const && n->var->init;
}

/* c reads M only as elements or as the window of a sum or of a convolution
 * by a constant matrix; marks the axes read away from c's point. */
static bool reads_of_m(Pair *pr, Node *n, int depth)
{
    if (!n) return true;
    if (depth > 200) return false;
    if ((n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW) && n->var == pr->m) {
        if (n->kind == ND_WINDOW || n->nidx != 2) return false; /* a window outside a sum or convolution */
        for (int d = 0; d < 2; d++) pr->ruled[d] |= !at_own_index(n->idx[d], pr->c, d);
        pr->m_reads++;
        return true;
    }
    if (n->kind == ND_VAR && n->var == pr->m) return false;
    if (n->kind == ND_PARAC_OP) {
        Node *w = n->pop == OP_CONV && n->args ? n->args->next : n->args;
        if (w && w->kind == ND_WINDOW && w->var == pr->m) {
            if ((n->pop != OP_SUM && n->pop != OP_CONV) || w->nidx != 2 || lang_window_is_dynamic(w)) return false;
            if (n->pop == OP_CONV && (!is_const_small(n->args) || small_rows(n->args->ty) * small_cols(n->args->ty) !=
                                                                       window_elems(w)))
                return false;
            for (int d = 0; d < 2; d++) {
                /* a slice one element long at c's index reads at c's point */
                Node *ix = w->idx[d];
                const int extent = d == 1 ? small_cols(w->ty) : small_rows(w->ty);
                if (ix->kind == ND_SLICE && extent == 1) ix = ix->lhs;
                pr->ruled[d] |= !at_own_index(ix, pr->c, d);
            }
            pr->m_reads += window_elems(w);
            return true;
        }
    }
    if (!reads_of_m(pr, n->lhs, depth + 1) || !reads_of_m(pr, n->rhs, depth + 1) || !reads_of_m(pr, n->cond, depth + 1) ||
        !reads_of_m(pr, n->then, depth + 1) || !reads_of_m(pr, n->els, depth + 1) || !reads_of_m(pr, n->init, depth + 1) ||
        !reads_of_m(pr, n->inc, depth + 1) || !reads_of_m(pr, n->body, depth + 1))
        return false;
    for (Node *a = n->args; a; a = a->next)
        if (!reads_of_m(pr, a, depth + 1)) return false;
    for (Node *d = n->decls; d; d = d->next)
        if (!reads_of_m(pr, d->init, depth + 1)) return false;
    for (int i = 0; i < n->nidx; i++)
        if (!reads_of_m(pr, n->idx[i], depth + 1)) return false;
    return true;
}

/* ---- the rewrite ------------------------------------------------------------ */
static Node *binary(Token *tok, const char *op, Node *a, Node *b, Type *ty)
{
    Node *n = new_node(ND_BINARY, tok);
    n->op = op;
    n->lhs = a;
    n->rhs = b;
    n->ty = ty;
    return n;
}

static Node *cast(Token *tok, Type *ty, Node *a)
{
    Node *n = new_node(ND_CAST, tok);
    n->cast_ty = ty;
    n->ty = ty;
    n->lhs = a;
    return n;
}

/* (T)(E) with p's indices made idx[0], idx[1]. */
static Node *value_at(const Pair *pr, Token *tok, Node *const idx[2])
{
    Subst s = {.from = pr->p, .to = pr->c};
    s.to_expr[0] = idx[0];
    s.to_expr[1] = idx[1];
    Node *v = cast(tok, pr->m->ty->base, tree_copy(pr->e, &s));
    /* E at the reader's point moved by constant offsets: marked, so that the
     * planner may compute it once per row and column (plan_cache.c) */
    bool at = true;
    for (int d = 0; d < 2; d++) {
        const Affine a = lang_affine(idx[d]);
        at &= a.ok && a.axis == d && a.coef == 1 && fuse_mentions_iter(idx[d], pr->c);
        v->fc_off[d] = a.offset;
    }
    v->fc_group = at ? pr->group : 0;
    return v;
}

/* The indices of element (i, j) of window w (print_access_indices' rule). */
static void window_index(Node *w, int i, int j, Node *idx[2])
{
    for (int d = 0; d < 2; d++) {
        Node *ix = w->idx[d];
        if (ix->kind != ND_SLICE) {
            idx[d] = ix;
            continue;
        }
        const long k = (long)(d == 1 ? j : i) * ix->reduction_id;
        idx[d] = k ? binary(ix->tok, "+", ix->lhs, lang_int_node(ix->tok, k), ix->lhs->ty) : ix->lhs;
    }
}

/* The i-th value of a constant small matrix as print_elem spells it. */
static Node *const_elem(Node *f, int k)
{
    Node *v = f->var->init->args;
    for (int c = 0; v && c < k; c++) v = v->next;
    const Subst plain = {0};
    return cast(f->tok, f->ty->base, v ? tree_copy(v, &plain) : lang_int_node(f->tok, 0));
}

static Node *rewrite(const Pair *pr, Node *n, int depth);

/* A sum or convolution over a window of M, spelled out as print_operator
 * prints it: ((S)m00 + m01 + ...) or (f0 * m0 + f1 * m1 + ...). */
static Node *spell_operator(const Pair *pr, Node *n)
{
    const bool conv = n->pop == OP_CONV;
    Node *f = conv ? n->args : NULL, *w = conv ? n->args->next : n->args;
    const int R = small_rows(w->ty), C = small_cols(w->ty);
    Node *acc = NULL;
    for (int k = 0; k < R * C; k++) {
        Node *idx[2];
        window_index(w, k / C, k % C, idx);
        Node *v = value_at(pr, w->tok, idx);
        if (conv) {
            Node *fk = const_elem(f, k);
            v = binary(n->tok, "*", fk, v, ty_common(fk->ty, v->ty));
        } else if (k == 0)
            v = cast(n->tok, n->ty, v);
        acc = acc ? binary(n->tok, "+", acc, v, ty_common(acc->ty, v->ty)) : v;
    }
    return acc;
}

static Node *rewrite(const Pair *pr, Node *n, int depth)
{
    if (!n || depth > 400) return n;
    if (n->kind == ND_MAT_ELEM && n->var == pr->m) {
        Node *idx[2] = {n->idx[0], n->idx[1]};
        return value_at(pr, n->tok, idx);
    }
    if (n->kind == ND_PARAC_OP) {
        Node *w = n->pop == OP_CONV && n->args ? n->args->next : n->args;
        if (w && w->kind == ND_WINDOW && w->var == pr->m) return spell_operator(pr, n);
    }
    n->lhs = rewrite(pr, n->lhs, depth + 1);
    n->rhs = rewrite(pr, n->rhs, depth + 1);
    n->cond = rewrite(pr, n->cond, depth + 1);
    n->then = rewrite(pr, n->then, depth + 1);
    n->els = rewrite(pr, n->els, depth + 1);
    n->init = rewrite(pr, n->init, depth + 1);
    n->inc = rewrite(pr, n->inc, depth + 1);
    n->body = rewrite(pr, n->body, depth + 1);
    for (Node **a = &n->args; *a; a = &(*a)->next) {
        Node *next = (*a)->next, *r = rewrite(pr, *a, depth + 1);
        r->next = next;
        *a = r;
    }
    for (Node *d = n->decls; d; d = d->next) d->init = rewrite(pr, d->init, depth + 1);
    for (int i = 0; i < n->nidx; i++) n->idx[i] = rewrite(pr, n->idx[i], depth + 1);
    return n;
}

/* ---- the border rule about X ------------------------------------------------ */
/* A rule value M[f][*] (an index chain of M, '*' on the other axis): its f. */
static Node *mapped_index(const Pair *pr, const BorderEntry *be, int axis)
{
    Node *v = be->value;
    Node *ix[2];
    for (int d = 1; d >= 0; d--) {
        if (!v || v->kind != ND_INDEX) return NULL;
        ix[d] = v->rhs;
        v = v->lhs;
    }
    if (!v || v->kind != ND_VAR || v->var != pr->m) return NULL;
    if (ix[1 - axis]->kind != ND_WILDCARD || ix[axis]->kind == ND_WILDCARD) return NULL;
    return ix[axis];
}

/* In n (a copy), M's index chains made X's and, where f is set, the '*' at
 * index position `axis` of X's chains made f. */
static void retarget_value(const Pair *pr, Node *n, int axis, Node *f, int depth)
{
    if (!n || depth > 200) return;
    if (n->kind == ND_INDEX && n->lhs && n->lhs->kind == ND_INDEX && n->lhs->lhs && n->lhs->lhs->kind == ND_VAR &&
        (n->lhs->lhs->var == pr->x || n->lhs->lhs->var == pr->m)) {
        Node *base = n->lhs->lhs;
        if (base->var == pr->m) {
            base->var = pr->x;
            base->name = pr->x->name;
            base->ty = pr->x->ty;
        }
        Node **slot = axis == 0 ? &n->lhs->rhs : &n->rhs;
        if (f && (*slot)->kind == ND_WILDCARD) {
            const Subst plain = {0};
            *slot = tree_copy(f, &plain);
        }
    }
    Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els};
    for (int i = 0; i < 5; i++) retarget_value(pr, kids[i], axis, f, depth + 1);
    for (Node *a = n->args; a; a = a->next) retarget_value(pr, a, axis, f, depth + 1);
}

/* Whether n nests deeper than the rewrites here walk. */
static bool too_deep(const Node *n, int depth)
{
    if (!n) return false;
    if (depth > 200) return true;
    const Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els};
    for (int i = 0; i < 5; i++)
        if (too_deep(kids[i], depth + 1)) return true;
    for (const Node *a = n->args; a; a = a->next)
        if (too_deep(a, depth + 1)) return true;
    return false;
}

/* A copy of rule value v for the rule about X (see retarget_value). */
static Node *copy_value(const Pair *pr, Node *v, int axis, Node *f)
{
    const Subst plain = {0};
    Node *r = tree_copy(v, &plain);
    retarget_value(pr, r, axis, f, 0);
    return r;
}

static BorderEntry *entry(int s0, int s1, Node *value, Token *tok)
{
    BorderEntry *e = lang_alloc(sizeof *e);
    e->side[0] = s0;
    e->side[1] = s1;
    e->value = value;
    e->tok = tok;
    return e;
}

/* The rule about X for the fused iterator, or NULL when RM's entries are
 * not all of the form M[f][*]. */
static BorderRule *merged_rule(const Pair *pr)
{
    BorderRule *rm = pr->c->rule, *rx = pr->p->rule;
    BorderRule *r = lang_alloc(sizeof *r);
    r->var = pr->x;
    r->tok = rm ? rm->tok : rx ? rx->tok : pr->c->tok;
    r->name = lang_format("%s%s%s", rx ? rx->name : "", rx && rm ? "+" : "", rm ? rm->name : "");
    BorderRule *rules[2] = {rx, rm};
    for (int k = 0; k < 2; k++)
        for (BorderEntry *e = rules[k] ? rules[k]->entries : NULL; e; e = e->next)
            if (too_deep(e->value, 0)) return NULL;
    BorderEntry head = {0}, *tail = &head;
    if (rx)
        for (BorderEntry *e = rx->entries; e; e = e->next) {
            if ((e->side[0] && pr->ruled[0]) || (e->side[1] && pr->ruled[1])) continue; /* X is read at p's index there */
            tail = tail->next = entry(e->side[0], e->side[1], copy_value(pr, e->value, 0, NULL), e->tok);
        }
    if (rm)
        for (BorderEntry *e = rm->entries; e; e = e->next) {
            const int a = e->side[0] ? 0 : 1;
            if (e->side[0] && e->side[1]) return NULL; /* a corner entry */
            if (!pr->ruled[a]) continue;               /* never reached */
            Node *f = mapped_index(pr, e, a);
            if (!f) return NULL;
            tail = tail->next = entry(e->side[0], e->side[1], copy_value(pr, e->value, a, NULL), e->tok);
            /* corners with X's own rule on the other axis */
            if (rx)
                for (BorderEntry *g = rx->entries; g; g = g->next) {
                    if (g->side[a] || !g->side[1 - a]) continue;
                    int s[2];
                    s[a] = e->side[a];
                    s[1 - a] = g->side[1 - a];
                    tail = tail->next = entry(s[0], s[1], copy_value(pr, g->value, a, f), g->tok);
                }
        }
    r->entries = head.next;
    for (BorderEntry *e = r->entries; e; e = e->next)
        for (int a = 0; a < 2; a++) {
            if (e->side[1 - a] != 0 || e->side[a] == 0) continue;
            if (e->side[a] < 0 && -e->side[a] > r->width_lo[a]) r->width_lo[a] = -e->side[a];
            if (e->side[a] > 0 && e->side[a] > r->width_hi[a]) r->width_hi[a] = e->side[a];
        }
    return r;
}

bool fuse_stencil_pair(Node *f, Node *pn, Node *cn)
{
    static int groups; /* a new mark for each pair tried: marks only need to differ within a program */
    Pair pr = {0};
    pr.group = ++groups;
    pr.p = pn->iter;
    pr.c = cn->iter;
    Iterator *p = pr.p, *c = pr.c;
    if (!p || !c || p->ndim != 2 || c->ndim != 2 || p->iter_element || c->iter_element || !p->body || !c->body)
        return false;
    Touch tp = {0}, tc = {0};
    tree_touches(p->body, &tp, 0);
    tree_touches(c->body, &tc, 0);
    if (tp.overflow || tc.overflow || tp.nwritten != 1) return false;
    for (int d = 0; d < 2; d++)
        if (p->r[d].stride != c->r[d].stride || !fuse_same_bound(f, p->r[d].lb, c->r[d].lb) ||
            !fuse_same_bound(f, fuse_declared_size(p->r[d].ub, &tp), fuse_declared_size(c->r[d].ub, &tc)))
            return false;
    Obj *m = pr.m = tp.written[0];
    if (m->is_ref || m->is_param || m->is_global || m->ty->kind != TY_MATRIX || m->ty->ndim != 2 ||
        !obj_listed(tc.read, tc.nread, m) || obj_listed(tc.written, tc.nwritten, m) || !fuse_covers_whole(f, p, m))
        return false;
    Node *write = fuse_producer_write(p, m);
    Node *list = p->body->kind == ND_BLOCK ? p->body->args : p->body;
    if (!write || list != write || write->next) return false;
    pr.e = write->lhs->rhs;
    if (p->nrules > 1 || c->nrules > 1) return false; /* one rule a side (lang.h) */
    if ((p->rule && p->rule->dist) || (c->rule && c->rule->dist)) return false; /* entries at every distance */
    if (c->rule && c->rule->var != m) return false;
    if (!reads_of_m(&pr, c->body, 0) || !pr.m_reads) return false;
    if (!plain_expr(&pr, pr.e, 0) || !pr.x || pr.x == m) return false;
    if (p->rule && (p->rule->var != pr.x || pr.x->ty->ndim != 2)) return false;
    if (obj_listed(tc.written, tc.nwritten, pr.x)) return false;
    for (int d = 0; d < 2; d++)
        if (pr.ruled[d] && !fuse_same_bound(f, pr.x->ty->dims[d], m->ty->dims[d])) return false;
    if (tree_uses_name_declared_in(pr.e, c->body, 0)) return false;
    /* the cost: E once per read of M */
    if (pr.e_reads * pr.m_reads > MAX_RECOMPUTED_READS) return false;
    /* nothing else in the function may see M */
    Node *prev = NULL, *decl = fuse_find_decl(f->body, m, &prev, 0);
    const int rule_decls = fuse_rule_decls(f->body, m, false, 0);
    if (!decl || tree_mentions(f->body, m, 0) != tree_mentions(p->body, m, 0) + tree_mentions(c->body, m, 0) + rule_decls)
        return false;
    BorderRule *rule = c->rule || p->rule ? merged_rule(&pr) : NULL;
    if ((c->rule || p->rule) && !rule) return false;

    c->body = rewrite(&pr, c->body, 0);
    lang_set_rule(c, rule);
    c->rule_name = NULL;
    const char *why = lang_format("%s (line %d) recomputed at each of its %ld reads here (%ld reads of %s each)",
                                  m->name, pn->tok->line, pr.m_reads, pr.e_reads, pr.x->name);
    c->fused = c->fused ? lang_format("%s; %s", c->fused, why) : why;
    /* M and its border rules are gone */
    fuse_rule_decls(f->body, m, true, 0);
    if (prev) prev->next = prev->next->next;
    else decl->decls = decl->decls->next;
    if (!decl->decls) decl->kind = ND_NULL_STMT;
    return true;
}
