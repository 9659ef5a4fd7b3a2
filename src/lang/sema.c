/* Semantic analysis: names, types and the ParaC rules.
 *
 * - resolves names into objects (unknown names are taken as macros or
 *   declarations from headers and passed through);
 * - turns M[i][j] on a matrix into ND_MAT_ELEM and M[i:l:s][j] into ND_WINDOW,
 *   and types small-matrix expressions (windows, constant matrices, products,
 *   transe, .*) by their compile-time shape;
 * - checks iterators (index names, no nesting, no writes to host variables,
 *   compile-time strides), border rules (form, widths, no border value
 *   depending on another), operators and their operands;
 * - rewrites whole-image statements `Dst = expr;` into iterators. */
#include <string.h>

#include "lang/sema.h"

void sema_push_scope(Sema *S)
{
    Scope *s = lang_alloc(sizeof *s);
    s->parent = S->scope;
    S->scope = s;
}

void sema_add_obj(Sema *S, Obj *o)
{
    Scope *s = S->scope;
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 8;
        Obj **a = lang_alloc(sizeof *a * (size_t)cap);
        if (s->n) memcpy(a, s->objs, sizeof *a * (size_t)s->n);
        s->objs = a;
        s->cap = cap;
    }
    s->objs[s->n++] = o;
    o->id = S->next_id++;
}

Obj *sema_find_obj(Sema *S, const char *name)
{
    for (Scope *s = S->scope; s; s = s->parent)
        for (int i = s->n - 1; i >= 0; i--)
            if (!strcmp(s->objs[i]->name, name)) return s->objs[i];
    return NULL;
}

void sema_add_rule(Sema *S, BorderRule *r)
{
    Scope *s = S->scope;
    if (s->nrules == s->caprules) {
        int cap = s->caprules ? s->caprules * 2 : 4;
        BorderRule **a = lang_alloc(sizeof *a * (size_t)cap);
        if (s->nrules) memcpy(a, s->rules, sizeof *a * (size_t)s->nrules);
        s->rules = a;
        s->caprules = cap;
    }
    s->rules[s->nrules++] = r;
}

BorderRule *sema_find_rule(Sema *S, const char *name)
{
    for (Scope *s = S->scope; s; s = s->parent)
        for (int i = s->nrules - 1; i >= 0; i--)
            if (!strcmp(s->rules[i]->name, name)) return s->rules[i];
    return NULL;
}

/* ---- types -------------------------------------------------------------- */
Type *sema_resolve_type(Sema *S, Type *t)
{
    if (!t) return ty_basic(TY_INT, false);
    if (t->kind == TY_OPAQUE && t->name) {
        Obj *o = sema_find_obj(S, t->name);
        if (o && o->is_typedef) {
            if (!t->is_const) return o->ty;
            Type *c = lang_alloc(sizeof *c);
            *c = *o->ty;
            c->is_const = true;
            return c;
        }
        static const struct { const char *name; TypeKind k; bool u; } std[] = {
            {"uint8_t", TY_CHAR, true}, {"int8_t", TY_CHAR, false}, {"uint16_t", TY_SHORT, true},
            {"int16_t", TY_SHORT, false}, {"uint32_t", TY_INT, true}, {"int32_t", TY_INT, false},
            {"uint64_t", TY_LONG, true}, {"int64_t", TY_LONG, false}, {"size_t", TY_LONG, true},
            {"ptrdiff_t", TY_LONG, false}, {"ssize_t", TY_LONG, false}, {"bool", TY_BOOL, false},
            {"intptr_t", TY_LONG, false}, {"uintptr_t", TY_LONG, true},
        };
        for (size_t i = 0; i < sizeof std / sizeof *std; i++)
            if (!strcmp(t->name, std[i].name)) {
                Type *r = ty_basic(std[i].k, std[i].u);
                r->is_const = t->is_const;
                return r;
            }
        return t;
    }
    if (t->kind == TY_PTR || t->kind == TY_ARRAY || t->kind == TY_MATRIX || t->kind == TY_FUNC || t->kind == TY_PYRAMID) {
        Type *c = lang_alloc(sizeof *c);
        *c = *t;
        c->base = sema_resolve_type(S, t->base);
        return c;
    }
    return t;
}

Type *sema_small_type(Type *elem, int rows, int cols)
{
    Type *t = lang_alloc(sizeof *t);
    t->kind = TY_SMALL;
    t->base = elem;
    t->rows = rows;
    t->cols = cols;
    return t;
}

