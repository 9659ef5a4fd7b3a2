/* A work-item's arrays in local memory (-flocal-arrays, on from -O1 on the
 * device targets).
 *
 *     parac_iterator g(0:GR; 0:GC) {
 *         float h[16];                      a histogram of the cell's pixels
 *         for (...) h[bin(in[..][..])] += v;
 *     }
 *
 * An array of a kernel's body indexed by a value the kernel compiler cannot
 * resolve (a bin read from data, the counter of a loop of run-time length)
 * cannot live in registers: the kernel compiler puts it on the work-item's
 * stack, in global memory behind the caches (on the H200 a bilateral grid's
 * 16-bin histograms of 64 pixels took 107 us there, 34 in local memory). So
 * such an array goes to the work-group's local memory, one slice per
 * work-item, element k of work-item t at k * S + t (S the work-group's
 * size): neighbouring work-items' elements sit in neighbouring banks, and no
 * work-item touches another's slice, so no barrier is needed.
 *
 * An array qualifies when it is declared in the iterator's body (not static,
 * no initialiser), has one axis of constant length and arithmetic elements,
 * is named only as `a[i]` (not passed, not its address taken, not in sizeof)
 * and some index is neither constant nor built from the counters of loops
 * of constant bounds (which the kernel compiler unrolls into registers).
 * The slices of a work-group must fit PARAC_LOCAL_ARRAY_BYTES: the planned
 * work-group shrinks (to a warp at least) until they do (work-groups of 64
 * rather than 256 gave the bilateral grid no more than noise on the H200's
 * CUDA, and were slower on its OpenCL). The kernel then
 * runs one output per work-item, in one launch of the planned shape (the
 * search over shapes is off: the slices are sized for it); iterators with
 * border rules, stages, work-group histograms or a folded reduction keep
 * their arrays on the stack. */
#include <string.h>

#include "lang/lang.h"

/* loop counters of constant bounds around the node being walked */
typedef struct Walk {
    const Obj *loops[32];
    int nloops;
} Walk;

/* A for loop's counter when it starts at a constant and is compared with a
 * constant (`for (int k = c0; k < c1; k++)`), else NULL: a guess at what the
 * kernel compiler unrolls, which decides only where an array lives. */
static const Obj *constant_loop_counter(const Node *f)
{
    const Obj *k = NULL;
    bool ok = false;
    if (f->init && f->init->kind == ND_DECL && f->init->decls && !f->init->decls->next && f->init->decls->init) {
        k = f->init->decls->var;
        const_eval(f->init->decls->init, &ok);
    } else if (f->init && f->init->kind == ND_EXPR_STMT && f->init->lhs && f->init->lhs->kind == ND_ASSIGN &&
               f->init->lhs->lhs && f->init->lhs->lhs->kind == ND_VAR && !strcmp(f->init->lhs->op, "=")) {
        k = f->init->lhs->lhs->var;
        const_eval(f->init->lhs->rhs, &ok);
    }
    if (!k || !ok) return NULL;
    const Node *c = f->cond;
    if (!c || c->kind != ND_BINARY || !c->lhs || c->lhs->kind != ND_VAR || c->lhs->var != k) return NULL;
    const_eval(c->rhs, &ok);
    return ok ? k : NULL;
}

/* An index the kernel compiler resolves once it unrolls the loops of
 * constant bounds: constants, and such loops' counters under + - *. */
static bool resolved_index(const Walk *w, Node *e, int depth)
{
    if (!e || depth > 64) return false;
    bool ok = false;
    const_eval(e, &ok);
    if (ok) return true;
    switch (e->kind) {
    case ND_VAR:
        for (int i = 0; i < w->nloops; i++)
            if (w->loops[i] == e->var) return true;
        return false;
    case ND_CAST:
        return resolved_index(w, e->lhs, depth + 1);
    case ND_UNARY:
        return (!strcmp(e->op, "+") || !strcmp(e->op, "-")) && resolved_index(w, e->lhs, depth + 1);
    case ND_BINARY:
        return (!strcmp(e->op, "+") || !strcmp(e->op, "-") || !strcmp(e->op, "*")) &&
               resolved_index(w, e->lhs, depth + 1) && resolved_index(w, e->rhs, depth + 1);
    default:
        return false;
    }
}

/* How the body names array o: only as o[i] (*plain), and with some index
 * the kernel compiler cannot resolve (*dynamic). */
static void uses(Walk *w, Node *n, const Obj *o, bool *plain, bool *dynamic, int depth)
{
    if (!n) return;
    if (depth > 400) {
        *plain = false;
        return;
    }
    if (n->kind == ND_UNARY && n->op && !strcmp(n->op, "&") && n->lhs && n->lhs->kind == ND_INDEX &&
        n->lhs->lhs && n->lhs->lhs->kind == ND_VAR && n->lhs->lhs->var == o) {
        *plain = false; /* an element's address: a pointer into local memory */
        return;
    }
    if (n->kind == ND_INDEX && n->lhs && n->lhs->kind == ND_VAR && n->lhs->var == o) {
        if (!resolved_index(w, n->rhs, 0)) *dynamic = true;
        uses(w, n->rhs, o, plain, dynamic, depth + 1);
        return;
    }
    if (n->kind == ND_VAR && n->var == o) {
        *plain = false; /* passed, assigned to a pointer, sizeof */
        return;
    }
    const Obj *k = n->kind == ND_FOR ? constant_loop_counter(n) : NULL;
    const bool pushed = k && w->nloops < (int)(sizeof w->loops / sizeof w->loops[0]);
    if (pushed) w->loops[w->nloops++] = k;
    NodeKids kids = {.n = n};
    for (Node *c; (c = lang_next_kid(&kids));) uses(w, c, o, plain, dynamic, depth + 1);
    if (pushed) w->nloops--;
}

