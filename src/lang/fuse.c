/* Kernel fusion of a point consumer into its producer (-ffuse, on from -O1).
 *
 * Two iterators that follow each other,
 *
 *     parac_iterator p(A; B) { ...; M[px][py] = E; }
 *     parac_iterator c(0:K; A; B) { ... M[cy][cz] ... }
 *
 * where the consumer reads the matrix M only at its own point (its trailing
 * axes equal the producer's, leading axes of constant bounds may be added:
 * the channels of an image), become one iterator over the producer's space:
 *
 *     parac_iterator p(A; B) { ...; T parac_M = E; <c's body for c = 0>; ...; <for c = K - 1> }
 *
 * M then never exists: its element stays in a register, and one pass over
 * memory and one kernel launch are saved. The consumer's body is copied once
 * per value of its leading axes (at most 8), so the fused body stays
 * straight-line code that the vector plan (plan.c) can coarsen.
 *
 * Conditions, each needed for the result to stay the same:
 *   - M is a matrix the function declares (not a parameter or a reference):
 *     nothing outside the two iterators can see it, and nothing else in the
 *     function mentions it (no host code, no other region, no border rule);
 *   - the producer writes M once, as a statement of its body, M[p0][p1]... =
 *     E with each index its own iterator variable, and does not read it;
 *   - the consumer reads M only as M[c_k][c_k+1]... (its trailing iterator
 *     variables, in order), never writes it, has the same trailing ranges as
 *     the producer (the same expressions), and uses no element iterator;
 *   - neither reads or writes a matrix the other writes (other than M);
 *   - the two border rules agree (the same rule, or only one has one);
 *   - no name the consumer uses is declared by the producer's body.
 * Only a border-rule declaration may stand between the two statements. */
#include <string.h>

#include "lang/fuse.h"
#include "lang/lang.h"

enum { MAX_LEAD_COPIES = 8 };

/* Every access of M in n is a read at the consumer's own point. */
static bool reads_at_point(Node *n, const Obj *m, const Iterator *it, int lead, int depth)
{
    if (!n) return true;
    if (depth > 400) return false;
    if ((n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW) && n->var == m)
        return n->kind == ND_MAT_ELEM && fuse_own_point(n, it, lead, it->ndim - lead);
    if (n->kind == ND_VAR && n->var == m) return false;
    NodeKids k = {.n = n};
    for (Node *c; (c = lang_next_kid(&k));)
        if (!reads_at_point(c, m, it, lead, depth + 1)) return false;
    return true;
}

static bool has_decl(Node *body)
{
    for (Node *s = body && body->kind == ND_BLOCK ? body->args : body; s; s = body->kind == ND_BLOCK ? s->next : NULL)
        if (s->kind == ND_DECL) return true;
    return false;
}

