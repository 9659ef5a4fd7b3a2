/* OpenCL C 1.2 kernels. One kernel per iterator region (the interior, with no
 * border tests), one more for its border boxes when a border rule applies,
 * and two per independent reduction (per-work-group tree reduction in local
 * memory, then one work-group over the partial results).
 *
 * Kernel arguments: the counter box (k<d>lo, k<d>hi per axis), the first
 * index per axis, then each matrix as (buffer, pitch, d0, d1, d2), then host
 * scalars by value. Work-item dimension 0 runs along the last iterator axis
 * so that neighbouring work-items touch neighbouring columns. */
#include <string.h>

#include "lang/lang.h"

static bool written(Region *r, Obj *o)
{
    for (Access *a = r->accesses; a; a = a->next)
        if (a->var == o && a->is_write) return true;
    return false;
}

static void kernel_params(PrintCtx *p, Region *r, bool restrict_ptrs, bool border)
{
    Iterator *it = r->iter;
    if (border) print_fmt(p, "const parac_boxes parac_bx");
    else
        for (int d = 0; d < it->ndim; d++) print_fmt(p, "%sconst int k%dlo, const int k%dhi", d ? ", " : "", d, d);
    for (int d = 0; d < it->ndim; d++) print_fmt(p, ", const int first%d", d);
    for (int i = 0; i < r->nmats; i++) {
        Obj *m = r->mats[i];
        print_fmt(p, ",\n    __global %s%s *%s%s, const int %s_pitch, const int %s_d0, const int %s_d1, const int %s_d2",
            written(r, m) ? "" : "const ", ty_c_name(m->ty->base, true), restrict_ptrs ? "restrict " : "", m->name,
            m->name, m->name, m->name, m->name);
    }
    for (int i = 0; i < r->nscalars; i++) {
        Obj *o = r->scalars[i];
        Type *t = o->ty;
        const char *kt = t->kind == TY_BOOL ? "int" : ty_c_name(t, true);
        print_fmt(p, ",\n    const %s %s", kt, o->name);
    }
}

static long axis_step(Iterator *it, int d)
{
    return it->r[d].stride * (it->iter_element && it->elem[d] > 1 ? it->elem[d] : 1);
}

/* The OpenCL vector type of V elements of t (plan.c admits 1-, 2-, 4- and
 * 8-byte arithmetic types only). */
static const char *vector_type(const Type *t, int V)
{
    const char *base;
    switch (t->kind) {
    case TY_CHAR: base = t->is_unsigned ? "uchar" : "char"; break;
    case TY_SHORT: base = t->is_unsigned ? "ushort" : "short"; break;
    case TY_INT: base = t->is_unsigned ? "uint" : "int"; break;
    case TY_LONG: case TY_LLONG: base = t->is_unsigned ? "ulong" : "long"; break;
    case TY_FLOAT: base = "float"; break;
    default: base = "double"; break;
    }
    return lang_format("%s%d", base, V);
}

/* The merged stores of a coarsened kernel: all V values in one aligned
 * vector store where the whole vector lies in the box (its first column is a
 * multiple of V, the pitch padded to 64 bytes), else one store per value. */
static void merged_stores(PrintCtx *p, Region *r, int last, const char *src)
{
    int V = r->vector_width;
    for (int i = 0; i < r->nmerge; i++) {
        Node *lhs = r->merge_lhs[i];
        Obj *m = lhs->var;
        Node *e[3];
        long add[3];
        int n = print_access_indices(lhs, 0, 0, e, add);
        Node col = {0};
        col.kind = ND_ITER_INDEX;
        col.name = "parac_col";
        col.tok = lhs->tok;
        e[n - 1] = &col;
        add[n - 1] = 0;
        const char *T = vector_type(m->ty->base, V);
        print_fmt(p, "    /* %s:%d: the %d values of %s leave in one store */\n", src, lhs->tok->line, V, m->name);
        print_fmt(p, "    if (k%dbase >= k%dlo && k%dbase + %d <= k%dhi) {\n", last, last, last, V, last);
        print_fmt(p, "        const int parac_col = first%d + k%dbase;\n", last, last);
        print_fmt(p, "        *(__global %s *)&", T);
        print_mat_index(p, m, e, add, n);
        print_fmt(p, " = (%s)(", T);
        for (int v = 0; v < V; v++) print_fmt(p, "%sparac_st_%s[%d]", v ? ", " : "", m->name, v);
        print_fmt(p, ");\n    } else {\n");
        print_fmt(p, "        for (int parac_v = 0; parac_v < %d; parac_v++) {\n", V);
        print_fmt(p, "            const int parac_k = k%dbase + parac_v, parac_col = first%d + parac_k;\n", last, last);
        print_fmt(p, "            if (parac_k >= k%dlo && parac_k < k%dhi) ", last, last);
        print_mat_index(p, m, e, add, n);
        print_fmt(p, " = parac_st_%s[parac_v];\n        }\n    }\n", m->name);
    }
}

