/* Branch optimisation inside iterator bodies: first, statements that begin
 * both arms of an if/else alike are hoisted before it, and matrix elements
 * that both arms read are loaded before it (hoist_loads),
 *
 *   if (C) { int t = E; S1 } else { int t = E; S2 }
 *      becomes   { int t = E; if (C) { S1 } else { S2 } }
 *
 * where C is pure and reads nothing the statement writes or declares (its
 * declarations become one, the else arm's uses renamed); then if-conversion:
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

#include "lang/fuse.h"

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

/* ---- hoisting ----------------------------------------------------------- */

/* The pass's state along one program. */
typedef struct Convert {
    bool selects_on;       /* if-conversion on (hoisting is on from -O1 for every target) */
    int hoisted;           /* statements hoisted in the iterator being converted */
    int hoisted_loads;     /* elements hoisted in the iterator being converted */
    int load_names;        /* parac_hl<k>: one name per hoisted element in the program */
} Convert;

/* The same statement in both arms: an expression statement, or the
 * declaration of one scalar of one type with the same initialiser. */
static bool same_stmt(const Node *a, const Node *b, const VarMap *m)
{
    if (a->kind != b->kind) return false;
    if (a->kind == ND_EXPR_STMT) return tree_same_as(a->lhs, b->lhs, m, 0);
    if (a->kind != ND_DECL || a->is_static || b->is_static || a->is_typedef || b->is_typedef) return false;
    const Node *x = a->decls, *y = b->decls;
    if (!x || !y || x->next || y->next || !x->var || !y->var || !x->name || !y->name) return false;
    if (strcmp(x->var->name, y->var->name) != 0 || !ty_is_arith(x->var->ty) || x->var->ty->kind != y->var->ty->kind ||
        x->var->ty->is_unsigned != y->var->ty->is_unsigned)
        return false;
    return tree_same_as(x->init, y->init, m, 0);
}

/* The condition reads what the statement writes or declares (by object, or
 * by the declared name, which would hide another object of that name). */
static bool names_clash(Node *c, const char *name, int depth)
{
    if (!c || depth > 200) return false;
    if ((c->kind == ND_VAR || c->kind == ND_MAT_ELEM || c->kind == ND_WINDOW) && c->var && !strcmp(c->var->name, name))
        return true;
    if (names_clash(c->lhs, name, depth + 1) || names_clash(c->rhs, name, depth + 1) ||
        names_clash(c->cond, name, depth + 1) || names_clash(c->then, name, depth + 1) ||
        names_clash(c->els, name, depth + 1))
        return true;
    for (Node *a = c->args; a; a = a->next)
        if (names_clash(a, name, depth + 1)) return true;
    for (int i = 0; i < c->nidx; i++)
        if (names_clash(c->idx[i], name, depth + 1)) return true;
    return false;
}

static bool cond_reads_writes(Node *c, Node *stmt)
{
    if (stmt->kind == ND_DECL) return names_clash(c, stmt->decls->var->name, 0);
    const Node *e = stmt->lhs;
    if (!e) return false;
    if (e->kind == ND_ASSIGN || ((e->kind == ND_UNARY || e->kind == ND_POSTFIX) && e->op &&
                                 (!strcmp(e->op, "++") || !strcmp(e->op, "--")))) {
        const Node *target = e->lhs;
        return !target || !target->var || node_mentions(c, target->var) || names_clash(c, target->var->name, 0);
    }
    return !pure(e, 0); /* anything else that might write */
}

/* The statement list of an arm (a block's, or the one statement's). */
static Node **arm_list(Node **arm)
{
    return *arm && (*arm)->kind == ND_BLOCK ? &(*arm)->args : arm;
}