/* Try to fuse consumer c into producer p, both statements of function f. */
static bool fuse_pair(Node *f, Node *pn, Node *cn)
{
    Iterator *p = pn->iter, *c = cn->iter;
    if (!p || !c || p->iter_element || c->iter_element || c->ndim < p->ndim || !p->body || !c->body) return false;
    const int lead = c->ndim - p->ndim;
    long count = 1, lb[3], step[3];
    for (int d = 0; d < lead; d++) {
        bool ok1, ok2;
        lb[d] = const_eval(c->r[d].lb, &ok1);
        long ub = const_eval(c->r[d].ub, &ok2);
        step[d] = c->r[d].stride;
        if (!ok1 || !ok2 || step[d] < 1 || ub <= lb[d]) return false;
        count *= (ub - lb[d] + step[d] - 1) / step[d];
        if (count > MAX_LEAD_COPIES) return false;
    }
    for (int d = 0; d < p->ndim; d++)
        if (p->r[d].stride != c->r[lead + d].stride || !fuse_same_bound(f, p->r[d].lb, c->r[lead + d].lb) ||
            !fuse_same_bound(f, p->r[d].ub, c->r[lead + d].ub))
            return false;
    if (p->nrules > 1 || c->nrules > 1) return false; /* one rule a side (lang.h) */
    if (p->rule && c->rule && p->rule != c->rule) return false;
    Touch tp = {0}, tc = {0};
    tree_touches(p->body, &tp, 0);
    tree_touches(c->body, &tc, 0);
    if (tp.overflow || tc.overflow) return false;
    /* M: a matrix p writes and c reads */
    for (int i = 0; i < tp.nwritten; i++) {
        Obj *m = tp.written[i];
        if (!obj_listed(tc.read, tc.nread, m) || m->is_ref || m->is_param || m->is_global || m->ty->kind != TY_MATRIX ||
            m->ty->ndim != p->ndim || obj_listed(tc.written, tc.nwritten, m))
            continue;
        Node *write = fuse_producer_write(p, m);
        if (!write || !reads_at_point(c->body, m, c, lead, 0)) continue;
        bool clash = false;
        for (int j = 0; j < tc.nwritten; j++) clash |= tree_mentions(p->body, tc.written[j], 0) > 0;
        for (int j = 0; j < tp.nwritten; j++)
            clash |= tp.written[j] != m && tree_mentions(c->body, tp.written[j], 0) > 0;
        if (clash || tree_uses_name_declared_in(c->body, p->body, 0)) continue;
        /* nothing else in the function may see M */
        Node *prev = NULL, *decl = fuse_find_decl(f->body, m, &prev, 0);
        if (!decl || tree_mentions(f->body, m, 0) != tree_mentions(p->body, m, 0) + tree_mentions(c->body, m, 0)) continue;
        const char *sname = lang_format("parac_%s", m->name);
        if (tree_declares_name(p->body, sname) || tree_declares_name(c->body, sname)) continue;

        /* T parac_M = E; in place of the write */
        Obj *s = lang_alloc(sizeof *s);
        s->name = sname;
        s->ty = m->ty->base;
        s->tok = write->tok;
        s->is_local_to_iter = true;
        s->id = 1 << 30;
        Node *dtor = new_node(ND_DECL, write->tok);
        dtor->name = sname;
        dtor->var = s;
        dtor->ty = s->ty;
        dtor->init = write->lhs->rhs;
        Node *dstmt = new_node(ND_DECL, write->tok);
        dstmt->decls = dtor;
        dstmt->cast_ty = s->ty;
        dstmt->next = write->next;
        if (p->body->kind != ND_BLOCK) {
            Node *b = new_node(ND_BLOCK, p->body->tok);
            b->args = dstmt;
            p->body = b;
        } else {
            Node **link = &p->body->args;
            while (*link != write) link = &(*link)->next;
            *link = dstmt;
        }
        /* the consumer's body once per value of its leading axes, after it */
        Node *tail = dstmt;
        while (tail->next) tail = tail->next;
        Subst sub = {.from = c, .to = p, .lead = lead, .mat = m, .scalar = s};
        /* spliced in as statements of the fused body (so that its writes
         * stay top-level ones for the vector plan), unless copies or the
         * producer declare the same names: then one block per copy */
        bool wrap = has_decl(c->body) && count > 1;
        for (Node *st = c->body->kind == ND_BLOCK ? c->body->args : NULL; st && !wrap; st = st->next)
            if (st->kind == ND_DECL)
                for (Node *d = st->decls; d; d = d->next)
                    wrap |= d->name && (tree_declares_name(p->body, d->name) || !strcmp(d->name, sname));
        for (long k = 0; k < count; k++) {
            long rest = k;
            for (int d = lead - 1; d >= 0; d--) {
                long n_d = (const_eval(c->r[d].ub, &(bool){0}) - lb[d] + step[d] - 1) / step[d];
                sub.lead_val[d] = lb[d] + (rest % n_d) * step[d];
                rest /= n_d;
            }
            Node *copy = tree_copy(c->body, &sub);
            if (copy->kind == ND_BLOCK && !wrap) { /* its statements, spliced in */
                tail->next = copy->args;
                while (tail->next) tail = tail->next;
            } else {
                tail->next = copy;
                tail = copy;
            }
        }
        if (!p->rule && c->rule) {
            lang_set_rule(p, c->rule);
            p->rule_name = c->rule_name;
        }
        p->selects += c->selects;
        p->hoisted += c->hoisted;
        p->hoisted_loads += c->hoisted_loads;
        p->fused = p->fused ? lang_format("%s; %s", p->fused, lang_format("%s (line %d) through %s", c->name,
                                                                             cn->tok->line, m->name))
                            : lang_format("%s (line %d) through %s", c->name, cn->tok->line, m->name);
        /* M is gone: its declarator here, the consumer's statement by the caller */
        if (prev) prev->next = prev->next->next;
        else decl->decls = decl->decls->next;
        if (!decl->decls) decl->kind = ND_NULL_STMT;
        return true;
    }
    return false;
}

