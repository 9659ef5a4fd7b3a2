/* The ParaC compiler: declarations shared by its passes.
 *
 * compile.c runs the passes in order; each pass exports one entry point and
 * calls no other pass (a pass of several files keeps their shared
 * declarations in a private header: sema.h, parse.h, fuse.h, emit_host.h,
 * emit_kernels.h, print.h):
 *   tokenize.c            source text -> tokens (directive lines kept verbatim)
 *   macros.c              uses of macros that name matrices expanded in the tokens
 *   parse.c, parse_expr.c tokens -> AST (C plus ParaC productions)
 *   sema.c, sema_expr.c, sema_iter.c, sema_windows.c  scopes, types, ParaC rules, desugaring
 *   sema_writes.c         each iteration of an iterator writes elements of its own
 *   sema_macros.c         no macro left unexpanded names a matrix (the others reach the C compiler)
 *   sema_calls.c, sema_pyramids.c  host calls passing matrices and pyramids' levels to functions of the file
 *   if_convert.c          conditional assignments as selects, common statements hoisted
 *   fuse.c (fuse_stencil.c, fuse_tile.c, fuse_choice.c, fuse_common.c)  kernel fusion
 *   merge_launches.c      small independent iterators in one launch
 *   hast.c                AST -> HAST: parallel regions, accesses, border rules
 *   analysis.c            point / local block / global; ranges; reuse
 *   split.c               host / device: kernel arguments
 *   plan.c, plan_cache.c, fold_reduce.c, strips.c, plan_histograms.c,
 *   plan_local_arrays.c, plan_lanes.c   the optimisation plan
 *   explain.c, dump.c     --explain, --dump=ast|hast|analysis
 *   emit_kernels*.c       OpenCL C / CUDA C++ kernels
 *   emit_host*.c          host C (+ OpenMP, or calls of libparac's runtime)
 * and the modules every pass may ask: arena.c (memory), diag.c (messages),
 * types.c, walk.c (a node's children), tree.c (nodes made, copied, compared,
 * queried), ir.c (regions, stages, affine forms), border_rules.c (the rules
 * an iterator reads through, one a matrix), options.c (the flags),
 * print.c / print_access.c / print_windows.c (C and kernel text from the tree).
 * Memory comes from one arena freed by lang_reset(), so a compile leaks
 * nothing (the fuzzer runs many compiles in one process); the arena and the
 * diagnostics' counters are the only state outside the passes' contexts. */
#ifndef PARAC_LANG_H
#define PARAC_LANG_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ---- arena, strings --------------------------------------------------- */
void *lang_alloc(size_t size);           /* zeroed, never NULL (out of memory: see lang_on_oom) */
char *lang_strndup(const char *s, size_t n);
char *lang_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lang_reset(void);                   /* frees everything allocated */
/* Where lang_alloc jumps when no memory is left (lang_compile's handler);
 * returns the handler before. */
jmp_buf *lang_on_oom(jmp_buf *handler);
/* Tests: the n-th allocation from now fails (0: none; while n > 0 the
 * arena takes a chunk per allocation, so each is a point of failure); how
 * many failed. */
void lang_alloc_fail_after(long n);
long lang_alloc_failures(void);

/* ---- source files and diagnostics ------------------------------------- */
typedef struct SourceFile {
    const char *name;
    const char *text;  /* NUL-terminated */
    size_t len;
} SourceFile;

typedef struct Token Token;

typedef struct Diagnostics {
    FILE *out;     /* where messages go (stderr for paracc) */
    int errors;
    int max_errors;
} Diagnostics;

