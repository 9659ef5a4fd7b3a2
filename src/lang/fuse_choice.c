/* Fusion decisions checked by the search (device targets at -O2).
 *
 * The fusion passes (fuse.c, fuse_stencil.c, fuse_tile.c) decide by their
 * conditions and cost rules alone. Here every iterator they changed gets the
 * ways it could also have been built: the same statements fused with less
 * (stencils recomputed without local-memory stages; point stages only) and
 * not fused at all, each made from a copy of the function's iterators as they
 * were before fusion. The fused iterator's statement becomes
 *
 *     parac_fusion_choice parac_fcK;
 *     PARAC__CHECK(parac_cu_fusion_begin(parac__session(), "NAME", ALTS, SIZES, &parac_fcK));
 *     while (parac_cu_fusion_next(parac__session(), &parac_fcK))
 *         if (parac_fcK.alt == 0) { the fused iterator }
 *         else if (parac_fcK.alt == 1) { its matrices; the iterators fused with less }
 *         else { the intermediates declared again; the iterators as written }
 *     PARAC__CHECK(parac_fcK.status);
 *
 * Without the search the runtime runs alternative 0 (the model's) once. With
 * it, a first run times every alternative and keeps the fastest, for this
 * program, device and the sizes of the matrices involved, on disk.
 *
 * Why an alternative computes the same: the fused iterator stands for its
 * members, iterators of one block whose intermediates (the matrices fusion
 * removed) nothing else in the function mentions; the members run in their
 * order at the fused iterator's place, which fusion checked is safe (what
 * they read is not written in between). The search runs an alternative more
 * than once, so a choice is made only where that gives the same result: no
 * member reads a matrix that a member writes, other than an intermediate. */
#include <string.h>

#include "lang/fuse.h"
#include "lang/lang.h"

enum { MAX_MEMBERS = 64, MAX_ALTS = 4 };

/* ---- members: the function's iterators before fusion --------------------- */

static void number_iterators(Node *n, int *k, int depth)
{
    if (!n || depth > 400) return;
    if (n->kind == ND_ITERATOR && n->iter) {
        n->iter->members = *k < MAX_MEMBERS ? 1ull << *k : 0;
        (*k)++;
        return;
    }
    Node *kids[] = {n->then, n->els, n->body, n->init};
    for (int i = 0; i < 4; i++) number_iterators(kids[i], k, depth + 1);
    if (n->kind == ND_BLOCK)
        for (Node *s = n->args; s; s = s->next) number_iterators(s, k, depth + 1);
}

static Node *copy_tree(Node *n, int depth);

static Node *copy_list(Node *n, int depth)
{
    Node head = {0}, *tail = &head;
    for (; n; n = n->next) {
        tail->next = copy_tree(n, depth);
        tail = tail->next;
    }
    return head.next;
}

/* An iterator statement with an iterator of its own (its indices renamed to it). */
static Node *copy_iterator(Node *n)
{
    Node *r = new_node(n->kind, n->tok);
    *r = *n;
    r->next = NULL;
    Iterator *it = lang_alloc(sizeof *it);
    *it = *n->iter;
    it->region = NULL;
    const Subst plain = {0}, sub = {.from = n->iter, .to = it};
    for (int d = 0; d < it->ndim; d++) {
        it->r[d].lb = tree_copy(n->iter->r[d].lb, &plain);
        it->r[d].ub = tree_copy(n->iter->r[d].ub, &plain);
    }
    it->body = tree_copy(n->iter->body, &sub);
    r->body = n->body == n->iter->body ? it->body : tree_copy(n->body, &sub);
    r->iter = it;
    return r;
}

/* A copy of statement n in which every iterator is one of its own. */
static Node *copy_tree(Node *n, int depth)
{
    if (!n || depth > 400) return NULL;
    if (n->kind == ND_ITERATOR && n->iter) return copy_iterator(n);
    Node *r = new_node(n->kind, n->tok);
    *r = *n;
    r->next = NULL;
    r->lhs = copy_tree(n->lhs, depth + 1);
    r->rhs = copy_tree(n->rhs, depth + 1);
    r->cond = copy_tree(n->cond, depth + 1);
    r->then = copy_tree(n->then, depth + 1);
    r->els = copy_tree(n->els, depth + 1);
    r->init = copy_tree(n->init, depth + 1);
    r->inc = copy_tree(n->inc, depth + 1);
    r->body = copy_tree(n->body, depth + 1);
    r->args = copy_list(n->args, depth + 1);
    r->decls = copy_list(n->decls, depth + 1);
    for (int i = 0; i < n->nidx; i++) r->idx[i] = copy_tree(n->idx[i], depth + 1);
    return r;
}