/* ---- recomputing a point stage where a later stage reads it ---------------
 *
 * A producer `M[p0][p1] = E;` whose E reads matrices only at its own point
 * (leading indices constant) is recomputed inside a later iterator over the
 * same space that reads M at its point and already reads, at its point,
 * every element E reads: E costs no extra memory traffic there, and that
 * iterator no longer reads M. M stays for its other readers; when none is
 * left, the producer and M go. Between the two only iterators and border
 * rules may stand, and none of them (nor the consumer) writes M or what E
 * reads. */

/* E's value at another point is E with the indices swapped: every matrix
 * read at p's point, nothing assigned, no window or operator. */
static bool pure_point_expr(Node *n, const Iterator *p, int depth)
{
    if (!n) return true;
    if (depth > 400 || tree_assigns(n)) return false;
    switch (n->kind) {
    case ND_WINDOW: case ND_PARAC_OP: return false;
    case ND_ITER_INDEX: return n->iter == p;
    case ND_MAT_ELEM: {
        const int lead = n->nidx - p->ndim;
        if (lead < 0) return false;
        for (int i = 0; i < lead; i++) {
            bool ok;
            const_eval(n->idx[i], &ok);
            if (!ok) return false;
        }
        for (int d = 0; d < p->ndim; d++) {
            const Node *x = n->idx[lead + d];
            if (!x || x->kind != ND_ITER_INDEX || x->iter != p || x->axis != d) return false;
        }
        return true;
    }
    default: break;
    }
    if (!pure_point_expr(n->lhs, p, depth + 1) || !pure_point_expr(n->rhs, p, depth + 1) ||
        !pure_point_expr(n->cond, p, depth + 1) || !pure_point_expr(n->then, p, depth + 1) ||
        !pure_point_expr(n->els, p, depth + 1))
        return false;
    for (Node *a = n->args; a; a = a->next)
        if (!pure_point_expr(a, p, depth + 1)) return false;
    return true;
}

/* Index ix of axis d covers c's own point: c<d> itself, or a unit-stride
 * slice c<d> + o : len with o <= 0 < o + len (a window around the point). */
static bool covers_own_index(Node *ix, const Iterator *c, int d)
{
    if (!ix) return false;
    if (ix->kind == ND_ITER_INDEX) return ix->iter == c && ix->axis == d;
    if (ix->kind != ND_SLICE || ix->reduction_id > 1) return false;
    const Affine a = lang_affine(ix->lhs);
    return a.ok && a.axis == d && a.coef == 1 && a.offset <= 0 && a.offset + ix->axis > 0 &&
           fuse_mentions_iter(ix->lhs, c);
}

/* Whether body reads element var[k0..][own point] (leading constants of
 * `like`), alone or inside a window. */
static bool reads_element(Node *n, const Node *like, const Iterator *c, int depth)
{
    if (!n || depth > 400) return false;
    if ((n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW) && n->var == like->var && n->nidx == like->nidx) {
        const int lead = n->nidx - c->ndim;
        bool same = lead >= 0;
        for (int i = 0; same && i < lead; i++) {
            bool a, b;
            same = n->idx[i]->kind != ND_SLICE && const_eval(n->idx[i], &a) == const_eval(like->idx[i], &b) && a && b;
        }
        for (int d = 0; same && d < c->ndim; d++) same = covers_own_index(n->idx[lead + d], c, d);
        if (same) return true;
    }
    NodeKids k = {.n = n};
    for (Node *kid; (kid = lang_next_kid(&k));)
        if (reads_element(kid, like, c, depth + 1)) return true;
    return false;
}

