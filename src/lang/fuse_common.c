/* Helpers of the fusion pass's files (fuse.h): declarations, producers and
 * the iterators a fused one stands for. */
#include <string.h>

#include "lang/fuse.h"

bool fuse_own_point(const Node *e, const Iterator *it, int first_axis, int n)
{
    if (!e || e->kind != ND_MAT_ELEM || e->nidx != n) return false;
    for (int d = 0; d < n; d++) {
        const Node *x = e->idx[d];
        if (!x || x->kind != ND_ITER_INDEX || x->iter != it || x->axis != first_axis + d) return false;
    }
    return true;
}

/* The declaration statement of a matrix in n, and the declarator before it. */
Node *fuse_find_decl(Node *n, const Obj *m, Node **prev, int depth)
{
    if (!n || depth > 400) return NULL;
    if (n->kind == ND_DECL) {
        Node *p = NULL;
        for (Node *d = n->decls; d; p = d, d = d->next)
            if (d->var == m) {
                *prev = p;
                return n;
            }
    }
    Node *kids[] = {n->then, n->els, n->body};
    for (int i = 0; i < 3; i++) {
        Node *r = fuse_find_decl(kids[i], m, prev, depth + 1);
        if (r) return r;
    }
    if (n->kind == ND_BLOCK)
        for (Node *s = n->args; s; s = s->next) {
            Node *r = fuse_find_decl(s, m, prev, depth + 1);
            if (r) return r;
        }
    return NULL;
}

/* The statement of P's body that writes M, when it is the only mention. */
Node *fuse_producer_write(Iterator *p, const Obj *m)
{
    if (tree_mentions(p->body, m, 0) != 1) return NULL;
    Node *list = p->body->kind == ND_BLOCK ? p->body->args : p->body;
    for (Node *s = list; s; s = p->body->kind == ND_BLOCK ? s->next : NULL) {
        if (s->kind == ND_EXPR_STMT && s->lhs && s->lhs->kind == ND_ASSIGN && !strcmp(s->lhs->op, "=") &&
            s->lhs->lhs && s->lhs->lhs->var == m && fuse_own_point(s->lhs->lhs, p, 0, p->ndim))
            return s;
        if (p->body->kind != ND_BLOCK) break;
    }
    return NULL;
}

/* Every iterator index in n is one of it's (and there is one). */
bool fuse_mentions_iter(const Node *n, const Iterator *it)
{
    if (!n) return false;
    if (n->kind == ND_ITER_INDEX) return n->iter == it;
    if (n->kind != ND_BINARY && n->kind != ND_UNARY && n->kind != ND_CAST) return false;
    const bool l = n->lhs && (n->lhs->kind == ND_NUM || fuse_mentions_iter(n->lhs, it));
    const bool r = !n->rhs || n->rhs->kind == ND_NUM || fuse_mentions_iter(n->rhs, it);
    return l && r;
}

/* ---- the pair ------------------------------------------------------------------ */
bool fuse_same_bound(const Node *f, const Node *a, const Node *b)
{
    /* the same text is the same value only where its variables stay put (a
     * bound `n` after `n = H;` is not the `n` of an iterator before it) */
    return tree_same(a, b) && tree_fixed_value(a, f ? f->body : NULL) && tree_fixed_value(b, f ? f->body : NULL);
}

bool fuse_covers_whole(const Node *f, const Iterator *p, const Obj *m)
{
    for (int d = 0; d < 2; d++) {
        bool ok;
        const long lb = const_eval(p->r[d].lb, &ok);
        if (!ok || lb != 0 || p->r[d].stride != 1 || !fuse_same_bound(f, p->r[d].ub, m->ty->dims[d])) return false;
    }
    return true;
}

/* The mentions of m in the border-rule declarations about it in n; drop:
 * those declarations made empty statements. */
int fuse_rule_decls(Node *n, const Obj *m, bool drop, int depth)
{
    if (!n || depth > 200) return 0;
    int k = 0;
    if (n->kind == ND_BORDER_RULE && n->rule && n->rule->var == m) {
        k = tree_mentions(n, m, 0);
        if (drop) n->kind = ND_NULL_STMT;
        return k;
    }
    if (n->kind == ND_BLOCK)
        for (Node *s = n->args; s; s = s->next) k += fuse_rule_decls(s, m, drop, depth + 1);
    Node *kids[] = {n->then, n->els, n->body};
    for (int i = 0; i < 3; i++) k += fuse_rule_decls(kids[i], m, drop, depth + 1);
    return k;
}

/* The size `name` (Y_dI, a whole-image statement's bound) of a matrix c
 * touches: Y's declared size I, else n itself. */
const Node *fuse_declared_size(const Node *n, const Touch *t)
{
    if (!n || n->kind != ND_VAR || n->var || !n->name) return n;
    for (int k = 0; k < t->nwritten + t->nread; k++) {
        const Obj *y = k < t->nwritten ? t->written[k] : t->read[k - t->nwritten];
        for (int i = 0; i < y->ty->ndim; i++)
            if (y->ty->dims[i] && !strcmp(n->name, lang_format("%s_d%d", y->name, i))) return y->ty->dims[i];
    }
    return n;
}

void fuse_absorb(Iterator *into, const Iterator *from)
{
    into->members = into->members && from->members ? into->members | from->members : 0;
}
