/* The tree: nodes made, copied and compared, and what a tree mentions,
 * touches, assigns or jumps out of. Asked by every pass (no pass asks another). */
#include <string.h>

#include "lang/lang.h"

Node *tree_copy(Node *n, const Subst *s);

static Node *copy_list(Node *n, const Subst *s)
{
    Node head = {0}, *tail = &head;
    for (; n; n = n->next) {
        tail->next = tree_copy(n, s);
        tail = tail->next;
    }
    return head.next;
}

static void add_obj(Obj **list, int *n, bool *overflow, Obj *o)
{
    for (int i = 0; i < *n; i++)
        if (list[i] == o) return;
    if (*n < 32) list[(*n)++] = o;
    else *overflow = true;
}

/* A copy of n with the consumer's indices and reads of M substituted. */
Node *tree_copy(Node *n, const Subst *s)
{
    if (!n) return NULL;
    if (n->kind == ND_ITER_INDEX && s->from && n->iter == s->from && s->to_expr[n->axis]) {
        const Subst plain = {0};
        return tree_copy(s->to_expr[n->axis], &plain);
    }
    if (n->kind == ND_ITER_INDEX && s->from && n->iter == s->from) {
        if (n->axis < s->lead) return lang_int_node(n->tok, s->lead_val[n->axis]);
        Node *r = new_node(ND_ITER_INDEX, n->tok);
        r->axis = n->axis - s->lead;
        r->iter = s->to;
        r->name = lang_format("%s%c", s->to->name, "xyz"[r->axis]);
        r->ty = n->ty;
        return r;
    }
    if (n->kind == ND_MAT_ELEM && n->var == s->mat) {
        Node *r = new_node(ND_VAR, n->tok);
        r->var = s->scalar;
        r->name = s->scalar->name;
        r->ty = s->scalar->ty;
        return r;
    }
    Node *r = new_node(n->kind, n->tok);
    *r = *n;
    r->next = NULL;
    r->lhs = tree_copy(n->lhs, s);
    r->rhs = tree_copy(n->rhs, s);
    r->cond = tree_copy(n->cond, s);
    r->then = tree_copy(n->then, s);
    r->els = tree_copy(n->els, s);
    r->init = tree_copy(n->init, s);
    r->inc = tree_copy(n->inc, s);
    r->body = tree_copy(n->body, s);
    r->args = copy_list(n->args, s);
    r->decls = copy_list(n->decls, s);
    for (int i = 0; i < n->nidx; i++) r->idx[i] = tree_copy(n->idx[i], s);
    return r;
}

void tree_touches(Node *n, Touch *t, int depth)
{
    if (!n || depth > 400) {
        if (n) t->overflow = true;
        return;
    }
    if ((n->kind == ND_ASSIGN || ((n->kind == ND_UNARY || n->kind == ND_POSTFIX) && n->op &&
                                  (!strcmp(n->op, "++") || !strcmp(n->op, "--")))) &&
        tree_is_matrix_access(n->lhs))
        add_obj(t->written, &t->nwritten, &t->overflow, n->lhs->var);
    if (tree_is_matrix_access(n)) add_obj(t->read, &t->nread, &t->overflow, n->var);
    if (n->kind == ND_ITERATOR) {
        t->overflow = true; /* iterators do not nest: not expected here */
        return;
    }
    NodeKids k = {.n = n};
    for (Node *c; (c = lang_next_kid(&k));) tree_touches(c, t, depth + 1);
}

bool obj_listed(Obj *const *list, int n, const Obj *o)
{
    for (int i = 0; i < n; i++)
        if (list[i] == o) return true;
    return false;
}

int tree_mentions(Node *n, const Obj *o, int depth)
{
    if (!n || depth > 400) return n ? 1000 : 0;
    int k = (n->kind == ND_VAR || n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW) && n->var == o;
    if (n->kind == ND_BORDER_RULE && n->rule && n->rule->var == o) k++;
    if (n->kind == ND_ITERATOR && n->iter) {
        for (int d = 0; d < n->iter->ndim; d++)
            k += tree_mentions(n->iter->r[d].lb, o, depth + 1) + tree_mentions(n->iter->r[d].ub, o, depth + 1);
        k += tree_mentions(n->iter->body, o, depth + 1);
        /* and its stages' values (fuse_tile.c): a producer staged into this
         * iterator reads there what it read in its own body */
        for (int s = 0; s < n->iter->nstages; s++) {
            const Stage *st = &n->iter->stages[s];
            k += tree_mentions(st->e, o, depth + 1) + tree_mentions(st->rule_stmt, o, depth + 1);
        }
        return k + (n->body != n->iter->body ? tree_mentions(n->body, o, depth + 1) : 0);
    }
    NodeKids kids = {.n = n};
    for (Node *c; (c = lang_next_kid(&kids));) k += tree_mentions(c, o, depth + 1);
    return k;
}

