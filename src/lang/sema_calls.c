/* Host calls that pass matrices to functions of this file.
 *
 * A function's matrix parameter is, for callers outside the file, a pointer
 * to rows packed one after another in host memory. A matrix of the caller
 * may have padded rows and live on the device only (a declared matrix), so
 * calls inside the file use another entry point, parac__m_NAME
 * (emit_host.c), which takes each matrix with its sizes, its pitch and, on
 * the device targets, its device copy: the callee's kernels read the data
 * where it is, and the callee checks at run time that the sizes its
 * parameter declares are those of the matrix passed.
 *
 * A call uses that entry point when every matrix parameter receives a
 * matrix (by name) of the parameter's element type and shape. Otherwise a
 * matrix argument must be one with packed host rows (a parameter or a
 * matrix bound to C storage), as for functions defined elsewhere; a
 * declared matrix there is an error. So is one matrix passed to two matrix
 * parameters of one call: the callee's iterators take its matrices to be
 * distinct (one writes while another reads), and with one device copy
 * behind both they would not be. */
#include <string.h>

#include "lang/lang.h"

static bool is_matrix_obj(const Obj *o) { return o && o->ty && o->ty->kind == TY_MATRIX && !o->is_small_const; }

static const char *shape_name(const Type *t)
{
    return t->is_vector ? "vector" : t->ndim == 3 ? "3-D matrix" : t->ndim == 2 ? "matrix" : "1-D matrix";
}

static const char *article(const char *word) { return strchr("aeiou", word[0]) ? "an" : "a"; }

/* A matrix argument: a matrix by name, or a pyramid's level P[l]. */
static const Type *arg_matrix_type(const Node *a)
{
    if (a->kind == ND_LEVEL) return a->ty;
    return a->kind == ND_VAR && is_matrix_obj(a->var) ? a->var->ty : NULL;
}

static const char *arg_name(const Node *a)
{
    return a->kind == ND_LEVEL ? lang_format("%s[...]", a->var->name) : a->var->name;
}

static void refuse_declared(Node *a, const char *callee)
{
    if (a->kind == ND_LEVEL) {
        diag_error_tok(a->tok, "'%s[...]' is a level of a pyramid (its rows padded, its data possibly on the device "
                       "only) and cannot be passed to '%s': pass it to a function of this file whose matrix "
                       "parameters all receive matrices", a->var->name, callee);
        return;
    }
    Obj *m = a->kind == ND_VAR ? a->var : NULL;
    if (is_matrix_obj(m) && !m->is_param && !m->is_ref)
        /* the callee takes packed rows in host memory; a declared matrix has padded rows and may
         * live on the device only */
        diag_error_tok(a->tok, "'%s' is a matrix declared in this function (its rows padded, its data possibly on "
                       "the device only) and cannot be passed to '%s', which takes rows one after another "
                       "in host memory; pass a matrix bound to C storage (parac_matrix &M[..] = pointer) "
                       "or a parameter, or call a function of this file with matrices for all its matrix "
                       "parameters", m->name, callee);
}

/* A call of f (defined in this file): the handle entry point when every
 * matrix parameter gets a matrix that fits it. */