extern Diagnostics lang_diag;
void diag_error_at(const SourceFile *f, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_error_tok(const Token *tok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_note_tok(const Token *tok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool diag_too_many(void);

/* ---- tokens ----------------------------------------------------------- */
typedef enum {
    TK_IDENT,
    TK_KEYWORD,
    TK_PUNCT,
    TK_NUM,
    TK_STR,
    TK_CHAR,
    TK_DIRECTIVE, /* a whole preprocessor line, kept verbatim */
    TK_EOF
} TokenKind;

struct Token {
    TokenKind kind;
    Token *next;
    const char *loc; /* points into the source text */
    int len;
    int line, col;
    const SourceFile *file;
    bool is_float;   /* TK_NUM */
    long long ival;  /* TK_NUM, integer value when !is_float */
    double fval;
};

bool tok_is(const Token *tok, const char *s); /* tree.c */
char *tok_text(const Token *tok);            /* tree.c */

/* ---- types ------------------------------------------------------------ */
typedef enum {
    TY_VOID, TY_BOOL, TY_CHAR, TY_SHORT, TY_INT, TY_LONG, TY_LLONG,
    TY_FLOAT, TY_DOUBLE, TY_LDOUBLE,
    TY_OPAQUE,  /* struct/union/enum or a typedef from a header: passed through */
    TY_PTR, TY_ARRAY, TY_FUNC,
    TY_MATRIX,  /* parac_matrix / parac_vector */
    TY_PYRAMID, /* parac_pyramid: base is level 0's TY_MATRIX, array_len the number of levels */
    TY_SMALL    /* a small matrix value E[m][n]: a window, a constant matrix, a product */
} TypeKind;

typedef struct Node Node;
typedef struct Type Type;

struct Type {
    TypeKind kind;
    bool is_unsigned;
    bool is_const;
    const char *name;  /* TY_OPAQUE: spelling ("struct foo", "FILE") */
    Type *base;        /* PTR, ARRAY, FUNC (return), MATRIX/SMALL element */
    Node *array_len;   /* ARRAY: may be NULL */
    /* MATRIX */
    int ndim;          /* 1..3 */
    Node *dims[3];
    bool is_vector;
    /* SMALL */
    int rows, cols;
    /* FUNC */
    Node *params;      /* list of ND_PARAM */
    bool variadic;
};

Type *ty_basic(TypeKind k, bool is_unsigned);
bool ty_is_integer(const Type *t);
bool ty_is_float(const Type *t);
bool ty_is_arith(const Type *t);
bool ty_is_scalar(const Type *t); /* arithmetic or pointer or opaque */
int ty_rank(const Type *t);       /* for the usual arithmetic conversions */
Type *ty_common(Type *a, Type *b);
/* C spelling of a scalar type; opencl = OpenCL C spelling (long long -> long). */
const char *ty_c_name(const Type *t, bool opencl);
size_t ty_size(const Type *t);     /* basic types only, 0 if unknown */

/* ---- AST -------------------------------------------------------------- */
typedef enum {
    /* expressions */
    ND_NUM, ND_STR, ND_CHARLIT, ND_VAR, ND_BINARY, ND_ASSIGN, ND_UNARY, ND_POSTFIX,
    ND_COND, ND_COMMA, ND_CALL, ND_INDEX, ND_MEMBER, ND_CAST, ND_SIZEOF_TYPE,
    ND_SIZEOF_EXPR, ND_INIT_LIST,
    /* ParaC expressions */
    ND_SLICE,      /* start:len:stride inside [] */
    ND_WILDCARD,   /* '*' index inside a border rule */
    ND_MAT_ELEM,   /* M[i][j] on a matrix (after sema) */
    ND_WINDOW,     /* M[i:l:s][j:l:s] (after sema) */
    ND_PARAC_OP,   /* parac_matrix_sum/min/max/mean, parac_convolution */
    ND_TRANSE,     /* transe(m) */
    ND_EWMUL,      /* a .* b */
    ND_ITER_INDEX, /* itx / ity / itz */
    ND_LEVEL,      /* P[l]: a level of a parac_pyramid, an argument of a host call (sema_calls.c) */
    /* statements */
    ND_BLOCK, ND_EXPR_STMT, ND_DECL, ND_IF, ND_FOR, ND_WHILE, ND_DO, ND_RETURN,
    ND_BREAK, ND_CONTINUE, ND_SWITCH, ND_CASE, ND_DEFAULT, ND_GOTO, ND_LABEL, ND_NULL_STMT,
    ND_ITERATOR, ND_BORDER_RULE,
    /* top level */
    ND_FUNC, ND_DIRECTIVE, ND_VERBATIM, ND_PARAM
} NodeKind;

/* OP_KTH: parac_matrix_kth(window, k), the k-th smallest (from 0);
 * OP_MEDIAN: the middle one of an odd count. Both only on windows and
 * constant small matrices inside iterators. */
typedef enum { OP_SUM, OP_MIN, OP_MAX, OP_MEAN, OP_CONV, OP_KTH, OP_MEDIAN } ParacOpKind;

typedef struct Obj Obj;
typedef struct Iterator Iterator;
typedef struct BorderRule BorderRule;

struct Node {
    NodeKind kind;
    Node *next;       /* sibling in lists */
    Token *tok;       /* for locations */
    Type *ty;         /* after sema: type of an expression */
    const char *op;   /* operator spelling (BINARY, ASSIGN, UNARY, POSTFIX, MEMBER) */
    Node *lhs, *rhs;  /* binary operands; UNARY/POSTFIX/CAST/... operand in lhs */
    Node *cond, *then, *els, *init, *inc, *body; /* statements, COND */
    Node *args;       /* CALL arguments, INIT_LIST elements, BLOCK statements */
    Node *idx[3];     /* INDEX chain flattened by sema into MAT_ELEM / WINDOW */
    int nidx;
    Type *cast_ty;    /* CAST, SIZEOF_TYPE, DECL base type */
    const char *name; /* VAR/CALL/MEMBER/LABEL/FUNC/ITERATOR names */
    Obj *var;         /* VAR, MAT_ELEM, WINDOW, DECL */
    Node *decls;      /* DECL: list of ND_DECL declarators (each with var, init) */
    ParacOpKind pop;  /* PARAC_OP */
    int axis;         /* ITER_INDEX: 0,1,2 */
    Iterator *iter;   /* ITERATOR, ITER_INDEX */
    BorderRule *rule; /* BORDER_RULE */
    Node *whole_rule_name; /* expression statement with parac_border_rule(name) */
    Token *rule_tok;
    const char *text; /* DIRECTIVE, VERBATIM */
    int reduction_id; /* independent operator: its host temporary */
    long cost;        /* small-matrix value: terms per unrolled element */
    /* a stencil stage's value recomputed where a later stage reads it
     * (fuse_stencil.c): which fusion (0: none) and at which offset from the
     * reader's point (rows, columns); plan_cache.c caches such values */
    int fc_group;
    long fc_off[2];
    bool is_static, is_extern, is_inline, is_typedef;
    /* ASSIGN +=, -= or ++ / -- of a matrix element that several iterations
     * may update (a histogram's hist[v] += 1; a sum into shared elements):
     * printed as the target's atomic add (sema_writes.c) */
    bool atomic_update;
    /* the same updates of elements of any type at an index from data, where
     * indices beside it follow every axis of the iterator (acc[x][y][bin] +=
     * v): each iteration's elements are its own, so the update is plain; the
     * matrix is read and written nowhere else in the iterator, as for an
     * atomic update (sema_writes.c) */
    bool scatter_own;
    /* a host call of a function of this file whose matrix arguments are all
     * matrices: it calls parac__m_NAME, which takes each with its sizes, pitch
     * and device copy (sema_calls.c, emit_host.c) */
    bool handle_call;
    Obj *handle_param; /* an argument of such a call: the parameter it binds */
    /* an operator over a window of run-time length: the local its loop
     * computed the value into, while its statement prints (print.c) */
    const char *hoisted;
    bool whole_vector; /* SLICE: a parac_vector taken whole as a convolution's filter (sema_windows.c) */
    /* LEVEL: an earlier argument of the same call that is a level of the same
     * pyramid (the two indices are checked to differ at run time) */
    Node *level_twin;
};

struct Obj {
    const char *name;
    Type *ty;
    Token *tok;
    bool is_param, is_global, is_local_to_iter, is_func, is_typedef;
    /* ParaC matrices */
    bool is_ref;        /* bound to C storage */
    Node *bound;        /* the C expression it is bound to (refs, not params) */
    Obj *bound_obj;     /* the C variable named by `bound`, if it is one */
    Node *init;         /* constant small matrix initialiser (ND_INIT_LIST) */
    bool is_small_const;/* constant small matrix: values known, inlined */
    int table_id;       /* emit_kernels.c: a constant matrix of many values, a table of the
                           kernels' program (parac_tab<id>), not copied into each kernel */
    Node *func_def;     /* functions defined in this file */
    bool used_in_kernel;
    bool device_only;   /* emit_host.c: only kernels use it, no host storage */
    /* functions: called from this file with matrices (parac__m_NAME is
     * emitted), called otherwise too (NAME with packed host rows is needed) */
    bool handle_variant, plain_called;
    /* a matrix parameter of a function with parac__m_NAME: host code of the
     * function (or of a callee it passes the matrix to) reads or writes it */
    bool host_used;
    /* the C target: a declared matrix that only a run of strips uses, kept
     * as a ring of (strip + fold_span rounded up to a power of two) rows,
     * row x at x & NAME_mask (strips.c); fold_run: the run's first region */
    struct Region *fold_run;
    long fold_span;
    bool fold_threads; /* a ring per thread (strips.c: loops inside strips) */
    int id;
};

/* ---- HAST: parallel regions ------------------------------------------- */
typedef struct Range {
    Node *lb, *ub;   /* runtime expressions */
    long stride;     /* compile-time */
} Range;

/* A stage computed by the work-group of the iterator that reads it, into a
 * local-memory tile with the halo its readers need (fuse_tile.c): the
 * producer's M[px][py] = E over M's whole space, E evaluated at each cell
 * after `rule` (the rule M's readers read it through, or NULL) has mapped
 * cells outside M into it. */
typedef struct BorderEntry BorderEntry;
typedef struct Stage {
    Obj *m;
    Iterator *p;      /* the producer: E is in its indices */
    Node *e;
    BorderRule *rule;
    Node *rule_stmt;  /* the rule's declaration, dropped from the host code */
    long lo[2], hi[2];/* the tile's rows and columns beyond the work-group's outputs */
    long grow[2];     /* M's sizes less the reader's (a producer over a wider space: no rule then) */
    Node *steps;      /* the producer's declarations of locals before its write (printed in the
                       * kernel as written, then `value`), NULL: none; `e` has them inlined */
    Node *value;
    bool load;        /* m is a matrix in memory, loaded into the tile (E = m at p's point) */
} Stage;
enum { PARAC_MAX_STAGES = 4 };
/* border rules (about as many matrices) one iterator may name */
enum { PARAC_MAX_RULES = 8 };
/* Constant matrices: at most this many values (a table of 64 K entries); those
 * of more than PARAC_TABLE_MIN values are tables in the kernels' program
 * (device memory), the smaller ones arrays in each kernel, where constant
 * indices fold. */
enum { PARAC_CONST_MAX_VALUES = 65536, PARAC_TABLE_MIN = 65 };
/* The work-group of a staged iterator (plan.c): STAGE_WG_X x STAGE_WG_Y
 * work-items, STAGE_ROWS rows of outputs each (a tile of 32 x 64 outputs;
 * --rows-per-item sets the rows: lang_stage_rows) */
enum { STAGE_WG_X = 64, STAGE_WG_Y = 4, STAGE_ROWS = 8 };
typedef struct CompileOptions CompileOptions;

struct Iterator {
    const char *name;
    Token *tok;
    int ndim;
    Range r[3];
    bool iter_element;
    long elem[3];          /* iter_element: element size per axis */
    Node *rule_name;       /* parac_border_rule(a, b, ...): the first name (the rest chained by next), or NULL */
    /* the rules its reads go through, one per matrix (sema_iter.c merges
     * named rules about one matrix into one); `rule` is rules[0]. Passes
     * that handle a single rule leave an iterator with nrules > 1 alone. */
    BorderRule *rule;
    BorderRule *rules[PARAC_MAX_RULES];
    int nrules;
    Node *body;
    bool synthetic;        /* from a whole-image statement */
    const char *fused;     /* iterators fused into this one (fuse.c), for --explain */
    const char *merged;    /* iterators merged into this launch (merge_launches.c), for --explain */
    int selects;           /* conditional assignments made selects (if_convert.c) */
    int hoisted;           /* statements hoisted out of both arms of an if (if_convert.c) */
    int hoisted_loads;     /* matrix elements both arms of an if read, loaded before it (if_convert.c) */
    Stage stages[PARAC_MAX_STAGES]; /* computed into local-memory tiles first, in this order (fuse_tile.c) */
    int nstages;
    /* host loops moved inside (fuse_loops.c): the body's first nloops
     * statements are those loops, each the only statement of the one
     * before; `loops` says which, for --explain */
    int nloops;
    const char *loops;
    const char *loops_kept; /* why the one loop around it stays on the host, for --explain */
    /* fusion checked by the search (fuse_choice.c): the function's iterators
     * before fusion this one stands for (bit k: the k-th, 0 when untracked);
     * of an iterator in a fusion choice, the choice (from 1) and its
     * alternative (0: the model's fused one); on the model's, what the
     * search times against it, for --explain */
    unsigned long long members;
    int choice, alt;
    const char *alternatives;
    struct Region *region; /* filled by hast.c */
};

/* One border-rule entry: M[a][b] = expr (M[a][b][c] in 3-D) where each
 * index is '*', -k or +k. */
/* an entry at every distance d of a rule NAME(d) (M[*][-d] = ...): its side
 * is -PARAC_SIDE_ANY or +PARAC_SIDE_ANY, and so is the rule's width there */
enum { PARAC_SIDE_ANY = 1 << 20 };
typedef struct BorderEntry {
    int side[3];     /* per axis: 0 = '*', -k or +k (or +-PARAC_SIDE_ANY: at every distance) */
    Node *value;
    Token *tok;
    struct BorderEntry *next;
} BorderEntry;

struct BorderRule {
    const char *name;
    Token *tok;
    Obj *var;           /* the matrix the rule is about */
    Obj *dist;          /* NAME(d): the distance of its entries at every distance, or NULL */
    bool entries_checked; /* analysis looked at its entries' reads once */
    BorderEntry *entries;
    int width_lo[3], width_hi[3]; /* declared widths per axis */
};

/* Affine view of one index expression: coef * it<axis> + offset. */
typedef struct Affine {
    bool ok;      /* the expression has this form with constant offset */
    int axis;     /* iterator axis, -1 if constant */
    long coef;
    long offset;
} Affine;

enum { MAX_RUN_TIME_REACH = 4 };

/* A window of run-time length starting at coef * index + rest along an axis:
 * its reach past the element at coef * index is -rest before and
 * rest + (length - 1) * step after, which the host evaluates. */
typedef struct RunTimeReach {
    Node *rest, *len;
    long step;
} RunTimeReach;

/* How far a region's reads of a ruled matrix reach past it, per matrix
 * axis, and the index form that maps the axis to an iterator axis. */
typedef struct RuleReach {
    BorderRule *rule;
    bool everywhere;              /* a read of unknown reach (a run-time window): every iteration tests */
    int need_lo[3], need_hi[3];   /* border width needed per axis (at least, with run-time reaches) */
    Affine aff[3];                /* index form used to split the iteration space */
    RunTimeReach dyn[3][MAX_RUN_TIME_REACH]; /* the run-time windows' reaches per axis */
    int ndyn[3];
    int fixed_lo[3], fixed_hi[3]; /* on an axis with such windows, the other reads' reach (need: at least 1) */
} RuleReach;

/* One access of a matrix inside a region. */
typedef struct Access {
    Obj *var;
    Node *node;         /* MAT_ELEM or WINDOW */
    bool is_write;
    bool is_window;
    int ndim;
    Affine aff[3];
    long lo[3], hi[3];  /* offset range per dimension (window extent included) */
    struct Access *next;
} Access;

typedef enum { CLASS_POINT, CLASS_LOCAL_BLOCK, CLASS_GLOBAL } OpClass;

/* Reads of one row of a matrix by a coarsened work-item: the indices other
 * than the column fixed (coef * it<axis> + offset), the columns read from
 * lo to hi relative to each output's column. Loaded once as aligned vectors
 * into a private array (plan.c, emit_kernels.c). */
typedef struct LoadRow {
    Obj *var;
    Affine other[2];
    long lo, hi;
    long base;    /* the first loaded column relative to output 0's: a multiple of V */
    int nvec;     /* vectors of V elements loaded */
    int rv;       /* rows per work-item: its matrix's entry in Region.rowvars, or -1 */
} LoadRow;

/* Rows per work-item (the paper's vector parallelism along y): the rows of
 * one matrix that the R outputs of a work-item's column read, loaded once
 * for all of them: row offsets amin..amax from the first output's row,
 * columns from base (a multiple of V), nvec vectors of V. */
typedef struct RowVar {
    Obj *var;
    long amin, amax;
    long base;
    int nvec;
} RowVar;

/* Per-variable summary inside a region. */
typedef struct VarUse {
    Obj *var;
    bool read, written;
    bool chunk;              /* some access is a window (or a non-zero offset) */
    bool hreuse, vreuse;     /* neighbouring iterations share data along y / x */
    long lo[3], hi[3];       /* access range relative to the iteration point */
    bool range_known;
    struct VarUse *next;
} VarUse;

/* Work-group histograms (plan_histograms.c): the most elements of one
 * privatised matrix and of all of an iterator's (int words in local memory),
 * how many matrices, and the iterations per work-item along one axis. */
enum { PARAC_HIST_MAX = 4096, PARAC_HIST_TOTAL = 8192, PARAC_HIST_MATS = 4, PARAC_HIST_ROWS = 32 };
/* A work-item's arrays in local memory (plan_local_arrays.c): the most bytes
 * of a work-group's slices, and arrays of one iterator. */
enum { PARAC_LOCAL_ARRAY_BYTES = 32768, PARAC_LOCAL_ARRAYS = 8 };

typedef struct Region {
    int id;
    const char *kernel;      /* kernel / function name */
    Node *node;              /* ND_ITERATOR, or ND_PARAC_OP for a reduction */
    Iterator *iter;          /* NULL for an independent reduction */
    OpClass cls;
    Access *accesses;
    VarUse *vars;
    Obj **scalars;           /* host scalars used by value */
    int nscalars;
    Obj **mats;              /* matrices used */
    int nmats;
    Obj **consts;            /* constant small matrices used element-wise */
    int nconsts;
    Node **funcs;            /* file functions called from the body */
    int nfuncs;
    /* border: a rule applies, the interior has no tests; per rule of the
     * iterator (reach[i] is about iter->rules[i]) */
    bool has_border;
    RuleReach reach[PARAC_MAX_RULES];
    int nreach;
    /* reduction */
    Obj *red_var;
    ParacOpKind red_op;
    /* a reduction folded into this region's kernels (fold_reduce.c), and on
     * the reduction the region it is folded into */
    struct Region *fold_red, *fold_into;
    /* the optimisation plan (analysis.c: defaults; plan.c: the model) */
    int wg[3];               /* work-group shape */
    int vector_width;        /* outputs per work-item along the last iterator axis; 1 = scalar */
    bool use_local_tiles;    /* the rows of rowvars go through local-memory tiles (plan.c) */
    long tile_bytes;         /* their size per work-group, 0 where tiles cannot apply */
    const char *why_tiles;
    /* the search's other candidates for this region (one-launch regions at
     * -O2): the same region planned otherwise, each its own kernel */
    struct Region *variants[4];
    int nvariants;
    const char *variant_what; /* of a variant: what differs from the model's plan */
    bool one_launch;         /* the interior and the border boxes in one kernel (plan.c) */
    Node *merge_lhs[8];      /* point writes whose V stores become one vector store each */
    int nmerge;
    const char *why_vector;  /* the model's reasons, for --explain */
    const char *why_merge;
    LoadRow loads[16];       /* rows read through vector loads */
    int nloads;
    const char *why_loads;
    int rows_per_item;       /* outputs per work-item along the first axis (2D, coarsened kernels); 1 = one */
    bool whole_items;        /* V > 1: a work-item whose outputs all lie inside runs them untested (-fwhole-items) */
    RowVar rowvars[8];
    int nrowvars;
    const char *why_rows;
    /* recomputed stencil values computed once per loaded row and column
     * into parac_fc<k>[row][column] (plan_cache.c, emit_kernels.c) */
    struct FusedCache {
        int group;
        Node *rep[8];         /* rep[o + 3]: a copy at row offset o, -3..3 (NULL where none) */
        long omin, omax, dcmin, dcmax;
        int copies;
        bool refused;
    } fcache[4];
    int nfcache;
    /* the C target's strips of rows (strips.c): the run's first region (NULL:
     * not in a run), the next stage, how far ahead of a strip this stage's
     * rows run ahead of it, the bytes per iteration it writes to matrices a
     * later stage reads; on the first region, the run's stages and statements */
    struct Region *strip_first, *strip_next;
    long strip_reach, strip_bytes;
    int strip_stages, strip_stmts;
    bool strip_folds;  /* first region: matrices of the run kept as rings of rows (no fallback) */
    /* first region of a run that is a loop nest's whole body, run with the
     * loops inside each strip (strips.c): the outermost loop, its depth;
     * every stage of a thread's own strips (these or strip_threads): its
     * rows of a strip [r, r + S) are [r + strip_low, r + S + strip_reach) */
    Node *strip_loop;
    int strip_nloops;
    long strip_low;
    const char *strip_loop_kept; /* first region: why the loop around the run stays around it (--explain) */
    /* first region of a run (not a loop nest's body) whose threads each run
     * every stage over strips of their own (strips.c), and why not */
    bool strip_threads;
    const char *strip_threads_kept;
    /* matrices whose atomic updates go to a copy per work-group (the C
     * target: per thread), added to the matrix once (plan_histograms.c) */
    Obj *hist[PARAC_HIST_MATS];
    long hist_n[PARAC_HIST_MATS];       /* their elements */
    long hist_dims[PARAC_HIST_MATS][3]; /* and sizes */
    int nhist;
    int hist_axis; /* the axis along which a work-item runs rows_per_item iterations */
    const char *why_hist;
    /* arrays of the body in the work-group's local memory, a slice per
     * work-item: element k of work-item t at k * larr_stride + t
     * (plan_local_arrays.c) */
    Obj *larr[PARAC_LOCAL_ARRAYS];
    long larr_len[PARAC_LOCAL_ARRAYS];
    int nlarr, larr_stride;
    const char *why_larr;
    /* the C target's lanes (plan_lanes.c): the body's statements lane_hoist
     * run once per row, before the lanes; lane_block > 0: the rest runs lane_block
     * lanes at a time, uniform statements once, each run of varying ones as
     * a SIMD loop over the lanes; lane_vars: varying locals two runs share
     * (arrays of lane_block values); lane_vary: every local that differs
     * between lanes; lane_locals: the locals the body declares */
    int lane_block;
    Node **lane_hoist;
    Obj **lane_vars, **lane_vary, **lane_locals;
    int nlane_hoist, nlane_vars, nlane_vary, nlane_locals;
    bool lane_names_written; /* the body assigns a name not declared in this file */
    const char *why_lanes;
    /* clamps of the lanes' statements that are their value v where lo <= v
     * <= hi, a row's lanes split there (plan_lane_clamps.c) */
    struct LaneClamp *lane_clamps;
    int nlane_clamps;
    struct Region *next;
} Region;

/* plan_lane_clamps.c: a clamp the C target's lanes drop where it holds */
typedef struct LaneClamp {
    Node *site;         /* the conditional or the call */
    Node *v, *lo, *hi;  /* its value where lo <= v <= hi */
} LaneClamp;
Node *lanes_clamp_value(const Region *r, const Node *n); /* v when n is one of r's clamps, else NULL */
bool lanes_moves_evenly(const Region *r, Node *e);        /* e moves evenly from lane to lane */
bool lanes_body_assigns(const Region *r, const Obj *v);   /* the body assigns v */
/* The statements r's lanes run (all but those once per row; the whole body
 * as one where nothing runs once per row and the lanes are not in blocks). */
int lanes_rest(const Region *r, Node **rest);

/* plan_lanes.c: a statement of a C-target body as its lanes see it */
typedef enum { LANE_UNIFORM, LANE_CONTROL, LANE_VARYING } LaneClass;
LaneClass lanes_stmt_class(const Region *r, Node *s);
bool lanes_expr_varies(const Region *r, Node *e); /* e may differ between lanes (or has an effect) */
bool lanes_gather_index(const Region *r, Node *e); /* e does not move evenly from lane to lane */
/* a control statement's statements, in order (a block of more than
 * LANES_MAX_STATEMENTS is never a control statement: it varies) */
enum { LANES_MAX_STATEMENTS = 256 };
int lanes_children(Node *s, Node **kids, int cap);

typedef struct CompileOptions CompileOptions;

typedef struct Program {
    SourceFile *file;
    const CompileOptions *opt;
    Node *top;             /* top-level items in order */
    Region *regions;
    int nregions;
    const char *base;      /* output base name (kernel prefix) */
    Node **reductions;     /* independent operators */
    int nreductions;
    /* the names macros.c took for matrices' (the uses of macros naming
     * them expanded), for sema_check_macros */
    const char **macro_matrices;
    int nmacro_matrices;
} Program;

/* ---- options.c: the command line as the passes ask it ------------------ */
/* TARGET_OPENCL and TARGET_CUDA are the device targets: kernels plus host
 * code calling libparac's runtime for them (parac/opencl.h, parac/cuda.h). */
typedef enum { TARGET_C, TARGET_OPENCL, TARGET_CUDA } Target;
static inline bool target_has_device(Target t) { return t == TARGET_OPENCL || t == TARGET_CUDA; }
const char *target_name(Target t);
bool plan_flag(const CompileOptions *opt, int flag, int min_level); /* a -f flag, or its level default */
bool plan_whole_items(const Region *r); /* plan.c: whole work-items run their outputs untested */
int lang_stage_rows(const CompileOptions *opt); /* rows per work-item of a staged iterator */

/* ---- the passes, in the order compile.c runs them; each file (or, for
 * fusion, fuse.c with its parts behind fuse.h) exports only its entry point
 * and calls no other pass ---------------------------------------------- */
Token *tokenize(const SourceFile *file);          /* tokenize.c: source text -> tokens */
/* macros.c: the uses of the file's macros that name a matrix (in the body,
 * or a matrix itself as an argument) expanded in the tokens, as C's
 * preprocessor would; the names it took for matrices' in *names, *n */
Token *lang_expand_matrix_macros(Token *toks, const char ***names, int *n);
Program *parse_program(SourceFile *file, Token *tokens); /* parse.c: tokens -> AST */
void sema_program(Program *prog);                 /* sema*.c: scopes, types, ParaC rules, desugaring */
/* sema_writes.c: every iterator's writes give each iteration elements of
 * its own (else they would race): reports those that do not */
void sema_check_writes(Program *prog);
/* sema_macros.c: reports the #defines whose body names a matrix that
 * macros.c did not know as one (their uses would reach the generated code
 * unexpanded) */
void sema_check_macros(Program *prog);
/* sema_calls.c: host calls passing matrices (and pyramids' levels P[l],
 * sema_pyramids.c) to functions of this file (the parac__m_NAME entry
 * point); declared matrices passed otherwise */
void sema_check_matrix_calls(Program *prog);
/* The file's object-like #defines, for lang_macro_value (sema_program's first step). */
void sema_collect_macros(Program *prog);
/* The value of an object-like macro whose body is an integer constant
 * expression (*ok false otherwise, or for no such macro). */
long lang_macro_value(const char *name, bool *ok);
Node *lang_macro_body(const char *name, const char *const **params, int *nparams); /* a function-like macro's */
/* A call that only computes: a math function, or a function-like #define
 * (defined once) whose body assigns nothing and calls only those. */
bool lang_pure_call(const char *name);
/* Whether a #define of the file mentions the identifier `name` (a macro
 * used in a loop could assign a variable of that name unseen). */
bool lang_defines_mention(const Program *prog, const char *name);
void if_convert_program(Program *prog);           /* if_convert.c: conditional assignments as selects */
void fuse_program(Program *prog);                 /* fuse.c (fuse_*.c): kernel fusion */
void merge_launches(Program *prog);               /* merge_launches.c: small independent iterators in one launch */
void hast_build(Program *prog);                   /* hast.c: AST -> parallel regions, accesses */
void analyse_program(Program *prog);              /* analysis.c: classes, ranges, reuse, border widths */
void split_program(Program *prog);                /* split.c: host / device: kernel arguments */
void plan_program(Program *prog);                 /* plan.c: the optimisation model */
void plan_fused_caches(Program *prog);            /* plan_cache.c: recomputed values cached per loaded row */
void plan_fold_reductions(Program *prog);         /* fold_reduce.c: reductions summed by the kernel that writes */
void plan_histograms(Program *prog);              /* plan_histograms.c: atomic updates counted per work-group */
void plan_local_arrays(Program *prog);            /* plan_local_arrays.c: a work-item's arrays in local memory */
void plan_lanes(Program *prog);                   /* plan_lanes.c: the C target's lanes through loops */
void plan_lane_clamps(const Program *prog, Region *r, Node **rest, int nrest); /* plan_lane_clamps.c */
/* written_first.c: every element of o, declared by decl in block of the
 * function whose body is fn, is written before any is read (its storage
 * needs no zeroing; the C target from -O1) */
bool lang_written_before_read(const Node *fn, const Node *block, const Node *decl, const Obj *o);
/* the same from statement s on (s and the statements after it in its block):
 * the first that mentions o writes a box of it, the rest read inside it */
bool lang_written_first_from(const Node *fn, const Node *s, const Obj *o);
/* the names of the matrices declared in body that are (space-separated, into buf) */
void lang_written_first_names(const Node *body, char *buf, size_t cap);
void plan_strips(Program *prog);                  /* strips.c: the C target's strips of rows */
/* strips.c: the matrices kept as rings of rows by the run whose first region is first (at most cap) */
int strips_folded(const struct Region *first, Obj **out, int cap);
void explain_program(Program *prog, FILE *out);   /* explain.c: --explain */
void dump_ast(Program *prog, FILE *out);          /* dump.c: --dump= */
void dump_hast(Program *prog, FILE *out);
void dump_analysis(Program *prog, FILE *out);
/* emit_kernels.c: the kernels (OpenCL C, or CUDA C++ with `cuda`) */
void emit_device_kernels(Program *prog, FILE *o, const char *kernel_name, bool cuda);
/* emit_host*.c: the host code, with the kernels' source embedded */
void emit_host_program(Program *prog, FILE *o, Target target, const char *c_name, const char *cl_name,
                       const char *kernel_source);

/* ---- walk.c: the children of n (the operand and statement fields, then
 * the args list, the declarators' initialisers, the indices), NULL after the
 * last: for (NodeKids k = {.n = n}; (c = lang_next_kid(&k));) ... ---------- */
typedef struct NodeKids {
    const Node *n;
    int stage, i;
    Node *list;
} NodeKids;
Node *lang_next_kid(NodeKids *k);

/* ---- tree.c: nodes made, copied and compared; what a tree mentions ---- */
Node *new_node(NodeKind kind, Token *tok);
Node *lang_int_node(Token *tok, long v); /* the int constant v, located at tok */
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

Node *tree_copy(Node *n, const Subst *s);

/* The matrices a statement writes and reads (overflow: too many to list). */
typedef struct Touch {
    Obj *written[32], *read[32];
    int nwritten, nread;
    bool overflow;
} Touch;
void tree_touches(Node *n, Touch *t, int depth);
bool obj_listed(Obj *const *list, int n, const Obj *o);

/* How often o is mentioned in n (accesses, plain names, border rules about it). */
int tree_mentions(Node *n, const Obj *o, int depth);
/* Whether the host can evaluate e: host scalars, constants and arithmetic (no matrix reads,
 * calls or iterator indices). */
bool lang_host_value(const Node *e, int depth);
/* The same expression, node for node (range bounds of two iterators). */
bool tree_same(const Node *a, const Node *b);
/* linear.c: accesses a (of iterator ia) and b (of ib) touch no common element */
bool lang_accesses_apart(const Node *a, const Iterator *ia, const Node *b, const Iterator *ib);
/* A loop variable of an iterator's body whose values are known: declared by
 * its `for` and stepped by one between constant bounds (analysis.c). */
typedef struct LoopBound {
    const Obj *var;
    long lo, hi;
} LoopBound;
/* e as coef * it<axis> + (a constant and loop variables of b[0..nb)): its
 * axis (-1: none), coef and the least and greatest offset; false when e has
 * another part (a host scalar, a variable of unknown value, data). */
bool lang_bounded_index(const Node *e, const LoopBound *b, int nb, int *axis, long *coef, long *lo, long *hi);
/* e as coef * (index `axis` of it) + rest, rest an expression the host
 * evaluates before it runs (host scalars and constants; a copy of e with the
 * index at 0) */
bool lang_split_index_term(Node *e, Iterator *it, int *axis, long *coef, Node **rest);
/* e with the iterator's locals of one value (declared in its body's block, never assigned again)
 * replaced by that value, in copies; e itself where there is none. */
Node *lang_inline_locals(Node *e, Iterator *it, int depth);
/* linear.c: a and b are the same linear form of scalars and indices */
bool lang_same_linear(const Node *a, const Node *b);
bool lang_constant_difference(const Node *a, const Node *b, long *d);
/* The same, with m's objects b read as its objects a (the arms of a branch,
 * each declaring its own; if_convert.c). */
typedef struct VarMap {
    Obj *a[16], *b[16];
    int n;
} VarMap;
bool tree_same_as(const Node *a, const Node *b, const VarMap *m, int depth);
/* The names declared at the top of a body; whether n uses one of them. */
bool tree_declares_name(Node *body, const char *name);
bool tree_uses_name_declared_in(Node *n, Node *body, int depth);
/* n itself assigns: =, op=, ++, -- or a comma (whose value hides one). */
bool tree_assigns(const Node *n);
/* e has one value wherever the function whose body is fn_body evaluates it:
 * constants and scalars that nothing in the function assigns (after their
 * declaration) or points at, so that bounds of the same text in two places
 * are the same number (fusion, written_first.c); false without fn_body
 * unless e is constant. */
bool tree_fixed_value(const Node *e, const Node *fn_body);
bool tree_is_matrix_access(const Node *n); /* M[..] or a window of M */
bool node_mentions(Node *n, Obj *var);
/* The same, not looking inside the nodes of `skip` (reductions computed on the device). */
bool node_mentions_except(Node *n, Obj *var, Node *const *skip, int nskip);
bool stmt_has_iterator(Node *n);
/* n or anything in it leaves the iteration (break, continue, goto, return, a label) */
bool lang_any_jump(const Node *n);
/* loop_counters.c: a host for loop whose counters only its header steps */
enum { MAX_LOOP_COUNTERS = 8 };
typedef struct LoopCounters {
    Obj *v[MAX_LOOP_COUNTERS];
    int n;
} LoopCounters;
bool lang_is_counter(const LoopCounters *c, const Obj *o);
/* the loop's init declares its counters: integers of host values */
bool lang_loop_counters_of(Node *loop, LoopCounters *c);
/* n (a loop's step) steps counters only: v++, v--, v += k, v -= k (k a host value), by commas */
bool lang_loop_steps_counters(const Node *n, const LoopCounters *c);
/* n assigns, or takes the address of, a counter, or assigns a scalar from
 * outside the iterator (a reduction: its rounds would add into one value) */
bool lang_writes_outer_scalar(const Node *n, const LoopCounters *c, int depth);
/* v is mentioned in a window's indices (in_window: n is inside one) */
bool lang_counter_in_window(const Node *n, const Obj *v, bool in_window, int depth);

/* ---- border_rules.c: the rules an iterator reads through ---------------- */
/* it reads through `rule` alone (NULL: none) */
void lang_set_rule(Iterator *it, BorderRule *rule);
/* the rules named by it->rule_name and the names chained after it, those
 * about one matrix merged into one (a second entry for the same place is an
 * error); unknown names are reported */
void lang_resolve_rules(Iterator *it, BorderRule *(*find)(void *ctx, const char *name), void *ctx);
/* r's widths per axis from its side entries; a gap in them is an error (at
 * `where`, a merged rule's use, or NULL: at r), as are two entries for one
 * place */
void lang_rule_widths(BorderRule *r, const Token *where);
/* the rule of `it` about m, or NULL */
BorderRule *lang_rule_about(const Iterator *it, const Obj *m);
/* "a", or "a, b" for several rules (comments and --explain) */
const char *lang_rule_names(const Iterator *it);

/* ---- ir.c: regions, stages and accesses -------------------------------- */
Affine lang_affine(Node *e); /* e as coef * it<axis> + offset, if it has that form */
/* every iteration writes m at its own point and nothing in the region reads
 * it (*planes: the channels of a fused channel loop, or 0) */
bool lang_writes_whole(Region *r, Obj *m, int *planes);
/* which stage of it computes m (-1: none) */
int lang_stage_of(const Iterator *it, const Obj *m);
/* work-group histograms (plan_histograms.c): m's copy in r (-1: none), and
 * the indices of element `flat` (C text) of copy k, as text nodes in e */
int lang_hist_index(const Region *r, const Obj *m);
void lang_hist_element(const Region *r, int k, const char *flat, Node **e);
/* a work-item's array o in local memory in r (plan_local_arrays.c): its index in r->larr, or -1 */
int lang_local_array(const Region *r, const Obj *o);
/* a side entry M[f][*] (axis 0) or M[*][f] (axis 1) of a rule about m: its
 * f; NULL where the entry's value is not such an index chain */
Node *lang_rule_map(const BorderEntry *e, const Obj *m, int axis);
/* The row of a vector-loaded read of m with indices e + add, or -1. */
int plan_load_row(Region *r, Obj *m, Node **e, const long *add, int n, long *col_offset);
int print_access_indices(Node *n, int i, int j, Node **e, long *add); /* indices of element (i,j) */
/* the axes of access n that are windows (slices), in order, in ax (the
 * first two); their count */
int lang_window_axes(const Node *n, int ax[2]);
/* n is a window with a run-time length on some axis (its slice's length 0;
 * the expression in the slice's rhs) */
bool lang_window_is_dynamic(const Node *n);

/* Expression printing shared by the back ends (print.c). */
typedef struct HostHooks HostHooks;
typedef struct HostEmitter HostEmitter;
typedef struct PrintCtx {
    FILE *out;
    bool opencl;        /* device spelling of types (OpenCL C; CUDA shares it) */
    bool cuda;          /* device code is CUDA C++ rather than OpenCL C */
    bool in_kernel;     /* inside a region body */
    bool border;        /* border variant: ruled accesses go through the rule */
    Region *region;
    int elem_i, elem_j; /* element of a small-matrix expression being expanded */
    int indent;
    Node *wild_e[3];    /* border value: what '*' stands for on each axis */
    long wild_add[3];
    int rule_depth;     /* guards against a rule value printed inside a rule value */
    bool merging;       /* coarsened interior kernel: merged writes go to private arrays */
    bool fc_fill;       /* printing the values of a fused cache: no cached reads (plan_cache.c) */
    int stage_fill;     /* filling stage k's tile (k + 1; 0: none): its own matrix is read from memory */
    bool line_marks;    /* #line before each statement of the source (see lang_fix_line_marks) */
    bool writing;       /* the access being printed is an assignment target */
    bool no_returns;    /* kernels: the part being printed may not return early (a barrier follows) */
    const HostHooks *hooks; /* host code: the back end's constructs (NULL in kernels and dumps) */
    int run_time_ops;   /* operators over windows of run-time length printed (print_windows.c) */
    /* printing an entry at every distance: its distance variable stands for
     * how far index dist_e + dist_add lies outside (dist_dir < 0: before 0;
     * > 0: past dist_dim) */
    const Obj *dist_var;
    Node *dist_e;
    long dist_add;
    int dist_dir;
    const char *dist_dim;
    HostEmitter *host;  /* the host back end's state (emit_host.h) */
    /* printing a C-target body lanes at a time (emit_host_lanes.c): its
     * region's lane_vars print as parac_lane_v<i>[parac_l] */
    const struct Region *lanes;
    /* printing a C-target body whose last axis is SIMD lanes: an access whose
     * other indices are the same for every lane is a row pointer indexed by
     * an int (a gather along it takes 32-bit offsets: twice the lanes) */
    const struct Region *lane_rows;
    /* printing the interior of a C-target row's lanes: this region's clamps
     * print as their values (plan_lane_clamps.c) */
    const struct Region *lane_clamps;
} PrintCtx;

/* The line that print_stmt writes after a statement when line_marks is set:
 * lang_fix_line_marks() turns each into "#line N \"NAME\"" pointing back into
 * the generated file itself. */
#define LANG_LINE_MARK "#line __parac_generated__"
/* Copy `text` to `out`, resolving the marks for a generated file called `name`. */
void lang_fix_line_marks(const char *text, const char *name, FILE *out);
void print_expr(PrintCtx *p, Node *n);
void print_elem(PrintCtx *p, Node *n, int i, int j); /* element (i,j) of a small matrix value */
void print_stmt(PrintCtx *p, Node *n);
void print_loop_open(PrintCtx *p, Node *n); /* a for loop's header and opening braces */
void print_loop_close(PrintCtx *p);         /* and its closing ones */
void print_type_decl(FILE *out, Type *ty, const char *name, bool opencl);
void print_indent(PrintCtx *p);
void print_fmt(PrintCtx *p, const char *fmt, ...) __attribute__((format(printf, 2, 3))); /* printf to p->out */
/* A line at p's indentation, its newline added. */
void print_line(PrintCtx *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void print_func(PrintCtx *p, Node *f);      /* a file function (for the .cl) */
void print_order_helpers(PrintCtx *p, Program *prog); /* parac_matrix_kth / _median's functions */
void print_mat_index(PrintCtx *p, Obj *m, Node **e, const long *add, int n);
bool stmt_needs_wrap(PrintCtx *p, Node *n);
/* back-end hooks used by print_stmt for host-side constructs */
struct HostHooks {
    void (*iterator)(PrintCtx *p, Node *n);
    void (*before_stmt)(PrintCtx *p, Node *n);  /* transfers, reductions */
    void (*after_stmt)(PrintCtx *p, Node *n);
    void (*decl_matrix)(PrintCtx *p, Node *decl);
    void (*block_end)(PrintCtx *p, Node *block);
    void (*before_return)(PrintCtx *p, Node *ret);
    bool (*needs_wrap)(PrintCtx *p, Node *n);   /* before/after code needs braces */
    int (*stmt_run)(PrintCtx *p, Node *s);      /* prints statements from s as one; returns how many, or 0 */
    void (*cond_expr)(PrintCtx *p, Node *e);    /* statement conditions of host code */
    void (*matrix_extras)(PrintCtx *p, Obj *m); /* after a matrix argument of parac__m_NAME */
    void (*level_arg)(PrintCtx *p, Node *level); /* a pyramid's level as such an argument, extras included */
};

/* ---- types.c: constant values, operator names, small matrices ---------- */
long const_eval(Node *n, bool *ok);
const char *parac_op_name(ParacOpKind k);
int small_rows(const Type *t);
int small_cols(const Type *t);

/* Full pipeline: returns 0 on success. Outputs go to the given streams
 * (kernels may be NULL for TARGET_C). */
struct CompileOptions {
    Target target;
    int opt_level;        /* 0: no optimisation; 1, 2 (default): the model's plan */
    int vectorize;        /* -1: by level; 0: -fno-vectorize; 1: -fvectorize */
    int merge_stores;     /* -1: by level; 0: -fno-merge-stores */
    int vector_loads;     /* -1: by level; 0: -fno-vector-loads */
    int restrict_ptrs;    /* -1: by level; 0: -fno-restrict */
    int fuse;             /* -1: by level; 0: -fno-fuse */
    int fuse_stencils;    /* -1: device targets at -O2; 0: -fno-fuse-stencils; 1: -ffuse-stencils */
    int one_launch;       /* -1: by level; 0: -fno-one-launch */
    int strips;           /* -1: by level; 0: -fno-strips (the C target's strips of rows) */
    int vector_width;     /* --vector-width N: force N (1, 2, 4, 8, 16) where legal; 0: the model's */
    int rows_per_item;    /* --rows-per-item N: force N (1 to 16) where legal; 0: the model's */
    int if_convert;       /* -1: by level; 0: -fno-if-convert */
    int local_memory;     /* -1: the model's; 0: -fno-local-memory (no tiles, none searched); 1: -flocal-memory */
    int search_variants;  /* -1: at -O2; 0: -fno-search-variants (the model's kernel only) */
    int fold_reductions;  /* -1: by level (the CUDA target); 0: -fno-fold-reductions */
    int merge_launches;   /* -1: by level (device targets, -O2); 0: -fno-merge-launches */
    int stage_stencils;   /* -1: by level (device targets, -O2); 0: -fno-stage-stencils */
    int whole_items;      /* -1: by level (device targets, -O1); 0: -fno-whole-items */
    int work_group_histograms; /* -1: by level (-O1); 0: -fno-work-group-histograms */
    int local_arrays;     /* -1: by level (device targets, -O1); 0: -fno-local-arrays */
    int loops_in_kernels; /* -1: by level (-O1); 0: -fno-loops-in-kernels */
    int lane_blocks;      /* -1: by level (-O1); 0: -fno-lane-blocks (the C target's lanes around the whole body) */
    int split_clamps;     /* -1: by level (-O1); 0: -fno-split-clamps (the C target's clamps in every lane) */
    int skip_zeroing;     /* -1: by level (-O1); 0: -fno-skip-zeroing (the C target zeroes every declared matrix) */
    int fold_storage;     /* -1: by level (-O1); 0: -fno-fold-storage (the C target's strips keep whole intermediates) */
    int strip_loops;      /* -1: by level (-O1); 0: -fno-strip-loops (the C target: host loops around a run stay outside its strips) */
    int thread_strips;    /* -1: by level (-O1); 0: -fno-thread-strips (the C target: a run's threads share each strip) */
    FILE *explain_out;    /* --explain: the plan of every parallel region */
    const char *dump;     /* NULL, "ast", "hast", "analysis" */
    FILE *dump_out;
    const char *base_name;/* identifier-safe base for kernel names */
    const char *c_name, *cl_name; /* file names written into #line / comments */
    bool no_line;         /* --no-line: no #line directives */
};
int lang_compile(SourceFile *file, const CompileOptions *opt, FILE *host, FILE *kernels);

#endif
