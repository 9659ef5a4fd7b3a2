/* The C target's tiling for cache: consecutive iterators run in strips of
 * rows. Run one after another over whole images, every stage of a pipeline
 * streams its intermediates through memory: by the time a stage reads a row,
 * the stage before wrote it megabytes ago. In strips, each stage computes the
 * rows the next strip needs and the stage after reads them while they are
 * still in cache:
 *
 *   for every strip [r, r + S) of rows (absolute row indices):
 *       for every stage k in order:
 *           compute stage k's rows [done_k, min(end_k, r + S + R_k))
 *
 * R_k, the stage's reach, is how far ahead of the strip it runs. Stage k
 * computes its row i in the first strip with r + S + R_k > i, so two stages
 * p < q that touch the same row of a matrix keep their order (p's access
 * first) when R_p + lo_p >= R_q + hi_q, lo and hi being the row offsets at
 * which they touch it. Every pair of stages where one writes a matrix the
 * other touches gives such a constraint (a read after a write, a write after
 * a read, two writes), all pointing from a later stage to an earlier one, so
 * the least reaches are found last stage first:
 *
 *   R_p = max(0, max over such q > p of R_q + hi_q - lo_p)
 *
 * Each stage's rows are computed once, in order, so the result is the
 * same as stage after stage, whatever rows the stages iterate. This holds
 * when (checked here, else the iterators run as before):
 *   - every stage is a 2D iterator, unit stride on rows, without reduction;
 *   - a matrix written in the run and touched by two stages or more is 2D;
 *     every stage writes it at its own row only and touches it at its row
 *     plus constant offsets (windows included); a stage that writes it reads
 *     it at its own row only (a matrix one stage alone touches, such as a 3D
 *     output, orders nothing; that stage writes it at its row, not
 *     scattered by data);
 *   - a border rule's value reads no matrix written in the run but the
 *     rule's own; of that matrix, a rule for rows above the image reads
 *     rows 0..15 and one for rows below it rows (rows - c), and the matrix
 *     has one writer, before the rule's stage (a later writer could change
 *     row rows - c before the reader's last rows read it). Row c read above
 *     the image at an iteration i >= 0 is at most c rows below it: counted
 *     as a read that far ahead. Row rows - c is read at an iteration whose
 *     reads reach row rows or below: nearer than its farthest read. A rule
 *     for columns reads its own row;
 *   - at run time, every stage's first row is at least 0.
 * Border rules printed between the iterators are comments only and stay in
 * the run. Where the run's intermediates are its alone, each thread runs
 * every stage over blocks of rows of its own instead, without the team's
 * barriers (plan_thread_strips, below). */
#include <string.h>

#include "lang.h"

enum { MAX_STAGES = 16, MAX_WRITTEN = 32, RULE_TOP_ROWS = 16 };

/* How one stage touches one matrix written in the run. */
typedef struct RowTouch {
    bool used, writes;
    long lo, hi; /* row offsets from the stage's row */
} RowTouch;

typedef struct Run {
    Region *stage[MAX_STAGES];
    int n;
    Obj *written[MAX_WRITTEN]; /* matrices written by the run's stages */
    bool shared[MAX_WRITTEN];  /* touched by two stages or more (else it orders nothing) */
    int nwritten;
    RowTouch touch[MAX_STAGES][MAX_WRITTEN];
    long reach[MAX_STAGES];
} Run;

static int written_index(const Run *run, const Obj *m)
{
    for (int i = 0; i < run->nwritten; i++)
        if (run->written[i] == m) return i;
    return -1;
}

static bool same_size(const Node *a, const Node *b)
{
    if (!a || !b || a->kind != b->kind) return false;
    if (a->kind == ND_VAR) return a->var ? a->var == b->var : a->name && b->name && !strcmp(a->name, b->name);
    bool oka, okb;
    const long va = const_eval((Node *)a, &oka), vb = const_eval((Node *)b, &okb);
    return oka && okb && va == vb;
}

/* Whether every read of a run-written matrix in the border value `v` of a
 * rule on m for rows above the image (dir < 0), below it (dir > 0) or for
 * columns only (dir 0) reads m at a row computed by then (see the header);
 * *top: the highest row read above the image. */