/* Every element E reads is read by c's body at c's point. */
static bool reads_all_of(Node *e, Node *c_body, const Iterator *c, int depth)
{
    if (!e || depth > 400) return e == NULL;
    if (e->kind == ND_MAT_ELEM) return reads_element(c_body, e, c, 0);
    if (!reads_all_of(e->lhs, c_body, c, depth + 1) || !reads_all_of(e->rhs, c_body, c, depth + 1) ||
        !reads_all_of(e->cond, c_body, c, depth + 1) || !reads_all_of(e->then, c_body, c, depth + 1) ||
        !reads_all_of(e->els, c_body, c, depth + 1))
        return false;
    for (Node *a = e->args; a; a = a->next)
        if (!reads_all_of(a, c_body, c, depth + 1)) return false;
    return true;
}

/* The reads of m in n replaced by copies of e (p's indices made c's). */
static Node *replace_reads(Node *n, const Obj *m, Node *e, const Subst *sub, int depth)
{
    if (!n || depth > 400) return n;
    if (n->kind == ND_MAT_ELEM && n->var == m) {
        Node *x = new_node(ND_CAST, n->tok); /* (T)(E): the value the matrix would hold */
        x->cast_ty = m->ty->base;
        x->ty = m->ty->base;
        x->lhs = tree_copy(e, sub);
        return x;
    }
    n->lhs = replace_reads(n->lhs, m, e, sub, depth + 1);
    n->rhs = replace_reads(n->rhs, m, e, sub, depth + 1);
    n->cond = replace_reads(n->cond, m, e, sub, depth + 1);
    n->then = replace_reads(n->then, m, e, sub, depth + 1);
    n->els = replace_reads(n->els, m, e, sub, depth + 1);
    n->init = replace_reads(n->init, m, e, sub, depth + 1);
    n->inc = replace_reads(n->inc, m, e, sub, depth + 1);
    n->body = replace_reads(n->body, m, e, sub, depth + 1);
    for (Node **a = &n->args; *a; a = &(*a)->next) {
        Node *next = (*a)->next, *r = replace_reads(*a, m, e, sub, depth + 1);
        r->next = next;
        *a = r;
    }
    for (Node *d = n->decls; d; d = d->next) d->init = replace_reads(d->init, m, e, sub, depth + 1);
    for (int i = 0; i < n->nidx; i++) n->idx[i] = replace_reads(n->idx[i], m, e, sub, depth + 1);
    return n;
}

/* Whether n holds a statement or expression that host_keeps refuses: a
 * call (it may write anything), a jump target or jump, an iterator, or an
 * assignment to anything but a plain scalar or matrix element. */
static bool opaque_host_code(const Node *n, int depth)
{
    if (!n) return false;
    if (depth > 400) return true;
    switch (n->kind) {
    case ND_CALL: case ND_ITERATOR: case ND_LABEL: case ND_GOTO: case ND_CASE: case ND_DEFAULT: return true;
    default: break;
    }
    if (tree_assigns(n) && n->kind != ND_COMMA && n->lhs && n->lhs->kind != ND_VAR && !tree_is_matrix_access(n->lhs))
        return true;
    NodeKids k = {.n = n};
    for (Node *c; (c = lang_next_kid(&k));)
        if (opaque_host_code(c, depth + 1)) return true;
    return false;
}

/* Whether n assigns a scalar that e mentions. */
static bool assigns_scalar_of(const Node *n, Node *e, int depth)
{
    if (!n) return false;
    if (depth > 400) return true;
    if (tree_assigns(n) && n->kind != ND_COMMA && n->lhs && n->lhs->kind == ND_VAR && n->lhs->var &&
        tree_mentions(e, n->lhs->var, 0))
        return true;
    NodeKids k = {.n = n};
    for (Node *c; (c = lang_next_kid(&k));)
        if (assigns_scalar_of(c, e, depth + 1)) return true;
    return false;
}

/* A host statement between a point producer and a later reader leaves E's
 * value alone (so E may be computed after it): no call, jump or iterator,
 * no write of M or of a matrix E reads, no assignment of a scalar E reads.
 * (The sharpening's `int mean = parac_matrix_sum(edge) / (H * W);` is such
 * a statement.) */
