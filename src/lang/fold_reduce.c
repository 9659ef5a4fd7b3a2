/* A global reduction folded into the kernel that writes its matrix
 * (-ffold-reductions, on from -O1 for the CUDA target).
 *
 *     parac_iterator s(0:H:1; 0:W:1) { ...; edge[sx][sy] = E; }
 *     int mean = parac_matrix_sum(edge) / (H * W);
 *
 * Unfolded, the reduction reads edge back from memory in two more launches.
 * Folded, the iterator's kernels add up the values they store (per thread,
 * per block by warp shuffles, then one atomic per block into a slot of the
 * session: parac_cu_fold_slot), the block that finishes last moves the total
 * where the host reads it (parac_cu_fold_result), and the reduction's own
 * kernels run only when, at run time, the iteration space is not the whole
 * matrix. Conditions, each needed for the result to stay the same:
 *   - an integer sum or mean: the total is exact in any order, so it is the
 *     unfolded reduction's bit for bit;
 *   - the reduction is computed by the statement right after the iterator
 *     (only border-rule declarations between): nothing changes the matrix
 *     in between;
 *   - every iteration writes the matrix at its own point, once, in a
 *     statement of the body's top level, and nothing in the region reads it
 *     (the host's "every element written" test, lang_writes_whole): then,
 *     over the whole matrix, the stored values are its elements;
 *   - one launch covers the region (no separate border kernel), so that the
 *     last block of a launch is the last block of the region.
 * Emission: emit_kernels.c (the kernels' sum and hand-over), emit_host.c
 * (the slot, the run-time check, the read). */
#include "lang/fuse.h"
#include "lang/lang.h"

enum { FOLD_SLOTS = 256 }; /* PARAC_CU_FOLD_SLOTS */

static bool finds(Node *e, const Node *op, int depth)
{
    if (!e || depth > 400) return false;
    if (e == op) return true;
    if (finds(e->lhs, op, depth + 1) || finds(e->rhs, op, depth + 1) || finds(e->cond, op, depth + 1) ||
        finds(e->then, op, depth + 1) || finds(e->els, op, depth + 1))
        return true;
    for (Node *a = e->args; a; a = a->next)
        if (finds(a, op, depth + 1)) return true;
    return false;
}

/* Whether statement s computes reduction op before it runs (the places
 * emit_host.c computes a statement's reductions from). */
static bool computed_by(Node *s, const Node *op)
{
    switch (s->kind) {
    case ND_EXPR_STMT: case ND_RETURN: return finds(s->lhs, op, 0);
    case ND_IF: case ND_SWITCH: return finds(s->cond, op, 0);
    case ND_DECL:
        for (Node *d = s->decls; d; d = d->next)
            if (d->init && d->init->kind != ND_INIT_LIST && finds(d->init, op, 0)) return true;
        return false;
    default: return false;
    }
}

static Region *producer_of(Program *prog, Region *red)
{
    Obj *m = red->red_var;
    for (Region *p = prog->regions; p; p = p->next) {
        /* (a kernel that runs host loops stores an element once per round) */
        if (!p->iter || p->fold_red || p->iter->nloops || (p->has_border && !p->one_launch)) continue;
        Node *s = p->node->next;
        while (s && (s->kind == ND_BORDER_RULE || s->kind == ND_NULL_STMT)) s = s->next;
        if (!s || !computed_by(s, red->node)) continue;
        int planes = 0;
        if (!lang_writes_whole(p, m, &planes) || planes || tree_mentions(p->iter->body, m, 0) != 1) continue;
        return p;
    }
    return NULL;
}

void plan_fold_reductions(Program *prog)
{
    const CompileOptions *opt = prog->opt;
    if (!opt || opt->target != TARGET_CUDA || !plan_flag(opt, opt->fold_reductions, 1)) return;
    for (Region *red = prog->regions; red; red = red->next) {
        if (red->iter || !red->red_var || red->id >= FOLD_SLOTS) continue;
        if ((red->red_op != OP_SUM && red->red_op != OP_MEAN) || ty_is_float(red->red_var->ty->base)) continue;
        Region *p = producer_of(prog, red);
        if (!p) continue;
        red->fold_into = p;
        p->fold_red = red;
        for (int i = 0; i < p->nvariants; i++) p->variants[i]->fold_red = red;
    }
}