static bool rule_value_safe(const Run *run, Obj *m, Node *v, int dir, long *top)
{
    if (!v) return true;
    if (v->kind == ND_INDEX) {
        Node *base = v, *ixs[4];
        int k = 0;
        while (base->kind == ND_INDEX && k < 4) {
            ixs[k++] = base->rhs;
            base = base->lhs;
        }
        if (base->kind == ND_VAR && base->var && written_index(run, base->var) >= 0) {
            if (base->var != m || k < 1) return false;
            Node *row = ixs[k - 1];
            bool ok;
            if (dir == 0) {
                if (row->kind != ND_WILDCARD) return false;
            } else if (row->kind == ND_WILDCARD) {
                return false;
            } else if (dir < 0) {
                const long c = const_eval(row, &ok);
                if (!ok || c < 0 || c >= RULE_TOP_ROWS) return false;
                if (c > *top) *top = c;
            } else {
                if (row->kind != ND_BINARY || strcmp(row->op, "-") || !same_size(row->lhs, m->ty->dims[0]))
                    return false;
                const long c = const_eval(row->rhs, &ok);
                if (!ok || c < 1) return false;
            }
        }
        for (int i = 0; i < k; i++)
            if (ixs[i]->kind != ND_WILDCARD && !rule_value_safe(run, m, ixs[i], dir, top)) return false;
        return true;
    }
    if (v->kind == ND_VAR && v->var && written_index(run, v->var) >= 0) return false; /* the whole matrix */
    if (!rule_value_safe(run, m, v->lhs, dir, top) || !rule_value_safe(run, m, v->rhs, dir, top) ||
        !rule_value_safe(run, m, v->cond, dir, top) || !rule_value_safe(run, m, v->then, dir, top) ||
        !rule_value_safe(run, m, v->els, dir, top))
        return false;
    for (Node *a = v->args; a; a = a->next)
        if (!rule_value_safe(run, m, a, dir, top)) return false;
    return true;
}

static bool stage_shape_ok(const Region *r)
{
    const Iterator *it = r ? r->iter : NULL;
    return it && !r->red_var && it->ndim == 2 && !it->iter_element && !it->nloops && it->r[0].stride == 1 &&
           it->r[1].stride == 1;
}

static bool at_own_row(const Access *a)
{
    return a->ndim == 2 && a->aff[0].ok && a->aff[0].axis == 0 && a->aff[0].coef == 1 && a->lo[0] == 0 &&
           a->hi[0] == 0;
}

/* Records how each stage touches each matrix the run writes; false where a
 * stage touches one in a way the strips cannot order (see the header). */
static bool record_touches(Run *run)
{
    run->nwritten = 0;
    for (int k = 0; k < run->n; k++)
        for (const Access *a = run->stage[k]->accesses; a; a = a->next)
            if (a->is_write && written_index(run, a->var) < 0) {
                if (run->nwritten == MAX_WRITTEN) return false;
                run->written[run->nwritten++] = a->var;
            }
    memset(run->touch, 0, sizeof run->touch);
    for (int w = 0; w < run->nwritten; w++) {
        int stages = 0;
        for (int k = 0; k < run->n; k++) {
            bool touches = false;
            for (const Access *a = run->stage[k]->accesses; a; a = a->next) touches |= a->var == run->written[w];
            stages += touches;
        }
        run->shared[w] = stages > 1;
    }
    for (int k = 0; k < run->n; k++) {
        for (const Access *a = run->stage[k]->accesses; a; a = a->next) {
            const int w = written_index(run, a->var);
            if (w < 0) continue;
            /* a matrix only its writer touches (a 3D output) needs no order, but is written at the
             * stage's row (not scattered: a histogram's updates stay out of the strips) */
            if (!run->shared[w]) {
                bool at_row = !a->is_write;
                for (int d = 0; d < a->ndim && !at_row; d++)
                    at_row = a->aff[d].ok && a->aff[d].axis == 0 && a->aff[d].coef == 1 && a->lo[d] == 0 && a->hi[d] == 0;
                if (!at_row) return false;
                continue;
            }
            const Affine *f = &a->aff[0];
            if (a->ndim != 2 || !f->ok || f->axis != 0 || f->coef != 1) return false;
            if (a->is_write && !at_own_row(a)) return false;
            RowTouch *t = &run->touch[k][w];
            if (!t->used) {
                t->used = true;
                t->lo = a->lo[0];
                t->hi = a->hi[0];
            }
            if (a->lo[0] < t->lo) t->lo = a->lo[0];
            if (a->hi[0] > t->hi) t->hi = a->hi[0];
            t->writes |= a->is_write;
        }
        for (int w = 0; w < run->nwritten; w++) /* its own output: read at its own row only */
            if (run->touch[k][w].writes && (run->touch[k][w].lo != 0 || run->touch[k][w].hi != 0)) return false;
    }
    return true;
}