/* A synthetic index node printed as the given text. */
static Node *text_index(const char *text, Token *tok)
{
    Node *n = new_node(ND_ITER_INDEX, tok);
    n->name = text;
    return n;
}

/* The vector loads of a coarsened kernel: each planned row, from the aligned
 * vector at or before the first column its V outputs read to the one that
 * holds the last. Vectors outside the matrix are zero: only outputs the
 * work-item skips, or reads under a condition that fails, would use them. */
static void vector_loads(PrintCtx *p, Region *r, int last)
{
    int V = r->vector_width;
    Iterator *it = r->iter;
    if (r->nloads) print_fmt(p, "    const int parac_col0 = first%d + k%dbase;\n", last, last);
    for (int i = 0; i < r->nloads; i++) {
        LoadRow *g = &r->loads[i];
        Obj *m = g->var;
        int n = m->ty->ndim;
        Node *e[3];
        long add[3] = {0, 0, 0};
        for (int d = 0; d < n - 1; d++) {
            const Affine *f = &g->other[d];
            e[d] = text_index(f->axis < 0 ? lang_format("%ld", f->offset)
                                          : lang_format("(%s%c * %ld + %ld)", it->name, "xyz"[f->axis], f->coef, f->offset),
                              r->node->tok);
        }
        e[n - 1] = text_index("parac_s", r->node->tok);
        const char *T = vector_type(m->ty->base, V);
        /* the row may lie outside the matrix where the body reads it only
         * under a condition: such rows load as zeros too */
        print_fmt(p, "    %s parac_ld%d[%d];\n", T, i, g->nvec);
        print_fmt(p, "    const int parac_row%d = 1", i);
        for (int d = 0; d < n - 1; d++) {
            print_fmt(p, " && ");
            print_expr(p, e[d]);
            print_fmt(p, " >= 0 && ");
            print_expr(p, e[d]);
            print_fmt(p, " < %s_d%d", m->name, d);
        }
        print_fmt(p, ";\n");
        for (int j = 0; j < g->nvec; j++) {
            print_fmt(p, "    {\n        const int parac_s = parac_col0 + %ld;\n", g->base + (long)j * V);
            print_fmt(p, "        parac_ld%d[%d] = parac_row%d && parac_s >= 0 && parac_s < %s_d%d ? *(__global const %s *)&",
                      i, j, i, m->name, n - 1, T);
            print_mat_index(p, m, e, add, n);
            print_fmt(p, " : (%s)(0);\n    }\n", T);
        }
    }
}

