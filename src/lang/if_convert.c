/* If-conversion (the model's branch optimisation): inside iterator bodies,
 *
 *   if (C) L = A; else L = B;   becomes   L = C ? A : B;
 *   if (C) x = A;               becomes   x = C ? A : x;   (x a local scalar)
 *
 * so a body of clamps and selects is straight-line code: the plan can then
 * give it wide vectors, vector loads and rows per work-item, and a store
 * written on both branches merges with its neighbours'. The value is
 * exactly the branch's: C is evaluated once, A only when C holds (the
 * conditional operator does not evaluate the arm it does not take), and the
 * arms convert to L's type as the assignments did — both integer (the
 * common type holds every value of each), or one and the same type. C, A
 * and B may not assign or call (a call could have effects). */
#include <string.h>

#include "lang/lang.h"

/* n neither assigns nor calls, nor hides a statement. */
static bool pure(const Node *n, int depth)
{
    if (!n) return true;
    if (depth > 200) return false;
    switch (n->kind) {
    case ND_ASSIGN: case ND_COMMA: case ND_CALL: case ND_INIT_LIST: case ND_STR:
        return false;
    case ND_UNARY: case ND_POSTFIX:
        if (n->op && (!strcmp(n->op, "++") || !strcmp(n->op, "--"))) return false;
        break;
    default:
        break;
    }
    if (!pure(n->lhs, depth + 1) || !pure(n->rhs, depth + 1) || !pure(n->cond, depth + 1) ||
        !pure(n->then, depth + 1) || !pure(n->els, depth + 1))
        return false;
    for (const Node *a = n->args; a; a = a->next)
        if (!pure(a, depth + 1)) return false;
    for (int i = 0; i < n->nidx; i++)
        if (!pure(n->idx[i], depth + 1)) return false;
    return true;
}

/* The same place: one local scalar, or one matrix element at the same
 * iterator indices and constants. */
static bool same_lvalue(const Node *a, const Node *b)
{
    if (!a || !b || a->kind != b->kind) return false;
    if (a->kind == ND_VAR) return a->var && a->var == b->var;
    if (a->kind != ND_MAT_ELEM || a->var != b->var || a->nidx != b->nidx) return false;
    for (int i = 0; i < a->nidx; i++) {
        const Node *x = a->idx[i], *y = b->idx[i];
        if (x->kind == ND_ITER_INDEX && y->kind == ND_ITER_INDEX) {
            if (x->iter != y->iter || x->axis != y->axis) return false;
            continue;
        }
        bool okx, oky;
        const long vx = const_eval((Node *)x, &okx), vy = const_eval((Node *)y, &oky);
        if (!okx || !oky || vx != vy) return false;
    }
    return true;
}

/* The assignment `L = E;` that stmt is (a block of that one statement too). */
static Node *plain_assignment(Node *stmt)
{
    while (stmt && stmt->kind == ND_BLOCK && stmt->args && !stmt->args->next) stmt = stmt->args;
    if (!stmt || stmt->kind != ND_EXPR_STMT || !stmt->lhs) return NULL;
    Node *a = stmt->lhs;
    if (a->kind != ND_ASSIGN || strcmp(a->op, "=") != 0 || !a->lhs || !a->rhs) return NULL;
    if (a->lhs->kind != ND_VAR && a->lhs->kind != ND_MAT_ELEM) return NULL;
    if (a->lhs->kind == ND_VAR && (!a->lhs->var || !a->lhs->var->is_local_to_iter || !ty_is_arith(a->lhs->var->ty)))
        return NULL;
    return a;
}

/* Arms whose conditional-operator value converts to L's type exactly as
 * each arm would on its own. */
static bool arms_convert_alike(const Type *x, const Type *y)
{
    if (!x || !y || !ty_is_arith(x) || !ty_is_arith(y)) return false;
    if (ty_is_integer(x) && ty_is_integer(y)) return true;
    return x->kind == y->kind && x->is_unsigned == y->is_unsigned;
}