/* Whether stage k's border rules read only what the strips have computed.
 * A rule for rows above the image that reads row c of its matrix does so
 * at an iteration i >= 0 (checked at run time): a read at most c rows
 * below the stage's row, counted in its touch. */
static bool rules_ok(Run *run, int k)
{
    const Iterator *it = run->stage[k]->iter;
    for (int i = 0; i < it->nrules; i++) {
        const BorderRule *rule = it->rules[i];
        long top = -1;
        for (const BorderEntry *e = rule->entries; e; e = e->next) {
            const int dir = e->side[0] < 0 ? -1 : e->side[0] > 0 ? 1 : 0;
            if (!rule_value_safe(run, rule->var, e->value, dir, &top)) return false;
        }
        const int ri = rule->var ? written_index(run, rule->var) : -1;
        if (ri >= 0 && !run->shared[ri]) continue; /* fires in its writer alone, if at all */
        if (ri >= 0 && run->touch[k][ri].used && top > run->touch[k][ri].hi) run->touch[k][ri].hi = top;
        bool rows = false;
        for (const BorderEntry *e = rule->entries; e; e = e->next) rows |= e->side[0] != 0;
        if (ri < 0 || !rows) continue;
        /* rows of its matrix past the image: one writer, before this stage */
        int writers = 0, writer = -1;
        for (int j = 0; j < run->n; j++)
            if (run->touch[j][ri].writes) writers++, writer = j;
        if (writers != 1 || writer >= k) return false;
    }
    return true;
}

/* The least reaches that keep every pair of touches in order (the header). */
static void find_reaches(Run *run)
{
    for (int p = run->n - 1; p >= 0; p--) {
        long reach = 0;
        for (int q = p + 1; q < run->n; q++)
            for (int w = 0; w < run->nwritten; w++) {
                const RowTouch *tp = &run->touch[p][w], *tq = &run->touch[q][w];
                if (!tp->used || !tq->used || !(tp->writes || tq->writes)) continue;
                const long need = run->reach[q] + tq->hi - tp->lo;
                if (need > reach) reach = need;
            }
        run->reach[p] = reach;
    }
}

static bool run_valid(Run *run)
{
    if (!record_touches(run)) return false;
    for (int k = 0; k < run->n; k++)
        if (!rules_ok(run, k)) return false;
    find_reaches(run);
    return true;
}

/* Bytes per iteration that stage k writes to matrices a later stage reads:
 * the intermediates the strips keep in cache. */
static long stage_intermediate_bytes(const Run *run, int k)
{
    long bytes = 0;
    for (int w = 0; w < run->nwritten; w++) {
        if (!run->touch[k][w].writes) continue;
        bool read_later = false;
        for (int q = k + 1; q < run->n; q++) read_later |= run->touch[q][w].used;
        if (!read_later) continue;
        const Type *ty = run->written[w]->ty;
        const size_t size = ty && ty->base ? ty_size(ty->base) : 0;
        bytes += size ? (long)size : 4;
    }
    return bytes;
}

/* ---- storage folding ---------------------------------------------------
 * A declared matrix that only the run uses, each element written before any
 * is read (written_first.c), needs only the rows a strip touches: a ring of
 * R rows, row x kept at x & (R - 1). Stage k touches row y at its
 * iterations y - hi_k .. y - lo_k, which it computes in the strips whose
 * start r lies within S of i - S - R_k (each strip computes at most S rows of
 * a stage: the strips start low enough, emit_host_loops.c). So row y lives
 * from position y - S - max_k(hi_k + R_k) to y - S + max_k(-lo_k - R_k); rows
 * y and y + R never share a strip's lifetime when R >= S + span, with span
 * = max_k(hi_k + R_k) + max_k(-lo_k - R_k). Border rules for rows (they read
 * fixed rows of it) keep the matrix whole. */