/* The copies' iterator statements by member bit. */
static void index_members(Node *n, Node **by_bit, int depth)
{
    if (!n || depth > 400) return;
    if (n->kind == ND_ITERATOR && n->iter) {
        for (int k = 0; k < MAX_MEMBERS; k++)
            if (n->iter->members == 1ull << k) by_bit[k] = n;
        return;
    }
    Node *kids[] = {n->then, n->els, n->body, n->init};
    for (int i = 0; i < 4; i++) index_members(kids[i], by_bit, depth + 1);
    if (n->kind == ND_BLOCK)
        for (Node *s = n->args; s; s = s->next) index_members(s, by_bit, depth + 1);
}

/* ---- one choice ---------------------------------------------------------- */

typedef struct ChoiceCtx {
    const CompileOptions *opt;
    FuseBlockFn *refuse; /* the driver's fusion of one block (fuse.c) */
    Node *f;             /* the function, fused */
    Node *pristine;      /* its body before fusion */
    Node *by_bit[MAX_MEMBERS];
    int nchoices;
    /* the matrices the fused function declares, before any choice's
     * alternatives declare intermediates again */
    Obj **declared;
    int ndeclared, cap;
} ChoiceCtx;

static void collect_declared(ChoiceCtx *x, const Node *n, int depth)
{
    if (!n || depth > 400) return;
    if (n->kind == ND_DECL)
        for (const Node *d = n->decls; d; d = d->next) {
            if (!d->var) continue;
            if (x->ndeclared == x->cap) {
                x->cap = x->cap ? 2 * x->cap : 32;
                Obj **grown = lang_alloc(sizeof *grown * (size_t)x->cap);
                if (x->ndeclared) memcpy(grown, x->declared, sizeof *grown * (size_t)x->ndeclared);
                x->declared = grown;
            }
            x->declared[x->ndeclared++] = d->var;
        }
    const Node *kids[] = {n->then, n->els, n->body, n->init};
    for (int i = 0; i < 4; i++) collect_declared(x, kids[i], depth + 1);
    if (n->kind == ND_BLOCK)
        for (const Node *s = n->args; s; s = s->next) collect_declared(x, s, depth + 1);
}

/* m is still declared in the fused function. */
static bool still_declared(const ChoiceCtx *x, const Obj *m)
{
    for (int i = 0; i < x->ndeclared; i++)
        if (x->declared[i] == m) return true;
    return false;
}

/* The matrices the members write that fusion removed (declared in the
 * function before fusion, no longer after), into inter[]. */
static int intermediates(ChoiceCtx *x, unsigned long long members, Obj **inter, int max, bool *overflow)
{
    int n = 0;
    for (int k = 0; k < MAX_MEMBERS; k++) {
        if (!(members >> k & 1) || !x->by_bit[k]) continue;
        Touch t = {0};
        tree_touches(x->by_bit[k]->iter->body, &t, 0);
        *overflow |= t.overflow;
        for (int i = 0; i < t.nwritten; i++) {
            Obj *m = t.written[i];
            Node *prev = NULL;
            if (obj_listed(inter, n, m) || still_declared(x, m) || !fuse_find_decl(x->pristine, m, &prev, 0))
                continue;
            if (n == max) {
                *overflow = true;
                return n;
            }
            inter[n++] = m;
        }
    }
    return n;
}

/* The matrices n reads: as tree_touches, but the target of a plain `=` is
 * not read (tree_touches counts every write as a read too). */
