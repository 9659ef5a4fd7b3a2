/* The printer's files (print.c, print_access.c): what they ask of each other. */
#ifndef PARAC_LANG_PRINT_H
#define PARAC_LANG_PRINT_H

#include "lang/lang.h"

static inline void out(PrintCtx *p, const char *s) { fputs(s, p->out); }
int print_expr_prec(Node *n); /* C precedence of n: parentheses only where needed */
void print_access(PrintCtx *p, Obj *m, Node **e, const long *add, int n, bool is_read);
static inline bool is_small_node(Node *n) { return n && n->ty && n->ty->kind == TY_SMALL; }
/* print_windows.c: operators over windows of run-time length, computed by
 * loops printed before their statement */
bool print_is_run_time_op(const Node *n);
bool print_has_run_time_ops(Node *e);
void print_run_time_loops(PrintCtx *p, Node *e);
/* print_access.c: inside an entry at every distance, what its distance stands for */
void print_distance(PrintCtx *p);

#endif