/* Unrolling a small-matrix expression prints every term of every element:
 * keep that bounded (a chain of products grows geometrically). */
enum { MAX_UNROLL_TERMS = 4096 };
/* Record the terms per element of n, reporting once when too many. */
void sema_set_cost3(Node *n, long c, Node *a, Node *b)
{
    if (c > MAX_UNROLL_TERMS) {
        bool reported = (a && a->cost > MAX_UNROLL_TERMS) || (b && b->cost > MAX_UNROLL_TERMS);
        if (!reported)
            diag_error_tok(n->tok, "this small-matrix expression unrolls to more than %d terms per element",
                           MAX_UNROLL_TERMS);
        c = MAX_UNROLL_TERMS + 1;
    }
    n->cost = c;
}

/* ---- declarations --------------------------------------------------------- */
static Obj *declare(Sema *S, Node *d, Type *ty, bool is_param)
{
    Obj *o = lang_alloc(sizeof *o);
    o->name = d->name;
    o->tok = d->tok;
    o->ty = ty;
    o->is_param = is_param;
    o->is_global = S->scope->parent == NULL;
    o->is_local_to_iter = S->iter != NULL;
    d->var = o;
    if (S->scope->parent) {
        for (int i = 0; i < S->scope->n; i++)
            if (!strcmp(S->scope->objs[i]->name, o->name) && !S->scope->objs[i]->is_func &&
                !o->is_global) {
                diag_error_tok(d->tok, "redefinition of '%s'", o->name);
                diag_note_tok(S->scope->objs[i]->tok, "'%s' was declared here", o->name);
                break;
            }
    }
    sema_add_obj(S, o);
    return o;
}

static void sema_matrix_decl(Sema *S, Node *d, Obj *o, bool is_param)
{
    Type *m = o->ty;
    for (int i = 0; i < m->ndim; i++) {
        m->dims[i] = sema_expr(S, m->dims[i]);
        if (m->dims[i] && m->dims[i]->ty && !ty_is_integer(m->dims[i]->ty) &&
            m->dims[i]->ty->kind != TY_OPAQUE)
            diag_error_tok(m->dims[i]->tok, "the size of '%s' must be an integer", o->name);
    }
    if (!ty_is_arith(m->base))
        diag_error_tok(d->tok, "the elements of parac_matrix '%s' must have an arithmetic type", o->name);
    o->is_ref = d->is_typedef || is_param;
    if (S->iter) {
        diag_error_tok(d->tok, "parac_matrix '%s' cannot be declared inside an iterator", o->name);
        return;
    }
    if (is_param) return;
    if (o->is_ref) {
        if (!d->init || d->init->kind == ND_INIT_LIST) {
            diag_error_tok(d->tok, "reference '%s' must be bound to C storage: &%s[...] = pointer;",
                           o->name, o->name);
            return;
        }
        o->bound = sema_expr(S, d->init);
        if (o->bound->kind == ND_VAR && o->bound->var) o->bound_obj = o->bound->var;
        Type *bt = o->bound->ty;
        if (bt && bt->kind != TY_PTR && bt->kind != TY_ARRAY && bt->kind != TY_OPAQUE)
            diag_error_tok(o->bound->tok, "reference '%s' must be bound to a pointer or an array", o->name);
        return;
    }
    if (d->init) {
        if (d->init->kind != ND_INIT_LIST) {
            diag_error_tok(d->init->tok, "initialise parac_matrix '%s' with { values }, or declare "
                           "a reference with '&' to bind it to C storage", o->name);
            return;
        }
        long count = 1;
        for (int i = 0; i < m->ndim; i++) {
            bool ok;
            long v = const_eval(m->dims[i], &ok);
            if (!ok || v <= 0 || v > PARAC_CONST_MAX_VALUES || count * v > PARAC_CONST_MAX_VALUES) {
                diag_error_tok(m->dims[i] ? m->dims[i]->tok : d->tok,
                               "constant matrix '%s' needs constant sizes of at most %d values in all", o->name,
                               PARAC_CONST_MAX_VALUES);
                return;
            }
            count *= v;
        }
        if (m->ndim > 2) {
            diag_error_tok(d->tok, "constant matrix '%s' has at most 2 dimensions", o->name);
            return;
        }
        long n = 0;
        for (Node *e = d->init->args; e; e = e->next) {
            n++;
            e = sema_expr(S, e);
        }
        /* re-link after sema (sema_expr returns nodes in place for literals) */
        if (n > count) {
            diag_error_tok(d->init->tok, "too many values for '%s': %ld given, %ld expected", o->name, n, count);
            return;
        }
        o->is_small_const = true;
        o->init = d->init;
        return;
    }
}

