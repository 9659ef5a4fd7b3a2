/* Stencil stages staged in local memory (-fstage-stencils; on at -O2 for the
 * device targets).
 *
 *     parac_iterator g(0:H:1; 0:W:1) { G[gx][gy] = E_g; }
 *     parac_iterator h(0:H:1; 0:W:1) parac_border_rule(RG) { B[hx][hy] = E_h(G around hx, hy); }
 *     parac_iterator v(0:H:1; 0:W:1) parac_border_rule(RB) { ... B around vx, vy ... }
 *
 * Where recomputation (fuse_stencil.c) would cost too much (each of v's
 * reads of B would recompute E_h, and each of those E_g's reads), the
 * stages before v become stages of v itself: each work-group of v computes
 * first the tile of G its tile of outputs needs, with the halo, into local
 * memory, then the tile of B from G's tile, then its outputs from B's tile
 * (emit_kernels.c). G and B never exist in global memory: two images, two
 * kernels and four passes over memory are saved, at the price of the halo's
 * cells computed twice (by neighbouring work-groups).
 *
 * Borders. A tile cell outside the image holds what the rule through which
 * the stage is read gives there: each side entry of that rule is an index
 * map M[f][*] (E at row f) or a value that does not read M. The reads then
 * need no border code: the iterator loses its rule and its border boxes.
 * Where the first producer reads a matrix X in memory through a rule of
 * its own (a blur of the input, edges repeated), X's tile is loaded first,
 * its halo cells by that rule: a load stage.
 *
 * Conditions, each needed for the result to stay the same: the reader v is
 * two-dimensional, stride 1, and each stage's producer iterates v's space
 * (or one of more rows or columns after v's last, a constant number more:
 * a patch's difference image, read at offsets 0..k; M then has no rule),
 * covers its matrix M whole and is the one statement M[px][py] = E, maybe
 * after declarations of locals with one value each (E has them inlined:
 * what the halo analysis reads; the kernel computes them as written); M is
 * declared in the function and nothing but the producer, the stages after
 * it, v and border rules about M mention it; E assigns nothing and calls
 * only what computes (math functions, macros of values);
 * every read of M is at constant offsets from its reader's point; v writes
 * nothing that a stage reads; M's readers read it through one rule at most,
 * without corner entries; every producer's own rule is about a stage of
 * the chain, or about the one matrix loaded, which has the reader's space
 * and which the reader does not write. The tiles must fit the local memory
 * a work-group may have, and the reader's body must not jump (its outputs
 * are a loop after the barriers). */
#include <string.h>

#include "lang/fuse.h"
#include "lang/lang.h"

enum {
    MAX_HALO = 8,            /* rows or columns of halo per side */
    MAX_TILE_BYTES = 40960,  /* all tiles of a work-group */
    MAX_STMTS = 1024
};

/* ---- where a reader reads M ------------------------------------------------- */
typedef struct Extent {
    long mn[2], mx[2]; /* offsets from the reader's point */
    bool any;
} Extent;

/* ix is it<d> + constant: its constant, in *off. */
static bool offset_of(Node *ix, const Iterator *it, int d, long *off)
{
    if (!ix || ix->kind == ND_SLICE) return false;
    const Affine a = lang_affine(ix);
    if (!a.ok || a.axis != d || a.coef != 1 || !fuse_mentions_iter(ix, it)) return false;
    *off = a.offset;
    return true;
}

static void widen(Extent *x, int d, long lo, long hi)
{
    if (lo < x->mn[d]) x->mn[d] = lo;
    if (hi > x->mx[d]) x->mx[d] = hi;
}

/* Every mention of m in n is an element or a window at constant offsets
 * from it's point; their span, into x. */
