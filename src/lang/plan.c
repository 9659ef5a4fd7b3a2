/* The optimisation model (the paper's Algorithm 1) for the OpenCL target.
 * Per parallel region it decides:
 * - the vector width V: each work-item computes V neighbouring outputs along
 *   the last iterator axis (the paper's vector parallelism), so loads shared
 *   by neighbouring outputs (horizontal reuse) are made once and narrow
 *   pixels are handled V at a time;
 * - which point writes merge into one vector store: the V values go to a
 *   private array and leave in one aligned store (the padded pitch keeps
 *   rows aligned), the paper's "defer adjacent stores";
 * - restrict-qualified matrix arguments: every matrix is its own device
 *   buffer, so the kernel compiler may keep loads across stores.
 * Every decision records its reason for --explain. */
#include <stdio.h>
#include <string.h>

#include "lang/lang.h"

bool plan_flag(const CompileOptions *opt, int flag, int min_level)
{
    if (!opt) return false;
    if (flag >= 0) return flag != 0 && opt->opt_level > 0;
    return opt->opt_level >= min_level;
}

/* Statements that leave an iteration early or jump: a coarsened loop would
 * change their meaning. */
static bool has_jump(Node *n)
{
    for (; n; n = n->next) {
        switch (n->kind) {
        case ND_RETURN: case ND_GOTO: case ND_LABEL: return true;
        default: break;
        }
        if (has_jump(n->then) || has_jump(n->els) || has_jump(n->body)) return true;
        if (n->kind == ND_BLOCK && has_jump(n->args)) return true;
        if ((n->kind == ND_CASE || n->kind == ND_DEFAULT) && has_jump(n->lhs)) return true;
    }
    return false;
}

static bool vector_type_ok(const Type *t)
{
    if (!t || !ty_is_arith(t) || t->kind == TY_BOOL || t->kind == TY_LDOUBLE) return false;
    size_t s = ty_size(t);
    return s == 1 || s == 2 || s == 4 || s == 8;
}

/* A write that can merge: `M[...][it + 0] = value;` as a statement of the
 * body itself (executed once per iteration), M a point matrix not read in
 * the region, the other indices free of the vector axis. */
static bool mergeable(Region *r, Node *stmt, int axis, long step)
{
    if (stmt->kind != ND_EXPR_STMT || !stmt->lhs || stmt->lhs->kind != ND_ASSIGN) return false;
    Node *as = stmt->lhs;
    if (strcmp(as->op, "=") || !as->lhs || as->lhs->kind != ND_MAT_ELEM) return false;
    if (as->rhs && as->rhs->kind == ND_ASSIGN) return false;
    Obj *m = as->lhs->var;
    if (!m || !vector_type_ok(m->ty->base) || step != 1) return false;
    Access *w = NULL;
    for (Access *a = r->accesses; a; a = a->next) {
        if (a->var != m) continue;
        if (!a->is_write) return false; /* read in the region */
        if (a->node != as->lhs) return false; /* written twice */
        w = a;
    }
    if (!w || w->ndim != m->ty->ndim) return false;
    for (int d = 0; d < w->ndim; d++) {
        const Affine *f = &w->aff[d];
        if (!f->ok) return false;
        bool last = d == w->ndim - 1;
        if (last && !(f->axis == axis && f->coef == 1 && f->offset == 0)) return false;
        if (!last && f->axis == axis) return false;
    }
    for (int i = 0; i < r->nmerge; i++)
        if (r->merge_lhs[i]->var == m) return false;
    return true;
}

static int smallest_written(Region *r)
{
    size_t s = 0;
    for (Access *a = r->accesses; a; a = a->next) {
        if (!a->is_write) continue;
        size_t z = ty_size(a->var->ty->base);
        if (z && (!s || z < s)) s = z;
    }
    return s ? (int)s : 4;
}

