/* The semantic analysis pass's files (sema_program in sema.c is its entry
 * point): the state they share and what they ask of each other. */
#ifndef PARAC_LANG_SEMA_H
#define PARAC_LANG_SEMA_H

#include "lang/lang.h"

typedef struct Scope {
    struct Scope *parent;
    Obj **objs;
    int n, cap;
    BorderRule **rules;
    int nrules, caprules;
} Scope;

typedef struct Sema {
    Program *prog;
    Scope *scope;
    Iterator *iter;       /* enclosing iterator */
    Scope *iter_scope;    /* scope opened by the iterator body */
    int loop_depth;       /* loops/switches inside the iterator body */
    /* Host code: matrices in scope declared since the innermost loop (for
     * continue) and loop or switch (for break), and in the function (for
     * goto). A jump out of their block would skip their release. */
    int mats_since_loop, mats_since_break_target, mats_in_func;
    const char *last_mat;
    Node *first_goto;     /* of the function, reported at its end if it declares a matrix */
    Node *func;
    int next_id;
    bool run_time_windows; /* typing an operator's arguments: windows may have run-time lengths */
    Node *call_arg;        /* the call argument being typed: P[l] may name a pyramid's level */
} Sema;

void sema_push_scope(Sema *S);
static inline void sema_pop_scope(Sema *S) { S->scope = S->scope->parent; }
Obj *sema_find_obj(Sema *S, const char *name);
void sema_add_obj(Sema *S, Obj *o);
void sema_add_rule(Sema *S, BorderRule *r);
BorderRule *sema_find_rule(Sema *S, const char *name);
Type *sema_resolve_type(Sema *S, Type *t);
Type *sema_small_type(Type *elem, int rows, int cols);
static inline bool is_small(Node *n) { return n && n->ty && n->ty->kind == TY_SMALL; }
static inline long cost_of(Node *n) { return n && n->cost > 0 ? n->cost : 1; }
void sema_set_cost3(Node *n, long c, Node *a, Node *b);
static inline bool is_matrix(Node *n) { return n && n->ty && n->ty->kind == TY_MATRIX; }
void sema_stmt(Sema *S, Node *n);
Node *sema_expr(Sema *S, Node *n);
void sema_rule(Sema *S, Node *n);
void sema_iterator(Sema *S, Node *n);
bool sema_whole_image_stmt(Sema *S, Node *n);
/* sema_windows.c: windows of run-time length */
void sema_window_length(Sema *S, Node *len);
const Node *sema_unresolved_name(const Node *n); /* a name without an object (a macro, an unknown name) */
Node *sema_run_time_window_op(Sema *S, Node *op, const char *name);
void sema_check_run_time_windows(Node *body);
/* sema_pyramids.c */
void sema_pyramid_decl(Sema *S, Node *d, Obj *o);
Node *sema_pyramid_access(Sema *S, Node *n, Node *base, Obj *py, bool call_arg);
static inline bool is_pyramid_obj(const Obj *o) { return o && o->ty && o->ty->kind == TY_PYRAMID; }

#endif