static bool read_extent(Node *n, const Obj *m, const Iterator *it, Extent *x, int depth)
{
    if (!n) return true;
    if (depth > 400) return false;
    if ((n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW) && n->var == m) {
        if (n->nidx != 2 || lang_window_is_dynamic(n)) return false;
        for (int d = 0; d < 2; d++) {
            Node *ix = n->idx[d];
            long off, len = 1, step = 1;
            if (ix->kind == ND_SLICE) {
                if (n->kind != ND_WINDOW) return false;
                len = d == 1 ? small_cols(n->ty) : small_rows(n->ty);
                step = ix->reduction_id;
                ix = ix->lhs;
            }
            if (!offset_of(ix, it, d, &off) || len < 1) return false;
            const long last = off + (len - 1) * step;
            widen(x, d, off < last ? off : last, off < last ? last : off);
        }
        x->any = true;
        return true;
    }
    if (n->kind == ND_VAR && n->var == m) return false;
    NodeKids k = {.n = n};
    for (Node *c; (c = lang_next_kid(&k));)
        if (!read_extent(c, m, it, x, depth + 1)) return false;
    return true;
}

/* E assigns nothing, calls what only computes (CLAMP, expf: not the file's
 * functions) and moves with p's indices only. */
static bool stage_expr(Node *n, const Iterator *p, int depth)
{
    if (!n) return true;
    if (depth > 200 || tree_assigns(n)) return false;
    switch (n->kind) {
    case ND_CALL:
        if (!n->lhs || n->lhs->kind != ND_VAR || (n->lhs->var && n->lhs->var->func_def) || !lang_pure_call(n->lhs->name))
            return false;
        break;
    case ND_ITERATOR: return false;
    case ND_ITER_INDEX: return n->iter == p;
    default: break;
    }
    Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els};
    for (int i = 0; i < 5; i++)
        if (!stage_expr(kids[i], p, depth + 1)) return false;
    for (Node *a = n->args; a; a = a->next)
        if (!stage_expr(a, p, depth + 1)) return false;
    for (int i = 0; i < n->nidx; i++) {
        Node *ix = n->idx[i];
        if (!stage_expr(ix && ix->kind == ND_SLICE ? ix->lhs : ix, p, depth + 1)) return false;
    }
    return true;
}

/* The rule's entries are side entries, each a value that does not mention
 * m or an index map of m to a row (column) near the edge it stands beyond:
 * f = k before the first (0 <= k <= MAX_HALO), f = size - k after the last
 * (1 <= k <= MAX_HALO + 1), as replicating and mirroring rules have. The
 * mapped cell is then inside the tiles of the work-groups that hold the
 * cell it stands for, whatever the image's size. */
static bool tile_rule(const Node *fn, const BorderRule *r, const Obj *m, const Iterator *c, const Touch *tc)
{
    for (const BorderEntry *e = r->entries; e; e = e->next) {
        if ((e->side[0] != 0) == (e->side[1] != 0)) return false; /* a corner */
        const int a = e->side[0] ? 0 : 1;
        Node *f = lang_rule_map(e, m, a);
        if (!f) {
            if (tree_mentions(e->value, m, 0)) return false;
            continue;
        }
        bool ok;
        if (e->side[a] < 0) {
            const long k = const_eval(f, &ok);
            if (!ok || k < 0 || k > MAX_HALO) return false;
            continue;
        }
        if (f->kind != ND_BINARY || !f->op || strcmp(f->op, "-") ||
            !fuse_same_bound(fn, fuse_declared_size(f->lhs, tc), fuse_declared_size(c->r[a].ub, tc)))
            return false;
        const long k = const_eval(f->rhs, &ok);
        if (!ok || k < 1 || k > MAX_HALO + 1) return false;
    }
    return true;
}

/* ---- a producer's locals -------------------------------------------------------- */
enum { MAX_LOCALS = 32 };

typedef struct Locals {
    Obj *var[MAX_LOCALS];
    Node *value[MAX_LOCALS]; /* (T)(init), its locals inlined already */
    int n;
} Locals;