static void sema_decl(Sema *S, Node *n)
{
    Type *base = sema_resolve_type(S, n->cast_ty);
    (void)base;
    for (Node *d = n->decls; d; d = d->next) {
        if (!d->name) continue;
        Type *ty = sema_resolve_type(S, d->ty);
        Obj *o = declare(S, d, ty, false);
        if (n->is_typedef) {
            o->is_typedef = true;
            continue;
        }
        if (ty->kind == TY_MATRIX) {
            sema_matrix_decl(S, d, o, false);
            continue;
        }
        if (ty->kind == TY_PYRAMID) {
            sema_pyramid_decl(S, d, o);
            continue;
        }
        if (ty->kind == TY_FUNC) {
            o->is_func = true;
            continue;
        }
        if (d->init) {
            if (d->init->kind == ND_INIT_LIST) {
                for (Node **e = &d->init->args; *e; e = &(*e)->next) {
                    Node *nx = (*e)->next;
                    *e = sema_expr(S, *e);
                    (*e)->next = nx;
                }
            } else {
                d->init = sema_expr(S, d->init);
                if (is_small(d->init))
                    diag_error_tok(d->init->tok, "a %dx%d matrix value cannot initialise scalar '%s'",
                                   d->init->ty->rows, d->init->ty->cols, o->name);
                if (is_matrix(d->init) && ty->kind != TY_PTR && d->init->kind != ND_LEVEL)
                    diag_error_tok(d->init->tok, "parac_matrix '%s' used as a scalar value", d->init->var ? d->init->var->name : "?");
            }
        }
    }
}

/* ---- statements ------------------------------------------------------------ */
void sema_stmt(Sema *S, Node *n)
{
    if (!n) return;
    switch (n->kind) {
    case ND_BLOCK: {
        const int since_loop = S->mats_since_loop, since_target = S->mats_since_break_target;
        sema_push_scope(S);
        for (Node *s = n->args; s; s = s->next) sema_stmt(S, s);
        sema_pop_scope(S);
        S->mats_since_loop = since_loop;
        S->mats_since_break_target = since_target;
        break;
    }
    case ND_DECL:
        sema_decl(S, n);
        if (!S->iter)
            for (Node *d = n->decls; d; d = d->next)
                if (d->var && d->var->ty && (d->var->ty->kind == TY_MATRIX || d->var->ty->kind == TY_PYRAMID) &&
                    !d->var->is_small_const) {
                    S->mats_since_loop++;
                    S->mats_since_break_target++;
                    S->mats_in_func++;
                    S->last_mat = d->var->name;
                }
        break;
    case ND_EXPR_STMT:
        if (n->lhs && n->lhs->kind == ND_ASSIGN) {
            n->lhs = sema_expr(S, n->lhs);
            if (sema_whole_image_stmt(S, n)) break;
        } else
            n->lhs = sema_expr(S, n->lhs);
        if (n->whole_rule_name)
            diag_error_tok(n->rule_tok, "parac_border_rule(...) after a statement needs a whole-image assignment Dst = ...");
        if (n->lhs && is_matrix(n->lhs) && n->lhs->kind != ND_VAR)
            diag_error_tok(n->lhs->tok, "whole-matrix expression must be assigned to a parac_matrix");
        break;
    case ND_IF:
        n->cond = sema_expr(S, n->cond);
        sema_stmt(S, n->then);
        sema_stmt(S, n->els);
        break;
    case ND_WHILE: case ND_DO: {
        n->cond = sema_expr(S, n->cond);
        const int since_loop = S->mats_since_loop, since_target = S->mats_since_break_target;
        S->mats_since_loop = S->mats_since_break_target = 0;
        S->loop_depth++;
        sema_stmt(S, n->body);
        S->loop_depth--;
        S->mats_since_loop = since_loop;
        S->mats_since_break_target = since_target;
        break;
    }
    case ND_FOR: {
        sema_push_scope(S);
        if (n->init) sema_stmt(S, n->init);
        n->cond = sema_expr(S, n->cond);
        n->inc = sema_expr(S, n->inc);
        const int since_loop = S->mats_since_loop, since_target = S->mats_since_break_target;
        S->mats_since_loop = S->mats_since_break_target = 0;
        S->loop_depth++;
        sema_stmt(S, n->body);
        S->loop_depth--;
        S->mats_since_loop = since_loop;
        S->mats_since_break_target = since_target;
        sema_pop_scope(S);
        break;
    }
    case ND_SWITCH: {
        n->cond = sema_expr(S, n->cond);
        const int since_target = S->mats_since_break_target;
        S->mats_since_break_target = 0;
        S->loop_depth++;
        sema_stmt(S, n->body);
        S->loop_depth--;
        S->mats_since_break_target = since_target;
        break;
    }
    case ND_CASE:
        n->lhs = sema_expr(S, n->lhs);
        break;
    case ND_RETURN:
        if (S->iter) diag_error_tok(n->tok, "'return' inside iterator '%s': an iteration cannot leave the region", S->iter->name);
        n->lhs = sema_expr(S, n->lhs);
        if (n->lhs && (is_small(n->lhs)))
            diag_error_tok(n->lhs->tok, "a small matrix cannot be returned");
        break;
    case ND_BREAK: case ND_CONTINUE:
        if (S->iter && S->loop_depth == 0)
            diag_error_tok(n->tok, "'%s' outside a loop inside iterator '%s' (use 'if' to skip work)",
                           n->kind == ND_BREAK ? "break" : "continue", S->iter->name);
        if (!S->iter && (n->kind == ND_BREAK ? S->mats_since_break_target : S->mats_since_loop) > 0)
            diag_error_tok(n->tok, "'%s' leaves the block that declares parac_matrix '%s', which would not be "
                           "released (declare it outside the loop)", n->kind == ND_BREAK ? "break" : "continue",
                           S->last_mat);
        break;
    case ND_GOTO: case ND_LABEL:
        if (S->iter) diag_error_tok(n->tok, "goto and labels are not allowed inside an iterator");
        else if (n->kind == ND_GOTO && !S->first_goto)
            S->first_goto = n;
        break;
    case ND_ITERATOR:
        sema_iterator(S, n);
        break;
    case ND_BORDER_RULE:
        sema_rule(S, n);
        break;
    default:
        break;
    }
}