static bool host_keeps(Node *s, const Touch *te, const Obj *m, Node *e)
{
    if (opaque_host_code(s, 0) || assigns_scalar_of(s, e, 0)) return false;
    Touch ts = {0};
    tree_touches(s, &ts, 0);
    if (ts.overflow || obj_listed(ts.written, ts.nwritten, m)) return false;
    for (int i = 0; i < te->nread; i++)
        if (obj_listed(ts.written, ts.nwritten, te->read[i])) return false;
    return true;
}

/* Recompute p's point value inside the later iterators that can have it
 * for free; true when p is then read by nobody and was removed. */
static bool recompute_points(Node *f, Node *block, Node *pn)
{
    Iterator *p = pn->iter;
    if (p->iter_element || p->rule || !p->body) return false;
    Touch tp = {0};
    tree_touches(p->body, &tp, 0);
    if (tp.overflow || tp.nwritten != 1) return false;
    Obj *m = tp.written[0];
    if (m->is_ref || m->is_param || m->is_global || m->ty->kind != TY_MATRIX || m->ty->ndim != p->ndim) return false;
    Node *write = fuse_producer_write(p, m);
    Node *list = p->body->kind == ND_BLOCK ? p->body->args : p->body;
    if (!write || list != write || write->next) return false; /* the body is that one statement */
    Node *e = write->lhs->rhs;
    if (!pure_point_expr(e, p, 0)) return false;
    Touch te = {0};
    tree_touches(e, &te, 0);
    bool removed_any = false;
    Iterator *readers[64];
    int nreaders = 0;
    for (Node *cn = pn->next; cn; cn = cn->next) {
        if (cn->kind == ND_BORDER_RULE || cn->kind == ND_NULL_STMT) continue;
        if (cn->kind != ND_ITERATOR) {
            if (!host_keeps(cn, &te, m, e)) break; /* host code that may change what E reads */
            continue;
        }
        Iterator *c = cn->iter;
        Touch tc = {0};
        tree_touches(c->body, &tc, 0);
        if (tc.overflow || obj_listed(tc.written, tc.nwritten, m)) break;
        bool clobbers = false;
        for (int i = 0; i < te.nread; i++) clobbers |= obj_listed(tc.written, tc.nwritten, te.read[i]);
        bool same_space = c->ndim == p->ndim && !c->iter_element;
        for (int d = 0; same_space && d < p->ndim; d++)
            same_space = p->r[d].stride == c->r[d].stride && fuse_same_bound(f, p->r[d].lb, c->r[d].lb) &&
                         fuse_same_bound(f, p->r[d].ub, c->r[d].ub);
        if (same_space && !clobbers && obj_listed(tc.read, tc.nread, m) && reads_at_point(c->body, m, c, 0, 0) &&
            reads_all_of(e, c->body, c, 0)) {
            Subst sub = {.from = p, .to = c};
            c->body = replace_reads(c->body, m, e, &sub, 0);
            c->fused = c->fused ? lang_format("%s; %s recomputed from what it reads here", c->fused, m->name)
                                : lang_format("%s recomputed from what it reads here", m->name);
            removed_any = true;
            if (nreaders < 64) readers[nreaders++] = c;
            else p->members = 0; /* too many to track: untracked below */
        }
        if (clobbers) break; /* later iterators would see other values */
    }
    /* each reader stands for p too: its reads of M are p's values (fuse_choice.c) */
    for (int i = 0; i < nreaders; i++) fuse_absorb(readers[i], p);
    if (!removed_any || tree_mentions(f->body, m, 0) != 1) return false;
    /* nobody reads M any more: the producer and M go */
    Node *prev = NULL, *decl = fuse_find_decl(f->body, m, &prev, 0);
    if (!decl) return false;
    if (prev) prev->next = prev->next->next;
    else decl->decls = decl->decls->next;
    if (!decl->decls) decl->kind = ND_NULL_STMT;
    for (Node **s = &block->args; *s; s = &(*s)->next)
        if (*s == pn) {
            *s = pn->next;
            break;
        }
    return true;
}

/* The statements of one block, and of the blocks inside them. */
static bool in_block(Node *block, const Node *s)
{
    for (Node *t = block->args; t; t = t->next)
        if (t == s) return true;
    return false;
}