static void plan_region(Program *prog, Region *r)
{
    const CompileOptions *opt = prog->opt;
    r->vector_width = 1;
    r->nmerge = 0;
    r->why_merge = NULL;
    if (!r->iter) {
        r->why_vector = "an independent reduction: per-work-item partial sums, then a tree in local memory";
        return;
    }
    if (!opt || opt->target != TARGET_OPENCL) {
        r->why_vector = "the C target: the C compiler vectorises the OpenMP loops";
        return;
    }
    if (!plan_flag(opt, opt->vectorize, 1)) {
        r->why_vector = opt->opt_level == 0 ? "-O0" : "-fno-vectorize";
        return;
    }
    Iterator *it = r->iter;
    int axis = it->ndim - 1;
    if (it->iter_element && it->elem[axis] > 1) {
        r->why_vector = "iter_element: every work-item already writes a block";
        return;
    }
    if (has_jump(it->body)) {
        r->why_vector = "the body returns or jumps: iterations cannot share a work-item";
        return;
    }
    int size = smallest_written(r);
    int v = 16 / size;
    if (v > 8) v = 8;
    if (v < 2) v = 2;
    bool hreuse = false, narrow = size < 4;
    for (VarUse *u = r->vars; u; u = u->next) hreuse |= u->hreuse;
    const char *why;
    if (opt->vector_width > 0) {
        v = opt->vector_width;
        why = "--vector-width";
    } else if (hreuse && narrow)
        why = "horizontal reuse, and narrow pixels: 16 bytes of output per work-item";
    else if (hreuse)
        why = "horizontal reuse: neighbouring outputs share their loads";
    else if (narrow)
        why = "narrow pixels: 16 bytes of output per work-item";
    else
        why = "point access: 16 bytes of output per work-item, fewer work-items";
    r->vector_width = v;
    r->why_vector = why;
    if (v == 1) return;
    if (!plan_flag(opt, opt->merge_stores, 1)) {
        r->why_merge = "-fno-merge-stores";
        return;
    }
    long step = it->r[axis].stride * (it->iter_element ? it->elem[axis] : 1);
    Node *body = it->body;
    for (Node *s = body && body->kind == ND_BLOCK ? body->args : body; s; s = s->next) {
        if (r->nmerge < 4 && mergeable(r, s, axis, step)) r->merge_lhs[r->nmerge++] = s->lhs->lhs;
        if (body->kind != ND_BLOCK) break;
    }
    r->why_merge = r->nmerge ? "unit-stride point writes, once per iteration, of matrices the region does not read"
                             : "no point write of the body qualifies (stride, reads of the target, or nested in control flow)";
}

void plan_program(Program *prog)
{
    for (Region *r = prog->regions; r; r = r->next) plan_region(prog, r);
}

void explain_program(Program *prog, FILE *o)
{
    const CompileOptions *opt = prog->opt;
    fprintf(o, "paracc plan for %s (-O%d, target %s)\n", prog->file->name, opt ? opt->opt_level : 2,
            opt && opt->target == TARGET_C ? "c" : "opencl");
    bool ocl = opt && opt->target == TARGET_OPENCL;
    for (Region *r = prog->regions; r; r = r->next) {
        fprintf(o, "%s:%d: region %s: %s\n", prog->file->name, r->node->tok->line, r->kernel,
                r->cls == CLASS_POINT ? "point" : r->cls == CLASS_LOCAL_BLOCK ? "local block" : "global");
        bool any = false;
        for (VarUse *u = r->vars; u; u = u->next)
            if (u->hreuse || u->vreuse) {
                fprintf(o, "  reuse: %s%s%s\n", u->var->name, u->hreuse ? " horizontal" : "",
                        u->vreuse ? " vertical" : "");
                any = true;
            }
        if (!any) fprintf(o, "  reuse: none\n");
        if (!r->iter) {
            fprintf(o, "  reduction: %s\n", r->why_vector);
            continue;
        }
        fprintf(o, "  vector width: %d (%s)\n", r->vector_width, r->why_vector);
        if (r->vector_width > 1) {
            if (r->nmerge) {
                fprintf(o, "  merged stores:");
                for (int i = 0; i < r->nmerge; i++) fprintf(o, " %s", r->merge_lhs[i]->var->name);
                fprintf(o, " (%s)\n", r->why_merge);
            } else
                fprintf(o, "  merged stores: none (%s)\n", r->why_merge);
        }
        if (ocl) {
            fprintf(o, "  work-group: %dx%dx%d work-items%s\n", r->wg[0], r->wg[1], r->wg[2],
                    r->vector_width > 1 ? lang_format(", %d x %d outputs", r->wg[0] * r->vector_width, r->wg[1])
                                        : "");
            fprintf(o, "  restrict arguments: %s\n", plan_flag(opt, opt->restrict_ptrs, 1) ? "yes" : "no");
            fprintf(o, "  border: %s\n", r->has_border ? "separate kernel for the border boxes; the interior has no tests"
                                                       : "none needed");
        }
        fprintf(o, "  local-memory tiles: no (%s)\n",
                r->use_local_tiles ? "" : "not generated by this compiler yet; reuse goes through the cache");
    }
}