static void rename_var(Node *n, Obj *from, Obj *to, int depth)
{
    if (!n || depth > 400) return;
    if ((n->kind == ND_VAR || n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW) && n->var == from) n->var = to;
    rename_var(n->lhs, from, to, depth + 1);
    rename_var(n->rhs, from, to, depth + 1);
    rename_var(n->cond, from, to, depth + 1);
    rename_var(n->then, from, to, depth + 1);
    rename_var(n->els, from, to, depth + 1);
    rename_var(n->init, from, to, depth + 1);
    rename_var(n->inc, from, to, depth + 1);
    rename_var(n->body, from, to, depth + 1);
    for (Node *a = n->args; a; a = a->next) rename_var(a, from, to, depth + 1);
    for (Node *d = n->decls; d; d = d->next) rename_var(d->init, from, to, depth + 1);
    for (int i = 0; i < n->nidx; i++) rename_var(n->idx[i], from, to, depth + 1);
}

/* Hoists the statements both arms of the if *s begin with: *s becomes a
 * block of them and the if. The number hoisted. */
static int hoist_common(Node **s)
{
    Node *n = *s;
    if (n->kind != ND_IF || !n->els || !n->then || !pure(n->cond, 0)) return 0;
    VarMap m = {{0}, {0}, 0};
    Node *first = NULL, **tail = &first;
    int k = 0;
    for (;;) {
        Node **tl = arm_list(&n->then), **el = arm_list(&n->els);
        Node *a = *tl, *b = *el;
        if (!a || !b || !same_stmt(a, b, &m) || cond_reads_writes(n->cond, a)) break;
        if (a->kind == ND_DECL) {
            if (m.n == 16) break;
            m.a[m.n] = a->decls->var;
            m.b[m.n++] = b->decls->var;
        }
        /* the arm that was one statement becomes empty */
        *tl = tl == &n->then ? new_node(ND_NULL_STMT, a->tok) : a->next;
        *el = el == &n->els ? new_node(ND_NULL_STMT, b->tok) : b->next;
        a->next = NULL;
        *tail = a;
        tail = &a->next;
        k++;
    }
    if (!k) return 0;
    for (int i = 0; i < m.n; i++) rename_var(n->els, m.b[i], m.a[i], 0);
    Node *blk = new_node(ND_BLOCK, n->tok);
    blk->args = first;
    *tail = n;
    blk->next = n->next;
    n->next = NULL;
    *s = blk;
    return k;
}

/* ---- loads both arms make ------------------------------------------------ */

typedef struct Reads {
    Node *n[16];
    int count;
} Reads;

/* The matrix elements that evaluating n surely reads (not under the arms of
 * ?: or the right operand of && and ||, not windows). */
static void sure_reads(Node *n, Reads *r, int depth)
{
    if (!n || depth > 200) return;
    switch (n->kind) {
    case ND_MAT_ELEM:
        if (r->count < 16) r->n[r->count++] = n;
        for (int i = 0; i < n->nidx; i++) sure_reads(n->idx[i], r, depth + 1);
        return;
    case ND_COND:
        sure_reads(n->cond, r, depth + 1);
        return;
    case ND_WINDOW: case ND_PARAC_OP: case ND_CALL:
        return;
    case ND_ASSIGN:
        if (n->lhs && n->lhs->kind == ND_MAT_ELEM)
            for (int i = 0; i < n->lhs->nidx; i++) sure_reads(n->lhs->idx[i], r, depth + 1);
        sure_reads(n->rhs, r, depth + 1);
        return;
    case ND_BINARY:
        if (n->op && (!strcmp(n->op, "&&") || !strcmp(n->op, "||"))) {
            sure_reads(n->lhs, r, depth + 1);
            return;
        }
        break;
    default:
        break;
    }
    sure_reads(n->lhs, r, depth + 1);
    sure_reads(n->rhs, r, depth + 1);
    for (Node *a = n->args; a; a = a->next) sure_reads(a, r, depth + 1);
}

/* What an arm surely reads: its leading expression statements and
 * declarations, which run whenever the arm does. */
static void arm_reads(Node **arm, Reads *r)
{
    for (Node *st = *arm_list(arm); st; st = st->next) {
        if (st->kind == ND_EXPR_STMT) sure_reads(st->lhs, r, 0);
        else if (st->kind == ND_DECL) {
            for (Node *d = st->decls; d; d = d->next)
                if (d->init && d->init->kind != ND_INIT_LIST) sure_reads(d->init, r, 0);
        } else
            break;
        if (*arm && (*arm)->kind != ND_BLOCK) break;
    }
}