static void check_call(Node *n, Obj *fo)
{
    Node *f = fo->func_def;
    bool any = false, all = true, fits = true;
    Node *a = n->args;
    for (Node *q = f->ty->params; q && a; q = q->next, a = a->next) {
        if (!q->var || q->var->ty->kind != TY_MATRIX) continue;
        any = true;
        const Type *mt = arg_matrix_type(a);
        if (!mt) {
            all = false;
            continue;
        }
        const Type *pt = q->var->ty;
        const char *pe = ty_c_name(pt->base, false), *me = ty_c_name(mt->base, false);
        if (strcmp(pe, me) || pt->ndim != mt->ndim || pt->is_vector != mt->is_vector) {
            diag_error_tok(a->tok, "'%s' is %s %s %s and parameter '%s' of '%s' takes %s %s %s", arg_name(a), article(me), me,
                           shape_name(mt), q->var->name, fo->name, article(pe), pe, shape_name(pt));
            fits = false;
        }
    }
    if (!any) return;
    if (!all || !fits) {
        if (!all) {
            fo->plain_called = true;
            for (a = n->args; a; a = a->next) refuse_declared(a, fo->name);
        }
        return;
    }
    a = n->args;
    for (Node *q = f->ty->params; q && a; q = q->next, a = a->next) {
        if (!q->var || q->var->ty->kind != TY_MATRIX) continue;
        for (Node *b = n->args; b != a; b = b->next)
            if (b->handle_param && b->var == a->var && a->kind == ND_LEVEL && b->kind == ND_LEVEL) {
                /* two levels of one pyramid: distinct unless the indices are equal, checked at run time
                 * against each earlier one (the nearest, whose own twin is the one before) */
                a->level_twin = b;
            } else if (b->handle_param && b->var == a->var) {
                diag_error_tok(a->tok, "'%s' is passed to '%s' twice (as '%s' and '%s'): its iterators take their "
                               "matrices to be distinct; pass a copy", a->var->name, fo->name, b->handle_param->name,
                               q->var->name);
                return;
            }
        a->handle_param = q->var;
        /* both ends keep a device copy: the callee uses the caller's */
        a->var->used_in_kernel = true;
        q->var->used_in_kernel = true;
    }
    n->handle_call = true;
    fo->handle_variant = true;
}

/* Calls inside iterators (and border values) run in the kernels, where a
 * matrix is the device copy with the pitch of its rows: a callee taking it as
 * a pointer to packed rows would read the wrong elements. */
static void walk_kernel(Node *n, int depth)
{
    if (!n || depth > 400) return;
    if (n->kind == ND_CALL)
        for (Node *a = n->args; a; a = a->next)
            if (a->kind == ND_VAR && is_matrix_obj(a->var))
                diag_error_tok(a->tok, "matrix '%s' passed to '%s' inside an iterator: in a kernel a function takes "
                               "numbers, not matrices; read the elements in the iterator and pass their values",
                               a->var->name, n->name ? n->name : "a function");
    NodeKids k = {.n = n};
    for (Node *c; (c = lang_next_kid(&k));) walk_kernel(c, depth + 1);
}

static void walk(Node *n, int depth)
{
    if (!n || depth > 400) return;
    if (n->kind == ND_ITERATOR || n->kind == ND_BORDER_RULE) {
        walk_kernel(n->body, depth + 1);
        for (BorderEntry *e = n->rule ? n->rule->entries : NULL; e; e = e->next) walk_kernel(e->value, depth + 1);
        return;
    }
    if (n->kind == ND_CALL && n->lhs && n->lhs->kind == ND_VAR) {
        Obj *fo = n->lhs->var;
        if (fo && fo->func_def) check_call(n, fo);
        else
            for (Node *a = n->args; a; a = a->next) refuse_declared(a, n->name ? n->name : "the function");
        for (Node *a = n->args; a; a = a->next) walk(a, depth + 1);
        return;
    }
    /* a function's name anywhere but called: its address, a plain entry point */
    if (n->kind == ND_VAR && n->var && n->var->func_def) n->var->plain_called = true;
    if (n->kind == ND_CALL) /* through a pointer: nothing known of the callee */
        for (Node *a = n->args; a; a = a->next) refuse_declared(a, "the function");
    NodeKids k = {.n = n};
    for (Node *c; (c = lang_next_kid(&k));) walk(c, depth + 1);
}

void sema_check_matrix_calls(Program *prog)
{
    for (Node *n = prog->top; n; n = n->next)
        if (n->kind == ND_FUNC) walk(n->body, 0);
        else if (n->kind == ND_DECL) walk(n, 0);
}