static bool rows_rule_on(const Run *run, const Obj *m)
{
    for (int k = 0; k < run->n; k++) {
        const Iterator *it = run->stage[k]->iter;
        for (int i = 0; i < it->nrules; i++)
            if (it->rules[i] && it->rules[i]->var == m)
                for (const BorderEntry *e = it->rules[i]->entries; e; e = e->next)
                    if (e->side[0] != 0) return true;
    }
    return false;
}

/* The block and declarator that declare o inside n (false: none). */
static bool find_decl(Node *n, const Obj *o, Node **block, Node **decl, int depth)
{
    if (!n || depth > 200) return false;
    if (n->kind == ND_BLOCK)
        for (Node *s = n->args; s; s = s->next) {
            if (s->kind == ND_DECL)
                for (Node *d = s->decls; d; d = d->next)
                    if (d->var == o) {
                        *block = n;
                        *decl = d;
                        return true;
                    }
            if (find_decl(s, o, block, decl, depth + 1)) return true;
        }
    if (n->kind == ND_ITERATOR) return false;
    return find_decl(n->then, o, block, decl, depth + 1) || find_decl(n->els, o, block, decl, depth + 1) ||
           (n->kind != ND_BLOCK && find_decl(n->body, o, block, decl, depth + 1));
}

static void fold_storage(const Run *run, Node *fn, Node *s, Node *last)
{
    for (int w = 0; w < run->nwritten; w++) {
        Obj *m = run->written[w];
        const Type *ty = m->ty;
        if (!run->shared[w] || !ty || ty->kind != TY_MATRIX || ty->ndim != 2 || m->is_param || m->is_global || m->is_ref ||
            m->is_local_to_iter || m->init || m->is_small_const || m->fold_run || rows_rule_on(run, m))
            continue;
        Node *block = NULL, *decl = NULL;
        if (!find_decl(fn, m, &block, &decl, 0) || !lang_written_before_read(fn, block, decl, m)) continue;
        int inside = 0; /* every mention within the run's statements */
        for (Node *u = s; u != last->next; u = u->next) inside += tree_mentions(u, m, 0);
        if (inside != tree_mentions(fn, m, 0)) continue;
        long hi = 0, lo = 0;
        bool any = false;
        for (int k = 0; k < run->n; k++) {
            const RowTouch *t = &run->touch[k][w];
            if (!t->used) continue;
            const long h = t->hi + run->reach[k], l = -t->lo - run->reach[k];
            if (!any || h > hi) hi = h;
            if (!any || l > lo) lo = l;
            any = true;
        }
        if (!any || hi + lo < 0 || hi + lo > (1L << 20)) continue;
        m->fold_run = run->stage[0];
        m->fold_span = hi + lo;
        run->stage[0]->strip_folds = true;
    }
}

/* The run that starts at statement s, recorded on its regions; returns the
 * statement after it. */
static void plan_thread_strips(Run *run, Node *fn, Node *s, Node *last);