static void sema_func(Sema *S, Node *f)
{
    Obj *fo = sema_find_obj(S, f->name);
    if (!fo) {
        Node d = {0};
        d.name = f->name;
        d.tok = f->tok;
        fo = declare(S, &d, f->ty, false);
        fo->is_func = true;
    }
    fo->func_def = f;
    fo->ty = f->ty;
    f->var = fo;
    f->ty->base = sema_resolve_type(S, f->ty->base);
    S->func = f;
    S->mats_since_loop = S->mats_since_break_target = S->mats_in_func = 0;
    S->first_goto = NULL;
    sema_push_scope(S);
    for (Node *p = f->ty->params; p; p = p->next) {
        if (!p->name) continue;
        Type *ty = sema_resolve_type(S, p->ty);
        p->ty = ty;
        Obj *o = declare(S, p, ty, true);
        if (ty->kind == TY_MATRIX) sema_matrix_decl(S, p, o, true);
        if (ty->kind == TY_PYRAMID) sema_pyramid_decl(S, p, o);
    }
    sema_stmt(S, f->body);
    if (S->first_goto && S->mats_in_func > 0)
        diag_error_tok(S->first_goto->tok, "goto in a function that declares parac_matrix '%s': a jump could skip "
                       "its allocation or its release", S->last_mat);
    sema_pop_scope(S);
    S->func = NULL;
}

void sema_program(Program *prog)
{
    Sema S = {0};
    S.prog = prog;
    sema_collect_macros(prog);
    sema_push_scope(&S);
    for (Node *n = prog->top; n; n = n->next) {
        switch (n->kind) {
        case ND_FUNC:
            sema_func(&S, n);
            break;
        case ND_DECL:
            if (n->decls && n->decls->ty && n->decls->ty->kind == TY_FUNC && !n->is_typedef) {
                for (Node *d = n->decls; d; d = d->next) {
                    Obj *o = sema_find_obj(&S, d->name);
                    if (!o) {
                        o = declare(&S, d, sema_resolve_type(&S, d->ty), false);
                        o->is_func = true;
                    }
                    d->var = o;
                }
            } else
                sema_decl(&S, n);
            break;
        case ND_VERBATIM:
            for (Node *d = n->decls; d; d = d->next) {
                if (!d->name) continue;
                Obj *o = declare(&S, d, d->ty, false);
                o->is_typedef = n->is_typedef;
            }
            break;
        case ND_BORDER_RULE:
            sema_rule(&S, n);
            break;
        default:
            break;
        }
    }
}