/* The same expression, node for node, with m's objects b read as its
 * objects a (range bounds of two iterators; the arms of a branch). */
bool tree_same_as(const Node *a, const Node *b, const VarMap *m, int depth)
{
    if (!a || !b) return a == b;
    if (depth > 200 || a->kind != b->kind) return false;
    if (a->op || b->op)
        if (!a->op || !b->op || strcmp(a->op, b->op) != 0) return false;
    switch (a->kind) {
    case ND_NUM:
        return a->tok->is_float == b->tok->is_float &&
               (a->tok->is_float ? a->tok->fval == b->tok->fval : a->tok->ival == b->tok->ival) &&
               (!a->ty || !b->ty || (a->ty->kind == b->ty->kind && a->ty->is_unsigned == b->ty->is_unsigned));
    case ND_VAR:
        if (!a->var || !b->var) return !a->var && !b->var && a->name && b->name && !strcmp(a->name, b->name);
        if (a->var == b->var) return true;
        for (int i = 0; m && i < m->n; i++)
            if (m->a[i] == a->var && m->b[i] == b->var) return true;
        return false;
    case ND_ITER_INDEX:
        return a->iter == b->iter && a->axis == b->axis;
    case ND_MAT_ELEM:
        if (a->var != b->var || a->nidx != b->nidx) return false;
        for (int i = 0; i < a->nidx; i++)
            if (!tree_same_as(a->idx[i], b->idx[i], m, depth + 1)) return false;
        return true;
    case ND_CAST:
        return a->cast_ty == b->cast_ty && tree_same_as(a->lhs, b->lhs, m, depth + 1);
    case ND_BINARY: case ND_ASSIGN: case ND_UNARY: case ND_POSTFIX:
        return tree_same_as(a->lhs, b->lhs, m, depth + 1) && tree_same_as(a->rhs, b->rhs, m, depth + 1);
    case ND_COND:
        return tree_same_as(a->cond, b->cond, m, depth + 1) && tree_same_as(a->then, b->then, m, depth + 1) &&
               tree_same_as(a->els, b->els, m, depth + 1);
    default:
        return false; /* windows, operators, calls */
    }
}

bool tree_same(const Node *a, const Node *b) { return tree_same_as(a, b, NULL, 0); }

/* Names declared at the top of a body, and names a body uses. */
bool tree_declares_name(Node *body, const char *name)
{
    if (!body) return false;
    Node *list = body->kind == ND_BLOCK ? body->args : body;
    for (Node *s = list; s; s = body->kind == ND_BLOCK ? s->next : NULL) {
        if (s->kind == ND_DECL)
            for (Node *d = s->decls; d; d = d->next)
                if (d->name && !strcmp(d->name, name)) return true;
        if (s->kind == ND_BLOCK && tree_declares_name(s, name)) return true;
        if (body->kind != ND_BLOCK) break;
    }
    return false;
}

bool tree_uses_name_declared_in(Node *n, Node *body, int depth)
{
    if (!n || depth > 400) return n != NULL;
    if (n->kind == ND_VAR && n->name && tree_declares_name(body, n->name)) return true;
    NodeKids k = {.n = n};
    for (Node *c; (c = lang_next_kid(&k));)
        if (tree_uses_name_declared_in(c, body, depth + 1)) return true;
    return false;
}

bool tree_assigns(const Node *n)
{
    if (n->kind == ND_ASSIGN || n->kind == ND_COMMA) return true;
    return (n->kind == ND_UNARY || n->kind == ND_POSTFIX) && n->op && (!strcmp(n->op, "++") || !strcmp(n->op, "--"));
}

bool node_mentions_except(Node *n, Obj *var, Node *const *skip, int nskip)
{
    if (!n) return false;
    for (int i = 0; i < nskip; i++)
        if (n == skip[i]) return false;
    if ((n->kind == ND_VAR || n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW) && n->var == var) return true;
    if (n->kind == ND_ITERATOR) return false;
#define M(x) node_mentions_except((x), var, skip, nskip)
    if (M(n->lhs) || M(n->rhs) || M(n->cond) || M(n->then) || M(n->els) || M(n->init) || M(n->inc) || M(n->body))
        return true;
    for (int i = 0; i < n->nidx; i++)
        if (M(n->idx[i])) return true;
    for (Node *a = n->args; a; a = a->next)
        if (M(a)) return true;
    for (Node *d = n->decls; d; d = d->next)
        if (M(d->init)) return true;
#undef M
    return false;
}

bool node_mentions(Node *n, Obj *var) { return node_mentions_except(n, var, NULL, 0); }