/* Whether n assigns a scalar that e mentions. */
static bool assigns_what(Node *n, Node *e, int depth)
{
    if (!n) return false;
    if (depth > 400) return true;
    if ((n->kind == ND_ASSIGN || ((n->kind == ND_UNARY || n->kind == ND_POSTFIX) && n->op &&
                                  (!strcmp(n->op, "++") || !strcmp(n->op, "--") || !strcmp(n->op, "&")))) &&
        n->lhs && n->lhs->kind == ND_VAR && (!n->lhs->var || node_mentions(e, n->lhs->var)))
        return true;
    Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->inc, n->body};
    for (int i = 0; i < 8; i++)
        if (assigns_what(kids[i], e, depth + 1)) return true;
    for (Node *a = n->args; a; a = a->next)
        if (assigns_what(a, e, depth + 1)) return true;
    for (Node *d = n->decls; d; d = d->next)
        if (assigns_what(d->init, e, depth + 1)) return true;
    return false;
}

/* Every read of element `like` in n made a read of the local v. */
static Node *replace_elem(Node *n, const Node *like, Obj *v, int depth)
{
    if (!n || depth > 400) return n;
    if (n->kind == ND_MAT_ELEM && tree_same(n, like)) {
        Node *r = new_node(ND_VAR, n->tok);
        r->var = v;
        r->name = v->name;
        r->ty = v->ty;
        return r;
    }
    n->lhs = replace_elem(n->lhs, like, v, depth + 1);
    n->rhs = replace_elem(n->rhs, like, v, depth + 1);
    n->cond = replace_elem(n->cond, like, v, depth + 1);
    n->then = replace_elem(n->then, like, v, depth + 1);
    n->els = replace_elem(n->els, like, v, depth + 1);
    n->init = replace_elem(n->init, like, v, depth + 1);
    n->inc = replace_elem(n->inc, like, v, depth + 1);
    n->body = replace_elem(n->body, like, v, depth + 1);
    for (Node **a = &n->args; *a; a = &(*a)->next) {
        Node *next = (*a)->next, *r = replace_elem(*a, like, v, depth + 1);
        r->next = next;
        *a = r;
    }
    for (Node *d = n->decls; d; d = d->next) d->init = replace_elem(d->init, like, v, depth + 1);
    for (int i = 0; i < n->nidx; i++) n->idx[i] = replace_elem(n->idx[i], like, v, depth + 1);
    return n;
}

/* Hoists the matrix elements that both arms of the if *s surely read into
 * locals before it (`const T parac_hl<k> = M[i][j];`): the element is read
 * whichever arm runs, so reading it first changes nothing where neither the
 * condition nor an arm writes M or a scalar of its indices, and its indices
 * name nothing an arm declares. *s becomes a block of the locals and the
 * if; the number hoisted. */
