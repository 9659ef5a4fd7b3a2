/* Host code generation, both targets.
 *
 * The program's own C is printed back (with matrices as flat arrays plus
 * NAME_pitch and NAME_d0..d2). Each parallel region becomes:
 *   --target c       an OpenMP loop nest over the interior box, then loop nests
 *                    over the border boxes with the border-rule variant;
 *   --target opencl  launches of the region's interior kernel and border
 *                    kernel (emit_kernels.c) through the libparac runtime, with
 *                    transfers decided by each matrix's host/device state.
 * Independent operators are computed into parac_red_N before their statement. */
#include <string.h>

#include "lang/lang.h"
#include "parac/status.h"

typedef struct HostState {
    Program *prog;
    Target target;
    Node *func;
    /* matrices in scope, with block markers (NULL) */
    Obj *stack[512];
    Node *stack_block[512];
    int sp;
    const char *file;
} HostState;

static HostState H;

static const char *prelude =
    "#if defined(__linux__) && !defined(_DEFAULT_SOURCE)\n"
    "#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS under -std=c11 */\n"
    "#endif\n"
    "#include <limits.h>\n"
    "#include <float.h>\n"
    "#include <math.h>\n"
    "#include <stddef.h>\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "#include <stdint.h>\n"
    "#if defined(__linux__) && !defined(PARAC_NO_SPARE_STORAGE)\n"
    "#include <sys/mman.h>\n"
    "#if defined(MAP_ANONYMOUS)\n"
    "#define PARAC__MAPPED 1\n"
    "#endif\n"
    "#endif\n"
    "\n"
    "/* ---- helpers of the generated code (not every program uses every one) ---- */\n"
    "#if defined(__GNUC__)\n"
    "#define PARAC__HELPER static inline __attribute__((unused))\n"
    "#else\n"
    "#define PARAC__HELPER static inline\n"
    "#endif\n"
    "#ifdef _OPENMP\n"
    "#include <omp.h>\n"
    "#endif\n"
    "/* PARAC_STRIP_ROWS: rows per strip, and strips on whatever the size (tests:\n"
    " * many strips on small images); 0 when unset. */\n"
    "PARAC__HELPER long parac__strip_rows_set(void)\n"
    "{\n"
    "    const char *e = getenv(\"PARAC_STRIP_ROWS\");\n"
    "    return e && atol(e) > 0 ? atol(e) : 0;\n"
    "}\n"
    "/* Rows per strip when consecutive iterators run in strips (C target): 8 a\n"
    " * thread, at least 32, so that a strip's rows of every stage stay in cache. */\n"
    "PARAC__HELPER long parac__strip_rows(void)\n"
    "{\n"
    "    if (parac__strip_rows_set() > 0) return parac__strip_rows_set();\n"
    "#ifdef _OPENMP\n"
    "    const long t = 8L * omp_get_max_threads();\n"
    "    return t > 32 ? t : 32;\n"
    "#else\n"
    "    return 32;\n"
    "#endif\n"
    "}\n"
    "/* Whether strips pay for an iteration space of px pixels: from 2^23 (8\n"
    " * million; below, the intermediates stay in the last-level cache anyway\n"
    " * and the strips' barriers cost more), or whenever PARAC_STRIP_ROWS is set. */\n"
    "PARAC__HELPER int parac__strips_pay(long px)\n"
    "{\n"
    "    return parac__strip_rows_set() > 0 || px >= (1L << 23);\n"
    "}\n"
    "#define PARAC_MIN(a, b) ((a) < (b) ? (a) : (b))\n"
    "#define PARAC_MAX(a, b) ((a) > (b) ? (a) : (b))\n"
    "PARAC__HELPER long long parac__min_i(long long a, long long b) { return a < b ? a : b; }\n"
    "PARAC__HELPER long long parac__max_i(long long a, long long b) { return a > b ? a : b; }\n"
    "PARAC__HELPER double parac__min_f(double a, double b) { return a < b ? a : b; }\n"
    "PARAC__HELPER double parac__max_f(double a, double b) { return a > b ? a : b; }\n"
    "\n"
    "/* A box of iteration counters k (index = first + k * step). */\n"
    "typedef struct parac__box { long lo[3], hi[3]; } parac__box;\n"
    "\n"
    "PARAC__HELPER long parac__floordiv(long a, long b) { return a / b - (a % b != 0 && ((a < 0) != (b < 0))); }\n"
    "PARAC__HELPER long parac__ceildiv(long a, long b) { return -parac__floordiv(-a, b); }\n"
    "\n"
    "/* Number of iterations of lb:ub:step (ub excluded). */\n"
    "PARAC__HELPER long parac__count(long lb, long ub, long step) { return ub > lb ? (ub - lb + step - 1) / step : 0; }\n"
    "\n"
    "/* Narrow [*lo, *hi) to the counters whose index first + k*step lies in [ilo, ihi]. */\n"
    "PARAC__HELPER void parac__interior(long first, long step, long n, long ilo, long ihi, long *lo, long *hi)\n"
    "{\n"
    "    long a = parac__ceildiv(ilo - first, step), b = parac__floordiv(ihi - first, step) + 1;\n"
    "    if (a > *lo) *lo = a;\n"
    "    if (b < *hi) *hi = b;\n"
    "    if (*lo > n) *lo = n;\n"
    "    if (*hi < *lo) *hi = *lo;\n"
    "}\n"
    "\n"
    "/* Split n[0..nd) into the interior box [lo, hi) (first) and up to 2*nd border boxes. */\n"
    "PARAC__HELPER int parac__regions(int nd, const long *n, const long *lo, const long *hi, parac__box *box)\n"
    "{\n"
    "    int count = 1;\n"
    "    for (int d = 0; d < 3; d++) {\n"
    "        box[0].lo[d] = d < nd ? lo[d] : 0;\n"
    "        box[0].hi[d] = d < nd ? hi[d] : 1;\n"
    "    }\n"
    "    for (int d = 0; d < nd; d++)\n"
    "        for (int side = 0; side < 2; side++) {\n"
    "            parac__box b;\n"
    "            for (int e = 0; e < 3; e++) {\n"
    "                b.lo[e] = e >= nd ? 0 : e < d ? lo[e] : 0;\n"
    "                b.hi[e] = e >= nd ? 1 : e < d ? hi[e] : n[e];\n"
    "            }\n"
    "            b.lo[d] = side ? hi[d] : 0;\n"
    "            b.hi[d] = side ? n[d] : lo[d];\n"
    "            int empty = 0;\n"
    "            for (int e = 0; e < 3; e++) empty |= b.hi[e] <= b.lo[e];\n"
    "            if (!empty) box[count++] = b;\n"
    "        }\n"
    "    return count;\n"
    "}\n"
    "\n"
    "\n";

/* Failures and matrix storage of generated code (storage raises and holds,
 * so it lives here). Called through NAME_try(), a failing step
 * releases what the call holds (matrices, device buffers) and NAME_try()
 * returns its status; called directly, the failure is reported and the
 * program exits with status 1, as a plain C program would. Printed with
 * PARAC_ERR_OUT_OF_MEMORY for %1$d. */
