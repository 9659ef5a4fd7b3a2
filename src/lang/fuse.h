/* Helpers shared by the fusion passes (fuse.c: point stages;
 * fuse_stencil.c: a stencil stage recomputed inside the stencil that reads it). */
#ifndef PARAC_LANG_FUSE_H
#define PARAC_LANG_FUSE_H

#include "lang/lang.h"

/* How a copied body is rewritten: the iterator `from`'s indices become
 * `to`'s (or, where to_expr[axis] is set, copies of that expression), its
 * first `lead` axes constants, and reads of `mat` reads of `scalar`. */
typedef struct Subst {
    Iterator *from, *to;
    int lead;
    long lead_val[3];
    Obj *mat, *scalar;
    Node *to_expr[3];
} Subst;

Node *fuse_copy_node(Node *n, const Subst *s);

/* The matrices a statement writes and reads (overflow: too many to list). */
typedef struct Touch {
    Obj *written[32], *read[32];
    int nwritten, nread;
    bool overflow;
} Touch;
void fuse_touches(Node *n, Touch *t, int depth);
bool fuse_listed(Obj *const *list, int n, const Obj *o);

/* How often o is mentioned in n (accesses, plain names, border rules about it). */
int fuse_mentions(Node *n, const Obj *o, int depth);
/* The same expression, node for node (range bounds of two iterators). */
bool fuse_same_expr(const Node *a, const Node *b);
/* The same, with m's objects b read as its objects a (the arms of a branch,
 * each declaring its own; if_convert.c). */
typedef struct FuseVarMap {
    Obj *a[16], *b[16];
    int n;
} FuseVarMap;
bool fuse_same_expr_as(const Node *a, const Node *b, const FuseVarMap *m, int depth);
/* The statement of p's body that writes m at p's point, when it is the only mention. */
Node *fuse_producer_write(Iterator *p, const Obj *m);
/* The declaration statement of m in n, and the declarator before it. */
Node *fuse_find_decl(Node *n, const Obj *m, Node **prev, int depth);
bool fuse_declares_name(Node *body, const char *name);
/* n itself assigns: =, op=, ++, -- or a comma (whose value hides one). */
bool fuse_assigns(const Node *n);
bool fuse_uses_name_declared_in(Node *n, Node *body, int depth);
/* Every iterator index in n is one of it's (and there is one). */
bool fuse_mentions_iter(const Node *n, const Iterator *it);

/* fuse_stencil.c: p iterates m's whole space (from 0, stride 1, to its sizes). */
bool fuse_covers_whole(const Iterator *p, const Obj *m);
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

/* fuse.c: the fusion passes over one block of function f. */
void fuse_run_block(const CompileOptions *opt, Node *f, Node *block, bool stencils, bool stages);

/* fuse_choice.c: fusion checked by the search. Before fusing function f:
 * its iterators numbered (Iterator.members) and copied as they are; iterator
 * `into` now stands for `from` too (fuse_absorb); after: every iterator that
 * fusion changed made a choice between it and less fused alternatives. */
void *fuse_choices_begin(Node *f);
void fuse_absorb(Iterator *into, const Iterator *from);
void fuse_choices_end(void *ctx, const CompileOptions *opt, bool stencils);

#endif