static Node *find_run(Node *s, Node *fn, bool folds, bool threads)
{
    Run run;
    memset(&run, 0, sizeof run);
    Node *last = NULL, *t = s;
    for (; t; t = t->next) {
        if (t->kind == ND_BORDER_RULE) continue;
        if (t->kind != ND_ITERATOR || !t->iter || run.n == MAX_STAGES || !stage_shape_ok(t->iter->region)) break;
        run.stage[run.n++] = t->iter->region;
        if (!run_valid(&run)) { /* a run made invalid by a stage stays so with more */
            run.n--;
            break;
        }
        last = t;
    }
    if (run.n < 2) return s->next;
    run_valid(&run);
    int stmts = 0;
    for (Node *u = s; u != last->next; u = u->next) stmts++;
    Region *first = run.stage[0];
    first->strip_stages = run.n;
    first->strip_stmts = stmts;
    for (int k = 0; k < run.n; k++) {
        run.stage[k]->strip_first = first;
        run.stage[k]->strip_reach = run.reach[k];
        run.stage[k]->strip_bytes = stage_intermediate_bytes(&run, k);
        run.stage[k]->strip_next = k + 1 < run.n ? run.stage[k + 1] : NULL;
    }
    if (folds) fold_storage(&run, fn, s, last);
    if (threads) plan_thread_strips(&run, fn, s, last);
    return last->next;
}
/* ---- host loops inside the strips ------------------------------------------
 * A loop nest whose body is a run (nl_means: 49 offsets of three stages)
 * runs the run's strips around the loops instead:
 *
 *   for every strip [r, r + S) of rows, a thread each (omp for):
 *       for the loops' rounds:
 *           for every stage k: its rows [r + L_k, r + S + R_k)
 *
 * so that what the rounds carry from one to the next (acc, added to at
 * every round) stays in a thread's cache, where the loops around the strips
 * streamed it through memory at every round. A strip's rounds run on one
 * thread without waiting for any other; the strips may therefore compute
 * rows of an intermediate that a neighbouring strip computes too (R_k ahead,
 * -L_k behind), each in storage of its own. The result is the same as the
 * loops around the run when every matrix the run writes is either
 *   - private: declared, mentioned only in the run, every element written
 *     before any is read from the run's first stage on (written_first.c),
 *     without border rules. A ring per thread of S plus its span of rows;
 *     each of its writers computes every row that a later stage touching it
 *     touches in the same strip and round (R_p >= R_q + hi_q, L_p <= L_q +
 *     lo_q), so what the ring held before never counts and every element
 *     read holds what the last writer before the reader wrote (a stage whose
 *     space leaves it out keeps the earlier writer's value, as in the loops
 *     around the run);
 *   - or carried: every mention in the run an element whose index of one
 *     place (the same for all) is the stage's row itself, the stages that
 *     touch it computing exactly the strip's rows (R = L = 0). Every row
 *     then belongs to one strip, and the rounds touch it in their order,
 *     stages in theirs, as the loops around the run did; no two threads
 *     touch the same element;
 * and the loops' counters are integers that only their headers step (their
 * rounds are the same inside every strip), no stage assigns a host scalar
 * or jumps, the stages' spaces are of host scalars and constants (worked
 * out once for all rounds) other than the counters, no window
 * moves with them and no index of a matrix the run writes reads them, and
 * border rules are only about matrices the run does not write, their
 * values reading none. */
enum { MAX_NEST = 8, W_PRIVATE = 1, W_CARRIED = 2 };

typedef struct Nest {
    Node *loop[MAX_NEST];
    int n;
    Node *first_stmt, *last_stmt; /* the run's statements in the innermost body */
    Region *first;
} Nest;

/* The loops from `loop` in, each body only the next loop or, innermost, a
 * whole run. */
static bool nest_of(Node *loop, Nest *nest)
{
    nest->n = 0;
    for (Node *l = loop;;) {
        if (!l || l->kind != ND_FOR || nest->n == MAX_NEST) return false;
        nest->loop[nest->n++] = l;
        Node *b = l->body;
        if (!b || b->kind != ND_BLOCK) return false;
        Node *only = NULL;
        int count = 0;
        for (Node *s = b->args; s; s = s->next)
            if (s->kind != ND_NULL_STMT) {
                if (!only) only = s;
                count++;
            }
        if (only && only->kind == ND_FOR && count == 1) {
            l = only;
            continue;
        }
        if (!only || only->kind != ND_ITERATOR || !only->iter || !only->iter->region) return false;
        Region *r = only->iter->region;
        int stmts = 0;
        Node *last = only;
        for (Node *s = only; s; s = s->next) stmts++, last = s;
        if (r->strip_first != r || stmts != r->strip_stmts) return false;
        nest->first_stmt = only;
        nest->last_stmt = last;
        nest->first = r;
        return true;
    }
}

/* Some index of a matrix the run writes mentions a counter. */
static bool counter_in_written_index(Node *n, const Run *run, const LoopCounters *c, int depth)
{
    if (!n) return false;
    if (depth > 400) return true;
    if ((n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW) && n->var && written_index(run, n->var) >= 0)
        for (int i = 0; i < c->n; i++)
            if (tree_mentions(n, c->v[i], 0)) return true;
    NodeKids k = {.n = n};
    for (Node *x; (x = lang_next_kid(&k));)
        if (counter_in_written_index(x, run, c, depth + 1)) return true;
    return false;
}

