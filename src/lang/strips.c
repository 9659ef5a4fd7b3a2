/* The C target's tiling for cache: consecutive iterators run in strips of
 * rows. Run one after another over whole images, every stage of a pipeline
 * streams its intermediates through memory: by the time a stage reads a row,
 * the stage before wrote it megabytes ago. In strips, each stage computes the
 * rows the next strip needs and the stage after reads them while they are
 * still in cache:
 *
 *   for every strip [r, r + S) of rows:
 *       for every stage k in order:
 *           compute stage k's rows [done_k, min(rows, r + S + R_k))
 *
 * R_k, the stage's reach, is how far ahead of the strip its rows are needed:
 * the last stage's is 0, and a stage that stage j reads up to h rows ahead of
 * its own row needs R_j + h. Rows are computed once, in order, so the result
 * is the same as stage after stage. This holds when (checked here, else the
 * iterators run as before):
 *   - every stage is a 2D iterator, unit stride on rows, without reduction;
 *   - a matrix written in the run is written by one stage only and read
 *     only by later stages; if they read it, the stage writes it at its own
 *     row (row index = the row iterator) and they read it at their row plus
 *     constant offsets (windows included);
 *   - a border rule of a later stage on such a matrix reads, for rows above
 *     the image, rows 0..15, and for rows below it, rows (rows - c): rows a
 *     stage has computed by the time it is read;
 *   - at run time, every stage iterates the same rows (else stage after
 *     stage, which the generated code checks).
 * Border rules printed between the iterators are comments only and stay in
 * the run. */
#include <string.h>

#include "lang.h"

enum { MAX_STAGES = 16, MAX_WRITTEN = 32, RULE_TOP_ROWS = 16 };

typedef struct Run {
    Region *stage[MAX_STAGES];
    int n;
    Obj *written[MAX_WRITTEN]; /* matrices written in the run, their writer stage, */
    int writer[MAX_WRITTEN];
    bool own_row[MAX_WRITTEN]; /* and whether it writes them at its own row only (else no stage may read them) */
    int nwritten;
    long ahead[MAX_STAGES][MAX_STAGES]; /* [j][k]: rows ahead stage j reads stage k's output; -1: none */
} Run;

static int written_index(const Run *run, const Obj *m)
{
    for (int i = 0; i < run->nwritten; i++)
        if (run->written[i] == m) return i;
    return -1;
}

static int writer_of(const Run *run, const Obj *m)
{
    const int i = written_index(run, m);
    return i < 0 ? -1 : run->writer[i];
}

static bool same_size(const Node *a, const Node *b)
{
    if (!a || !b || a->kind != b->kind) return false;
    if (a->kind == ND_VAR) return a->var ? a->var == b->var : a->name && b->name && !strcmp(a->name, b->name);
    bool oka, okb;
    const long va = const_eval((Node *)a, &oka), vb = const_eval((Node *)b, &okb);
    return oka && okb && va == vb;
}

/* Whether every read of a run-written matrix in the border value `v` (for a
 * row beyond the top, dir < 0, or the bottom, dir > 0) reads the rule's own
 * matrix m at a row computed by then (see the header). */
static bool rule_value_safe(const Run *run, Obj *m, Node *v, int dir)
{
    if (!v) return true;
    if (v->kind == ND_INDEX) {
        Node *base = v, *ixs[4];
        int k = 0;
        while (base->kind == ND_INDEX && k < 4) {
            ixs[k++] = base->rhs;
            base = base->lhs;
        }
        if (base->kind == ND_VAR && base->var && writer_of(run, base->var) >= 0) {
            if (base->var != m || k < 1) return false;
            Node *row = ixs[k - 1];
            bool ok;
            if (row->kind == ND_WILDCARD) return false; /* only for dir 0, not here */
            if (dir < 0) {
                const long c = const_eval(row, &ok);
                if (!ok || c < 0 || c >= RULE_TOP_ROWS) return false;
            } else {
                if (row->kind != ND_BINARY || strcmp(row->op, "-") || !same_size(row->lhs, m->ty->dims[0]))
                    return false;
                const long c = const_eval(row->rhs, &ok);
                if (!ok || c < 1) return false;
            }
        }
        for (int i = 0; i < k; i++)
            if (ixs[i]->kind != ND_WILDCARD && !rule_value_safe(run, m, ixs[i], dir)) return false;
        return true;
    }
    if (v->kind == ND_VAR && v->var && writer_of(run, v->var) >= 0) return false; /* the whole matrix */
    if (!rule_value_safe(run, m, v->lhs, dir) || !rule_value_safe(run, m, v->rhs, dir) ||
        !rule_value_safe(run, m, v->cond, dir) || !rule_value_safe(run, m, v->then, dir) ||
        !rule_value_safe(run, m, v->els, dir))
        return false;
    for (Node *a = v->args; a; a = a->next)
        if (!rule_value_safe(run, m, a, dir)) return false;
    return true;
}

static bool stage_shape_ok(const Region *r)
{
    const Iterator *it = r ? r->iter : NULL;
    return it && !r->red_var && it->ndim == 2 && !it->iter_element && !it->nloops && it->r[0].stride == 1 &&
           it->r[1].stride == 1;
}

