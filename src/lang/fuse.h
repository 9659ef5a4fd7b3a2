/* The fusion pass's files (fuse_program in fuse.c, the driver, is the pass's
 * one entry point): what the driver asks of its parts (fuse_stencil.c: a
 * stencil stage recomputed inside the stencil that reads it; fuse_tile.c:
 * stages in local-memory tiles; fuse_choice.c: fusion checked by the
 * search), and their shared helpers (fuse_common.c). Calls go from the
 * driver to its parts to fuse_common.c, never back. */
#ifndef PARAC_LANG_FUSE_H
#define PARAC_LANG_FUSE_H

#include "lang/lang.h"

/* e is M[a0][a1].. with each a_d it's index first_axis + d (n indices). */
bool fuse_own_point(const Node *e, const Iterator *it, int first_axis, int n);
/* The statement of p's body that writes m at p's point, when it is the only mention. */
Node *fuse_producer_write(Iterator *p, const Obj *m);
/* The declaration statement of m in n, and the declarator before it. */
Node *fuse_find_decl(Node *n, const Obj *m, Node **prev, int depth);
/* Every iterator index in n is one of it's (and there is one). */
bool fuse_mentions_iter(const Node *n, const Iterator *it);

/* fuse_common.c: bounds a and b (of iterators, or declared sizes) of function
 * f have one value: the same text, whose variables nothing in f changes. */
bool fuse_same_bound(const Node *f, const Node *a, const Node *b);
/* p iterates m's whole space (from 0, stride 1, to its sizes). */
bool fuse_covers_whole(const Node *f, const Iterator *p, const Obj *m);
/* The mentions of m in the border-rule declarations about it in n; drop:
 * those declarations made empty statements. */
int fuse_rule_decls(Node *n, const Obj *m, bool drop, int depth);
/* The size `name` (Y_dI, a whole-image statement's bound) of a matrix t
 * touches: Y's declared size I, else n itself. */
const Node *fuse_declared_size(const Node *n, const Touch *t);

/* fuse_stencil.c: try to recompute the stencil stage pn inside the next
 * iterator cn; true when pn is gone (the caller unlinks it). */
bool fuse_stencil_pair(Node *f, Node *pn, Node *cn);

/* fuse_tile.c: stage the chain of stencil stages before iterator statement
 * cn of block into local-memory tiles of cn's work-groups; true when any was. */
bool fuse_stage_chain(const CompileOptions *opt, Node *f, Node *block, Node *cn);

/* fuse_loops.c: host loops whose body is one iterator run inside its kernel. */
void fuse_loops_into_kernels(Node *f);

/* fuse_common.c: iterator `into` now stands for `from` too (Iterator.members). */
void fuse_absorb(Iterator *into, const Iterator *from);

/* fuse_choice.c: fusion checked by the search. Before fusing function f:
 * its iterators numbered (Iterator.members) and copied as they are; after:
 * every iterator that fusion changed made a choice between it and less
 * fused alternatives, which `refuse` (the driver's fusion of one block of
 * function f, with or without stencils and stages) makes from the copies. */
typedef void FuseBlockFn(const CompileOptions *opt, Node *f, Node *block, bool stencils, bool stages);
void *fuse_choices_begin(Node *f);
void fuse_choices_end(void *ctx, const CompileOptions *opt, bool stencils, FuseBlockFn *refuse);

#endif
