/* Histograms privatised per work-group (-fwork-group-histograms, on from -O1).
 *
 *     int parac_matrix counts[1][256];
 *     parac_iterator h(0:H; 0:W) { counts[0][bin(in[hx][hy])] += 1; }
 *
 * Such an update is atomic (sema_writes.c): every iteration adds to one of a
 * few words of global memory, and the adds to one word queue behind each
 * other (on the H200 a 4096² image's 16.7 M adds into 256 bins took 4 ms).
 * Privatised, each work-group counts into its own copy of the matrix in
 * local memory, each work-item over PARAC_HIST_ROWS iterations along the
 * rows, and adds its nonzero totals to the matrix once at its end
 * (emit_kernels_hist.c); on the C target each thread counts into a copy of
 * its own and adds it once (emit_host_loops.c). The totals are sums of
 * integers in 32-bit words, which wrap as the atomic adds do, so they are
 * the unprivatised result bit for bit. Conditions:
 *   - every mention of the matrix in the iterator is such an update of one
 *     element (an index per axis; sema_writes.c already forbids reading it);
 *   - its sizes are constants and it holds at most PARAC_HIST_MAX elements,
 *     the iterator's privatised matrices PARAC_HIST_TOTAL together;
 *   - the iterator has no border rule, stages or element blocks, no folded
 *     reduction, no jump (a goto; sema refuses returns), and is not in the C
 *     target's strips of rows.
 */
#include "lang/lang.h"

/* The updates of o in n: how many, how many atomic, and whether each names
 * one element (an index per axis). */
typedef struct Updates {
    int all, atomic;
    bool elements;
} Updates;

static void find_updates(Node *n, const Obj *o, Updates *u, int depth)
{
    if (!n) return;
    if (depth > 400) {
        u->elements = false;
        return;
    }
    if ((n->kind == ND_ASSIGN || n->kind == ND_UNARY || n->kind == ND_POSTFIX) && n->lhs &&
        n->lhs->kind == ND_MAT_ELEM && n->lhs->var == o) {
        u->all++;
        u->atomic += n->atomic_update;
        if (n->lhs->nidx != o->ty->ndim) u->elements = false;
        for (int i = 0; i < n->lhs->nidx; i++)
            if (!n->lhs->idx[i] || n->lhs->idx[i]->kind == ND_SLICE) u->elements = false;
    }
    NodeKids kids = {.n = n};
    for (Node *c; (c = lang_next_kid(&kids));) find_updates(c, o, u, depth + 1);
}

static bool has_jump(Node *n, int depth)
{
    if (!n || depth > 400) return n != NULL;
    if (n->kind == ND_RETURN || n->kind == ND_GOTO || n->kind == ND_LABEL) return true;
    NodeKids kids = {.n = n};
    for (Node *c; (c = lang_next_kid(&kids));)
        if (has_jump(c, depth + 1)) return true;
    return false;
}

/* The number of elements of m when its sizes are constants (into dims),
 * else 0. */
static long constant_elements(const Obj *m, long dims[3])
{
    long n = 1;
    dims[0] = dims[1] = dims[2] = 1;
    for (int d = 0; d < m->ty->ndim && d < 3; d++) {
        bool ok = false;
        const long s = m->ty->dims[d] ? const_eval(m->ty->dims[d], &ok) : 0;
        if (!ok || s <= 0) return 0;
        if (s > PARAC_HIST_MAX) return PARAC_HIST_MAX + 1;
        dims[d] = s;
        n *= s;
        if (n > PARAC_HIST_MAX) return n;
    }
    return n;
}

/* Why region r keeps its atomic updates in global memory, or NULL when the
 * iterator itself allows privatising them. */
static const char *iterator_refuses(const CompileOptions *opt, Region *r)
{
    Iterator *it = r->iter;
    if (r->has_border) return "the iterator reads through a border rule";
    if (it->nstages) return "the iterator computes stages in local memory";
    if (it->iter_element) return "an element iterator";
    if (r->fold_red) return "the kernel also folds a reduction";
    if (opt->target == TARGET_C && r->strip_first) return "the iterator runs in strips of rows";
    if (has_jump(it->body, 0)) return "the body jumps";
    return NULL;
}