/* The if statement n as one assignment of a conditional, or NULL. */
static Node *as_select(Node *n)
{
    if (n->kind != ND_IF || !pure(n->cond, 0)) return NULL;
    Node *t = plain_assignment(n->then);
    if (!t || !pure(t->rhs, 0) || !pure(t->lhs, 0)) return NULL;
    Node *other;
    if (n->els) {
        Node *e = plain_assignment(n->els);
        if (!e || !same_lvalue(t->lhs, e->lhs) || !pure(e->rhs, 0)) return NULL;
        other = e->rhs;
    } else {
        if (t->lhs->kind != ND_VAR) return NULL; /* a matrix would be read where it was only written */
        other = t->lhs;
    }
    if (!arms_convert_alike(t->rhs->ty, other->ty)) return NULL;
    Node *sel = new_node(ND_COND, n->tok);
    sel->cond = n->cond;
    sel->then = t->rhs;
    sel->els = other;
    sel->ty = ty_common(t->rhs->ty, other->ty);
    Node *as = new_node(ND_ASSIGN, t->tok);
    as->op = "=";
    as->lhs = t->lhs;
    as->rhs = sel;
    as->ty = t->ty;
    Node *stmt = new_node(ND_EXPR_STMT, n->tok);
    stmt->lhs = as;
    return stmt;
}

/* Converts the statements of a body (and of its nested blocks); the count. */
static int convert_block(Node *body, int depth)
{
    if (!body || depth > 100) return 0;
    int k = 0;
    if (body->kind != ND_BLOCK) return 0;
    for (Node **s = &body->args; *s; s = &(*s)->next) {
        Node *sel = as_select(*s);
        if (sel) {
            sel->next = (*s)->next;
            *s = sel;
            k++;
            continue;
        }
        if ((*s)->kind == ND_BLOCK) k += convert_block(*s, depth + 1);
        if ((*s)->kind == ND_IF) {
            k += convert_block((*s)->then, depth + 1);
            k += convert_block((*s)->els, depth + 1);
        }
    }
    return k;
}

static void convert_iterators(Node *n, int depth)
{
    if (!n || depth > 100) return;
    for (; n; n = n->next) {
        if (n->kind == ND_ITERATOR && n->iter && n->iter->body) {
            Iterator *it = n->iter;
            if (it->body->kind != ND_BLOCK) {
                Node *sel = as_select(it->body);
                if (sel) {
                    it->body = sel;
                    it->selects++;
                }
            } else
                it->selects += convert_block(it->body, 0);
            continue;
        }
        if (n->kind == ND_BLOCK) convert_iterators(n->args, depth + 1);
        else if (n->kind == ND_IF) {
            convert_iterators(n->then, depth + 1);
            convert_iterators(n->els, depth + 1);
        } else if (n->kind == ND_FOR || n->kind == ND_WHILE || n->kind == ND_DO)
            convert_iterators(n->body, depth + 1);
    }
}

void if_convert_program(Program *prog)
{
    const CompileOptions *opt = prog->opt;
    if (!opt) return;
    /* By default for the C and CUDA targets: on the H200 the sharpening's
     * fused clamp stage ran in 0.087 ms instead of 0.103 (CUDA), and the C
     * target's sharpening 4 % faster on 2 cores; NVIDIA's OpenCL compiler
     * ran the same stage in 0.146 ms instead of 0.101, so OpenCL asks for it
     * (-fif-convert) (bench/parac/results/if-convert-2026-11-26.txt). */
    const bool on = opt->if_convert >= 0 ? opt->if_convert && opt->opt_level > 0
                                         : opt->opt_level >= 1 && opt->target != TARGET_OPENCL;
    if (!on) return;
    for (Node *n = prog->top; n; n = n->next)
        if (n->kind == ND_FUNC && n->body) convert_iterators(n->body->kind == ND_BLOCK ? n->body->args : n->body, 0);
}