static void reads_of(Node *n, Touch *t, int depth)
{
    if (!n || depth > 400) {
        if (n) t->overflow = true;
        return;
    }
    const bool plain_store = n->kind == ND_ASSIGN && n->op && !strcmp(n->op, "=") && n->lhs &&
                             (n->lhs->kind == ND_MAT_ELEM || n->lhs->kind == ND_WINDOW);
    if (plain_store) {
        for (int i = 0; i < n->lhs->nidx; i++) reads_of(n->lhs->idx[i], t, depth + 1);
        reads_of(n->rhs, t, depth + 1);
        return;
    }
    if ((n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW) && n->var && !obj_listed(t->read, t->nread, n->var)) {
        if (t->nread == 32) t->overflow = true;
        else t->read[t->nread++] = n->var;
    }
    NodeKids k = {.n = n};
    for (Node *c; (c = lang_next_kid(&k));) reads_of(c, t, depth + 1);
}

/* Why running the members twice could change the result (NULL: it cannot):
 * a matrix one of them reads that one of them writes, not an intermediate. */
static const char *rerun_hazard(ChoiceCtx *x, unsigned long long members, Obj **inter, int ninter)
{
    Touch all = {0};
    for (int k = 0; k < MAX_MEMBERS; k++) {
        if (!(members >> k & 1)) continue;
        if (!x->by_bit[k]) return "an iterator of the group was not found before fusion";
        Touch t = {0}, r = {0};
        tree_touches(x->by_bit[k]->iter->body, &t, 0);
        reads_of(x->by_bit[k]->iter->body, &r, 0);
        if (t.overflow || r.overflow) return "the iterators touch too many matrices to check";
        t.nread = r.nread;
        memcpy(t.read, r.read, sizeof r.read);
        for (int i = 0; i < t.nread; i++)
            if (!obj_listed(all.read, all.nread, t.read[i]) && all.nread < 32) all.read[all.nread++] = t.read[i];
        for (int i = 0; i < t.nwritten; i++)
            if (!obj_listed(all.written, all.nwritten, t.written[i]) && all.nwritten < 32)
                all.written[all.nwritten++] = t.written[i];
    }
    for (int i = 0; i < all.nread; i++) {
        Obj *m = all.read[i];
        if (obj_listed(all.written, all.nwritten, m) && !obj_listed(inter, ninter, m))
            return lang_format("they read %s, which they write", m->name);
        if (!m->is_param && !m->is_global && !m->is_ref && !m->is_small_const && !obj_listed(inter, ninter, m) &&
            !still_declared(x, m))
            return lang_format("they read %s, which fusion removed and they do not write", m->name);
    }
    return NULL;
}

/* The declaration of m alone, as before fusion. */
static Node *decl_copy(ChoiceCtx *x, Obj *m)
{
    Node *prev = NULL, *stmt = fuse_find_decl(x->pristine, m, &prev, 0);
    Node *d = prev ? prev->next : stmt->decls;
    Node *s = new_node(ND_DECL, stmt->tok);
    *s = *stmt;
    s->next = NULL;
    const Subst plain = {0};
    Node *dc = tree_copy(d, &plain);
    dc->next = NULL;
    s->decls = dc;
    return s;
}

/* A block of the intermediates' declarations and copies of the members as
 * written, in their order. */
static Node *unfused_block(ChoiceCtx *x, Node *tok_of, unsigned long long members, Obj **inter, int ninter)
{
    Node *b = new_node(ND_BLOCK, tok_of->tok);
    Node head = {0}, *tail = &head;
    for (int i = 0; i < ninter; i++) tail = tail->next = decl_copy(x, inter[i]);
    for (int k = 0; k < MAX_MEMBERS; k++)
        if (members >> k & 1) tail = tail->next = copy_tree(x->by_bit[k], 0);
    b->args = head.next;
    return b;
}

/* The iterators of a statement or block: the kernels an alternative launches. */
static int count_iterators(Node *block)
{
    int n = 0;
    for (Node *t = block->kind == ND_BLOCK ? block->args : block; t; t = block->kind == ND_BLOCK ? t->next : NULL)
        n += t->kind == ND_ITERATOR;
    return n;
}

static const char *iterator_names(Node *block)
{
    const char *s = NULL;
    for (Node *t = block->args; t; t = t->next)
        if (t->kind == ND_ITERATOR) {
            /* a whole-image statement's iterator is named after its line */
            const char *n = t->iter->synthetic ? lang_format("line %d", t->tok->line) : t->iter->name;
            s = s ? lang_format("%s, %s", s, n) : n;
        }
    return s ? s : "none";
}