/* n with the locals replaced by their values (a copy where any is). */
static Node *inline_locals(Node *n, const Locals *ls, int depth)
{
    if (!n || depth > 200) return n;
    if (n->kind == ND_VAR)
        for (int i = 0; i < ls->n; i++)
            if (n->var == ls->var[i]) return ls->value[i];
    Node *c = new_node(n->kind, n->tok);
    *c = *n;
    c->lhs = inline_locals(n->lhs, ls, depth + 1);
    c->rhs = inline_locals(n->rhs, ls, depth + 1);
    c->cond = inline_locals(n->cond, ls, depth + 1);
    c->then = inline_locals(n->then, ls, depth + 1);
    c->els = inline_locals(n->els, ls, depth + 1);
    for (int i = 0; i < n->nidx; i++) c->idx[i] = inline_locals(n->idx[i], ls, depth + 1);
    Node head = {0}, *tail = &head;
    for (Node *a = n->args; a; a = a->next) {
        Node *x = inline_locals(a, ls, depth + 1);
        if (x == a) { /* a shared node keeps its own next: copy the link */
            x = new_node(a->kind, a->tok);
            *x = *a;
        }
        x->next = NULL;
        tail = tail->next = x;
    }
    c->args = head.next;
    return c;
}

/* The value p stores: the write's right side, where p's body is the write
 * after declarations of arithmetic locals, each with one value (an
 * initialiser that assigns nothing; no statement assigns them later: the
 * write assigns nothing, stage_expr checks), inlined as (T)(value) so that
 * a stage of a few named steps computes what they compute. NULL: not so. */
static Node *producer_value(Iterator *p, Node *write)
{
    Node *list = p->body->kind == ND_BLOCK ? p->body->args : p->body;
    Locals ls = {0};
    for (Node *s = list; s; s = s->next) {
        if (s == write) return s->next ? NULL : inline_locals(write->lhs->rhs, &ls, 0);
        if (s->kind == ND_NULL_STMT) continue;
        if (s->kind != ND_DECL) return NULL;
        for (Node *d = s->decls; d; d = d->next) {
            Obj *v = d->var;
            if (!v || !d->init || d->init->kind == ND_INIT_LIST || !ty_is_arith(v->ty) || v->ty->kind == TY_MATRIX ||
                tree_assigns(d->init) || ls.n == MAX_LOCALS)
                return NULL;
            Node *cast = new_node(ND_CAST, d->tok ? d->tok : s->tok);
            cast->cast_ty = v->ty;
            cast->ty = v->ty;
            cast->lhs = inline_locals(d->init, &ls, 0);
            ls.var[ls.n] = v;
            ls.value[ls.n++] = cast;
        }
    }
    return NULL;
}

/* ---- the chain ---------------------------------------------------------------- */
typedef struct Link {
    Node *stmt;
    Iterator *p;
    Obj *m;
    Node *e;
    BorderRule *rule; /* through which m's readers read it */
    long lo[2], hi[2];
    long grow[2];     /* p's space beyond c's, after its last row (column) */
    Node *steps, *value; /* p's declarations before the write, and its value (Stage) */
} Link;

/* The halo of m's tile: what its readers (c's body at c's tile, the links
 * 0..n-1's E at theirs) read of it, each at constant offsets and through one
 * rule at most (*rule), within that rule's widths and off its corners (the
 * analysis of the unstaged program reports those reads); *mentions: how
 * often they mention m. */