static int hoist_loads(Convert *cv, Node **s)
{
    Node *n = *s;
    if (n->kind != ND_IF || !n->els || !n->then || !pure(n->cond, 0)) return 0;
    Reads a = {{0}, 0}, b = {{0}, 0};
    arm_reads(&n->then, &a);
    arm_reads(&n->els, &b);
    Touch t = {0};
    tree_touches(n, &t, 0);
    if (t.overflow) return 0;
    Node *first = NULL, **tail = &first;
    int k = 0;
    for (int i = 0; i < a.count; i++) {
        Node *x = a.n[i];
        bool both = false;
        for (int j = 0; j < b.count && !both; j++) both = tree_same(x, b.n[j]);
        if (!both || !x->var || !x->ty || !ty_is_arith(x->ty) || obj_listed(t.written, t.nwritten, x->var)) continue;
        bool ok = true;
        for (int d = 0; d < x->nidx && ok; d++)
            ok = pure(x->idx[d], 0) && !assigns_what(n, x->idx[d], 0) && !tree_uses_name_declared_in(x->idx[d], n->then, 0) &&
                 !tree_uses_name_declared_in(x->idx[d], n->els, 0);
        if (!ok) continue;
        const Subst plain = {0};
        Node *load = tree_copy(x, &plain); /* x itself is replaced below */
        Obj *v = lang_alloc(sizeof *v);
        v->name = lang_format("parac_hl%d", cv->load_names++);
        v->ty = x->ty;
        v->tok = x->tok;
        v->is_local_to_iter = true;
        v->id = 1 << 30;
        Node *dtor = new_node(ND_DECL, x->tok);
        dtor->name = v->name;
        dtor->var = v;
        dtor->ty = v->ty;
        dtor->init = load;
        Node *decl = new_node(ND_DECL, x->tok);
        decl->decls = dtor;
        decl->cast_ty = v->ty;
        n->cond = replace_elem(n->cond, load, v, 0);
        n->then = replace_elem(n->then, load, v, 0);
        n->els = replace_elem(n->els, load, v, 0);
        *tail = decl;
        tail = &decl->next;
        k++;
        /* the other reads of the arms may be copies of the same element: gone now */
        a.count = b.count = 0;
        arm_reads(&n->then, &a);
        arm_reads(&n->els, &b);
        i = -1;
    }
    if (!k) return 0;
    Node *blk = new_node(ND_BLOCK, n->tok);
    blk->args = first;
    *tail = n;
    blk->next = n->next;
    n->next = NULL;
    *s = blk;
    return k;
}

/* Converts the statements of a body (and of its nested blocks); the count. */
static int convert_block(Convert *cv, Node *body, int depth)
{
    if (!body || depth > 100) return 0;
    int k = 0;
    if (body->kind != ND_BLOCK) return 0;
    for (Node **s = &body->args; *s; s = &(*s)->next) {
        const int hoisted = hoist_common(s);
        if (hoisted) {
            cv->hoisted += hoisted;
            k += convert_block(cv, *s, depth + 1); /* the if, now in the new block */
            continue;
        }
        const int loads = hoist_loads(cv, s);
        if (loads) {
            cv->hoisted_loads += loads;
            k += convert_block(cv, *s, depth + 1);
            continue;
        }
        Node *sel = cv->selects_on ? as_select(*s) : NULL;
        if (sel) {
            sel->next = (*s)->next;
            *s = sel;
            k++;
            continue;
        }
        if ((*s)->kind == ND_BLOCK) k += convert_block(cv, *s, depth + 1);
        if ((*s)->kind == ND_IF) {
            k += convert_block(cv, (*s)->then, depth + 1);
            k += convert_block(cv, (*s)->els, depth + 1);
        }
    }
    return k;
}

static void convert_iterators(Convert *cv, Node *n, int depth)
{
    if (!n || depth > 100) return;
    for (; n; n = n->next) {
        if (n->kind == ND_ITERATOR && n->iter && n->iter->body) {
            Iterator *it = n->iter;
            if (it->body->kind != ND_BLOCK) {
                Node *sel = cv->selects_on ? as_select(it->body) : NULL;
                if (sel) {
                    it->body = sel;
                    it->selects++;
                }
            } else {
                cv->hoisted = cv->hoisted_loads = 0;
                it->selects += convert_block(cv, it->body, 0);
                it->hoisted += cv->hoisted;
                it->hoisted_loads += cv->hoisted_loads;
            }
            continue;
        }
        if (n->kind == ND_BLOCK) convert_iterators(cv, n->args, depth + 1);
        else if (n->kind == ND_IF) {
            convert_iterators(cv, n->then, depth + 1);
            convert_iterators(cv, n->els, depth + 1);
        } else if (n->kind == ND_FOR || n->kind == ND_WHILE || n->kind == ND_DO)
            convert_iterators(cv, n->body, depth + 1);
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
    Convert cv = {0};
    cv.selects_on = opt->if_convert >= 0 ? opt->if_convert && opt->opt_level > 0
                                         : opt->opt_level >= 1 && opt->target != TARGET_OPENCL;
    if (opt->opt_level < 1) return;
    for (Node *n = prog->top; n; n = n->next)
        if (n->kind == ND_FUNC && n->body) convert_iterators(&cv, n->body->kind == ND_BLOCK ? n->body->args : n->body, 0);
}
