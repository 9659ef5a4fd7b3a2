/* The host back end's files (emit_host*.c): its state and what they share. */
#ifndef PARAC_LANG_EMIT_HOST_H
#define PARAC_LANG_EMIT_HOST_H

#include "lang/lang.h"

/* The state of one emit_host_program() call, reached through PrintCtx.host. */
struct HostEmitter {
    Program *prog;
    Target target;
    const char *file;  /* the source's name, for comments */
    Node *func;        /* the function being printed */
    Node *block;       /* the block a matrix declared now belongs to */
    /* matrices in scope, innermost last, each with the block that releases it */
    Obj **stack;
    Node **stack_block;
    int sp, cap;
    bool handles;      /* printing parac__m_NAME: matrix parameters are the caller's */
};

/* Whether the target has a device, and the runtime's prefixes in generated
 * code: parac_cl_* / PARAC_CL_* (parac/opencl.h) or parac_cu_* (parac/cuda.h). */
static inline bool host_ocl(const PrintCtx *p) { return target_has_device(p->host->target); }
static inline const char *host_rt(const PrintCtx *p) { return p->host->target == TARGET_CUDA ? "cu" : "cl"; }
static inline const char *host_RT(const PrintCtx *p) { return p->host->target == TARGET_CUDA ? "CU" : "CL"; }

/* emit_host_matrices.c */
void host_push_matrix(PrintCtx *p, Obj *o, Node *block); /* in scope until `block` ends */
void host_matrix_dims(PrintCtx *p, Obj *o);   /* NAME_d0..d2 */
void host_matrix_bind(PrintCtx *p, Obj *o);   /* its device copy (device targets) */
void host_matrix_unused(PrintCtx *p, Obj *o); /* no warnings where a size is not used */
/* o's device copy in generated code: &NAME_dev, or NAME_devp for a matrix
 * parameter of parac__m_NAME (the caller's) */
const char *host_dev(const PrintCtx *p, const Obj *o);
/* after a matrix argument of parac__m_NAME: its sizes and pitch, its device copy */
void host_print_matrix_extras(PrintCtx *p, Obj *o);
void host_decl_matrix(PrintCtx *p, Node *d);
void host_block_end(PrintCtx *p, Node *block);
void host_release_all(PrintCtx *p);           /* every matrix in scope (the public wrapper's end) */
void host_mark_param_use(Program *prog);      /* host_used of the parac__m_NAME parameters */
bool host_needs_wrap(PrintCtx *p, Node *n);
void host_before_stmt(PrintCtx *p, Node *n);
void host_after_stmt(PrintCtx *p, Node *n);
void host_cond_expr(PrintCtx *p, Node *e);
void host_before_return(PrintCtx *p, Node *ret);

/* emit_host_pyramids.c */
void host_decl_pyramid(PrintCtx *p, Node *d);
void host_release_pyramid(PrintCtx *p, Obj *o);
void host_print_level_arg(PrintCtx *p, Node *a); /* P[l] as an argument of parac__m_NAME, with its extras */

/* emit_host_rules.c: the entries an iterator's reads reach read inside their matrices (run time) */
void host_check_rule_values(PrintCtx *p, const Region *r);
/* emit_host_loops.c: reach i's run-time reach along axis d, as host variables */
const char *host_run_time_reach(PrintCtx *p, const Region *r, int i, int d);

/* emit_host_loops.c */
void host_iterator(PrintCtx *p, Node *n);
/* A run of iterators in strips of rows starting at s: the statements
 * printed, 0 where s starts no such run. */
int host_strip_run(PrintCtx *p, Node *s);
/* emit_host_loops.c: the index variable of axis d, `base` plus counter parac_k<d> times the step */
void host_index_var(PrintCtx *p, Iterator *it, int d, const char *base);
/* emit_host_lanes.c: the lanes of a row (parac_lane0, parac_lane_lo and _hi
 * defined) as plan_lanes.c planned them, or around the whole body */
void host_print_lanes(PrintCtx *p, Region *r);

#endif