static void fuse_block(const CompileOptions *opt, Node *f, Node *block, bool stencils, bool stages, int depth)
{
    if (!block || depth > 200) return;
    if (block->kind != ND_BLOCK) {
        Node *kids[] = {block->then, block->els, block->body};
        for (int i = 0; i < 3; i++) fuse_block(opt, f, kids[i], stencils, stages, depth + 1);
        return;
    }
    for (Node *s = block->args; s; s = s->next) {
        if (s->kind != ND_ITERATOR) {
            fuse_block(opt, f, s, stencils, stages, depth + 1);
            continue;
        }
        /* the next statement but border-rule declarations */
        for (;;) {
            Node *before = s, *c = s->next;
            while (c && (c->kind == ND_BORDER_RULE || c->kind == ND_NULL_STMT)) {
                before = c;
                c = c->next;
            }
            if (!c || c->kind != ND_ITERATOR || !fuse_pair(f, s, c)) break;
            fuse_absorb(s->iter, c->iter);
            before->next = c->next; /* the consumer now lives in s */
        }
    }
    /* then point stages recomputed where later stages read them for free */
    for (Node *s = block->args; s;) {
        Node *next = s->next;
        if (s->kind == ND_ITERATOR) recompute_points(f, block, s);
        s = next;
    }
    /* then stencil stages recomputed inside the stencil that reads them */
    for (Node **link = &block->args; stencils && *link;) {
        Node *s = *link, *c = s->next;
        while (c && (c->kind == ND_BORDER_RULE || c->kind == ND_NULL_STMT)) c = c->next;
        if (s->kind == ND_ITERATOR && c && c->kind == ND_ITERATOR && fuse_stencil_pair(f, s, c)) {
            fuse_absorb(c->iter, s->iter);
            *link = s->next; /* the producer is gone; its consumer may fuse again */
            continue;
        }
        link = &s->next;
    }
    if (!stages) return;
    /* then the chains that are left staged in local memory, from the last
     * reader back (a producer that read a stage of its own could not join) */
    Node *iters[256];
    int n = 0;
    for (Node *s = block->args; s && n < 256; s = s->next)
        if (s->kind == ND_ITERATOR) iters[n++] = s;
    for (int i = n - 1; i >= 0; i--)
        if (in_block(block, iters[i])) fuse_stage_chain(opt, f, block, iters[i]);
}

/* One block of f fused (the search's alternatives are made so too: fuse_choice.c). */
static void fuse_run_block(const CompileOptions *opt, Node *f, Node *block, bool stencils, bool stages)
{
    fuse_block(opt, f, block, stencils, stages, 0);
}

void fuse_program(Program *prog)
{
    const CompileOptions *opt = prog->opt;
    const bool loops = plan_flag(opt, opt ? opt->loops_in_kernels : -1, 1);
    if (!plan_flag(opt, opt ? opt->fuse : -1, 1)) {
        for (Node *n = prog->top; loops && n; n = n->next)
            if (n->kind == ND_FUNC && n->body) fuse_loops_into_kernels(n);
        return;
    }
    /* recomputing stencils pays where memory bandwidth is what limits: on
     * by default for the device targets at -O2 (-ffuse-stencils elsewhere) */
    const int fs = opt ? opt->fuse_stencils : -1;
    const bool stencils = fs >= 0 ? fs : opt && opt->opt_level >= 2 && target_has_device(opt->target);
    /* stages in local memory: the device targets (the C target has no work-groups) */
    const bool stages = opt && target_has_device(opt->target) && plan_flag(opt, opt->stage_stencils, 2);
    /* the search checks each fusion against less of it (fuse_choice.c) where
     * it times candidates: the device targets at -O2 */
    const bool choose = opt && target_has_device(opt->target) && plan_flag(opt, opt->search_variants, 2);
    for (Node *n = prog->top; n; n = n->next) {
        if (n->kind != ND_FUNC || !n->body) continue;
        void *choices = choose ? fuse_choices_begin(n) : NULL;
        fuse_block(opt, n, n->body, stencils, stages, 0);
        if (loops) fuse_loops_into_kernels(n); /* after fusion: a loop's body may have become one iterator */
        if (choices) fuse_choices_end(choices, opt, stencils, fuse_run_block);
    }
}