/* Every mention of m in n is an element whose index at place *place is
 * it's row (*place: -1 until the first). */
static bool at_row_place(const Node *n, const Obj *m, const Iterator *it, int *place, int depth)
{
    if (!n) return true;
    if (depth > 400) return false;
    if ((n->kind == ND_VAR || n->kind == ND_WINDOW) && n->var == m) return false;
    if (n->kind == ND_BORDER_RULE && n->rule && n->rule->var == m) return false;
    if (n->kind == ND_MAT_ELEM && n->var == m) {
        if (!m->ty || n->nidx != m->ty->ndim) return false;
        int at = -1;
        for (int i = 0; i < n->nidx && at < 0; i++) {
            const Node *x = n->idx[i];
            if (x && x->kind == ND_ITER_INDEX && x->iter == it && x->axis == 0) at = i;
        }
        if (at < 0 || (*place >= 0 && at != *place)) return false;
        *place = at;
    }
    NodeKids k = {.n = (Node *)n};
    for (Node *x; (x = lang_next_kid(&k));)
        if (!at_row_place(x, m, it, place, depth + 1)) return false;
    return true;
}

static bool private_matrix(const Run *run, int w, Node *fn, const Nest *nest)
{
    Obj *m = run->written[w];
    const Type *ty = m->ty;
    if (!ty || ty->kind != TY_MATRIX || ty->ndim != 2 || m->is_param || m->is_global || m->is_ref ||
        m->is_local_to_iter || m->init || m->is_small_const || rows_rule_on(run, m))
        return false;
    int inside = 0;
    for (Node *u = nest->first_stmt; u != nest->last_stmt->next; u = u->next) inside += tree_mentions(u, m, 0);
    if (inside != tree_mentions(fn, m, 0) || !lang_written_first_from(fn, nest->first_stmt, m)) return false;
    for (int k = 0; k < run->n; k++) {
        const Iterator *it = run->stage[k]->iter;
        for (int i = 0; i < it->nrules; i++)
            if (it->rules[i] && it->rules[i]->var == m) return false;
    }
    return true;
}

static bool carried_matrix(const Run *run, int w)
{
    int place = -1;
    for (int k = 0; k < run->n; k++)
        if (!at_row_place(run->stage[k]->iter->body, run->written[w], run->stage[k]->iter, &place, 0)) return false;
    return true;
}

/* Why the nest cannot run inside the run's strips (NULL: it can); fills
 * the stages' reaches and the written matrices' kinds. */
