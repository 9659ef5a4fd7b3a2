/* HAST: the parallel regions of the program. Every iterator becomes a region
 * (local block or point); every independent operator (an operator outside
 * any iterator, over a whole matrix) becomes a global region. For each
 * region we record the matrix accesses (reads/writes, element or window),
 * the host scalars and constant matrices it uses, and the file functions it
 * calls (they are compiled for the device too). */
#include <string.h>

#include "lang/lang.h"

static void push_obj(Obj ***list, int *n, Obj *o)
{
    for (int i = 0; i < *n; i++)
        if ((*list)[i] == o) return;
    Obj **a = lang_alloc(sizeof *a * (size_t)(*n + 1));
    if (*n) memcpy(a, *list, sizeof *a * (size_t)*n);
    a[(*n)++] = o;
    *list = a;
}

static void push_func(Region *r, Node *f)
{
    for (int i = 0; i < r->nfuncs; i++)
        if (r->funcs[i] == f) return;
    Node **a = lang_alloc(sizeof *a * (size_t)(r->nfuncs + 1));
    if (r->nfuncs) memcpy(a, r->funcs, sizeof *a * (size_t)r->nfuncs);
    a[r->nfuncs++] = f;
    r->funcs = a;
}

/* A walk collecting a region's accesses. */
typedef struct Collect {
    Region *r;
    int in_callee; /* walking a called function: only its calls matter */
} Collect;
static void collect(Collect *c, Node *n, bool write, int depth);

static void add_access(Region *r, Node *n, bool write)
{
    Access *a = lang_alloc(sizeof *a);
    a->var = n->var;
    a->node = n;
    a->is_write = write;
    a->is_window = n->kind == ND_WINDOW;
    a->ndim = n->nidx;
    Access **p = &r->accesses;
    while (*p) p = &(*p)->next;
    *p = a;
    push_obj(&r->mats, &r->nmats, n->var);
    n->var->used_in_kernel = true;
}

/* x += ..., x++: the target is read as well (without walking it again:
 * nested updates would make that exponential). */
static void also_read(Collect *c, Node *lhs)
{
    if (!c->in_callee && lhs && (lhs->kind == ND_MAT_ELEM || lhs->kind == ND_WINDOW)) add_access(c->r, lhs, false);
}

static void collect_list(Collect *c, Node *n, int depth)
{
    for (; n; n = n->next) collect(c, n, false, depth);
}

static void collect(Collect *c, Node *n, bool write, int depth)
{
    Region *r = c->r;
    if (!n || depth > 400) return;
    switch (n->kind) {
    case ND_MAT_ELEM:
    case ND_WINDOW:
        if (c->in_callee) return;
        if (lang_stage_of(r->iter, n->var) < 0) add_access(r, n, write); /* a stage lives in local memory */
        for (int i = 0; i < n->nidx; i++) {
            Node *ix = n->idx[i];
            if (ix->kind == ND_SLICE) {
                collect(c, ix->lhs, false, depth + 1);
                if (ix->axis == 0) collect(c, ix->rhs, false, depth + 1); /* a run-time length */
            } else
                collect(c, ix, false, depth + 1);
        }
        return;
    case ND_VAR:
        if (!n->var) return;
        if (c->in_callee && !n->var->is_func) return;
        if (n->var->is_small_const) {
            /* values are inlined; element access with a runtime index needs the array */
            return;
        }
        if (n->var->is_func) {
            if (n->var->func_def) push_func(r, n->var->func_def);
            return;
        }
        if (n->var->ty->kind == TY_MATRIX) {
            push_obj(&r->mats, &r->nmats, n->var);
            return;
        }
        if (!n->var->is_local_to_iter && !n->var->is_typedef) push_obj(&r->scalars, &r->nscalars, n->var);
        return;
    case ND_INDEX: {
        Node *b = n;
        while (b->kind == ND_INDEX) b = b->lhs;
        if (b->kind == ND_VAR && b->var && b->var->is_small_const)
            push_obj(&r->consts, &r->nconsts, b->var);
        collect(c, n->lhs, false, depth + 1);
        collect(c, n->rhs, false, depth + 1);
        return;
    }
    case ND_ASSIGN:
        collect(c, n->lhs, true, depth + 1);
        if (strcmp(n->op, "=")) also_read(c, n->lhs);
        collect(c, n->rhs, false, depth + 1);
        return;
    case ND_UNARY: case ND_POSTFIX:
        collect(c, n->lhs, !strcmp(n->op, "++") || !strcmp(n->op, "--"), depth + 1);
        if (!strcmp(n->op, "++") || !strcmp(n->op, "--")) also_read(c, n->lhs);
        return;
    case ND_CALL:
        if (n->lhs && n->lhs->var && n->lhs->var->func_def) {
            Node *f = n->lhs->var->func_def;
            bool known = false;
            for (int i = 0; i < r->nfuncs; i++) known |= r->funcs[i] == f;
            if (!known) {
                push_func(r, f);
                c->in_callee++;
                collect(c, f->body, false, depth + 1); /* the functions it calls */
                c->in_callee--;
            }
        }
        collect_list(c, n->args, depth + 1);
        return;
    case ND_DECL:
        for (Node *d = n->decls; d; d = d->next) {
            if (d->init && d->init->kind == ND_INIT_LIST) collect_list(c, d->init->args, depth + 1);
            else collect(c, d->init, false, depth + 1);
        }
        return;
    case ND_BLOCK:
        collect_list(c, n->args, depth + 1);
        return;
    case ND_PARAC_OP:
        if (n->reduction_id == -2)
            diag_error_tok(n->tok, "inside an iterator, parac_convolution needs a window as its second argument");
        collect_list(c, n->args, depth + 1);
        return;
    default:
        break;
    }
    collect(c, n->lhs, false, depth + 1);
    collect(c, n->rhs, false, depth + 1);
    collect(c, n->cond, false, depth + 1);
    collect(c, n->then, false, depth + 1);
    collect(c, n->els, false, depth + 1);
    collect(c, n->init, false, depth + 1);
    collect(c, n->inc, false, depth + 1);
    collect(c, n->body, false, depth + 1);
}