static bool readers_halo(const Node *fn, const Obj *m, Iterator *c, const Touch *tc, const Link *chain, int n,
                         long lo[2], long hi[2], BorderRule **rule, int *mentions)
{
    lo[0] = lo[1] = hi[0] = hi[1] = 0;
    *rule = NULL;
    *mentions = 0;
    for (int j = -1; j < n; j++) {
        Node *body = j < 0 ? c->body : chain[j].e;
        Iterator *it = j < 0 ? c : chain[j].p;
        if (it->nrules > 1 || (it->rule && it->rule->dist)) return false; /* one rule a side (lang.h), known halos */
        Extent x = {{1L << 30, 1L << 30}, {-(1L << 30), -(1L << 30)}, false};
        if (!read_extent(body, m, it, &x, 0)) return false;
        *mentions += tree_mentions(body, m, 0);
        if (!x.any) continue;
        for (int d = 0; d < 2; d++) {
            const long rlo = j < 0 ? 0 : chain[j].lo[d], rhi = j < 0 ? 0 : chain[j].hi[d];
            if (rlo - x.mn[d] > lo[d]) lo[d] = rlo - x.mn[d];
            if (rhi + x.mx[d] > hi[d]) hi[d] = rhi + x.mx[d];
        }
        BorderRule *r = it->rule && it->rule->var == m ? it->rule : NULL;
        if (r && *rule && r != *rule) return false;
        if (r) {
            for (int d = 0; d < 2; d++)
                if (x.mn[d] < -r->width_lo[d] || x.mx[d] > r->width_hi[d]) return false;
            if ((x.mn[0] < 0 || x.mx[0] > 0) && (x.mn[1] < 0 || x.mx[1] > 0)) return false;
            *rule = r;
        }
    }
    for (int d = 0; d < 2; d++)
        if (lo[d] > MAX_HALO || hi[d] > MAX_HALO) return false;
    return !*rule || tile_rule(fn, *rule, m, c, tc);
}

/* Whether producer statement pn can be the chain's k-th link (links 0..k-1,
 * nearer the reader c, already are): fills ln. */
static bool link_ok(Node *f, Node *pn, Iterator *c, const Touch *tc, Link *chain, int k, Link *ln)
{
    Iterator *p = pn->iter;
    if (!p || p->ndim != 2 || p->iter_element || !p->body || p->nstages) return false;
    Touch tp = {0};
    tree_touches(p->body, &tp, 0);
    if (tp.overflow || tp.nwritten != 1) return false;
    /* p's space is c's, or c's and more rows (columns) after its last: the
     * patch of a difference image read at offsets 0..6 from c's point */
    for (int d = 0; d < 2; d++)
        if (p->r[d].stride != 1 || !fuse_same_bound(f, p->r[d].lb, c->r[d].lb) ||
            !tree_fixed_value(fuse_declared_size(p->r[d].ub, &tp), f->body) ||
            !tree_fixed_value(fuse_declared_size(c->r[d].ub, tc), f->body) ||
            !lang_constant_difference(fuse_declared_size(p->r[d].ub, &tp), fuse_declared_size(c->r[d].ub, tc),
                                      &ln->grow[d]) ||
            ln->grow[d] < 0)
            return false;
    Obj *m = tp.written[0];
    if (m->is_ref || m->is_param || m->is_global || m->ty->kind != TY_MATRIX || m->ty->ndim != 2 ||
        !fuse_covers_whole(f, p, m) || obj_listed(tc->written, tc->nwritten, m))
        return false;
    const long size = ty_size(m->ty->base);
    if (size < 1 || size > 8 || m->ty->base->kind < TY_CHAR || m->ty->base->kind > TY_LDOUBLE) return false;
    Node *write = fuse_producer_write(p, m);
    Node *e = write ? producer_value(p, write) : NULL;
    if (!e || !stage_expr(e, p, 0)) return false;
    Node *list = p->body->kind == ND_BLOCK ? p->body->args : p->body;
    ln->steps = list != write ? list : NULL;
    ln->value = write->lhs->rhs;
    /* its readers: c's body (at c's tile) and the later links' E (at theirs) */
    int mentions;
    if (!readers_halo(f, m, c, tc, chain, k, ln->lo, ln->hi, &ln->rule, &mentions)) return false;
    if (!mentions) return false;
    /* a rule's cells stand beyond c's space: M beyond it has none */
    if (ln->rule && (ln->grow[0] || ln->grow[1])) return false;
    /* nothing else in the function may see M */
    Node *prev = NULL;
    if (!fuse_find_decl(f->body, m, &prev, 0) ||
        tree_mentions(f->body, m, 0) != tree_mentions(p->body, m, 0) + mentions + fuse_rule_decls(f->body, m, false, 0))
        return false;
    /* c writes nothing E reads (the later links write only their M, which
     * E cannot read: the mention counts above would differ) */
    for (int i = 0; i < tp.nread; i++)
        if (obj_listed(tc->written, tc->nwritten, tp.read[i])) return false;
    ln->stmt = pn;
    ln->p = p;
    ln->m = m;
    ln->e = e;
    return true;
}