static const char *loop_strips_why_not(Run *run, const Nest *nest, Node *fn, long *low, long *reach, int *kind)
{
    LoopCounters c = {0};
    for (int i = 0; i < nest->n; i++) {
        Node *l = nest->loop[i];
        if (!lang_loop_counters_of(l, &c) || !l->cond || !lang_host_value(l->cond, 0) ||
            !lang_loop_steps_counters(l->inc, &c))
            return "a loop's counters are not integers that only its header steps by host values";
    }
    for (int k = 0; k < run->n; k++) {
        const Iterator *it = run->stage[k]->iter;
        for (int d = 0; d < it->ndim; d++) {
            for (int i = 0; i < c.n; i++)
                if (tree_mentions(it->r[d].lb, c.v[i], 0) || tree_mentions(it->r[d].ub, c.v[i], 0))
                    return "a stage's space depends on a counter";
            /* (worked out once for all rounds: no calls) */
            if (nest->n && (!lang_host_value(it->r[d].lb, 0) || !lang_host_value(it->r[d].ub, 0)))
                return "a stage's space is not of host scalars and constants";
        }
        if (lang_any_jump(it->body)) return "a stage jumps";
        if (lang_writes_outer_scalar(it->body, &c, 0)) return "a stage assigns a host scalar";
        for (int i = 0; i < c.n; i++)
            if (lang_counter_in_window(it->body, c.v[i], false, 0)) return "a window moves with a counter";
        if (counter_in_written_index(it->body, run, &c, 0)) return "an index of a matrix the run writes reads a counter";
        for (int i = 0; i < it->nrules; i++) {
            const BorderRule *rule = it->rules[i];
            if (!rule) continue;
            if (rule->var && written_index(run, rule->var) >= 0) return "a border rule is about a matrix the run writes";
            for (const BorderEntry *e = rule->entries; e; e = e->next)
                for (int w = 0; w < run->nwritten; w++)
                    if (tree_mentions(e->value, run->written[w], 0)) return "a border rule reads a matrix the run writes";
        }
    }
    for (int w = 0; w < run->nwritten; w++) {
        kind[w] = private_matrix(run, w, fn, nest) ? W_PRIVATE : carried_matrix(run, w) ? W_CARRIED : 0;
        if (!kind[w])
            return lang_format("%s is neither the run's alone, written before read, nor touched at each stage's own row only",
                               run->written[w]->name);
    }
    /* The least reaches and lows. Each writer of a private matrix computes
     * the rows that every later stage touching it touches, so that the rows
     * a stage reads hold what the last writer before it wrote, in its strip
     * and round: R_p >= R_q + hi_q, L_p <= L_q + lo_q (L exactly that: a
     * stage whose readers read rows 14 below their own computes from 14 rows
     * into the strip; one that no later stage reads, from the strip's first
     * row). Within a block, strips follow one another with each stage going
     * on from the rows it computed for the strip before (emit_host_loops.c),
     * so every pair of stages touching a matrix that one of them writes also
     * keeps the team's order (find_reaches): a later writer must not reach
     * rows that an earlier reader still reads in the next strip, nor an
     * earlier writer rows a later writer has written. */
    for (int p = run->n - 1; p >= 0; p--) {
        long lo = 0, hi = 0;
        bool any = false;
        for (int w = 0; w < run->nwritten; w++) {
            const RowTouch *tp = &run->touch[p][w];
            for (int q = p + 1; q < run->n; q++) {
                const RowTouch *t = &run->touch[q][w];
                if (!t->used) continue;
                if (tp->used && (tp->writes || t->writes) && reach[q] + t->hi - tp->lo > hi) hi = reach[q] + t->hi - tp->lo;
                if (kind[w] != W_PRIVATE || !tp->writes) continue;
                if (reach[q] + t->hi > hi) hi = reach[q] + t->hi;
                if (!any || low[q] + t->lo < lo) lo = low[q] + t->lo;
                any = true;
            }
        }
        reach[p] = hi;
        low[p] = any ? lo : 0;
    }
    for (int w = 0; w < run->nwritten; w++)
        for (int k = 0; k < run->n && kind[w] == W_CARRIED; k++) {
            bool touches = false;
            for (const Access *a = run->stage[k]->accesses; a; a = a->next) touches |= a->var == run->written[w];
            if (touches && (reach[k] || low[k]))
                return lang_format("a stage that touches %s, which %s, computes rows beyond its strip for the stages after it",
                                   run->written[w]->name, nest->n ? "the rounds carry" : "is not the run's alone");
        }
    return NULL;
}

/* The run's threads each take strips of their own: the stages' rows behind
 * and ahead of a strip, a ring per thread for every private matrix (in
 * place of the run's rings shared by the threads). */
static void own_strips(Run *run, const long *low, const long *reach, const int *kind)
{
    Region *first = run->stage[0];
    for (int k = 0; k < run->n; k++) {
        run->stage[k]->strip_reach = reach[k];
        run->stage[k]->strip_low = low[k];
    }
    first->strip_folds = false;
    for (int w = 0; w < run->nwritten; w++) {
        Obj *m = run->written[w];
        if (m->fold_run == first) m->fold_run = NULL, m->fold_span = 0, m->fold_threads = false;
        if (kind[w] != W_PRIVATE) continue;
        /* a strip [r, r + S) touches its rows [r + lo, r + S + hi) */
        long hi = 0, lo = 0;
        bool any = false;
        for (int k = 0; k < run->n; k++) {
            const RowTouch *t = &run->touch[k][w];
            if (!t->used) continue;
            if (!any || t->hi + reach[k] > hi) hi = t->hi + reach[k];
            if (!any || t->lo + low[k] < lo) lo = t->lo + low[k];
            any = true;
        }
        m->fold_run = first;
        m->fold_span = hi - lo > 0 ? hi - lo : 0;
        m->fold_threads = true;
        first->strip_folds = true;
    }
}