static const char *failures_and_storage =
    "/* ---- failures: through NAME_try() a failing step releases what the call holds\n"
    " * and returns its status; called directly, the failure is reported and the\n"
    " * program exits with status 1 ---- */\n"
    "#include <setjmp.h>\n"
    "#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L\n"
    "#define PARAC__TLS _Thread_local\n"
    "#else\n"
    "#define PARAC__TLS __thread\n"
    "#endif\n"
    "typedef struct parac__held { void (*release)(void *); void *ptr; } parac__held;\n"
    "static PARAC__TLS jmp_buf *parac__jmp;      /* the innermost NAME_try() running */\n"
    "static PARAC__TLS int parac__jmp_status;\n"
    "static PARAC__TLS int parac__held_base;     /* its first entry in parac__held_v */\n"
    "static PARAC__TLS parac__held *parac__held_v;\n"
    "static PARAC__TLS int parac__held_n, parac__held_cap;\n"
    "static PARAC__TLS char parac__message[512];\n"
    "\n"
    "PARAC__HELPER void parac__raise(int status, const char *where, const char *message)\n"
    "{\n"
    "    snprintf(parac__message, sizeof parac__message, \"%%s: %%s\", where, message);\n"
    "    if (!parac__jmp) {\n"
    "        fprintf(stderr, \"%%s\\n\", parac__message);\n"
    "        exit(1);\n"
    "    }\n"
    "    while (parac__held_n > parac__held_base) {\n"
    "        parac__held h = parac__held_v[--parac__held_n];\n"
    "        h.release(h.ptr);\n"
    "    }\n"
    "    parac__jmp_status = status;\n"
    "    longjmp(*parac__jmp, 1);\n"
    "}\n"
    "\n"
    "/* Inside NAME_try(): what to release if a later step fails. */\n"
    "PARAC__HELPER void parac__hold(void (*release)(void *), void *ptr)\n"
    "{\n"
    "    if (!parac__jmp) return;\n"
    "    if (parac__held_n == parac__held_cap) {\n"
    "        int cap = parac__held_cap ? 2 * parac__held_cap : 16;\n"
    "        parac__held *v = (parac__held *)realloc(parac__held_v, sizeof *v * (size_t)cap);\n"
    "        if (!v) {\n"
    "            release(ptr);\n"
    "            parac__raise(%1$d, \"parac program\", \"out of memory\");\n"
    "        }\n"
    "        parac__held_v = v;\n"
    "        parac__held_cap = cap;\n"
    "    }\n"
    "    parac__held_v[parac__held_n].release = release;\n"
    "    parac__held_v[parac__held_n++].ptr = ptr;\n"
    "}\n"
    "\n"
    "PARAC__HELPER void parac__unhold(void *ptr)\n"
    "{\n"
    "    for (int i = parac__held_n - 1; i >= parac__held_base; i--)\n"
    "        if (parac__held_v[i].ptr == ptr) {\n"
    "            memmove(parac__held_v + i, parac__held_v + i + 1, sizeof *parac__held_v * (size_t)(parac__held_n - i - 1));\n"
    "            parac__held_n--;\n"
    "            return;\n"
    "        }\n"
    "}\n"
    "\n"
    "/* Storage of a matrix: 64 bytes holding the size of its own mapping (0: from\n"
    " * the heap), then the rows. From 4 MiB up a matrix is a mapping of its own,\n"
    " * and one that a call frees is kept for the next call on the same thread (up\n"
    " * to 8): a pipeline called again reuses its pages, zeroed by memset, instead\n"
    " * of faulting fresh ones in a page at a time, which costs more than a\n"
    " * stencil's arithmetic. */\n"
    "#if defined(PARAC__MAPPED)\n"
    "typedef struct parac__spare_block { char *base; size_t len; } parac__spare_block;\n"
    "static PARAC__TLS parac__spare_block parac__spare[8];\n"
    "#endif\n"
    "\n"
    "PARAC__HELPER void parac__storage_free(void *p)\n"
    "{\n"
    "    if (!p) return;\n"
    "    char *base = (char *)p - 64;\n"
    "    size_t mapped;\n"
    "    memcpy(&mapped, base, sizeof mapped);\n"
    "#if defined(PARAC__MAPPED)\n"
    "    if (mapped) {\n"
    "        for (int i = 0; i < 8; i++)\n"
    "            if (!parac__spare[i].base) {\n"
    "                parac__spare[i].base = base;\n"
    "                parac__spare[i].len = mapped;\n"
    "                return;\n"
    "            }\n"
    "        munmap(base, mapped);\n"
    "        return;\n"
    "    }\n"
    "#endif\n"
    "    free(base);\n"
    "}\n"
    "\n"
    "PARAC__HELPER void *parac__storage_alloc(size_t rows, size_t row)\n"
    "{\n"
    "    if (row && rows > (SIZE_MAX - 64) / row) return NULL;\n"
    "    const size_t total = rows * row + 64;\n"
    "    size_t mapped = 0;\n"
    "    char *base = NULL;\n"
    "#if defined(PARAC__MAPPED)\n"
    "    const size_t page = (size_t)4 << 10;\n"
    "    if (total >= ((size_t)4 << 20) && total <= SIZE_MAX - page) {\n"
    "        const size_t len = (total + page - 1) & ~(page - 1);\n"
    "        for (int i = 0; i < 8 && !base; i++)\n"
    "            if (parac__spare[i].base && parac__spare[i].len == len) {\n"
    "                base = parac__spare[i].base;\n"
    "                parac__spare[i].base = NULL;\n"
    "                memset(base, 0, total);\n"
    "                mapped = len;\n"
    "            }\n"
    "        if (!base) {\n"
    "            void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);\n"
    "            if (m != MAP_FAILED) {\n"
    "                base = (char *)m;\n"
    "                mapped = len;\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "#endif\n"
    "    if (!base) base = (char *)calloc(1, total);\n"
    "    if (!base) return NULL;\n"
    "    memcpy(base, &mapped, sizeof mapped);\n"
    "    return base + 64;\n"
    "}\n"
    "\n"
    "/* Storage of a parac_matrix declared in the program: rows padded to 64 bytes, zeroed. */\n"
    "PARAC__HELPER void *parac__alloc_matrix(long rows, long cols, size_t elem, long *pitch)\n"
    "{\n"
    "    size_t row = (size_t)(cols > 0 ? cols : 1) * elem;\n"
    "    row = (row + 63) / 64 * 64;\n"
    "    *pitch = (long)(row / elem);\n"
    "    void *p = parac__storage_alloc((size_t)(rows > 0 ? rows : 1), row);\n"
    "    if (!p) {\n"
    "        char what[96];\n"
    "        snprintf(what, sizeof what, \"out of memory for a %%ldx%%ld matrix\", rows, cols);\n"
    "        parac__raise(%1$d, \"parac program\", what);\n"
    "    }\n"
    "    parac__hold(parac__storage_free, p);\n"
    "    return p;\n"
    "}\n"
    "\n"
    "/* The row pitch (elements) of a matrix that only kernels use: no host storage. */\n"
    "PARAC__HELPER long parac__matrix_pitch(long cols, size_t elem)\n"
    "{\n"
    "    const size_t row = ((size_t)(cols > 0 ? cols : 1) * elem + 63) / 64 * 64;\n"
    "    return (long)(row / elem);\n"
    "}\n"
    "\n"
    "PARAC__HELPER void parac__free_matrix(void *p)\n"
    "{\n"
    "    parac__unhold(p);\n"
    "    parac__storage_free(p);\n"
    "}\n"
    "\n";