static void mark_alternative(Node *n, int choice, int alt, int depth)
{
    if (!n || depth > 400) return;
    if (n->kind == ND_ITERATOR && n->iter) {
        n->iter->choice = choice;
        n->iter->alt = alt;
        return;
    }
    Node *kids[] = {n->then, n->els, n->body, n->init};
    for (int i = 0; i < 4; i++) mark_alternative(kids[i], choice, alt, depth + 1);
    if (n->kind == ND_BLOCK)
        for (Node *s = n->args; s; s = s->next) mark_alternative(s, choice, alt, depth + 1);
}

static Node *verbatim(Token *tok, const char *text)
{
    Node *v = new_node(ND_VERBATIM, tok);
    v->text = text;
    return v;
}

/* "X_d0, X_d1, X_d2, ..." of the matrices the members touch that are in
 * scope at the choice (not intermediates), for the search's key. */
static const char *key_sizes(ChoiceCtx *x, unsigned long long members, Obj **inter, int ninter, int *count)
{
    Obj *seen[32];
    int n = 0;
    const char *s = NULL;
    *count = 0;
    for (int k = 0; k < MAX_MEMBERS; k++) {
        if (!(members >> k & 1)) continue;
        Touch t = {0};
        tree_touches(x->by_bit[k]->iter->body, &t, 0);
        Obj *both[64];
        int nb = 0;
        for (int i = 0; i < t.nread; i++) both[nb++] = t.read[i];
        for (int i = 0; i < t.nwritten; i++) both[nb++] = t.written[i];
        for (int i = 0; i < nb; i++) {
            Obj *m = both[i];
            if (m->is_small_const || m->ty->kind != TY_MATRIX || obj_listed(inter, ninter, m) || obj_listed(seen, n, m) ||
                n == 32)
                continue;
            seen[n++] = m;
            for (int d = 0; d < 3; d++) s = s ? lang_format("%s, %s_d%d", s, m->name, d) : lang_format("%s_d%d", m->name, d);
            *count += 3;
        }
    }
    return s;
}

/* Fusion levels below the model's, weakest last. */
typedef struct Level {
    bool stencils, stages, none;
    const char *what;
} Level;