static void plan_region_histograms(const CompileOptions *opt, Region *r)
{
    const char *refused = NULL, *names = "";
    long total = 0;
    for (int i = 0; i < r->nmats; i++) {
        Obj *m = r->mats[i];
        Updates u = {0, 0, true};
        find_updates(r->iter->body, m, &u, 0);
        if (!u.atomic) continue; /* none, or plain updates of an iteration's own elements */
        long dims[3];
        const long n = constant_elements(m, dims);
        const char *why = NULL;
        if (tree_mentions(r->iter->body, m, 0) != u.all || u.atomic != u.all || !u.elements)
            why = "it is not only updated atomically, element by element";
        else if (!n) why = "its sizes are not constants";
        else if (n > PARAC_HIST_MAX) why = lang_format("more than %d elements", PARAC_HIST_MAX);
        else if (total + n > PARAC_HIST_TOTAL) why = lang_format("the iterator's copies would pass %d elements", PARAC_HIST_TOTAL);
        else if (r->nhist == PARAC_HIST_MATS) why = lang_format("more than %d such matrices", PARAC_HIST_MATS);
        if (!why) why = iterator_refuses(opt, r);
        if (why) {
            refused = lang_format("%s%s%s: %s", refused ? refused : "", refused ? "; " : "", m->name, why);
            continue;
        }
        r->hist[r->nhist] = m;
        for (int d = 0; d < 3; d++) r->hist_dims[r->nhist][d] = dims[d];
        r->hist_n[r->nhist++] = n;
        total += n;
        names = lang_format("%s%s%s (%ld)", names, *names ? ", " : "", m->name, n);
    }
    if (refused)
        r->why_hist = lang_format("atomic updates in global memory (%s)", refused);
    if (!r->nhist) return;
    const bool device = target_has_device(opt->target);
    r->why_hist = lang_format("%s counted %s, added to the matrix once %s%s", names,
                              device ? "in local memory by each work-group"
                                     : "by each thread in a copy of its own",
                              device ? "per work-group" : "per thread",
                              refused ? lang_format("; %s", r->why_hist) : "");
    if (!device) return;
    /* the kernel of emit_kernels_hist.c: PARAC_HIST_ROWS iterations per
     * work-item along the rows: the first axis, or of three the second (a
     * first axis of three channels would leave a work-group's copies to few
     * iterations); work-groups of 64 x 4 (1-D: 256) */
    const int nd = r->iter->ndim;
    r->hist_axis = nd == 3 ? 1 : 0;
    r->vector_width = 1;
    r->rows_per_item = PARAC_HIST_ROWS;
    r->nloads = r->nmerge = r->nrowvars = r->nfcache = 0;
    r->use_local_tiles = false;
    r->nvariants = 0;
    r->wg[0] = nd == 1 ? 256 : 64;
    r->wg[1] = nd == 1 ? 1 : 4;
    r->wg[2] = 1;
    r->why_vector = "the histograms' kernel: one iteration per work-item at a time";
    r->why_rows = lang_format("the histograms' kernel: %d iterations along axis %d per work-item, so that a "
                              "work-group's copies serve many", PARAC_HIST_ROWS, r->hist_axis);
}

void plan_histograms(Program *prog)
{
    const CompileOptions *opt = prog->opt;
    if (!opt) return;
    const bool on = plan_flag(opt, opt->work_group_histograms, 1);
    for (Region *r = prog->regions; r; r = r->next) {
        r->nhist = 0;
        r->why_hist = NULL;
        if (!r->iter) continue;
        if (!on) {
            for (int i = 0; i < r->nmats; i++) {
                Updates u = {0, 0, true};
                find_updates(r->iter->body, r->mats[i], &u, 0);
                if (u.atomic)
                    r->why_hist = lang_format("atomic updates in global memory (%s)",
                                              opt->opt_level == 0 ? "-O0" : "-fno-work-group-histograms");
            }
            continue;
        }
        plan_region_histograms(opt, r);
    }
}