/* The arrays declared in n that qualify, into r (their lengths too). */
static void find_arrays(Region *r, Node *body, Node *n, int depth)
{
    if (!n || depth > 400) return;
    if (n->kind == ND_DECL && !n->is_static && !n->is_extern && !n->is_typedef) {
        for (Node *d = n->decls; d; d = d->next) {
            Obj *o = d->var;
            if (!o || d->init || !o->ty || o->ty->kind != TY_ARRAY || !o->ty->base || !ty_is_arith(o->ty->base) ||
                !o->ty->array_len || ty_size(o->ty->base) == 0)
                continue;
            bool ok = false;
            const long len = const_eval(o->ty->array_len, &ok);
            if (!ok || len <= 0 || len > PARAC_LOCAL_ARRAY_BYTES) continue;
            Walk w = {.nloops = 0};
            bool plain = true, dynamic = false;
            uses(&w, body, o, &plain, &dynamic, 0);
            if (!plain || !dynamic || r->nlarr == PARAC_LOCAL_ARRAYS) continue;
            r->larr[r->nlarr] = o;
            r->larr_len[r->nlarr++] = len;
        }
    }
    NodeKids kids = {.n = n};
    for (Node *c; (c = lang_next_kid(&kids));) find_arrays(r, body, c, depth + 1);
}

static const char *array_names(const Region *r)
{
    const char *s = "";
    for (int i = 0; i < r->nlarr; i++)
        s = lang_format("%s%s%s (%ld %s)", s, i ? ", " : "", r->larr[i]->name, r->larr_len[i],
                        ty_c_name(r->larr[i]->ty->base, true));
    return s;
}

static const char *iterator_refuses(const Region *r)
{
    if (r->has_border) return "the iterator reads through a border rule";
    if (r->iter->nstages) return "the iterator computes stages in local memory";
    if (r->nhist) return "the iterator counts work-group histograms";
    if (r->fold_red) return "the kernel also folds a reduction";
    return NULL;
}

static void plan_region(Region *r)
{
    find_arrays(r, r->iter->body, r->iter->body, 0);
    if (!r->nlarr) return;
    const char *why = iterator_refuses(r);
    long bytes = 0; /* per work-item */
    for (int i = 0; i < r->nlarr; i++) bytes += r->larr_len[i] * (long)ty_size(r->larr[i]->ty->base);
    int wg[3] = {r->wg[0], r->wg[1], r->wg[2]};
    for (int d = 0; d < 3; d++)
        if (wg[d] < 1) wg[d] = 1;
    while (!why && bytes * wg[0] * wg[1] * wg[2] > PARAC_LOCAL_ARRAY_BYTES && wg[0] * wg[1] * wg[2] > 32) {
        int d = wg[2] > 1 ? 2 : wg[1] > 1 ? 1 : 0; /* the slowest axis first */
        wg[d] /= 2;
    }
    if (!why && bytes * wg[0] * wg[1] * wg[2] > PARAC_LOCAL_ARRAY_BYTES)
        why = lang_format("%ld bytes per work-item: a work-group of 32 would need %ld, more than %d", bytes,
                          bytes * 32, PARAC_LOCAL_ARRAY_BYTES);
    if (why) {
        r->why_larr = lang_format("%s on each work-item's stack (%s)", array_names(r), why);
        r->nlarr = 0;
        return;
    }
    const bool shrunk = wg[0] * wg[1] * wg[2] != r->wg[0] * r->wg[1] * r->wg[2];
    for (int d = 0; d < 3; d++) r->wg[d] = wg[d];
    r->larr_stride = wg[0] * wg[1] * wg[2];
    r->why_larr = lang_format("%s in local memory, a slice per work-item (%ld bytes per work-group of %d%s)",
                              array_names(r), bytes * r->larr_stride, r->larr_stride,
                              shrunk ? ", shrunk to fit" : "");
    /* one output per work-item, each body's arrays in its one slice */
    if (r->vector_width > 1 || r->rows_per_item > 1) {
        r->why_vector = "a work-item's arrays in local memory: one output per work-item";
        r->why_rows = r->why_vector;
    }
    r->vector_width = 1;
    r->rows_per_item = 1;
    r->nloads = r->nmerge = r->nrowvars = r->nfcache = 0;
    r->use_local_tiles = false;
    r->nvariants = 0;
}

void plan_local_arrays(Program *prog)
{
    const CompileOptions *opt = prog->opt;
    if (!opt || !target_has_device(opt->target) || !plan_flag(opt, opt->local_arrays, 1)) return;
    for (Region *r = prog->regions; r; r = r->next) {
        r->nlarr = 0;
        r->larr_stride = 0;
        r->why_larr = NULL;
        if (r->iter) plan_region(r);
    }
}

int lang_local_array(const Region *r, const Obj *o)
{
    for (int i = 0; r && i < r->nlarr; i++)
        if (r->larr[i] == o) return i;
    return -1;
}
