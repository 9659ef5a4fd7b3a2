/* Host loops run inside the kernel of the one iterator they repeat
 * (-floops-in-kernels; on from -O1).
 *
 *     for (int sy = -3; sy <= 3; sy++)
 *         for (int sx = -3; sx <= 3; sx++)
 *             parac_iterator a(0:H; 0:W) { acc[0][ax][ay] += w(sy, sx) * ...; }
 *
 * becomes one launch of `a` whose work-items each run the loops over their
 * own outputs: 49 launches, and 49 passes of acc through memory, become one.
 * With stages in local memory (fuse_tile.c, run first: the loop's body was
 * the chain diff -> rows -> a) each work-group computes its tiles again in
 * every round, with a barrier between rounds (emit_kernels_staged.c): the
 * non-local means' patch sums for each offset in local memory, Halide's
 * compute_at of the blurs inside the offsets' reduction domain.
 *
 * Why the result stays the same: each round of the host loop ran the
 * iterator whole before the next; inside the kernel a work-item runs round
 * k + 1 of its outputs while another may still run round k of its own. That
 * is the same wherever no work-item reads what another writes: every
 * matrix the iterator writes it reads and writes only at its own point
 * (acc[c][ax][ay], other indices constants), no stage or border rule reads
 * one, and the iterator writes no host scalar (the loops' bounds stay what
 * they were). The loops declare their counters, which only their headers
 * assign (the iterator's space does not depend on them); their headers
 * read host scalars and constants only; the body has no jumps (a break
 * would leave the rounds after it) and the iterator no border rule. */
#include <string.h>

#include "lang/fuse.h"
#include "lang/lang.h"

/* Every mention of m in n is an element at it's own point (its axes in
 * order, other indices constants); their number. -1: another mention. */
static int own_mentions(const Node *n, const Obj *m, const Iterator *it, int depth)
{
    if (!n) return 0;
    if (depth > 400) return -1;
    if ((n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW) && n->var == m) {
        if (n->kind != ND_MAT_ELEM || n->nidx != m->ty->ndim) return -1;
        int axis = 0;
        for (int i = 0; i < n->nidx; i++) {
            const Node *x = n->idx[i];
            bool ok;
            if (x && x->kind == ND_ITER_INDEX && x->iter == it && x->axis == axis) {
                axis++;
                continue;
            }
            const_eval((Node *)x, &ok);
            if (!ok) return -1;
        }
        return axis == it->ndim ? 1 : -1;
    }
    int k = 0;
    NodeKids kids = {.n = (Node *)n};
    for (Node *x; (x = lang_next_kid(&kids));) {
        const int r = own_mentions(x, m, it, depth + 1);
        if (r < 0) return -1;
        k += r;
    }
    return k;
}

/* Why `loop` cannot run inside its iterator's kernel (NULL: it can). */
static const char *why_not(Node *loop, Node *stmt, LoopCounters *c)
{
    Iterator *it = stmt->iter;
    if (!it || !it->body || it->iter_element || it->choice) return "not a plain iterator";
    if (!lang_loop_counters_of(loop, c)) return "its init does not declare integer counters of host values";
    if (!loop->cond || !lang_host_value(loop->cond, 0)) return "its condition is not a host value";
    if (!lang_loop_steps_counters(loop->inc, c)) return "its step does not step its counters";
    for (int d = 0; d < it->ndim; d++)
        for (int i = 0; i < c->n; i++)
            if (tree_mentions(it->r[d].lb, c->v[i], 0) || tree_mentions(it->r[d].ub, c->v[i], 0))
                return "the iterator's space depends on it";
    if (lang_any_jump(it->body)) return "the iterator's body jumps";
    /* (the host sizes windows of run-time length: none may move with a
     * round; an iterator with border rules runs as boxes the host splits it
     * into, a form not yet run with loops inside) */
    if (it->nrules) return "the iterator has border rules";
    for (int i = 0; i < c->n; i++)
        if (lang_counter_in_window(it->body, c->v[i], false, 0)) return "a window's place or length depends on it";
    if (lang_writes_outer_scalar(it->body, c, 0)) return "the iterator assigns a host scalar";
    Touch t = {0};
    tree_touches(it->body, &t, 0);
    if (t.overflow) return "the iterator touches too many matrices";
    for (int i = 0; i < t.nwritten; i++) {
        Obj *m = t.written[i];
        const int own = own_mentions(it->body, m, it, 0);
        if (own < 0 || own != tree_mentions(it->body, m, 0))
            return lang_format("%s is touched at other points than the work-item's own", m->name);
        for (int k = 0; k < it->nstages; k++) {
            const Stage *st = &it->stages[k];
            if (tree_mentions(st->e, m, 0)) return lang_format("a stage reads %s", m->name);
            for (const BorderEntry *e = st->rule ? st->rule->entries : NULL; e; e = e->next)
                if (tree_mentions(e->value, m, 0)) return lang_format("a stage's border rule reads %s", m->name);
        }
        for (int k = 0; k < it->nrules; k++)
            if (it->rules[k]->var == m) return lang_format("a border rule reads %s", m->name);
    }
    return NULL;
}

/* The loop's body: the one iterator statement (and empty statements). */
static Node *only_iterator(Node *body)
{
    if (body && body->kind == ND_ITERATOR) return body;
    if (!body || body->kind != ND_BLOCK) return NULL;
    Node *found = NULL;
    for (Node *s = body->args; s; s = s->next) {
        if (s->kind == ND_NULL_STMT) continue;
        if (s->kind != ND_ITERATOR || found) return NULL;
        found = s;
    }
    return found;
}

static void move_loop(Node **link, Node *stmt, const LoopCounters *c)
{
    Node *loop = *link;
    Iterator *it = stmt->iter;
    Node *inner = new_node(ND_FOR, loop->tok);
    *inner = *loop;
    inner->next = NULL;
    inner->body = it->body;
    it->body = stmt->body = inner;
    it->nloops++;
    for (int i = 0; i < c->n; i++) c->v[i]->is_local_to_iter = true; /* the kernel's own variables now */
    const char *names = NULL;
    for (int i = 0; i < c->n; i++) names = names ? lang_format("%s, %s", names, c->v[i]->name) : c->v[i]->name;
    const char *one = lang_format("line %d (%s)", loop->tok->line, names);
    it->loops = it->loops ? lang_format("%s, inside it %s", one, it->loops) : one;
    stmt->next = loop->next;
    *link = stmt;
}

static void loops_in(Node **link, int depth)
{
    if (!link || !*link || depth > 200) return;
    Node *n = *link;
    if (n->kind == ND_BLOCK) {
        for (Node **s = &n->args; *s; s = &(*s)->next) loops_in(s, depth + 1);
        return;
    }
    if (n->kind == ND_IF) {
        loops_in(&n->then, depth + 1);
        loops_in(&n->els, depth + 1);
        return;
    }
    if (n->kind != ND_FOR && n->kind != ND_WHILE && n->kind != ND_DO) return;
    loops_in(&n->body, depth + 1); /* inner loops first: a nest moves whole */
    if (n->kind != ND_FOR) return;
    Node *stmt = only_iterator(n->body);
    LoopCounters c = {0};
    if (!stmt) return;
    const char *why = why_not(n, stmt, &c);
    if (!why) move_loop(link, stmt, &c);
    else if (stmt->iter) /* for --explain: why the rounds stay launches */
        stmt->iter->loops_kept = lang_format("the loop of line %d launches it every round: %s", n->tok->line, why);
}

void fuse_loops_into_kernels(Node *f)
{
    loops_in(&f->body, 0);
}