static void line(PrintCtx *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(PrintCtx *p, const char *fmt, ...)
{
    print_indent(p);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(p->out, fmt, ap);
    va_end(ap);
    fputc('\n', p->out);
}

static bool ocl(void) { return target_has_device(H.target); }
/* The runtime's prefix in generated code: parac_cl_* (parac/opencl.h) or parac_cu_* (parac/cuda.h). */
static const char *rt(void) { return H.target == TARGET_CUDA ? "cu" : "cl"; }
static const char *RT(void) { return H.target == TARGET_CUDA ? "CU" : "CL"; }

/* ---- matrices ---------------------------------------------------------------- */
static void push_matrix(Obj *o, Node *block)
{
    if (H.sp < 512) {
        H.stack[H.sp] = o;
        H.stack_block[H.sp] = block;
        H.sp++;
    }
}

static Node *cur_block;

static void matrix_dims(PrintCtx *p, Obj *o)
{
    Type *m = o->ty;
    print_indent(p);
    for (int i = 0; i < 3; i++) {
        print_fmt(p, "%sconst long %s_d%d = ", i ? " " : "", o->name, i);
        if (i < m->ndim) {
            print_fmt(p, "(");
            print_expr(p, m->dims[i]);
            print_fmt(p, ");");
        } else
            print_fmt(p, "1;");
    }
    print_fmt(p, "\n");
}

static void matrix_cl_bind(PrintCtx *p, Obj *o)
{
    if (!ocl() || !o->used_in_kernel) return;
    const char *T = ty_c_name(o->ty->base, false);
    line(p, "parac_%s_matrix %s_dev;", rt(), o->name);
    line(p, "PARAC__CHECK(parac_%s_matrix_bind(parac__session(), &%s_dev, %s, sizeof(%s), %d, %s_d0, %s_d1, %s_d2, "
            "(size_t)%s_pitch * sizeof(%s)));",
         rt(), o->name, o->name, T, o->ty->ndim, o->name, o->name, o->name, o->name, T);
    line(p, "parac__hold(parac__release_dev, &%s_dev);", o->name);
}

static void unused(PrintCtx *p, Obj *o)
{
    line(p, "(void)%s_d0; (void)%s_d1; (void)%s_d2; (void)%s_pitch;", o->name, o->name, o->name, o->name);
}

/* Whether host code of n (not iterator bodies, not border rules, which
 * are compiled into kernels) names o. */
static bool host_names(const Node *n, const Obj *o, int depth)
{
    if (!n) return false;
    if (depth > 400) return true;
    /* (a rule fusion dropped is an empty statement that keeps its entries) */
    if (n->kind == ND_BORDER_RULE || n->kind == ND_VERBATIM || n->kind == ND_NULL_STMT) return false;
    if (n->kind == ND_ITERATOR) {
        for (int d = 0; n->iter && d < n->iter->ndim; d++)
            if (host_names(n->iter->r[d].lb, o, depth + 1) || host_names(n->iter->r[d].ub, o, depth + 1)) return true;
        return false;
    }
    if ((n->kind == ND_VAR || n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW) && n->var == o) return true;
    NodeKids k = {.n = n};
    for (const Node *c; (c = lang_next_kid(&k));)
        if (host_names(c, o, depth + 1)) return true;
    return false;
}

static void decl_matrix(PrintCtx *p, Node *d)
{
    Obj *o = d->var;
    Type *m = o->ty;
    const char *T = ty_c_name(m->base, false);
    line(p, "/* %s:%d: %s parac_matrix %s%s */", H.file, d->tok->line, T, o->is_ref ? "&" : "", o->name);
    if (o->is_small_const) {
        print_indent(p);
        print_fmt(p, "static const %s %s", T, o->name);
        bool ok;
        for (int i = 0; i < m->ndim; i++) print_fmt(p, "[%ld]", const_eval(m->dims[i], &ok));
        long rows = m->ndim == 2 ? const_eval(m->dims[0], &ok) : 1, cols = const_eval(m->dims[m->ndim - 1], &ok);
        print_fmt(p, " = {");
        Node *v = o->init->args;
        for (long r = 0; r < rows; r++) {
            if (m->ndim == 2) print_fmt(p, "%s{", r ? ", " : "");
            for (long c = 0; c < cols; c++) {
                if (c || (m->ndim == 1 && r)) print_fmt(p, ", ");
                print_fmt(p, "(%s)(", T);
                if (v) print_expr(p, v);
                else print_fmt(p, "0");
                print_fmt(p, ")");
                if (v) v = v->next;
            }
            if (m->ndim == 2) print_fmt(p, "}");
        }
        print_fmt(p, "};\n");
        line(p, "(void)%s;", o->name);
        return;
    }
    matrix_dims(p, o);
    if (o->is_ref) {
        print_indent(p);
        print_fmt(p, "%s *%s = (%s *)(", T, o->name, T);
        print_expr(p, o->bound);
        print_fmt(p, ");\n");
        line(p, "const long %s_pitch = %s_d%d;", o->name, o->name, m->ndim - 1);
    } else if (ocl() && o->used_in_kernel && !o->init && H.func && !host_names(H.func->body, o, 0)) {
        /* only kernels use it: its device copy starts as zeros, and the host
         * never reads it, so it has no host storage to allocate and clear */
        o->device_only = true;
        line(p, "const long %s_pitch = parac__matrix_pitch(%s_d%d, sizeof(%s));", o->name, o->name, m->ndim - 1, T);
        line(p, "%s *%s = NULL; /* only kernels use %s: no host storage */", T, o->name, o->name);
        push_matrix(o, cur_block);
    } else {
        line(p, "long %s_pitch;", o->name);
        if (m->ndim == 1)
            line(p, "%s *%s = (%s *)parac__alloc_matrix(1, %s_d0, sizeof(%s), &%s_pitch);", T, o->name, T,
                 o->name, T, o->name);
        else
            line(p, "%s *%s = (%s *)parac__alloc_matrix(%s_d0 * %s_d1 * %s_d2 / %s_d%d, %s_d%d, sizeof(%s), &%s_pitch);",
                 T, o->name, T, o->name, o->name, o->name, o->name, m->ndim - 1, o->name, m->ndim - 1, T, o->name);
        push_matrix(o, cur_block);
    }
    unused(p, o);
    matrix_cl_bind(p, o);
    /* a declared matrix starts as zeros: the device makes its own copy */
    if (!o->is_ref && ocl() && o->used_in_kernel) line(p, "parac_%s_matrix_zeroed(&%s_dev);", rt(), o->name);
    if (o->is_ref && ocl() && o->used_in_kernel) push_matrix(o, cur_block);
}

/* Release (and for references, bring back) the matrices of one scope. */
static void release(PrintCtx *p, Obj *o)
{
    if (ocl() && o->used_in_kernel) {
        if (o->is_ref) line(p, "PARAC__CHECK(parac_%s_to_host(&%s_dev));", rt(), o->name);
        line(p, "parac__drop_dev(&%s_dev);", o->name);
    }
    if (!o->is_ref && !o->device_only) line(p, "parac__free_matrix(%s);", o->name);
}

static void block_end(PrintCtx *p, Node *block)
{
    /* A block that ends in a return released its matrices on that path
     * already; releasing them again after it would be dead code. */
    Node *last = NULL;
    for (Node *s = block ? block->args : NULL; s; s = s->next) last = s;
    const bool ends_in_return = last && last->kind == ND_RETURN;
    while (H.sp > 0 && H.stack_block[H.sp - 1] == block) {
        H.sp--;
        if (!ends_in_return) release(p, H.stack[H.sp]);
    }
}

/* ---- independent operators (global reductions) ------------------------------ */
static void find_reductions(Node *e, Node **list, int *n)
{
    if (!e || *n >= 32) return;
    if (e->kind == ND_PARAC_OP && e->reduction_id >= 0 && e->args && e->args->ty &&
        e->args->ty->kind == TY_MATRIX) {
        list[(*n)++] = e;
        return;
    }
    find_reductions(e->lhs, list, n);
    find_reductions(e->rhs, list, n);
    find_reductions(e->cond, list, n);
    find_reductions(e->then, list, n);
    find_reductions(e->els, list, n);
    for (Node *a = e->args; a; a = a->next) find_reductions(a, list, n);
}

static int stmt_reductions(Node *n, Node **list)
{
    int k = 0;
    switch (n->kind) {
    case ND_EXPR_STMT: case ND_RETURN: find_reductions(n->lhs, list, &k); break;
    case ND_IF: case ND_SWITCH: find_reductions(n->cond, list, &k); break;
    case ND_DECL:
        for (Node *d = n->decls; d; d = d->next)
            if (d->init && d->init->kind != ND_INIT_LIST) find_reductions(d->init, list, &k);
        break;
    default: break;
    }
    return k;
}

static const char *type_limit(Type *t, bool max)
{
    switch (t->kind) {
    case TY_CHAR: return t->is_unsigned ? (max ? "UCHAR_MAX" : "0") : (max ? "SCHAR_MAX" : "SCHAR_MIN");
    case TY_SHORT: return t->is_unsigned ? (max ? "USHRT_MAX" : "0") : (max ? "SHRT_MAX" : "SHRT_MIN");
    case TY_INT: return t->is_unsigned ? (max ? "UINT_MAX" : "0") : (max ? "INT_MAX" : "INT_MIN");
    case TY_LONG: case TY_LLONG: return t->is_unsigned ? (max ? "ULONG_MAX" : "0") : (max ? "LONG_MAX" : "LONG_MIN");
    case TY_FLOAT: case TY_DOUBLE: return max ? "INFINITY" : "-INFINITY";
    default: return max ? "INT_MAX" : "INT_MIN";
    }
}

/* Accumulator type of a global reduction. */
static Type *red_acc_type(Node *op)
{
    Type *et = op->args->ty->base;
    if (op->pop == OP_MIN || op->pop == OP_MAX) return et;
    if (ty_is_float(et)) return et;
    return ty_basic(TY_LLONG, et->is_unsigned && ty_rank(et) >= 5);
}

static void emit_reduction(PrintCtx *p, Node *op)
{
    Obj *m = op->args->var;
    Region *r = NULL;
    for (Region *x = H.prog->regions; x; x = x->next)
        if (x->id == op->reduction_id) r = x;
    Type *acc = red_acc_type(op);
    const char *A = ty_c_name(acc, false);
    int id = op->reduction_id;
    line(p, "/* %s:%d: independent %s(%s): a global reduction over the whole matrix */", H.file,
         op->tok->line, parac_op_name(op->pop), m->name);
    const char *init = op->pop == OP_MIN ? type_limit(acc, true) : op->pop == OP_MAX ? type_limit(acc, false) : "0";
    line(p, "%s parac_acc_%d = %s;", A, id, init);
    if (ocl() && r && r->fold_into) {
        line(p, "if (parac_folded_%d) /* summed by the kernel of line %d as it wrote %s */", id,
             r->fold_into->node->tok->line, m->name);
        line(p, "    PARAC__CHECK(parac_cu_fold_result(parac__session(), %d, sizeof parac_acc_%d, &parac_acc_%d));", id,
             id, id);
        line(p, "else {");
        p->indent++;
        line(p, "PARAC__CHECK(parac_%s_to_device(&%s_dev));", rt(), m->name);
        line(p, "PARAC__CHECK(parac_%s_reduce(parac__session(), \"%s\", &%s_dev, sizeof parac_acc_%d, &parac_acc_%d));",
             rt(), r->kernel, m->name, id, id);
        p->indent--;
        line(p, "}");
    } else if (ocl()) {
        line(p, "PARAC__CHECK(parac_%s_to_device(&%s_dev));", rt(), m->name);
        line(p, "PARAC__CHECK(parac_%s_reduce(parac__session(), \"%s\", &%s_dev, sizeof parac_acc_%d, &parac_acc_%d));",
             rt(), r ? r->kernel : "?", m->name, id, id);
    } else {
        const char *clause = op->pop == OP_MIN ? "min" : op->pop == OP_MAX ? "max" : "+";
        line(p, "#pragma omp parallel for reduction(%s:parac_acc_%d)", clause, id);
        line(p, "for (long parac_r = 0; parac_r < %s_d0 * %s_d1 * %s_d2 / %s_d%d; parac_r++)", m->name, m->name,
             m->name, m->name, m->ty->ndim - 1);
        p->indent++;
        line(p, "for (long parac_c = 0; parac_c < %s_d%d; parac_c++) {", m->name, m->ty->ndim - 1);
        p->indent++;
        if (op->pop == OP_MIN || op->pop == OP_MAX)
            line(p, "parac_acc_%d = %s(parac_acc_%d, %s[parac_r * %s_pitch + parac_c]);", id,
                 op->pop == OP_MIN ? "PARAC_MIN" : "PARAC_MAX", id, m->name, m->name);
        else
            line(p, "parac_acc_%d += %s[parac_r * %s_pitch + parac_c];", id, m->name, m->name);
        p->indent--;
        line(p, "}");
        p->indent--;
    }
    if (op->pop == OP_MEAN) {
        const char *T = ty_c_name(op->ty, false);
        line(p, "const %s parac_red_%d = (%s)parac_acc_%d / (%s)(%s_d0 * %s_d1 * %s_d2);", T, id, T, id, T,
             m->name, m->name, m->name);
    } else
        line(p, "const %s parac_red_%d = parac_acc_%d;", A, id, id);
}

/* ---- transfers around host statements (OpenCL) ------------------------------ */
static int stmt_reductions(Node *n, Node **list);

static bool mentions_storage(Node *n, Obj *o)
{
    if (node_mentions(n, o)) return true;
    if (o->bound_obj && node_mentions(n, o->bound_obj)) return true;
    return false;
}

/* Whether the host statement n reads or writes o's storage. The global
 * reductions of the statement run on the device before it (emit_reduction),
 * so the matrices they read are not touched by the host. */
static bool stmt_touches(Node *n, Obj *o)
{
    Node *red[32];
    const int k = ocl() ? stmt_reductions(n, red) : 0;
    if (node_mentions_except(n, o, red, k)) return true;
    if (o->bound_obj && node_mentions_except(n, o->bound_obj, red, k)) return true;
    return false;
}

static bool host_touches(Node *n)
{
    /* a border rule is compiled into the kernels that use it: the host
     * neither reads nor writes the matrices it names */
    if (!ocl() || stmt_has_iterator(n) || n->kind == ND_BORDER_RULE) return false;
    for (int i = 0; i < H.sp; i++) {
        Obj *o = H.stack[i];
        if (o && o->used_in_kernel && stmt_touches(n, o)) return true;
    }
    return false;
}

static bool needs_wrap(Node *n)
{
    Node *list[32];
    if (n->kind == ND_ITERATOR || n->kind == ND_RETURN) return false;
    return stmt_reductions(n, list) > 0 || host_touches(n);
}

static void before_stmt(PrintCtx *p, Node *n)
{
    /* a return computes its reductions itself (before_return) */
    if (n->kind == ND_ITERATOR || n->kind == ND_RETURN) return;
    Node *list[32];
    int k = stmt_reductions(n, list);
    for (int i = 0; i < k; i++) emit_reduction(p, list[i]);
    if (host_touches(n) && n->kind != ND_RETURN)
        for (int i = 0; i < H.sp; i++) {
            Obj *o = H.stack[i];
            if (o && o->used_in_kernel && stmt_touches(n, o))
                line(p, "PARAC__CHECK(parac_%s_to_host(&%s_dev)); /* the host reads or writes %s */", rt(), o->name,
                     o->name);
        }
}

static void after_stmt(PrintCtx *p, Node *n)
{
    if (!host_touches(n) || n->kind == ND_RETURN) return;
    for (int i = 0; i < H.sp; i++) {
        Obj *o = H.stack[i];
        if (o && o->used_in_kernel && stmt_touches(n, o)) line(p, "parac_%s_host_modified(&%s_dev);", rt(), o->name);
    }
}

/* A condition reading matrices that kernels use: (host copy, ..., condition). */
static void cond_expr(PrintCtx *p, Node *e)
{
    int n = 0;
    if (ocl())
        for (int i = 0; i < H.sp; i++) {
            Obj *o = H.stack[i];
            if (o && o->used_in_kernel && mentions_storage(e, o)) {
                print_fmt(p, "%sparac__host_copy(&%s_dev, __LINE__), ", n ? "" : "(", o->name);
                n++;
            }
        }
    print_expr(p, e);
    if (n) print_fmt(p, ")");
}

static void before_return(PrintCtx *p, Node *ret)
{
    Node *list[32];
    int k = stmt_reductions(ret, list);
    bool any = k > 0 || H.sp > 0;
    if (!any) {
        print_indent(p);
        print_fmt(p, "return");
        if (ret->lhs) {
            print_fmt(p, " ");
            print_expr(p, ret->lhs);
        }
        print_fmt(p, ";\n");
        return;
    }
    line(p, "{");
    p->indent++;
    for (int i = 0; i < k; i++) emit_reduction(p, list[i]);
    Type *rt = H.func ? H.func->ty->base : NULL;
    bool has_value = ret->lhs && rt && rt->kind != TY_VOID;
    if (has_value) {
        print_indent(p);
        print_type_decl(p->out, rt, "parac_result", false);
        print_fmt(p, " = ");
        print_expr(p, ret->lhs);
        print_fmt(p, ";\n");
    }
    for (int i = H.sp - 1; i >= 0; i--) release(p, H.stack[i]);
    line(p, has_value ? "return parac_result;" : "return;");
    p->indent--;
    line(p, "}");
}

/* ---- regions ------------------------------------------------------------------ */
static void range_header(PrintCtx *p, Iterator *it)
{
    for (int d = 0; d < it->ndim; d++) {
        if (d) print_fmt(p, "; ");
        print_expr(p, it->r[d].lb);
        print_fmt(p, ":");
        print_expr(p, it->r[d].ub);
        print_fmt(p, ":%ld", it->r[d].stride);
    }
}

static const char *class_name(OpClass c)
{
    return c == CLASS_POINT ? "point operation" : c == CLASS_LOCAL_BLOCK ? "local block operation" : "global operation";
}

/* Iteration counts, first indices and the interior box. */
static void region_setup(PrintCtx *p, Region *r)
{
    Iterator *it = r->iter;
    int nd = it->ndim;
    print_indent(p);
    print_fmt(p, "const long parac_n[%d] = {", nd);
    for (int d = 0; d < nd; d++) {
        print_fmt(p, "%sparac__count(", d ? ", " : "");
        print_expr(p, it->r[d].lb);
        print_fmt(p, ", ");
        print_expr(p, it->r[d].ub);
        print_fmt(p, ", %ld)", it->r[d].stride);
    }
    print_fmt(p, "};\n");
    print_indent(p);
    print_fmt(p, "const long parac_first[%d] = {", nd);
    for (int d = 0; d < nd; d++) {
        print_fmt(p, "%s(long)(", d ? ", " : "");
        print_expr(p, it->r[d].lb);
        print_fmt(p, ")");
        if (it->iter_element && it->elem[d] > 1) print_fmt(p, " * %ld", it->elem[d]);
    }
    print_fmt(p, "};\n");
    print_indent(p);
    print_fmt(p, "long parac_lo[%d] = {", nd);
    for (int d = 0; d < nd; d++) print_fmt(p, "%s0", d ? ", " : "");
    print_fmt(p, "}, parac_hi[%d] = {", nd);
    for (int d = 0; d < nd; d++) print_fmt(p, "%sparac_n[%d]", d ? ", " : "", d);
    print_fmt(p, "};\n");
    if (r->has_border) {
        BorderRule *rule = it->rule;
        Obj *v = rule->var;
        for (int d = 0; d < v->ty->ndim; d++) {
            Affine a = r->border_aff[d];
            if (a.axis < 0 || (!r->need_lo[d] && !r->need_hi[d])) continue;
            long step = it->r[a.axis].stride * (it->iter_element && it->elem[a.axis] > 1 ? it->elem[a.axis] : 1);
            line(p, "/* interior along %s of %s: every access %ld..%+ld around %ld*%s stays inside */",
                 d == v->ty->ndim - 1 ? "columns" : "rows", v->name, (long)-r->need_lo[d], (long)r->need_hi[d],
                 a.coef, lang_format("%s%c", it->name, "xyz"[a.axis]));
            line(p, "parac__interior(parac_first[%d], %ld, parac_n[%d], parac__ceildiv(%d, %ld), "
                    "parac__floordiv(%s_d%d - 1 - %d, %ld), &parac_lo[%d], &parac_hi[%d]);",
                 a.axis, step, a.axis, r->need_lo[d], a.coef, v->name, d, r->need_hi[d], a.coef, a.axis, a.axis);
        }
    }
    line(p, "parac__box parac_box[7];");
    line(p, "const int parac_nbox = parac__regions(%d, parac_n, parac_lo, parac_hi, parac_box);", nd);
}

/* The index variable of axis d: `base` (an int expression) plus the counter
 * times the step, in int arithmetic: an index that is the int counter plus
 * an invariant is an induction variable the compiler can vectorise along (a
 * long counter truncated to int is not: the truncation may wrap, so it
 * cannot analyse the addresses). */
static void index_var(PrintCtx *p, Iterator *it, int d, const char *base)
{
    long step = it->r[d].stride * (it->iter_element && it->elem[d] > 1 ? it->elem[d] : 1);
    line(p, "const int %s%c = %s + (int)parac_k%d * %ld;", it->name, "xyz"[d], base, d, step);
    line(p, "(void)%s%c;", it->name, "xyz"[d]);
}

/* The loops of one box of a region: `box` names it; `shared` says the code
 * already runs in a parallel region (strips), so the loop is only shared out. */
static void omp_box_loops(PrintCtx *p, Region *r, bool border, const char *b, bool shared)
{
    Iterator *it = r->iter;
    int nd = it->ndim;
    const char *par = shared ? "" : " parallel";
    /* -O1 and up: threads over the outer axes, the last axis as SIMD lanes
     * (iterations are independent, so `omp simd` is always allowed); -O0 or
     * -fno-vectorize: every axis collapsed into one threaded loop */
    const bool simd = H.prog->opt && plan_flag(H.prog->opt, H.prog->opt->vectorize, 1);
    const bool lanes = simd && nd > 1;
    /* With SIMD lanes, every thread takes its own copy of the matrices'
     * pointers, pitches and sizes: read through the shared ones, a store of
     * an unsigned char may alias them (character types alias anything), so
     * the compiler would reload them per element and vectorise nothing. */
    const char *priv = "";
    if (lanes && r->nmats > 0) {
        priv = " firstprivate(";
        for (int i = 0; i < r->nmats; i++) {
            Obj *m = r->mats[i];
            priv = lang_format("%s%s%s, %s_pitch", priv, i ? ", " : "", m->name, m->name);
            for (int d = 0; d < m->ty->ndim; d++) priv = lang_format("%s, %s_d%d", priv, m->name, d);
        }
        priv = lang_format("%s)", priv);
    }
    if (!simd)
        line(p, "#pragma omp%s for%s", par, nd > 1 ? lang_format(" collapse(%d)", nd) : "");
    else if (nd == 1)
        line(p, "#pragma omp%s for simd", par);
    else
        line(p, "#pragma omp%s for%s%s", par, nd > 2 ? lang_format(" collapse(%d)", nd - 1) : "", priv);
    const int outer = lanes ? nd - 1 : nd;
    for (int d = 0; d < outer; d++) {
        if (simd && d == nd - 1) /* 1D: the SIMD lanes, an int counter (index_var) */
            line(p, "for (int parac_k%d = (int)%s.lo[%d]; parac_k%d < (int)%s.hi[%d]; parac_k%d++)", d, b, d, d, b, d, d);
        else
            line(p, "for (long parac_k%d = %s.lo[%d]; parac_k%d < %s.hi[%d]; parac_k%d++)", d, b, d, d, b, d, d);
        p->indent++;
    }
    p->indent--;
    line(p, "{");
    p->indent++;
    if (lanes) {
        /* the outer indices, the lanes' base and bounds once per row, in
         * locals (read from the shared arrays in the lanes' loop, they would
         * be reloaded per element, as above) */
        for (int d = 0; d < nd - 1; d++) index_var(p, it, d, lang_format("(int)parac_first[%d]", d));
        line(p, "const int parac_lane0 = (int)parac_first[%d];", nd - 1);
        line(p, "const int parac_lane_lo = (int)%s.lo[%d], parac_lane_hi = (int)%s.hi[%d];", b, nd - 1, b, nd - 1);
        line(p, "#pragma omp simd");
        line(p, "for (int parac_k%d = parac_lane_lo; parac_k%d < parac_lane_hi; parac_k%d++)", nd - 1, nd - 1, nd - 1);
        line(p, "{");
        p->indent++;
        index_var(p, it, nd - 1, "parac_lane0");
    } else {
        for (int d = 0; d < nd; d++) index_var(p, it, d, lang_format("(int)parac_first[%d]", d));
    }
    bool k = p->in_kernel, bo = p->border;
    Region *rr = p->region;
    p->in_kernel = true;
    p->border = border;
    p->region = r;
    print_stmt(p, it->body);
    p->in_kernel = k;
    p->border = bo;
    p->region = rr;
    if (lanes) {
        p->indent--;
        line(p, "}");
    }
    p->indent--;
    line(p, "}");
    p->indent -= outer - 1;
}

static void omp_loops(PrintCtx *p, Region *r, bool border)
{
    omp_box_loops(p, r, border, border ? "parac_box[parac_b]" : "parac_box[0]", false);
}

/* Whether running the region's kernel twice gives what running it once does:
 * no reduction, and no matrix both read and written (so nothing it reads
 * is what it wrote). Only such kernels may be run by the work-group search. */
static bool reruns_safely(const Region *r)
{
    if (!r->iter || r->red_var) return false;
    for (const Access *w = r->accesses; w; w = w->next) {
        if (!w->is_write) continue;
        for (const Access *a = r->accesses; a; a = a->next)
            if (!a->is_write && a->var == w->var) return false;
    }
    return true;
}

static void cl_launch(PrintCtx *p, Region *r, bool border)
{
    Iterator *it = r->iter;
    int nd = it->ndim;
    const char *kn = border ? lang_format("%s_border", r->kernel) : r->kernel;
    if (!border && reruns_safely(r)) {
        line(p, "PARAC__CHECK(parac_%s_launch_tuned(parac__session(), \"%s\", %d, parac_box[0].lo, parac_box[0].hi, "
                "parac_wg, %s, (int)(sizeof parac_args / sizeof parac_args[0]), parac_args));", rt(), kn, nd,
             r->vector_width > 1 ? "parac_items" : "NULL");
        return;
    }
    if (!border && r->vector_width > 1) {
        line(p, "PARAC__CHECK(parac_%s_launch_items(parac__session(), \"%s\", %d, parac_box[0].lo, parac_box[0].hi, "
                "parac_wg, parac_items, (int)(sizeof parac_args / sizeof parac_args[0]), parac_args));", rt(), kn, nd);
        return;
    }
    if (border) {
        line(p, "PARAC__CHECK(parac_%s_launch_boxes(parac__session(), \"%s\", %d, parac_nbox - 1, parac_box[1].lo, "
                "(int)(sizeof parac_args / sizeof parac_args[0]), parac_args));", rt(), kn, nd);
        return;
    }
    line(p, "PARAC__CHECK(parac_%s_launch(parac__session(), \"%s\", %d, parac_box[0].lo, parac_box[0].hi, parac_wg, "
            "(int)(sizeof parac_args / sizeof parac_args[0]), parac_args));", rt(), kn, nd);
}

/* ---- outputs a region overwrites whole ------------------------------------- */
bool lang_any_jump(const Node *n)
{
    if (!n) return false;
    if (n->kind == ND_BREAK || n->kind == ND_CONTINUE || n->kind == ND_GOTO || n->kind == ND_RETURN ||
        n->kind == ND_LABEL)
        return true;
    if (lang_any_jump(n->lhs) || lang_any_jump(n->rhs) || lang_any_jump(n->then) || lang_any_jump(n->els) ||
        lang_any_jump(n->body))
        return true;
    for (const Node *a = n->args; a; a = a->next)
        if (lang_any_jump(a)) return true;
    return false;
}

/* Whether every iteration of the region writes m[it0][it1]... (each index
 * exactly its iterator variable, axis by axis) in a statement of the body's
 * top level, and nothing in the region reads m. Then, when the iteration
 * space is m's whole index space (checked at run time), the kernels overwrite
 * every element and m's host copy need not be uploaded first. A matrix with
 * one more (leading) dimension than the iterator counts too when such
 * statements write m[0][it0].., m[1][it0].., ... m[K-1][it0].. (the planes
 * of a fused channel loop, fuse.c): *planes is then K, to be checked
 * against m's first size; else 0. */
bool lang_writes_whole(Region *r, Obj *m, int *planes)
{
    Iterator *it = r->iter;
    const int lead = m->ty->ndim - (it ? it->ndim : 0);
    *planes = 0;
    if (!it || it->iter_element || lead < 0 || lead > 1 || lang_any_jump(it->body)) return false;
    for (int d = 0; d < it->ndim; d++)
        if (it->r[d].stride != 1) return false;
    Node *body = it->body;
    bool seen[16] = {false}, any = false;
    for (Node *st = body && body->kind == ND_BLOCK ? body->args : body; st; st = st->next) {
        Node *as = st->kind == ND_EXPR_STMT ? st->lhs : NULL;
        if (as && as->kind == ND_ASSIGN && !strcmp(as->op, "=") && as->lhs && as->lhs->kind == ND_MAT_ELEM &&
            as->lhs->var == m) {
            const Access *w = NULL;
            for (Access *a = r->accesses; a; a = a->next)
                if (a->node == as->lhs) w = a;
            bool ok = w && w->ndim == m->ty->ndim;
            for (int d = 0; ok && d < it->ndim; d++) {
                const Affine *f = &w->aff[lead + d];
                ok = f->ok && f->axis == d && f->coef == 1 && f->offset == 0;
            }
            if (ok && lead) {
                const Affine *f = &w->aff[0];
                ok = f->ok && f->axis < 0 && f->offset >= 0 && f->offset < 16;
                if (ok) seen[f->offset] = true;
            }
            any |= ok;
        }
        if (body->kind != ND_BLOCK) break;
    }
    if (!any) return false;
    for (Access *a = r->accesses; a; a = a->next)
        if (a->var == m && (!a->is_write || a->is_window)) return false; /* read in the region */
    if (lead) {
        while (*planes < 16 && seen[*planes]) (*planes)++;
        for (int k = *planes; k < 16; k++)
            if (seen[k]) return false; /* a gap: the planes past it are not written */
    }
    return true;
}

static void iterator(PrintCtx *p, Node *n)
{
    Iterator *it = n->iter;
    Region *r = it->region;
    if (!r) return;
    print_indent(p);
    if (it->synthetic)
        print_fmt(p, "/* %s:%d: whole-image statement as an iterator over (", H.file, n->tok->line);
    else
        print_fmt(p, "/* %s:%d: parac_iterator %s(%s", H.file, n->tok->line, it->name, it->iter_element ? "iter_element; " : "");
    range_header(p, it);
    print_fmt(p, ")%s%s: %s */\n", it->rule ? " parac_border_rule " : "", it->rule ? it->rule->name : "",
        class_name(r->cls));
    if (ocl() && r->fold_red)
        line(p, "int parac_folded_%d = 0; /* whether the kernel below summed all of %s for the next statement */",
             r->fold_red->id, r->fold_red->red_var->name);
    line(p, "{");
    p->indent++;
    region_setup(p, r);
    if (!ocl()) {
        line(p, "/* interior: no border tests */");
        omp_loops(p, r, false);
        if (r->has_border) {
            line(p, "/* border boxes: reads of %s outside the image follow border rule %s */",
                 it->rule->var->name, it->rule->name);
            line(p, "for (int parac_b = 1; parac_b < parac_nbox; parac_b++)");
            line(p, "{");
            p->indent++;
            omp_loops(p, r, true);
            p->indent--;
            line(p, "}");
        } else
            line(p, "(void)parac_nbox;");
    } else {
        int nd = it->ndim;
        for (int i = 0; i < r->nmats; i++) {
            Obj *m = r->mats[i];
            int planes = 0;
            if (lang_writes_whole(r, m, &planes)) {
                const int lead = planes ? 1 : 0;
                print_indent(p);
                print_fmt(p, "if (");
                if (planes) print_fmt(p, "%s_d0 == %d && ", m->name, planes);
                for (int d = 0; d < nd; d++)
                    print_fmt(p, "%sparac_first[%d] == 0 && parac_n[%d] == %s_d%d", d ? " && " : "", d, d, m->name,
                              lead + d);
                print_fmt(p, ") parac_%s_matrix_overwritten(&%s_dev); /* every element written, none read */\n",
                          rt(), m->name);
            }
            line(p, "PARAC__CHECK(parac_%s_to_device(&%s_dev));", rt(), m->name);
        }
        if (r->fold_red) {
            Obj *m = r->fold_red->red_var;
            line(p, "void *parac_fold_slot = NULL; /* where the kernel sums what it stores into %s */", m->name);
            line(p, "PARAC__CHECK(parac_cu_fold_slot(parac__session(), %d, &parac_fold_slot));", r->fold_red->id);
            print_indent(p);
            print_fmt(p, "if (");
            for (int d = 0; d < nd; d++) /* an empty launch sums nothing into the slot: not folded */
                print_fmt(p, "%sparac_first[%d] == 0 && parac_n[%d] == %s_d%d && parac_n[%d] > 0", d ? " && " : "", d,
                          d, m->name, d, d);
            print_fmt(p, ") parac_folded_%d = 1; /* the whole of %s: its sum */\n", r->fold_red->id, m->name);
        }
        print_indent(p);
        print_fmt(p, "const int parac_first_i[%d] = {", nd);
        for (int d = 0; d < nd; d++) print_fmt(p, "%s(int)parac_first[%d]", d ? ", " : "", d);
        print_fmt(p, "};\n");
        for (int i = 0; i < r->nscalars; i++) {
            Obj *o = r->scalars[i];
            Type *t = o->ty;
            const char *kt = t->kind == TY_BOOL ? "int" : t->kind == TY_LDOUBLE ? "double" : ty_c_name(t, false);
            line(p, "const %s parac_arg_%s = (%s)%s;", kt, o->name, kt, o->name);
        }
        print_indent(p);
        print_fmt(p, "const parac_%s_arg parac_args[] = {", rt());
        for (int d = 0; d < nd; d++) print_fmt(p, "%sPARAC_%s_VALUE(parac_first_i[%d])", d ? ", " : "", RT(), d);
        for (int i = 0; i < r->nmats; i++) print_fmt(p, ", PARAC_%s_MATRIX(&%s_dev)", RT(), r->mats[i]->name);
        for (int i = 0; i < r->nscalars; i++) print_fmt(p, ", PARAC_%s_VALUE(parac_arg_%s)", RT(), r->scalars[i]->name);
        if (r->fold_red) print_fmt(p, ", PARAC_CU_VALUE(parac_fold_slot)");
        print_fmt(p, "};\n");
        const bool table = (r->one_launch && r->nvariants) || it->nstages; /* shapes in a table of candidates */
        if (!table)
            line(p, "const int parac_wg[3] = {%d, %d, %d};", r->wg[0], r->wg[1], r->wg[2]);
        if (r->vector_width > 1 && !table) {
            print_indent(p);
            print_fmt(p, "const int parac_items[%d] = {", nd);
            for (int d = 0; d < nd; d++)
                print_fmt(p, "%s%d", d ? ", " : "", d == nd - 1 ? r->vector_width : d == 0 ? r->rows_per_item : 1);
            print_fmt(p, "}; /* outputs per work-item along each axis */\n");
        }
        if (it->nstages) {
            /* stages in local memory: the tiles are sized for each candidate's work-group, which the
             * search must not change (fixed shapes); it times the candidates' rows per work-item */
            line(p, "/* %d stage%s computed in local memory by each work-group; the search (PARAC_%s_SEARCH) times "
                    "%d candidate%s */", it->nstages, it->nstages > 1 ? "s" : "", RT(), r->nvariants + 1,
                 r->nvariants ? "s" : "");
            line(p, "static const parac_kernel_variant parac_variants[] = {");
            for (int i = 0; i <= r->nvariants; i++) {
                const Region *v = i ? r->variants[i - 1] : r;
                line(p, "    {\"%s\", {%d, %d, %d}, {%d, 1, 1}, 1}, /* %s */", v->kernel, v->wg[0], v->wg[1], v->wg[2],
                     v->rows_per_item, i ? v->variant_what : "the model's plan");
            }
            line(p, "};");
            line(p, "PARAC__CHECK(parac_%s_launch_variants(parac__session(), %d, parac_variants, %d, parac_box[0].lo, "
                    "parac_box[0].hi, 0, NULL, (int)(sizeof parac_args / sizeof parac_args[0]), parac_args, %d));",
                 rt(), r->nvariants + 1, nd, reruns_safely(r) ? 1 : 0);
        } else if (r->one_launch && r->nvariants) {
            line(p, "/* the interior (no border tests) and the border boxes (border rule %s) in one launch; the "
                    "search (PARAC_%s_SEARCH) times the model's kernel and %d other candidates */",
                 it->rule->name, RT(), r->nvariants);
            line(p, "static const parac_kernel_variant parac_variants[] = {");
            for (int i = 0; i <= r->nvariants; i++) {
                const Region *v = i ? r->variants[i - 1] : r;
                line(p, "    {\"%s_all\", {%d, %d, %d}, {%d, %d, 1}, %d}, /* %s */", v->kernel, v->wg[0], v->wg[1],
                     v->wg[2], nd == 2 ? v->rows_per_item : v->vector_width, nd == 2 ? v->vector_width : 1,
                     v->use_local_tiles ? 1 : 0, i ? v->variant_what : "the model's plan");
            }
            line(p, "};");
            line(p, "PARAC__CHECK(parac_%s_launch_variants(parac__session(), %d, parac_variants, %d, parac_box[0].lo, "
                    "parac_box[0].hi, parac_nbox - 1, parac_box[1].lo, (int)(sizeof parac_args / sizeof parac_args[0]), "
                    "parac_args, %d));", rt(), r->nvariants + 1, nd, reruns_safely(r) ? 1 : 0);
        } else if (r->one_launch) {
            line(p, "/* the interior (no border tests) and the border boxes (border rule %s) in one launch */",
                 it->rule->name);
            line(p, "PARAC__CHECK(parac_%s_launch_all(parac__session(), \"%s_all\", %d, parac_box[0].lo, parac_box[0].hi, "
                    "parac_wg, %s, parac_nbox - 1, parac_box[1].lo, (int)(sizeof parac_args / sizeof parac_args[0]), "
                    "parac_args, %d));", rt(), r->kernel, nd, r->vector_width > 1 ? "parac_items" : "NULL",
                 reruns_safely(r) ? 1 : 0);
        } else {
            line(p, "/* interior: no border tests */");
            cl_launch(p, r, false);
        }
        if (r->has_border && !r->one_launch) {
            line(p, "/* border boxes: reads of %s outside the image follow border rule %s */",
                 it->rule->var->name, it->rule->name);
            cl_launch(p, r, true);
        } else if (!r->has_border)
            line(p, "(void)parac_nbox;");
        for (Access *a = r->accesses; a; a = a->next) {
            if (!a->is_write) continue;
            bool dup = false;
            for (Access *b = r->accesses; b != a; b = b->next) dup |= b->is_write && b->var == a->var;
            if (!dup) line(p, "parac_%s_device_modified(&%s_dev);", rt(), a->var->name);
        }
    }
    p->indent--;
    line(p, "}");
}

/* ---- the C target's strips of rows (strips.c) ------------------------------- */
/* Stage k's counts, first indices and boxes, kept in parac_sf<k>, parac_sn<k>,
 * parac_sb<k> and parac_snb<k> for the strips. */
static void strip_stage_setup(PrintCtx *p, Region *r, int k)
{
    line(p, "long parac_sf%d[2], parac_sn%d[2];", k, k);
    line(p, "parac__box parac_sb%d[7];", k);
    line(p, "int parac_snb%d;", k);
    line(p, "{");
    p->indent++;
    region_setup(p, r);
    line(p, "memcpy(parac_sf%d, parac_first, sizeof parac_sf%d);", k, k);
    line(p, "memcpy(parac_sn%d, parac_n, sizeof parac_sn%d);", k, k);
    line(p, "memcpy(parac_sb%d, parac_box, sizeof parac_sb%d);", k, k);
    line(p, "parac_snb%d = parac_nbox;", k);
    line(p, "(void)parac_snb%d;", k);
    p->indent--;
    line(p, "}");
}

/* Stage k's boxes, their rows clipped to [from, to). */
static void strip_stage_rows(PrintCtx *p, Region *r, int k, const char *from, const char *to, bool shared)
{
    line(p, "{");
    p->indent++;
    line(p, "const long *const parac_first = parac_sf%d;", k);
    line(p, "(void)parac_first;");
    for (int border = 0; border <= (r->has_border ? 1 : 0); border++) {
        if (border) {
            line(p, "for (int parac_b = 1; parac_b < parac_snb%d; parac_b++)", k);
            line(p, "{");
            p->indent++;
        }
        const char *cb = border ? "parac_cbb" : "parac_cb";
        line(p, "parac__box %s = parac_sb%d[%s];", cb, k, border ? "parac_b" : "0");
        line(p, "if (%s.lo[0] < %s) %s.lo[0] = %s;", cb, from, cb, from);
        line(p, "if (%s.hi[0] > %s) %s.hi[0] = %s;", cb, to, cb, to);
        omp_box_loops(p, r, border, cb, shared);
        if (border) {
            p->indent--;
            line(p, "}");
        }
    }
    p->indent--;
    line(p, "}");
}

/* A run of iterators in strips of rows: each stage computes, per strip, its
 * rows up to the strip's end plus its reach; if the stages do not iterate
 * the same rows (checked at run time), stage after stage as usual. Returns
 * the statements printed (border rules between the iterators included). */
static int strip_run(PrintCtx *p, Node *s)
{
    if (ocl() || s->kind != ND_ITERATOR || !s->iter || !s->iter->region) return 0;
    Region *r0 = s->iter->region;
    if (r0->strip_first != r0 || r0->strip_stages < 2) return 0;
    const int n = r0->strip_stages;
    print_indent(p);
    print_fmt(p, "/* %s:", H.file);
    int k = 0;
    for (Region *r = r0; r; r = r->strip_next, k++)
        print_fmt(p, "%s%d", k ? "," : "", r->node->tok->line);
    print_fmt(p, ": %d iterators in strips of rows (rows needed ahead of a strip:", n);
    for (Region *r = r0; r; r = r->strip_next) print_fmt(p, " %ld", r->strip_reach);
    print_fmt(p, "): a strip's rows of each intermediate are read while still in cache */\n");
    line(p, "{");
    p->indent++;
    k = 0;
    for (Region *r = r0; r; r = r->strip_next, k++) strip_stage_setup(p, r, k);
    line(p, "const long parac_rows = parac_sn0[0], parac_strip = parac__strip_rows();");
    print_indent(p);
    print_fmt(p, "const int parac_same = 1");
    for (k = 1; k < n; k++)
        print_fmt(p, " && parac_sf%d[0] == parac_sf0[0] && parac_sn%d[0] == parac_rows", k, k);
    print_fmt(p, ";\n");
    line(p, "if (parac_same && parac_rows > 2 * parac_strip && parac__strips_pay(parac_rows * parac_sn0[1]))");
    line(p, "{");
    p->indent++;
    line(p, "#pragma omp parallel");
    line(p, "{");
    p->indent++;
    line(p, "long parac_done[%d] = {0};", n);
    line(p, "for (long parac_r = 0; parac_r < parac_rows; parac_r += parac_strip)");
    line(p, "{");
    p->indent++;
    k = 0;
    for (Region *r = r0; r; r = r->strip_next, k++) {
        line(p, "{");
        p->indent++;
        line(p, "const long parac_to = parac_r + parac_strip + %ld < parac_rows ? parac_r + parac_strip + %ld : parac_rows;",
             r->strip_reach, r->strip_reach);
        line(p, "if (parac_to > parac_done[%d])", k);
        line(p, "{");
        p->indent++;
        strip_stage_rows(p, r, k, lang_format("parac_done[%d]", k), "parac_to", true);
        line(p, "parac_done[%d] = parac_to;", k);
        p->indent--;
        line(p, "}");
        p->indent--;
        line(p, "}");
    }
    p->indent--;
    line(p, "}");
    p->indent--;
    line(p, "}");
    p->indent--;
    line(p, "}");
    line(p, "else");
    line(p, "{");
    p->indent++;
    k = 0;
    for (Region *r = r0; r; r = r->strip_next, k++)
        strip_stage_rows(p, r, k, "0", lang_format("parac_sn%d[0]", k), false);
    p->indent--;
    line(p, "}");
    p->indent--;
    line(p, "}");
    return r0->strip_stmts;
}


/* ---- functions ---------------------------------------------------------------- */
static void print_signature(PrintCtx *p, Node *f)
{
    if (f->is_static) print_fmt(p, "static ");
    if (f->is_inline) print_fmt(p, "inline ");
    print_type_decl(p->out, f->ty->base, f->name, false);
    print_fmt(p, "(");
    if (!f->ty->params) print_fmt(p, f->ty->variadic ? "" : "void");
    for (Node *q = f->ty->params; q; q = q->next) {
        if (q != f->ty->params) print_fmt(p, ", ");
        print_type_decl(p->out, q->ty, q->var ? q->var->name : q->name ? q->name : "", false);
    }
    if (f->ty->variadic) print_fmt(p, ", ...");
    print_fmt(p, ")");
}

static void emit_function(PrintCtx *p, Node *f)
{
    H.func = f;
    H.sp = 0;
    print_fmt(p, "/* %s:%d */\n", H.file, f->tok->line);
    print_signature(p, f);
    print_fmt(p, "\n{\n");
    p->indent = 1;
    cur_block = f->body;
    for (Node *q = f->ty->params; q; q = q->next) {
        if (!q->var || q->var->ty->kind != TY_MATRIX) continue;
        Obj *o = q->var;
        line(p, "/* %s:%d: parameter %s parac_matrix &%s */", H.file, q->tok->line,
             ty_c_name(o->ty->base, false), o->name);
        matrix_dims(p, o);
        line(p, "const long %s_pitch = %s_d%d;", o->name, o->name, o->ty->ndim - 1);
        unused(p, o);
        matrix_cl_bind(p, o);
        if (ocl() && o->used_in_kernel) push_matrix(o, f->body);
    }
    /* the body's statements, inside the function's own braces */
    for (Node *s = f->body->args; s;) {
        Node *saved = cur_block;
        int k = strip_run(p, s);
        if (k <= 0) {
            print_stmt(p, s);
            k = 1;
        }
        cur_block = saved;
        while (k-- > 0 && s) s = s->next;
    }
    block_end(p, f->body);
    p->indent = 0;
    print_fmt(p, "}\n\n");
    H.func = NULL;
}

/* Track the current block for matrix lifetimes. */
static void block_end_hook(PrintCtx *p, Node *block)
{
    block_end(p, block);
}

static void decl_matrix_hook(PrintCtx *p, Node *d) { decl_matrix(p, d); }

static const HostHooks hooks = {
    .iterator = iterator,
    .before_stmt = before_stmt,
    .after_stmt = after_stmt,
    .decl_matrix = decl_matrix_hook,
    .block_end = block_end_hook,
    .before_return = before_return,
    .needs_wrap = needs_wrap,
    .stmt_run = strip_run,
};

/* Blocks set cur_block as they open: print.c calls block_end with the block;
 * declarations inside it are registered against cur_block. We keep cur_block
 * right by scanning: a matrix declared in block B is pushed with B. */
static void assign_blocks(Node *n, Node *block)
{
    if (!n) return;
    switch (n->kind) {
    case ND_BLOCK:
        for (Node *s = n->args; s; s = s->next) assign_blocks(s, n);
        return;
    case ND_DECL:
        for (Node *d = n->decls; d; d = d->next) d->body = block;
        return;
    case ND_IF: assign_blocks(n->then, block); assign_blocks(n->els, block); return;
    case ND_FOR: case ND_WHILE: case ND_DO: case ND_SWITCH: assign_blocks(n->body, block); return;
    default: return;
    }
}

static void decl_matrix_tracked(PrintCtx *p, Node *d)
{
    cur_block = d->body;
    decl_matrix(p, d);
}

static const HostHooks hooks_tracked = {
    .iterator = iterator,
    .before_stmt = before_stmt,
    .after_stmt = after_stmt,
    .decl_matrix = decl_matrix_tracked,
    .block_end = block_end_hook,
    .before_return = before_return,
    .needs_wrap = needs_wrap,
    .cond_expr = cond_expr,
    .stmt_run = strip_run,
};

/* NAME_try(): the function with its failures returned instead of reported.
 * Returns 0 or the failing step's status (a parac_status code); a non-void
 * result goes to *parac_result when that is not NULL. Nested calls release
 * only what their own call holds. */
static void emit_try_wrapper(PrintCtx *p, Node *f)
{
    if (f->is_static || !strcmp(f->name, "main") || f->ty->variadic) return;
    for (Node *q = f->ty->params; q; q = q->next)
        if (!q->var) return; /* an unnamed parameter cannot be passed on */
    Type *rt = f->ty->base;
    const bool has_value = rt && rt->kind != TY_VOID;
    print_fmt(p, "/* %s:%d: %s() returning 0 or the status of a failed step; %s_error() is its message */\n",
              H.file, f->tok->line, f->name, f->name);
    print_fmt(p, "const char *%s_error(void);\n", f->name);
    print_fmt(p, "const char *%s_error(void) { return parac__message; }\n", f->name);
    for (int def = 0; def < 2; def++) { /* the prototype, then the definition */
        print_fmt(p, "int %s_try(", f->name);
        for (Node *q = f->ty->params; q; q = q->next) {
            if (q != f->ty->params) print_fmt(p, ", ");
            print_type_decl(p->out, q->ty, q->var->name, false);
        }
        if (has_value) {
            if (f->ty->params) print_fmt(p, ", ");
            print_type_decl(p->out, rt, "*parac_result", false);
        } else if (!f->ty->params)
            print_fmt(p, "void");
        print_fmt(p, def ? ")\n{\n" : ");\n");
    }
    print_fmt(p, "    jmp_buf parac_env;\n"
                 "    jmp_buf *const parac_outer = parac__jmp;\n"
                 "    const int parac_outer_base = parac__held_base;\n"
                 "    parac__jmp = &parac_env;\n"
                 "    parac__held_base = parac__held_n;\n"
                 "    if (setjmp(parac_env)) {\n"
                 "        parac__jmp = parac_outer;\n"
                 "        parac__held_base = parac_outer_base;\n"
                 "        return parac__jmp_status;\n"
                 "    }\n");
    print_fmt(p, "    ");
    if (has_value) {
        print_type_decl(p->out, rt, "parac_value", false);
        print_fmt(p, " = ");
    }
    print_fmt(p, "%s(", f->name);
    for (Node *q = f->ty->params; q; q = q->next) print_fmt(p, "%s%s", q != f->ty->params ? ", " : "", q->var->name);
    print_fmt(p, ");\n");
    if (has_value) print_fmt(p, "    if (parac_result) *parac_result = parac_value;\n");
    print_fmt(p, "    parac__held_n = parac__held_base; /* what a jump out of a block left behind */\n"
                 "    parac__jmp = parac_outer;\n"
                 "    parac__held_base = parac_outer_base;\n"
                 "    return 0;\n}\n\n");
}

void emit_host_program(Program *prog, FILE *o, Target target, const char *c_name, const char *cl_name,
                       const char *kernel_source);

/* Whether the host code (outside iterators) calls `name`. */
static bool host_calls(Node *n, const char *name, int depth)
{
    if (!n || depth > 400 || n->kind == ND_ITERATOR) return false;
    if (n->kind == ND_CALL && n->name && !strcmp(n->name, name)) return true;
    if (n->kind == ND_VAR && n->name && !strcmp(n->name, name)) return true; /* address taken */
    if (host_calls(n->lhs, name, depth + 1) || host_calls(n->rhs, name, depth + 1) ||
        host_calls(n->cond, name, depth + 1) || host_calls(n->then, name, depth + 1) ||
        host_calls(n->els, name, depth + 1) || host_calls(n->init, name, depth + 1) ||
        host_calls(n->inc, name, depth + 1) || host_calls(n->body, name, depth + 1))
        return true;
    for (Node *a = n->args; a; a = a->next)
        if (host_calls(a, name, depth + 1)) return true;
    for (Node *d = n->decls; d; d = d->next)
        if (host_calls(d->init, name, depth + 1)) return true;
    return false;
}

static bool device_only(Program *prog, Node *f)
{
    bool used = false;
    for (Region *r = prog->regions; r; r = r->next)
        for (int i = 0; i < r->nfuncs; i++) used |= r->funcs[i] == f;
    if (!used) return false;
    for (Node *n = prog->top; n; n = n->next) {
        if (n->kind == ND_FUNC && n != f && host_calls(n->body, f->name, 0)) return false;
        if (n->kind == ND_DECL && host_calls(n, f->name, 0)) return false;
    }
    return true;
}

void emit_host_program(Program *prog, FILE *o, Target target, const char *c_name, const char *cl_name,
                       const char *kernel_source)
{
    memset(&H, 0, sizeof H);
    H.prog = prog;
    H.target = target;
    H.file = prog->file->name;
    (void)hooks;
    print_hooks = &hooks_tracked;
    PrintCtx pc = {0}, *p = &pc;
    p->out = o;
    p->line_marks = !prog->opt || !prog->opt->no_line;
    const bool dev = target_has_device(target), cuda = target == TARGET_CUDA;
    const char *api = cuda ? "CUDA" : "OpenCL", *x = cuda ? "cu" : "cl";
    print_fmt(p, "/* %s: generated by paracc from %s (target %s).\n", c_name, H.file, target_name(target));
    if (dev)
        print_fmt(p, " * Kernels: %s (embedded below). Host code calls the %s runtime of libparac. */\n", cl_name, api);
    else
        print_fmt(p, " * Plain C with OpenMP: compile with -fopenmp (without it the loops run serially). */\n");
    print_fmt(p, "%s", prelude);
    if (dev) print_fmt(p, "#include <parac/%s.h>\n\n", cuda ? "cuda" : "opencl");
    fprintf(o, failures_and_storage, (int)PARAC_ERR_OUT_OF_MEMORY);
    if (dev) {
        print_fmt(p, "/* A failed %s step: returned by NAME_try(), else reported (see parac__raise). */\n"
               "PARAC__HELPER void parac__fatal(parac_status st, const char *file, int line)\n{\n"
               "    char where[320];\n"
               "    snprintf(where, sizeof where, \"%%s:%%d: %s: %%s\", file, line, parac_status_string(st));\n"
               "    parac__raise((int)st, where, parac_error_message());\n}\n\n"
               "PARAC__HELPER void parac__release_dev(void *m) { parac_%s_matrix_release((parac_%s_matrix *)m); }\n\n"
               "PARAC__HELPER void parac__drop_dev(parac_%s_matrix *m)\n{\n"
               "    parac__unhold(m);\n"
               "    parac_%s_matrix_release(m);\n}\n\n", api, api, x, x, x, x);
        print_fmt(p, "/* A %s failure inside generated code. */\n", api);
        print_fmt(p, "#define PARAC__CHECK(call) \\\n    do { \\\n        parac_status parac__st = (call); \\\n"
               "        if (parac__st != PARAC_OK) parac__fatal(parac__st, \"%s\", __LINE__); \\\n    } while (0)\n\n",
            c_name);
        print_fmt(p, "/* The host copy of a matrix, inside an expression (loop conditions). */\n"
               "PARAC__HELPER int parac__host_copy(parac_%s_matrix *m, int line)\n{\n"
               "    parac_status st = parac_%s_to_host(m);\n"
               "    if (st != PARAC_OK) parac__fatal(st, \"%s\", line);\n"
               "    return 0;\n}\n\n", x, x, c_name);
        print_fmt(p, "/* The kernels of %s. */\nstatic const char parac__kernel_source[] =\n", cl_name);
        const char *s = kernel_source;
        print_fmt(p, "    \"");
        for (; *s; s++) {
            if (*s == '\n') {
                print_fmt(p, "\\n\"");
                if (s[1]) print_fmt(p, "\n    \"");
                continue;
            }
            if (*s == '"' || *s == '\\') fputc('\\', o);
            fputc(*s, o);
        }
        print_fmt(p, ";\n\n");
        print_fmt(p, "/* One %s session per program, opened on first use (device from %s). */\n"
               "static parac_%s_session *parac__session_handle;\n\n"
               "PARAC__HELPER parac_%s_session *parac__session(void)\n{\n"
               "    if (!parac__session_handle)\n"
               "        PARAC__CHECK(parac_%s_session_open(&parac__session_handle, \"%s\", parac__kernel_source, NULL));\n"
               "    return parac__session_handle;\n}\n\n"
               "/* Closed when the program, or a shared object holding this code, unloads. */\n"
               "#if defined(__GNUC__)\n"
               "__attribute__((destructor)) static void parac__session_release(void)\n{\n"
               "    parac_%s_session_close(parac__session_handle);\n"
               "    parac__session_handle = NULL;\n}\n"
               "#endif\n\n",
            api, cuda ? "PARAC_CUDA_DEVICE" : "PARAC_OPENCL_DEVICE", x, x, x, prog->base, x);
    }
    for (Node *n = prog->top; n; n = n->next) {
        switch (n->kind) {
        case ND_DIRECTIVE:
            print_fmt(p, "%s\n", n->text);
            break;
        case ND_VERBATIM:
            print_fmt(p, "%s\n", n->text);
            break;
        case ND_DECL:
            print_stmt(p, n);
            break;
        case ND_FUNC:
            if (dev && n->is_static && device_only(prog, n)) {
                print_fmt(p, "/* %s:%d: static function %s is called only inside parallel regions: see %s */\n\n",
                    H.file, n->tok->line, n->name, cl_name);
                break;
            }
            assign_blocks(n->body, n->body);
            emit_function(p, n);
            emit_try_wrapper(p, n);
            break;
        case ND_BORDER_RULE:
            print_fmt(p, "/* %s:%d: border rule %s */\n", H.file, n->tok->line, n->name ? n->name : "?");
            break;
        default:
            break;
        }
    }
    print_hooks = NULL;
}