/* The rules of the reader and of the links 0..n-1 are each about one of
 * the links' matrices, or absent, but for one matrix *x in memory at most
 * (NULL: none), which the links read through its rule: a load stage then
 * brings its tile in first. */
static bool rules_ok(const Iterator *c, const Link *chain, int n, Obj **x)
{
    *x = NULL;
    for (int i = -1; i < n; i++) {
        const Iterator *it = i < 0 ? c : chain[i].p;
        if (it->nrules > 1) return false; /* one rule a side (lang.h) */
        const BorderRule *r = it->rule;
        if (!r) continue;
        if (!r->var || r->var->ty->ndim != 2 || r->dist) return false; /* tiles are 2-D, of known halos */
        bool staged = false;
        for (int j = 0; j < n; j++) staged |= r->var == chain[j].m;
        if (staged) continue;
        if (*x && *x != r->var) return false;
        *x = r->var;
    }
    return true;
}

/* The load stage of x, a matrix in memory of the reader's space whose tile
 * (halo included) its readers (the reader c, the links 0..n-1) read at
 * constant offsets through one rule at most. */
static bool load_link(const Node *f, Iterator *c, const Touch *tc, const Link *chain, int n, Obj *x, Link *ln)
{
    if (x->ty->kind != TY_MATRIX || x->ty->ndim != 2 || obj_listed(tc->written, tc->nwritten, x)) return false;
    const long size = ty_size(x->ty->base);
    if (size < 1 || size > 8 || x->ty->base->kind < TY_CHAR || x->ty->base->kind > TY_LDOUBLE) return false;
    for (int d = 0; d < 2; d++) {
        bool ok;
        if (const_eval(c->r[d].lb, &ok) != 0 || !ok || !x->ty->dims[d] ||
            !fuse_same_bound(f, fuse_declared_size(x->ty->dims[d], tc), fuse_declared_size(c->r[d].ub, tc)))
            return false;
    }
    int mentions;
    memset(ln, 0, sizeof *ln);
    if (!readers_halo(f, x, c, tc, chain, n, ln->lo, ln->hi, &ln->rule, &mentions)) return false;
    /* E: x at c's point */
    Node *e = new_node(ND_MAT_ELEM, c->tok);
    e->var = x;
    e->name = x->name;
    e->ty = x->ty->base;
    e->nidx = 2;
    for (int d = 0; d < 2; d++) {
        Node *ix = new_node(ND_ITER_INDEX, c->tok);
        ix->iter = c;
        ix->axis = d;
        ix->name = lang_format("%s%c", c->name, "xy"[d]);
        ix->ty = ty_basic(TY_INT, false);
        e->idx[d] = ix;
    }
    ln->p = c;
    ln->m = x;
    ln->e = e;
    return true;
}

/* The tiles of the links 0..n-1 (and of the load stage ld) fit the local
 * memory a work-group may have. */
static bool tiles_fit(const CompileOptions *opt, const Link *chain, int n, const Link *ld)
{
    long bytes = 0;
    for (int i = ld ? -1 : 0; i < n; i++) {
        const Link *l = i < 0 ? ld : &chain[i];
        bytes += (STAGE_WG_Y * lang_stage_rows(opt) + l->lo[0] + l->hi[0]) * (STAGE_WG_X + l->lo[1] + l->hi[1]) *
                 (long)ty_size(l->m->ty->base);
    }
    return bytes <= MAX_TILE_BYTES;
}

static void drop_decl(Node *f, const Obj *m)
{
    Node *prev = NULL, *decl = fuse_find_decl(f->body, m, &prev, 0);
    if (!decl) return;
    if (prev) prev->next = prev->next->next;
    else decl->decls = decl->decls->next;
    if (!decl->decls) decl->kind = ND_NULL_STMT;
}