static void kernel(PrintCtx *p, Region *r, bool border, const char *src, bool restrict_ptrs)
{
    Iterator *it = r->iter;
    int nd = it->ndim;
    /* vector parallelism: V outputs per work-item along the last axis, the
     * first work-item's start aligned down to a multiple of V */
    int V = border ? 1 : r->vector_width, last = nd - 1;
    print_fmt(p, "/* %s:%d: parac_iterator %s, %s%s%s */\n", src, r->node->tok->line, it->name,
        border ? "border boxes (border rule " : "interior", border ? lang_format("%s)", it->rule->name) : "",
        V > 1 ? lang_format(", %d outputs per work-item", V) : "");
    print_fmt(p, "__kernel void %s%s(", r->kernel, border ? "_border" : "");
    kernel_params(p, r, restrict_ptrs, border);
    print_fmt(p, ")\n{\n");
    p->indent = 1;
    if (border) {
        /* all border boxes in one launch: work-item g finds its box, then
         * its counters (the last axis fastest) */
        print_fmt(p, "    int parac_g = (int)get_global_id(0), parac_b = 0;\n");
        print_fmt(p, "    for (; parac_b < parac_bx.n; parac_b++) {\n        int parac_vol = 1;\n");
        print_fmt(p, "        for (int d = 0; d < %d; d++) parac_vol *= parac_bx.b[parac_b][2 * d + 1] - parac_bx.b[parac_b][2 * d];\n", nd);
        print_fmt(p, "        if (parac_g < parac_vol) break;\n        parac_g -= parac_vol;\n    }\n");
        print_fmt(p, "    if (parac_b >= parac_bx.n) return;\n");
        for (int d = nd - 1; d >= 0; d--) {
            print_fmt(p, "    const int k%d = parac_bx.b[parac_b][%d] + parac_g %% (parac_bx.b[parac_b][%d] - parac_bx.b[parac_b][%d]);\n",
                      d, 2 * d, 2 * d + 1, 2 * d);
            if (d) print_fmt(p, "    parac_g /= parac_bx.b[parac_b][%d] - parac_bx.b[parac_b][%d];\n", 2 * d + 1, 2 * d);
        }
    }
    for (int d = nd - 1, g = 0; d >= 0 && !border; d--, g++) {
        print_indent(p);
        if (V > 1 && d == last && axis_step(it, d) == 1)
            print_fmt(p, "const int k%dbase = k%dlo - ((first%d + k%dlo) %% %d + %d) %% %d + (int)get_global_id(%d) * %d;\n",
                      d, d, d, d, V, V, V, g, V);
        else if (V > 1 && d == last)
            print_fmt(p, "const int k%dbase = k%dlo + (int)get_global_id(%d) * %d;\n", d, d, g, V);
        else
            print_fmt(p, "const int k%d = k%dlo + (int)get_global_id(%d);\n", d, d, g);
    }
    if (!border) {
        print_indent(p);
        print_fmt(p, "if (");
        for (int d = 0; d < nd; d++) print_fmt(p, "%sk%d%s >= k%dhi", d ? " || " : "", d, V > 1 && d == last ? "base" : "", d);
        print_fmt(p, ") return;\n");
    }
    for (int i = 0; i < r->nconsts; i++) {
        Obj *c = r->consts[i];
        print_indent(p);
        bool ok;
        print_fmt(p, "const %s %s", ty_c_name(c->ty->base, true), c->name);
        for (int d = 0; d < c->ty->ndim; d++) print_fmt(p, "[%ld]", const_eval(c->ty->dims[d], &ok));
        long rows = c->ty->ndim == 2 ? const_eval(c->ty->dims[0], &ok) : 1;
        long cols = const_eval(c->ty->dims[c->ty->ndim - 1], &ok);
        print_fmt(p, " = {");
        Node *v = c->init->args;
        for (long row = 0; row < rows; row++) {
            if (c->ty->ndim == 2) print_fmt(p, "%s{", row ? ", " : "");
            for (long q = 0; q < cols; q++) {
                if (q || (c->ty->ndim == 1 && row)) print_fmt(p, ", ");
                print_fmt(p, "(%s)(", ty_c_name(c->ty->base, true));
                if (v) print_expr(p, v);
                else print_fmt(p, "0");
                print_fmt(p, ")");
                if (v) v = v->next;
            }
            if (c->ty->ndim == 2) print_fmt(p, "}");
        }
        print_fmt(p, "};\n");
    }
    for (int d = 0; d < nd; d++) {
        if (V > 1 && d == last) continue;
        print_indent(p);
        print_fmt(p, "const int %s%c = first%d + k%d * %ld;\n", it->name, "xyz"[d], d, d, axis_step(it, d));
    }
    p->in_kernel = true;
    p->border = border;
    p->region = r;
    if (V > 1) {
        vector_loads(p, r, last);
        for (int i = 0; i < r->nmerge; i++)
            print_fmt(p, "    %s parac_st_%s[%d];\n", ty_c_name(r->merge_lhs[i]->var->ty->base, true),
                      r->merge_lhs[i]->var->name, V);
        print_fmt(p, "    #pragma unroll\n    for (int parac_v = 0; parac_v < %d; parac_v++) {\n", V);
        print_fmt(p, "        const int k%d = k%dbase + parac_v;\n", last, last);
        print_fmt(p, "        if (k%d < k%dlo || k%d >= k%dhi) continue;\n", last, last, last, last);
        print_fmt(p, "        const int %s%c = first%d + k%d * %ld;\n", it->name, "xyz"[last], last, last,
                  axis_step(it, last));
        p->indent = 2;
        p->merging = true;
    }
    print_stmt(p, it->body);
    p->merging = false;
    if (V > 1) {
        print_fmt(p, "    }\n");
        merged_stores(p, r, last, src);
    }
    p->border = false;
    p->region = NULL;
    p->indent = 0;
    print_fmt(p, "}\n\n");
}