static void add_region(Program *prog, Region *r)
{
    r->id = prog->nregions++;
    Region **p = &prog->regions;
    while (*p) p = &(*p)->next;
    *p = r;
}

static void find_regions(Program *prog, Node *n, Node *func, int depth);

static void find_reductions(Program *prog, Node *e, Node *func, int depth)
{
    if (!e || depth > 400) return;
    if (e->kind == ND_PARAC_OP && e->reduction_id == -2) {
        diag_error_tok(e->tok, "a whole-image parac_convolution must be assigned to a matrix: Dst = parac_convolution(f, Src);");
        return;
    }
    if (e->kind == ND_PARAC_OP && e->reduction_id == -1) {
        Region *r = lang_alloc(sizeof *r);
        r->node = e;
        r->cls = CLASS_GLOBAL;
        r->red_var = e->args->var;
        r->red_op = e->pop;
        push_obj(&r->mats, &r->nmats, r->red_var);
        r->kernel = lang_format("%s_%s_%s_L%d", prog->base, func ? func->name : "global",
                                parac_op_name(e->pop) + 6, e->tok->line);
        add_region(prog, r);
        e->reduction_id = r->id;
        return;
    }
    find_reductions(prog, e->lhs, func, depth + 1);
    find_reductions(prog, e->rhs, func, depth + 1);
    find_reductions(prog, e->cond, func, depth + 1);
    find_reductions(prog, e->then, func, depth + 1);
    find_reductions(prog, e->els, func, depth + 1);
    for (Node *a = e->args; a; a = a->next) find_reductions(prog, a, func, depth + 1);
}