static void make_choice(ChoiceCtx *x, Node **link, bool stencils)
{
    Node *s = *link;
    Iterator *it = s->iter;
    const unsigned long long members = it->members;
    if (!members) {
        it->alternatives = "not checked by the search: the function has too many iterators to track";
        return;
    }
    if (it->nloops) { /* its members ran inside the loops, which are in its kernel now */
        it->alternatives = "not checked by the search: host loops run inside its kernel";
        return;
    }
    Obj *inter[32];
    bool overflow = false;
    const int ninter = intermediates(x, members, inter, 32, &overflow);
    const char *hazard = overflow ? "the iterators touch too many matrices to check"
                                  : rerun_hazard(x, members, inter, ninter);
    if (hazard) {
        it->alternatives = lang_format("not checked by the search (it runs each way more than once): %s", hazard);
        return;
    }
    const int model_iters = count_iterators(s);
    const Level levels[] = {
        {stencils, false, false, "stencils recomputed, no local-memory stages"},
        {false, false, false, "point stages fused only"},
        {false, false, true, "not fused"},
    };
    int nmembers = 0;
    for (int k = 0; k < MAX_MEMBERS; k++) nmembers += (int)(members >> k & 1);
    Node *alts[MAX_ALTS];
    const char *whats[MAX_ALTS];
    int counts[MAX_ALTS];
    int nalts = 0;
    for (int l = 0; l < 3; l++) {
        const Level *lv = &levels[l];
        if ((l == 0 && !it->nstages) || (l == 1 && !stencils)) continue;
        Node *b = unfused_block(x, s, members, inter, ninter);
        if (!lv->none) {
            Node tf = *x->f; /* the block as the whole function: the declarations fusion may drop are in it */
            tf.body = b;
            x->refuse(x->opt, &tf, b, lv->stencils, lv->stages);
        }
        /* an alternative of as many iterators as one before is no other way */
        const int iters = count_iterators(b);
        bool dup = iters == model_iters;
        for (int i = 0; i < nalts; i++) dup |= iters == counts[i];
        if (dup) continue;
        counts[nalts] = iters;
        whats[nalts] = lang_format("%s (%s: %d kernel%s)", iters == nmembers ? "not fused" : lv->what, iterator_names(b),
                                   iters, iters == 1 ? "" : "s");
        alts[nalts++] = b;
    }
    if (!nalts) return;
    const int id = ++x->nchoices;
    const char *rt = x->opt->target == TARGET_CUDA ? "cu" : "cl";
    int nsizes = 0;
    const char *sizes = key_sizes(x, members, inter, ninter, &nsizes);
    Token *tok = s->tok;
    Node *fused_block = new_node(ND_BLOCK, tok);
    Node *next = s->next;
    s->next = NULL;
    fused_block->args = s;
    it->choice = id;
    it->alt = 0;
    const char *summary = NULL;
    for (int i = 0; i < nalts; i++) {
        mark_alternative(alts[i], id, i + 1, 0);
        summary = lang_format("%s%s%d: %s", summary ? summary : "", summary ? "; " : "", i + 1, whats[i]);
    }
    it->alternatives = lang_format("the search (PARAC_%s_SEARCH) times this fused region against %s", rt[1] == 'u' ? "CU" : "CL",
                                   summary);
    /* if (alt == 0) {fused} else if (alt == 1) {...} ... else {last} */
    Node *chain = alts[nalts - 1];
    for (int i = nalts - 1; i >= 0; i--) {
        Node *c = new_node(ND_IF, tok);
        c->cond = verbatim(tok, lang_format("parac_fc%d.alt == %d", id, i));
        c->then = i ? alts[i - 1] : fused_block;
        c->els = chain;
        chain = c;
    }
    Node *loop = new_node(ND_WHILE, tok);
    loop->cond = verbatim(tok, lang_format("parac_%s_fusion_next(parac__session(), &parac_fc%d)", rt, id));
    loop->body = chain;
    const char *name = lang_format("%s_%s_L%d", x->f->name, it->synthetic ? "stmt" : it->name, tok->line);
    Node *begin = verbatim(tok, lang_format("parac_fusion_choice parac_fc%d;", id));
    begin->next = verbatim(tok, lang_format("PARAC__CHECK(parac_%s_fusion_begin(parac__session(), \"%s\", %d, %d, %s%s%s, "
                                            "&parac_fc%d));", rt, name, nalts + 1, nsizes, nsizes ? "(const long[]){" : "NULL",
                                            nsizes ? sizes : "", nsizes ? "}" : "", id));
    begin->next->next = loop;
    loop->next = verbatim(tok, lang_format("PARAC__CHECK(parac_fc%d.status);", id));
    Node *wrap = new_node(ND_BLOCK, tok);
    wrap->args = begin;
    wrap->next = next;
    *link = wrap;
}

static void choices_in(ChoiceCtx *x, Node *block, bool stencils, int depth)
{
    if (!block || depth > 200) return;
    if (block->kind != ND_BLOCK) {
        Node *kids[] = {block->then, block->els, block->body};
        for (int i = 0; i < 3; i++) choices_in(x, kids[i], stencils, depth + 1);
        return;
    }
    for (Node **link = &block->args; *link; link = &(*link)->next) {
        Node *s = *link;
        if (s->kind != ND_ITERATOR) {
            choices_in(x, s, stencils, depth + 1);
            continue;
        }
        if (s->iter && (s->iter->fused || s->iter->nstages)) make_choice(x, link, stencils);
    }
}

void *fuse_choices_begin(Node *f)
{
    int k = 0;
    number_iterators(f->body, &k, 0);
    ChoiceCtx *x = lang_alloc(sizeof *x);
    x->f = f;
    x->pristine = copy_tree(f->body, 0);
    index_members(x->pristine, x->by_bit, 0);
    return x;
}

void fuse_choices_end(void *ctx, const CompileOptions *opt, bool stencils, FuseBlockFn *refuse)
{
    ChoiceCtx *x = ctx;
    x->opt = opt;
    x->refuse = refuse;
    collect_declared(x, x->f->body, 0);
    choices_in(x, x->f->body, stencils, 0);
}