static const char *limit(Type *t, bool max)
{
    switch (t->kind) {
    case TY_CHAR: return t->is_unsigned ? (max ? "UCHAR_MAX" : "0") : (max ? "SCHAR_MAX" : "SCHAR_MIN");
    case TY_SHORT: return t->is_unsigned ? (max ? "USHRT_MAX" : "0") : (max ? "SHRT_MAX" : "SHRT_MIN");
    case TY_INT: return t->is_unsigned ? (max ? "UINT_MAX" : "0") : (max ? "INT_MAX" : "INT_MIN");
    case TY_LONG: case TY_LLONG: return t->is_unsigned ? (max ? "ULONG_MAX" : "0") : (max ? "LONG_MAX" : "LONG_MIN");
    default: return max ? "INFINITY" : "-INFINITY";
    }
}

static void reduction_kernels(PrintCtx *p, Region *r, const char *src)
{
    Obj *m = r->red_var;
    Type *et = m->ty->base;
    Type *acc = (r->red_op == OP_MIN || r->red_op == OP_MAX || ty_is_float(et)) ? et : ty_basic(TY_LLONG, false);
    const char *A = ty_c_name(acc, true), *T = ty_c_name(et, true);
    const char *init = r->red_op == OP_MIN ? limit(acc, true) : r->red_op == OP_MAX ? limit(acc, false) : "0";
    const char *op = r->red_op == OP_MIN ? "PARAC_MIN(a, b)" : r->red_op == OP_MAX ? "PARAC_MAX(a, b)" : "(a) + (b)";
    int last = m->ty->ndim - 1;
    print_fmt(p, "/* %s:%d: independent %s(%s), level 1: each work-group reduces its share in local memory */\n",
        src, r->node->tok->line, parac_op_name(r->red_op), m->name);
    print_fmt(p, "#define PARAC_OP(a, b) %s\n", op);
    print_fmt(p, "__kernel void %s(__global const %s *%s, const int %s_pitch, const int %s_d0, const int %s_d1, "
           "const int %s_d2,\n    __global %s *partial, __local %s *scratch)\n{\n",
        r->kernel, T, m->name, m->name, m->name, m->name, m->name, A, A);
    print_fmt(p, "    const long cols = %s_d%d, total = (long)%s_d0 * %s_d1 * %s_d2;\n", m->name, last, m->name, m->name, m->name);
    print_fmt(p, "    %s acc = %s;\n", A, init);
    print_fmt(p, "    for (long i = get_global_id(0); i < total; i += get_global_size(0)) {\n");
    print_fmt(p, "        const long row = i / cols, col = i - row * cols;\n");
    print_fmt(p, "        const %s v = %s[row * %s_pitch + col];\n", A, m->name, m->name);
    print_fmt(p, "        acc = PARAC_OP(acc, v);\n    }\n");
    print_fmt(p, "    const int lid = (int)get_local_id(0);\n    scratch[lid] = acc;\n    barrier(CLK_LOCAL_MEM_FENCE);\n");
    print_fmt(p, "    for (int s = (int)get_local_size(0) / 2; s > 0; s >>= 1) {\n");
    print_fmt(p, "        if (lid < s) scratch[lid] = PARAC_OP(scratch[lid], scratch[lid + s]);\n");
    print_fmt(p, "        barrier(CLK_LOCAL_MEM_FENCE);\n    }\n");
    print_fmt(p, "    if (lid == 0) partial[get_group_id(0)] = scratch[0];\n}\n\n");
    print_fmt(p, "/* level 2: one work-group reduces the partial results of all groups */\n");
    print_fmt(p, "__kernel void %s_final(__global const %s *partial, const int n, __global %s *result, __local %s *scratch)\n{\n",
        r->kernel, A, A, A);
    print_fmt(p, "    const int lid = (int)get_local_id(0);\n    %s acc = %s;\n", A, init);
    print_fmt(p, "    for (int i = lid; i < n; i += (int)get_local_size(0)) {\n        const %s v = partial[i];\n"
           "        acc = PARAC_OP(acc, v);\n    }\n", A);
    print_fmt(p, "    scratch[lid] = acc;\n    barrier(CLK_LOCAL_MEM_FENCE);\n");
    print_fmt(p, "    for (int s = (int)get_local_size(0) / 2; s > 0; s >>= 1) {\n");
    print_fmt(p, "        if (lid < s) scratch[lid] = PARAC_OP(scratch[lid], scratch[lid + s]);\n");
    print_fmt(p, "        barrier(CLK_LOCAL_MEM_FENCE);\n    }\n");
    print_fmt(p, "    if (lid == 0) result[0] = scratch[0];\n}\n#undef PARAC_OP\n\n");
}