/* Add stage r to the run if the run stays valid (see the header). */
static bool add_stage(Run *run, Region *r)
{
    if (run->n == MAX_STAGES || !stage_shape_ok(r)) return false;
    const int j = run->n;
    long ahead[MAX_STAGES];
    for (int k = 0; k < j; k++) ahead[k] = -1;
    Obj *mine[MAX_WRITTEN];
    bool mine_own[MAX_WRITTEN];
    int nmine = 0;
    for (const Access *a = r->accesses; a; a = a->next) {
        const int wi = written_index(run, a->var), w = wi < 0 ? -1 : run->writer[wi];
        const Affine *f = &a->aff[0];
        const bool own_row = a->ndim == 2 && f->ok && f->axis == 0 && f->coef == 1 && a->lo[0] == 0 && a->hi[0] == 0;
        if (a->is_write) {
            if (w >= 0) return false; /* a second writer */
            for (const Access *b = r->accesses; b; b = b->next) /* its own output: not read at other rows */
                if (!b->is_write && b->var == a->var &&
                    !(own_row && b->aff[0].ok && b->aff[0].axis == 0 && b->aff[0].coef == 1 && b->lo[0] == 0 &&
                      b->hi[0] == 0))
                    return false;
            for (int k = 0; k < j; k++) /* read by an earlier stage: it would see the new values */
                for (const Access *b = run->stage[k]->accesses; b; b = b->next)
                    if (b->var == a->var) return false;
            int seen = -1;
            for (int i = 0; i < nmine; i++)
                if (mine[i] == a->var) seen = i;
            if (seen < 0) {
                if (nmine == MAX_WRITTEN) return false;
                seen = nmine++;
                mine[seen] = a->var;
                mine_own[seen] = true;
            }
            mine_own[seen] = mine_own[seen] && own_row;
        } else if (w >= 0) {
            /* a stage's rows of a matrix written elsewhere than at its rows are not known */
            if (!run->own_row[wi] || !(f->ok && f->axis == 0 && f->coef == 1)) return false;
            if (a->hi[0] > ahead[w]) ahead[w] = a->hi[0] < 0 ? 0 : a->hi[0];
        }
    }
    for (int i = 0; i < r->iter->nrules; i++) {
        const BorderRule *rule = r->iter->rules[i];
        const int ri = rule->var ? written_index(run, rule->var) : -1;
        if (ri >= 0 && !run->own_row[ri]) return false;
        if (ri >= 0)
            for (const BorderEntry *e = rule->entries; e; e = e->next)
                if (e->side[0] != 0 && !rule_value_safe(run, rule->var, e->value, e->side[0]))
                    return false;
    }
    if (run->nwritten + nmine > MAX_WRITTEN) return false;
    for (int i = 0; i < nmine; i++) {
        run->written[run->nwritten] = mine[i];
        run->own_row[run->nwritten] = mine_own[i];
        run->writer[run->nwritten++] = j;
    }
    for (int k = 0; k < j; k++) run->ahead[j][k] = ahead[k];
    run->stage[run->n++] = r;
    return true;
}

/* The run that starts at statement s, recorded on its first region; returns
 * the statement after it. */
static Node *find_run(Node *s)
{
    Run run;
    memset(&run, 0, sizeof run);
    Node *last = NULL, *t = s;
    for (; t; t = t->next) {
        if (t->kind == ND_BORDER_RULE) continue;
        if (t->kind != ND_ITERATOR || !t->iter || !add_stage(&run, t->iter->region)) break;
        last = t;
    }
    if (run.n < 2) return s->next;
    /* reaches, from the last stage back */
    long reach[MAX_STAGES];
    for (int k = run.n - 1; k >= 0; k--) {
        reach[k] = 0;
        for (int j = k + 1; j < run.n; j++)
            if (run.ahead[j][k] >= 0 && reach[j] + run.ahead[j][k] > reach[k]) reach[k] = reach[j] + run.ahead[j][k];
    }
    int stmts = 0;
    for (Node *u = s; u != last->next; u = u->next) stmts++;
    Region *first = run.stage[0];
    first->strip_stages = run.n;
    first->strip_stmts = stmts;
    for (int k = 0; k < run.n; k++) {
        run.stage[k]->strip_first = first;
        run.stage[k]->strip_reach = reach[k];
        run.stage[k]->strip_next = k + 1 < run.n ? run.stage[k + 1] : NULL;
    }
    return last->next;
}

static void walk(Node *n)
{
    if (!n) return;
    if (n->kind == ND_BLOCK) {
        for (Node *s = n->args; s;) {
            Node *next = s->kind == ND_ITERATOR ? find_run(s) : s->next;
            for (Node *u = s; u != next; u = u->next) walk(u);
            s = next;
        }
        return;
    }
    if (n->kind == ND_ITERATOR) return; /* iterators do not nest */
    walk(n->then);
    walk(n->els);
    walk(n->body);
}

void plan_strips(Program *prog)
{
    const CompileOptions *opt = prog->opt;
    if (!opt || target_has_device(opt->target) || !plan_flag(opt, opt->strips, 1)) return;
    for (Node *f = prog->top; f; f = f->next)
        if (f->kind == ND_FUNC) walk(f->body);
}