/* ---- a thread's own strips, without loops ----------------------------------
 * A run that is not a loop nest's whole body runs the same way with no
 * loops, a thread taking a block of rows instead of one strip: it runs
 * every stage over the block's strips in order, each stage going on from
 * the rows it computed for the strip before, into rings of its own; only
 * where two blocks meet are rows computed twice (the rows behind and ahead
 * that later stages read). The threads share nothing but what they read,
 * where the team of threads shared each stage of each strip and waited for
 * one another between stages (a strip's rows of a stage, split over 16
 * threads, are a few rows each). The conditions are those of the loops
 * (none here), and at least one matrix private: without one, the strips
 * would keep nothing in cache that the team's do not. */
static void plan_thread_strips(Run *run, Node *fn, Node *s, Node *last)
{
    Nest nest = {.n = 0, .first_stmt = s, .last_stmt = last, .first = run->stage[0]};
    long low[MAX_STAGES] = {0}, reach[MAX_STAGES] = {0};
    int kind[MAX_WRITTEN] = {0};
    Region *first = run->stage[0];
    const char *why = loop_strips_why_not(run, &nest, fn, low, reach, kind);
    bool any_private = false;
    for (int w = 0; w < run->nwritten; w++) any_private |= kind[w] == W_PRIVATE;
    if (!why && !any_private) why = "no matrix is the run's alone, written before read";
    if (why) {
        first->strip_threads_kept = why;
        return;
    }
    own_strips(run, low, reach, kind);
    first->strip_threads = true;
}

static void plan_loop_strips(Node *loop, Node *fn)
{
    Nest nest;
    if (!nest_of(loop, &nest)) return;
    Run run;
    memset(&run, 0, sizeof run);
    for (Region *r = nest.first; r && run.n < MAX_STAGES; r = r->strip_next) run.stage[run.n++] = r;
    if (!run_valid(&run)) return;
    long low[MAX_STAGES] = {0}, reach[MAX_STAGES] = {0};
    int kind[MAX_WRITTEN] = {0};
    const char *why = loop_strips_why_not(&run, &nest, fn, low, reach, kind);
    Region *first = nest.first;
    if (why) {
        if (!first->strip_loop) first->strip_loop_kept = lang_format("the loop of line %d: %s", loop->tok->line, why);
        return;
    }
    first->strip_loop = loop;
    first->strip_nloops = nest.n;
    first->strip_loop_kept = NULL;
    first->strip_threads = false; /* (the loops' strips are a thread's own already) */
    first->strip_threads_kept = NULL;
    own_strips(&run, low, reach, kind);
}

static void walk(Node *n, Node *fn, bool folds, bool loops, bool threads)
{
    if (!n) return;
    if (n->kind == ND_BLOCK) {
        for (Node *s = n->args; s;) {
            Node *next = s->kind == ND_ITERATOR ? find_run(s, fn, folds, threads) : s->next;
            for (Node *u = s; u != next; u = u->next) walk(u, fn, folds, loops, threads);
            s = next;
        }
        return;
    }
    if (n->kind == ND_ITERATOR) return; /* iterators do not nest */
    walk(n->then, fn, folds, loops, threads);
    walk(n->els, fn, folds, loops, threads);
    walk(n->body, fn, folds, loops, threads);
    if (n->kind == ND_FOR && loops) plan_loop_strips(n, fn); /* inner loops first: a nest extends outwards */
}

int strips_folded(const Region *first, Obj **out, int cap)
{
    int n = 0;
    for (const Region *r = first; r; r = r->strip_next)
        for (const Access *a = r->accesses; a; a = a->next) {
            bool seen = false;
            for (int i = 0; i < n; i++) seen |= out[i] == a->var;
            if (a->var->fold_run == first && !seen && n < cap) out[n++] = a->var;
        }
    return n;
}

void plan_strips(Program *prog)
{
    const CompileOptions *opt = prog->opt;
    if (!opt || target_has_device(opt->target) || !plan_flag(opt, opt->strips, 1)) return;
    const bool folds = plan_flag(opt, opt->fold_storage, 1) && plan_flag(opt, opt->skip_zeroing, 1);
    for (Node *f = prog->top; f; f = f->next)
        if (f->kind == ND_FUNC)
            walk(f->body, f->body, folds, folds && plan_flag(opt, opt->strip_loops, 1),
                 folds && plan_flag(opt, opt->thread_strips, 1));
}