bool fuse_stage_chain(const CompileOptions *opt, Node *f, Node *block, Node *cn)
{
    Iterator *c = cn->iter;
    if (!c || c->ndim != 2 || c->iter_element || !c->body || c->nstages || lang_any_jump(c->body)) return false;
    for (int d = 0; d < 2; d++)
        if (c->r[d].stride != 1) return false;
    Touch tc = {0};
    tree_touches(c->body, &tc, 0);
    if (tc.overflow) return false;
    /* the block's statements, to walk back from cn */
    Node *stmts[MAX_STMTS];
    int ns = 0, ci = -1;
    for (Node *s = block->args; s && ns < MAX_STMTS; s = s->next) {
        if (s == cn) ci = ns;
        stmts[ns++] = s;
    }
    if (ci < 0) return false;
    Link chain[PARAC_MAX_STAGES], load = {0};
    int n = 0, best = 0;
    bool with_load = false;
    for (int i = ci - 1; i >= 0 && n < PARAC_MAX_STAGES; i--) {
        Node *s = stmts[i];
        if (s->kind == ND_BORDER_RULE || s->kind == ND_NULL_STMT) continue;
        if (s->kind != ND_ITERATOR || !link_ok(f, s, c, &tc, chain, n, &chain[n])) break;
        n++;
        Obj *x;
        Link ld;
        if (!rules_ok(c, chain, n, &x)) continue;
        if (!x && tiles_fit(opt, chain, n, NULL)) {
            best = n;
            with_load = false;
        } else if (x && n < PARAC_MAX_STAGES && load_link(f, c, &tc, chain, n, x, &ld) && tiles_fit(opt, chain, n, &ld)) {
            best = n;
            with_load = true;
            load = ld;
        }
    }
    if (!best) return false;
    /* the stages in the order they are computed: the load, then the farthest producer first */
    const char *what = NULL;
    if (with_load) {
        Stage *st = &c->stages[c->nstages++];
        st->m = load.m;
        st->p = c;
        st->e = load.e;
        st->rule = load.rule;
        st->load = true;
        for (int d = 0; d < 2; d++) {
            st->lo[d] = load.lo[d];
            st->hi[d] = load.hi[d];
        }
        what = lang_format("%s (loaded from memory, halo rows -%ld..+%ld, columns -%ld..+%ld%s%s)", st->m->name, st->lo[0],
                           st->hi[0], st->lo[1], st->hi[1], st->rule ? ", border rule " : "", st->rule ? st->rule->name : "");
    }
    for (int i = best - 1; i >= 0; i--) {
        const Link *ln = &chain[i];
        Stage *st = &c->stages[c->nstages++];
        st->m = ln->m;
        st->p = ln->p;
        st->e = ln->e;
        st->rule = ln->rule;
        for (int d = 0; d < 2; d++) {
            st->lo[d] = ln->lo[d];
            st->hi[d] = ln->hi[d];
            st->grow[d] = ln->grow[d];
        }
        st->steps = ln->steps;
        st->value = ln->value;
        const char *one = lang_format("%s (line %d, halo rows -%ld..+%ld, columns -%ld..+%ld%s%s)", ln->m->name,
                                      ln->stmt->tok->line, st->lo[0], st->hi[0], st->lo[1], st->hi[1],
                                      st->rule ? ", border rule " : "", st->rule ? st->rule->name : "");
        what = what ? lang_format("%s, then %s", what, one) : one;
        fuse_absorb(c, ln->p); /* c now stands for the producer too */
        /* the producer, M and its rules are gone */
        for (Node **s = &block->args; *s; s = &(*s)->next)
            if (*s == ln->stmt) {
                *s = ln->stmt->next;
                break;
            }
        fuse_rule_decls(f->body, ln->m, true, 0);
        drop_decl(f, ln->m);
    }
    lang_set_rule(c, NULL); /* it was about a stage: the tiles hold what it gives */
    c->rule_name = NULL;
    what = lang_format("staged in local memory: %s, computed by each work-group into tiles before its outputs", what);
    c->fused = c->fused ? lang_format("%s; %s", c->fused, what) : what;
    return true;
}
