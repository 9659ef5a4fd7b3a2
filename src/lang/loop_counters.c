/* Host for loops whose counters only their headers step: what moving such
 * a loop inside something else needs to know (fuse_loops.c runs it inside a
 * kernel, strips.c inside the C target's strips of rows). The rounds stay
 * the same wherever they run when the counters are integers the loop's init
 * declares from host values, its condition reads host values only, its step
 * steps counters by host values, and nothing else assigns them. */
#include <string.h>

#include "lang.h"

bool lang_is_counter(const LoopCounters *c, const Obj *o)
{
    for (int i = 0; i < c->n; i++)
        if (c->v[i] == o) return true;
    return false;
}

bool lang_loop_counters_of(Node *loop, LoopCounters *c)
{
    Node *init = loop ? loop->init : NULL;
    if (!init || init->kind != ND_DECL) return false;
    for (Node *d = init->decls; d; d = d->next) {
        if (!d->var || !ty_is_integer(d->var->ty) || d->var->ty->kind == TY_BOOL || !d->init || d->init->kind == ND_INIT_LIST ||
            !lang_host_value(d->init, 0) || c->n == MAX_LOOP_COUNTERS)
            return false;
        c->v[c->n++] = d->var;
    }
    return c->n > 0;
}

/* v++, v--, ++v, --v, v += k, v -= k (k a host value), by commas */
bool lang_loop_steps_counters(const Node *n, const LoopCounters *c)
{
    if (!n) return false;
    if (n->kind == ND_COMMA) return lang_loop_steps_counters(n->lhs, c) && lang_loop_steps_counters(n->rhs, c);
    const bool inc = (n->kind == ND_POSTFIX || n->kind == ND_UNARY) && n->op &&
                     (!strcmp(n->op, "++") || !strcmp(n->op, "--"));
    const bool add = n->kind == ND_ASSIGN && n->op && (!strcmp(n->op, "+=") || !strcmp(n->op, "-="));
    if (!inc && !add) return false;
    if (!n->lhs || n->lhs->kind != ND_VAR || !lang_is_counter(c, n->lhs->var)) return false;
    return inc || lang_host_value(n->rhs, 0);
}

bool lang_writes_outer_scalar(const Node *n, const LoopCounters *c, int depth)
{
    if (!n) return false;
    if (depth > 400) return true;
    const Node *target = NULL;
    if (n->kind == ND_ASSIGN) target = n->lhs;
    else if ((n->kind == ND_POSTFIX || n->kind == ND_UNARY) && n->op &&
             (!strcmp(n->op, "++") || !strcmp(n->op, "--") || !strcmp(n->op, "&")))
        target = n->lhs;
    if (target && target->kind == ND_VAR && target->var &&
        (lang_is_counter(c, target->var) || (!target->var->is_local_to_iter && target->var->ty &&
                                             target->var->ty->kind != TY_MATRIX)))
        return true;
    NodeKids k = {.n = (Node *)n};
    for (Node *x; (x = lang_next_kid(&k));)
        if (lang_writes_outer_scalar(x, c, depth + 1)) return true;
    return false;
}

bool lang_counter_in_window(const Node *n, const Obj *v, bool in_window, int depth)
{
    if (!n) return false;
    if (depth > 400) return true;
    if (in_window && n->kind == ND_VAR && n->var == v) return true;
    if (n->kind == ND_WINDOW || n->kind == ND_SLICE) in_window = true;
    NodeKids k = {.n = (Node *)n};
    for (Node *x; (x = lang_next_kid(&k));)
        if (lang_counter_in_window(x, v, in_window, depth + 1)) return true;
    return false;
}