void emit_opencl_kernels(Program *prog, FILE *o, const char *cl_name);

void emit_opencl_kernels(Program *prog, FILE *o, const char *cl_name)
{
    PrintCtx pc = {0}, *p = &pc;
    p->out = o;
    p->opencl = true;
    p->line_marks = !prog->opt || !prog->opt->no_line;
    const char *src = prog->file->name;
    print_fmt(p, "/* %s: generated by paracc from %s. OpenCL C 1.2. */\n", cl_name, src);
    print_fmt(p, "#ifdef cl_khr_fp64\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#endif\n");
    print_fmt(p, "#define PARAC_MIN(a, b) ((a) < (b) ? (a) : (b))\n#define PARAC_MAX(a, b) ((a) > (b) ? (a) : (b))\n");
    print_fmt(p, "/* the border boxes of one launch: lo and hi of each axis (parac_cl_launch_boxes) */\n"
                 "typedef struct parac_boxes { int n; int b[6][6]; } parac_boxes;\n\n");
    /* the program's macros */
    for (Node *n = prog->top; n; n = n->next)
        if (n->kind == ND_DIRECTIVE) {
            const char *t = n->text + 1;
            while (*t == ' ' || *t == '\t') t++;
            if (!strncmp(t, "define", 6) || !strncmp(t, "undef", 5)) print_fmt(p, "%s\n", n->text);
        }
    print_fmt(p, "\n");
    /* file functions called from kernels, in file order */
    for (Node *n = prog->top; n; n = n->next) {
        if (n->kind != ND_FUNC) continue;
        bool used = false;
        for (Region *r = prog->regions; r; r = r->next)
            for (int i = 0; i < r->nfuncs; i++) used |= r->funcs[i] == n;
        if (!used) continue;
        print_fmt(p, "/* %s:%d */\n", src, n->tok->line);
        print_func(p, n);
        print_fmt(p, "\n");
    }
    bool restrict_ptrs = plan_flag(prog->opt, prog->opt ? prog->opt->restrict_ptrs : -1, 1);
    for (Region *r = prog->regions; r; r = r->next) {
        if (r->iter) {
            kernel(p, r, false, src, restrict_ptrs);
            if (r->has_border) kernel(p, r, true, src, restrict_ptrs);
        } else
            reduction_kernels(p, r, src);
    }
}