static void find_regions(Program *prog, Node *n, Node *func, int depth)
{
    if (!n || depth > 400) return;
    switch (n->kind) {
    case ND_ITERATOR: {
        Iterator *it = n->iter;
        if (!it || !it->name || !it->body) return;
        Region *r = lang_alloc(sizeof *r);
        r->node = n;
        r->iter = it;
        it->region = r;
        r->kernel = lang_format("%s_%s_%s_L%d", prog->base, func ? func->name : "global",
                                it->name, n->tok->line);
        if (it->alt) /* an alternative of a fusion choice: the same iterator planned otherwise */
            r->kernel = lang_format("%s_c%da%d", r->kernel, it->choice, it->alt);
        Collect c = {.r = r};
        collect(&c, it->body, false, 0);
        /* the stages computed first (fuse_tile.c): what they read, and the
         * rows and columns their rules map cells outside them to */
        for (int k = 0; k < it->nstages; k++) {
            const Stage *st = &it->stages[k];
            if (st->load) add_access(r, st->e, false); /* the tile's cells come from memory */
            else collect(&c, st->e, false, 0);
            for (BorderEntry *e = st->rule ? st->rule->entries : NULL; e; e = e->next) {
                Node *f = lang_rule_map(e, st->m, e->side[0] ? 0 : 1);
                collect(&c, f ? f : e->value, false, 0);
            }
        }
        for (int i = 0; i < it->nrules; i++) {
            if (!it->rules[i]->var) continue;
            for (BorderEntry *e = it->rules[i]->entries; e; e = e->next) collect(&c, e->value, false, 0);
            push_obj(&r->mats, &r->nmats, it->rules[i]->var);
        }
        add_region(prog, r);
        return;
    }
    case ND_BLOCK:
        for (Node *s = n->args; s; s = s->next) find_regions(prog, s, func, depth + 1);
        return;
    case ND_IF:
        find_reductions(prog, n->cond, func, depth);
        find_regions(prog, n->then, func, depth + 1);
        find_regions(prog, n->els, func, depth + 1);
        return;
    case ND_FOR:
        find_regions(prog, n->init, func, depth + 1);
        find_regions(prog, n->body, func, depth + 1);
        return;
    case ND_WHILE: case ND_DO: case ND_SWITCH:
        find_regions(prog, n->body, func, depth + 1);
        return;
    case ND_EXPR_STMT: case ND_RETURN:
        find_reductions(prog, n->lhs, func, depth);
        return;
    case ND_DECL:
        for (Node *d = n->decls; d; d = d->next)
            if (d->init && d->init->kind != ND_INIT_LIST) find_reductions(prog, d->init, func, depth);
        return;
    default:
        return;
    }
}

/* Independent operators may sit only where the host can evaluate them once
 * before the statement. */
static void check_reduction_places(Node *n, int depth)
{
    if (!n || depth > 400) return;
    switch (n->kind) {
    case ND_FOR: case ND_WHILE: case ND_DO:
        for (Node *e = n->kind == ND_FOR ? n->cond : n->cond; e; e = NULL) {
            /* a reduction in a loop condition would be hoisted wrongly */
            Node *stack[64];
            int sp = 0;
            stack[sp++] = e;
            if (n->kind == ND_FOR && n->inc && sp < 64) stack[sp++] = n->inc;
            while (sp) {
                Node *x = stack[--sp];
                if (!x) continue;
                if (x->kind == ND_PARAC_OP && x->reduction_id == -1) {
                    diag_error_tok(x->tok, "an independent %s cannot sit in a loop header; compute it before the loop",
                                   parac_op_name(x->pop));
                    continue;
                }
                if (sp < 60) {
                    stack[sp++] = x->lhs;
                    stack[sp++] = x->rhs;
                    stack[sp++] = x->args;
                    stack[sp++] = x->next;
                }
            }
        }
        if (n->kind == ND_FOR) check_reduction_places(n->init, depth + 1);
        check_reduction_places(n->body, depth + 1);
        return;
    case ND_BLOCK:
        for (Node *s = n->args; s; s = s->next) check_reduction_places(s, depth + 1);
        return;
    case ND_IF:
        check_reduction_places(n->then, depth + 1);
        check_reduction_places(n->els, depth + 1);
        return;
    case ND_SWITCH:
        check_reduction_places(n->body, depth + 1);
        return;
    default:
        return;
    }
}

void hast_build(Program *prog)
{
    for (Node *n = prog->top; n; n = n->next) {
        if (n->kind == ND_FUNC) {
            check_reduction_places(n->body, 0);
            find_regions(prog, n->body, n, 0);
        } else if (n->kind == ND_DECL) {
            for (Node *d = n->decls; d; d = d->next)
                if (d->init && d->init->kind != ND_INIT_LIST) {
                    Node *e = d->init;
                    if (e->kind == ND_PARAC_OP || e->lhs || e->rhs) {
                        /* a reduction in a global initialiser cannot run before main */
                        Node *stack[32];
                        int sp = 0;
                        stack[sp++] = e;
                        while (sp) {
                            Node *x = stack[--sp];
                            if (!x) continue;
                            if (x->kind == ND_PARAC_OP && x->reduction_id == -1) {
                                diag_error_tok(x->tok, "an independent operator must be inside a function");
                                continue;
                            }
                            if (sp < 28) {
                                stack[sp++] = x->lhs;
                                stack[sp++] = x->rhs;
                                stack[sp++] = x->args;
                            }
                        }
                    }
                }
        }
    }
}