/* ---- statements ------------------------------------------------------------ */
bool stmt_has_iterator(Node *n)
{
    if (!n) return false;
    switch (n->kind) {
    case ND_ITERATOR: return true;
    case ND_BLOCK:
        for (Node *s = n->args; s; s = s->next)
            if (stmt_has_iterator(s)) return true;
        return false;
    case ND_IF: return stmt_has_iterator(n->then) || stmt_has_iterator(n->els);
    case ND_FOR: case ND_WHILE: case ND_DO: case ND_SWITCH: return stmt_has_iterator(n->body);
    default: return false;
    }
}

Node *new_node(NodeKind kind, Token *tok)
{
    Node *n = lang_alloc(sizeof *n);
    n->kind = kind;
    n->tok = tok;
    return n;
}

Node *lang_int_node(Token *tok, long v)
{
    Node *n = new_node(ND_NUM, tok);
    Token *t = lang_alloc(sizeof *t);
    *t = *tok;
    t->kind = TK_NUM;
    t->is_float = false;
    t->ival = v;
    t->loc = lang_format("%ld", v);
    t->len = (int)strlen(t->loc);
    n->tok = t;
    n->ty = ty_basic(TY_INT, false);
    return n;
}

bool tok_is(const Token *tok, const char *s)
{
    size_t n = strlen(s);
    return tok->kind != TK_EOF && tok->kind != TK_DIRECTIVE && (size_t)tok->len == n &&
           memcmp(tok->loc, s, n) == 0;
}

char *tok_text(const Token *tok) { return lang_strndup(tok->loc, (size_t)tok->len); }

/* ---- outputs a region overwrites whole ------------------------------------- */
bool lang_any_jump(const Node *n)
{
    if (!n) return false;
    if (n->kind == ND_BREAK || n->kind == ND_CONTINUE || n->kind == ND_GOTO || n->kind == ND_RETURN ||
        n->kind == ND_LABEL)
        return true;
    if (lang_any_jump(n->lhs) || lang_any_jump(n->rhs) || lang_any_jump(n->then) || lang_any_jump(n->els) ||
        lang_any_jump(n->body))
        return true;
    for (const Node *a = n->args; a; a = a->next)
        if (lang_any_jump(a)) return true;
    return false;
}

bool tree_is_matrix_access(const Node *n)
{
    return n && (n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW) && n->var;
}

/* Whether the host can evaluate e: host scalars, constants and arithmetic (no
 * matrix reads, calls or iterator indices). */
bool lang_host_value(const Node *e, int depth)
{
    if (!e || depth > 100) return e == NULL;
    switch (e->kind) {
    case ND_NUM: case ND_CHARLIT: return true;
    case ND_VAR: return !e->var || (e->var->ty && e->var->ty->kind != TY_MATRIX && e->var->ty->kind != TY_PYRAMID &&
                                    !e->var->is_func);
    case ND_BINARY: case ND_UNARY: case ND_CAST: case ND_COND:
        break;
    default:
        return false;
    }
    NodeKids k = {.n = e};
    for (const Node *c; (c = lang_next_kid(&k));)
        if (!lang_host_value(c, depth + 1)) return false;
    return true;
}

/* ---- values that stay put ------------------------------------------------ */
/* Whether n assigns v or takes its address. */
static bool changes_var(const Node *n, const Obj *v, int depth)
{
    if (!n) return false;
    if (depth > 400) return true;
    const Node *l = n->lhs;
    if (l && l->kind == ND_VAR && l->var == v &&
        (n->kind == ND_ASSIGN || ((n->kind == ND_UNARY || n->kind == ND_POSTFIX) && n->op &&
                                  (!strcmp(n->op, "++") || !strcmp(n->op, "--") || !strcmp(n->op, "&")))))
        return true;
    NodeKids k = {.n = (Node *)n};
    for (Node *c; (c = lang_next_kid(&k));)
        if (changes_var(c, v, depth + 1)) return true;
    return false;
}

static bool fixed_value(const Node *e, const Node *fn_body, int depth)
{
    if (!e) return true;
    if (depth > 100) return false;
    bool ok;
    const_eval((Node *)e, &ok);
    if (ok) return true;
    if (e->kind == ND_VAR) {
        if (!e->var) return e->name != NULL; /* NAME_dI: a size fixed where the matrix is declared */
        return fn_body && !e->var->is_global && !e->var->is_func && !changes_var(fn_body, e->var, 0);
    }
    if (e->kind == ND_CALL || e->kind == ND_MAT_ELEM || e->kind == ND_WINDOW || tree_assigns(e)) return false;
    NodeKids k = {.n = (Node *)e};
    for (Node *c; (c = lang_next_kid(&k));)
        if (!fixed_value(c, fn_body, depth + 1)) return false;
    return true;
}

bool tree_fixed_value(const Node *e, const Node *fn_body) { return fixed_value(e, fn_body, 0); }
