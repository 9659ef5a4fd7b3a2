/* Device kernels, in OpenCL C 1.2 or in CUDA C++ (for NVRTC). One kernel per
 * iterator region (the interior, with no border tests), one more for its
 * border boxes when a border rule applies, and two per independent reduction
 * (per-work-group tree reduction, then one work-group over the partial
 * results; on CUDA by warp shuffles).
 *
 * The two dialects differ only in spelling, which the Dialect table
 * (emit_kernels.h) holds: qualifiers, thread indices, vector types (CUDA has no arithmetic
 * vectors of 8 or 16 lanes: a vector there is plain aligned storage of the
 * same size, read and written through element pointers, which is all the
 * generated code does with vectors).
 *
 * Kernel arguments: the counter box (k<d>lo, k<d>hi per axis), the first
 * index per axis, then each matrix as (buffer, pitch, d0, d1, d2), then host
 * scalars by value. Work-item dimension 0 runs along the last iterator axis
 * so that neighbouring work-items touch neighbouring columns. */
#include <string.h>

#include "lang/emit_kernels.h"

/* The index of this work-item along work-item dimension g (0: x), and of
 * its work-group. */
const char *kernel_global_id(const PrintCtx *p, int g)
{
    if (!dialect(p)->cuda) return lang_format("(int)get_global_id(%d)", g);
    const char c = "xyz"[g];
    return lang_format("(int)(blockIdx.%c * blockDim.%c + threadIdx.%c)", c, c, c);
}

const char *kernel_group_id(const PrintCtx *p, int g)
{
    if (!dialect(p)->cuda) return lang_format("(int)get_group_id(%d)", g);
    return lang_format("(int)blockIdx.%c", "xyz"[g]);
}

/* One launch for a region and its border boxes (Region.one_launch): the
 * blocks past the interior's rows (work-group dimension 1) take the border
 * work-items, numbered across those blocks. */
static const char *border_block_test(const PrintCtx *p)
{
    return dialect(p)->cuda ? "(int)blockIdx.y >= parac_iblocks" : "(int)get_group_id(1) >= parac_iblocks";
}

static const char *border_flat_index(const PrintCtx *p)
{
    return dialect(p)->cuda ? "(((int)blockIdx.y - parac_iblocks) * (int)gridDim.x + (int)blockIdx.x) * (int)(blockDim.x * blockDim.y)"
                     " + (int)(threadIdx.y * blockDim.x + threadIdx.x)"
                   : "(((int)get_group_id(1) - parac_iblocks) * (int)get_num_groups(0) + (int)get_group_id(0)) *"
                     " (int)(get_local_size(0) * get_local_size(1)) + (int)(get_local_id(1) * get_local_size(0) + get_local_id(0))";
}

static bool written(Region *r, Obj *o)
{
    for (Access *a = r->accesses; a; a = a->next)
        if (a->var == o && a->is_write) return true;
    return false;
}

/* mode: 0 the interior, 1 the border boxes, 2 both (one launch) */
void kernel_params(PrintCtx *p, Region *r, bool restrict_ptrs, int mode)
{
    Iterator *it = r->iter;
    if (mode == 1) print_fmt(p, "const parac_boxes parac_bx");
    else
        for (int d = 0; d < it->ndim; d++) print_fmt(p, "%sconst int k%dlo, const int k%dhi", d ? ", " : "", d, d);
    if (mode == 2) print_fmt(p, ", const parac_boxes parac_bx, const int parac_iblocks");
    for (int d = 0; d < it->ndim; d++) print_fmt(p, ", const int first%d", d);
    for (int i = 0; i < r->nmats; i++) {
        Obj *m = r->mats[i];
        print_fmt(p, ",\n    %s%s%s *%s%s, const int %s_pitch, const int %s_d0, const int %s_d1, const int %s_d2",
            dialect(p)->global, written(r, m) ? "" : "const ", ty_c_name(m->ty->base, true), restrict_ptrs ? dialect(p)->restrict_kw : "", m->name,
            m->name, m->name, m->name, m->name);
    }
    for (int i = 0; i < r->nscalars; i++) {
        Obj *o = r->scalars[i];
        Type *t = o->ty;
        const char *kt = t->kind == TY_BOOL ? "int" : ty_c_name(t, true);
        print_fmt(p, ",\n    const %s %s", kt, o->name);
    }
    if (r->fold_red) print_fmt(p, ",\n    unsigned long long *__restrict__ parac_fold");
}

/* A folded reduction (fold_reduce.c): the kernel's body runs in a lambda, so
 * that its returns leave every thread to the block's sum after it; the body
 * adds each value it stores to parac_racc (print.c). */
void kernel_fold_open(PrintCtx *p, Region *r)
{
    if (!r->fold_red) return;
    print_fmt(p, "    long long parac_racc = 0; /* what this thread stores into %s, summed */\n", r->fold_red->red_var->name);
    print_fmt(p, "    [&]() {\n");
}

/* The block's sum (warp shuffles, or shared memory where the block is not
 * whole warps), one atomic per block into the slot, and the launch's last
 * block hands the total over and clears the running words. */
void kernel_fold_close(PrintCtx *p, Region *r)
{
    if (!r->fold_red) return;
    static const char *const text =
        "    }();\n"
        "    const int parac_t = (int)((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x);\n"
        "    const int parac_nt = (int)(blockDim.x * blockDim.y * blockDim.z);\n"
        "    __shared__ long long parac_fw[32];\n"
        "    if ((parac_nt & 31) == 0) {\n"
        "        for (int o = 16; o > 0; o >>= 1) parac_racc += __shfl_down_sync(0xffffffffu, parac_racc, o);\n"
        "        if ((parac_t & 31) == 0) parac_fw[parac_t >> 5] = parac_racc;\n"
        "        __syncthreads();\n"
        "        if (parac_t < 32) {\n"
        "            parac_racc = parac_t < (parac_nt >> 5) ? parac_fw[parac_t] : 0;\n"
        "            for (int o = 16; o > 0; o >>= 1) parac_racc += __shfl_down_sync(0xffffffffu, parac_racc, o);\n"
        "        }\n"
        "    } else {\n"
        "        if (parac_t == 0) parac_fw[0] = 0;\n"
        "        __syncthreads();\n"
        "        if (parac_racc) atomicAdd((unsigned long long *)&parac_fw[0], (unsigned long long)parac_racc);\n"
        "        __syncthreads();\n"
        "        parac_racc = parac_fw[0];\n"
        "    }\n"
        "    if (parac_t == 0) {\n"
        "        atomicAdd(&parac_fold[0], (unsigned long long)parac_racc);\n"
        "        __threadfence();\n"
        "        const unsigned long long parac_blocks = (unsigned long long)gridDim.x * gridDim.y * gridDim.z;\n"
        "        if (atomicAdd(&parac_fold[1], 1ull) == parac_blocks - 1) { /* every other block has added its sum */\n"
        "            parac_fold[2] = atomicExch(&parac_fold[0], 0ull);\n"
        "            atomicExch(&parac_fold[1], 0ull);\n"
        "        }\n"
        "    }\n";
    print_fmt(p, "%s", text);
}

static long axis_step(Iterator *it, int d)
{
    return it->r[d].stride * (it->iter_element && it->elem[d] > 1 ? it->elem[d] : 1);
}

/* The vector type of V elements of t (plan.c admits 1-, 2-, 4- and 8-byte
 * arithmetic types only): OpenCL's, or on CUDA aligned storage of the same
 * size (the prelude's parac_b1 .. parac_b128). */
static const char *vector_type(const PrintCtx *p, const Type *t, int V)
{
    if (dialect(p)->cuda) return lang_format("parac_b%ld", (long)ty_size(t) * V);
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
        const char *T = vector_type(p, m->ty->base, V);
        print_fmt(p, "    /* %s:%d: the %d values of %s leave in one store */\n", src, lhs->tok->line, V, m->name);
        print_fmt(p, "    if (k%dbase >= k%dlo && k%dbase + %d <= k%dhi) {\n", last, last, last, V, last);
        print_fmt(p, "        const int parac_col = first%d + k%dbase;\n", last, last);
        print_fmt(p, "        *(%s%s *)&", dialect(p)->global, T);
        print_mat_index(p, m, e, add, n);
        if (dialect(p)->cuda) { /* the private array is aligned as the vector */
            print_fmt(p, " = *(const %s *)parac_st%d_%s;\n    } else {\n", T, i, m->name);
        } else {
            print_fmt(p, " = (%s)(", T);
            for (int v = 0; v < V; v++) print_fmt(p, "%sparac_st%d_%s[%d]", v ? ", " : "", i, m->name, v);
            print_fmt(p, ");\n    } else {\n");
        }
        print_fmt(p, "        for (int parac_v = 0; parac_v < %d; parac_v++) {\n", V);
        print_fmt(p, "            const int parac_k = k%dbase + parac_v, parac_col = first%d + parac_k;\n", last, last);
        print_fmt(p, "            if (parac_k >= k%dlo && parac_k < k%dhi) ", last, last);
        print_mat_index(p, m, e, add, n);
        print_fmt(p, " = parac_st%d_%s[parac_v];\n        }\n    }\n", i, m->name);
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
        const char *T = vector_type(p, m->ty->base, V);
        /* the row may lie outside the matrix where the body reads it only
         * under a condition: such rows load as zeros too */
        print_fmt(p, "    %s parac_ld%d[%d];\n", T, i, g->nvec);
        print_fmt(p, "    const int parac_row%d = %s", i, n == 1 ? "1" : "");
        for (int d = 0; d < n - 1; d++) {
            if (d) print_fmt(p, " && ");
            print_expr(p, e[d]);
            print_fmt(p, " >= 0 && ");
            print_expr(p, e[d]);
            print_fmt(p, " < %s_d%d", m->name, d);
        }
        print_fmt(p, ";\n");
        for (int j = 0; j < g->nvec; j++) {
            print_fmt(p, "    {\n        const int parac_s = parac_col0 + %ld;\n", g->base + (long)j * V);
            print_fmt(p, "        parac_ld%d[%d] = parac_row%d && parac_s >= 0 && parac_s < %s_d%d ? *(%sconst %s *)&",
                      i, j, i, m->name, n - 1, dialect(p)->global, T);
            print_mat_index(p, m, e, add, n);
            print_fmt(p, dialect(p)->cuda ? " : %s();\n    }\n" : " : (%s)(0);\n    }\n", T);
        }
    }
}

/* The local id of this work-item, and the work-group's size, along g. */
const char *kernel_local_id(const PrintCtx *p, int g)
{
    if (!dialect(p)->cuda) return lang_format("(int)get_local_id(%d)", g);
    return lang_format("(int)threadIdx.%c", "xyz"[g]);
}

const char *kernel_local_size(const PrintCtx *p, int g)
{
    if (!dialect(p)->cuda) return lang_format("(int)get_local_size(%d)", g);
    return lang_format("(int)blockDim.%c", "xyz"[g]);
}

/* Local-memory tiles (plan.c): the work-group's rows of each RowVar, with
 * their halo, loaded once by all its work-items (consecutive work-items,
 * consecutive vectors), sized for the planned work-group (a launch may
 * shrink it). Every work-item takes part, then waits at the barrier; those
 * without outputs leave after it. */
static void tile_ids(PrintCtx *p, Region *r)
{
    print_fmt(p, "    const int parac_tx = %s, parac_ty = %s;\n", kernel_local_id(p, 0), kernel_local_id(p, 1));
    print_fmt(p, "    const int parac_gcol0 = parac_col0 - parac_tx * %d, parac_gx0 = parac_x0 - parac_ty * %d;\n",
              r->vector_width, r->rows_per_item);
}

static void tile_fill(PrintCtx *p, Region *r)
{
    const int V = r->vector_width, R = r->rows_per_item;
    print_fmt(p, "    const int parac_col0 = first1 + k1base, parac_x0 = first0 + k0base;\n");
    tile_ids(p, r);
    print_fmt(p, "    const int parac_nth = %s * %s, parac_me = parac_ty * %s + parac_tx;\n", kernel_local_size(p, 0), kernel_local_size(p, 1),
              kernel_local_size(p, 0));
    for (int k = 0; k < r->nrowvars; k++) {
        const RowVar *rv = &r->rowvars[k];
        Obj *m = rv->var;
        const char *T = vector_type(p, m->ty->base, V);
        const long rows = rv->amax - rv->amin + 1;
        print_fmt(p, "    {\n        const int parac_tc = %s + %d, parac_n = ((%s - 1) * %d + %ld) * parac_tc;\n",
                  kernel_local_size(p, 0), rv->nvec - 1, kernel_local_size(p, 1), R, rows);
        print_fmt(p, "        for (int parac_i = parac_me; parac_i < parac_n; parac_i += parac_nth) {\n");
        print_fmt(p, "            const int parac_a = parac_i / parac_tc, parac_j = parac_i - parac_a * parac_tc;\n");
        print_fmt(p, "            const int parac_x = parac_gx0 + %ld + parac_a, parac_s = parac_gcol0 + %ld + parac_j * %d;\n",
                  rv->amin, rv->base, V);
        Node *e[2] = {text_index("parac_x", r->node->tok), text_index("parac_s", r->node->tok)};
        long add[2] = {0, 0};
        print_fmt(p, "            parac_tl%d[parac_a][parac_j] = parac_x >= 0 && parac_x < %s_d0 && parac_s >= 0 && "
                     "parac_s < %s_d1 ? *(%sconst %s *)&", k, m->name, m->name, dialect(p)->global, T);
        print_mat_index(p, m, e, add, 2);
        print_fmt(p, dialect(p)->cuda ? " : %s();\n        }\n    }\n" : " : (%s)(0);\n        }\n    }\n", T);
    }
}

/* The tiles, declared first: OpenCL wants local variables in the kernel's
 * outermost scope. */
static void tile_decls(PrintCtx *p, Region *r)
{
    for (int k = 0; k < r->nrowvars; k++) {
        const RowVar *rv = &r->rowvars[k];
        const long rows = rv->amax - rv->amin + 1;
        const long TR = (r->wg[1] - 1) * (long)r->rows_per_item + rows, TC = r->wg[0] + rv->nvec - 1;
        print_fmt(p, "    %s%s parac_tl%d[%ld][%ld];\n", dialect(p)->cuda ? "__shared__ " : "__local ",
                  vector_type(p, rv->var->ty->base, r->vector_width), k, TR, TC);
    }
}

/* The rows of a work-item of R rows of outputs: every row its outputs read,
 * once, into parac_lv<k>[row - amin][vector] (rows outside the matrix, and
 * vectors outside its columns, are zero as in vector_loads); from the
 * work-group's local-memory tile where the plan has one. */
static void shared_row_loads(PrintCtx *p, Region *r, int last)
{
    const int V = r->vector_width;
    Iterator *it = r->iter;
    print_fmt(p, "    const int parac_col0 = first%d + k%dbase;\n", last, last);
    print_fmt(p, "    const int parac_x0 = first0 + k0base * %ld;\n", axis_step(it, 0));
    if (r->use_local_tiles) tile_ids(p, r); /* the tile was filled before the barrier (kernel_one_launch) */
    for (int k = 0; k < r->nrowvars; k++) {
        const RowVar *rv = &r->rowvars[k];
        Obj *m = rv->var;
        const char *T = vector_type(p, m->ty->base, V);
        const long rows = rv->amax - rv->amin + 1;
        print_fmt(p, "    %s parac_lv%d[%ld][%d];\n", T, k, rows, rv->nvec);
        print_fmt(p, "    #pragma unroll\n    for (int parac_a = 0; parac_a < %ld; parac_a++) {\n", rows);
        if (r->use_local_tiles) {
            print_fmt(p, "        #pragma unroll\n        for (int parac_j = 0; parac_j < %d; parac_j++)\n", rv->nvec);
            print_fmt(p, "            parac_lv%d[parac_a][parac_j] = parac_tl%d[parac_ty * %d + parac_a][parac_tx + parac_j];\n    }\n",
                      k, k, r->rows_per_item);
            continue;
        }
        print_fmt(p, "        const int parac_x = parac_x0 + %ld + parac_a, parac_in = parac_x >= 0 && parac_x < %s_d0;\n",
                  rv->amin, m->name);
        print_fmt(p, "        #pragma unroll\n        for (int parac_j = 0; parac_j < %d; parac_j++) {\n", rv->nvec);
        print_fmt(p, "            const int parac_s = parac_col0 + %ld + parac_j * %d;\n", rv->base, V);
        Node *e[2] = {text_index("parac_x", r->node->tok), text_index("parac_s", r->node->tok)};
        long add[2] = {0, 0};
        print_fmt(p, "            parac_lv%d[parac_a][parac_j] = parac_in && parac_s >= 0 && parac_s < %s_d1 ? *(%sconst %s *)&",
                  k, m->name, dialect(p)->global, T);
        print_mat_index(p, m, e, add, 2);
        print_fmt(p, dialect(p)->cuda ? " : %s();\n        }\n    }\n" : " : (%s)(0);\n        }\n    }\n", T);
    }
}

/* Recomputed stencil values once per held row and column (plan_cache.c):
 * parac_fc<k>[row][column], the row from omin (and, with rows per work-item,
 * from the work-item's first row), the column from dcmin. Printed as a
 * representative copy of the value with parac_r and parac_v moved so that
 * its reads land on that row and column. */
static void fused_cache_fill(PrintCtx *p, Region *r)
{
    const long R = r->rows_per_item, V = r->vector_width;
    const bool merging = p->merging;
    p->merging = true;
    p->fc_fill = true;
    for (int k = 0; k < r->nfcache; k++) {
        const struct FusedCache *c = &r->fcache[k];
        const long rows = R > 1 ? R - 1 + c->omax - c->omin + 1 : c->omax - c->omin + 1;
        const long cols = V + c->dcmax - c->dcmin;
        const int nrep = (int)(sizeof c->rep / sizeof c->rep[0]); /* rep[o + 3]: a copy at row offset o */
        Node *any = NULL;
        for (int i = 0; i < nrep && !any; i++) any = c->rep[i];
        print_fmt(p, "    /* the recomputed values, once per row and column the work-item holds */\n");
        print_fmt(p, "    %s parac_fc%d[%ld][%ld];\n", ty_c_name(any->cast_ty, true), k, rows, cols);
        /* rows per work-item: one copy covers every row (parac_r moves it); else one loop per row offset */
        for (int i = 0; i < nrep; i++) {
            Node *rep = R > 1 ? (i == 0 ? any : NULL) : c->rep[i];
            if (!rep) continue;
            const long o = rep->fc_off[0], dc = rep->fc_off[1];
            print_fmt(p, "    #pragma unroll\n    for (int parac_fa = 0; parac_fa < %ld; parac_fa++) {\n", R > 1 ? rows : 1);
            print_fmt(p, "        #pragma unroll\n        for (int parac_fl = 0; parac_fl < %ld; parac_fl++) {\n", cols);
            if (R > 1) print_fmt(p, "            const int parac_r = parac_fa + %ld;\n            (void)parac_r;\n", c->omin - o);
            print_fmt(p, "            const int parac_v = parac_fl + %ld;\n            (void)parac_v;\n", c->dcmin - dc);
            print_fmt(p, "            parac_fc%d[parac_fa + %ld][parac_fl] = ", k, R > 1 ? 0L : o - c->omin);
            print_expr(p, rep);
            print_fmt(p, ";\n        }\n    }\n");
        }
    }
    p->fc_fill = false;
    p->merging = merging;
}

static void kernel_body(PrintCtx *p, Region *r, bool border, bool one_launch, const char *src);
static void print_bases(PrintCtx *p, Region *r);

/* A work-item's arrays in local memory (plan_local_arrays.c), declared
 * first (OpenCL wants local variables in the kernel's outermost scope):
 * element k of work-item parac_lid at k * S + parac_lid. */
static void local_array_decls(PrintCtx *p, Region *r)
{
    if (!r->nlarr) return;
    for (int i = 0; i < r->nlarr; i++)
        print_fmt(p, "    %s%s parac_la%d[%ld]; /* %s: %ld per work-item, %d work-items */\n",
                  dialect(p)->cuda ? "__shared__ " : "__local ", ty_c_name(r->larr[i]->ty->base, true), i,
                  r->larr_len[i] * r->larr_stride, r->larr[i]->name, r->larr_len[i], r->larr_stride);
    print_fmt(p, "    const int parac_lid = (%s * %s + %s) * %s + %s;\n", kernel_local_id(p, 2), kernel_local_size(p, 1),
              kernel_local_id(p, 1), kernel_local_size(p, 0), kernel_local_id(p, 0));
}
/* the kernel body being printed runs past a barrier: it must not return */

static void kernel(PrintCtx *p, Region *r, bool border, const char *src, bool restrict_ptrs)
{
    Iterator *it = r->iter;
    int V = border ? 1 : r->vector_width;
    print_fmt(p, "/* %s:%d: parac_iterator %s, %s%s%s */\n", src, r->node->tok->line, it->name,
        border ? "border boxes (border rule " : "interior", border ? lang_format("%s)", lang_rule_names(it)) : "",
        V > 1 ? lang_format(", %d outputs per work-item", V) : "");
    print_fmt(p, "%s %s%s(", dialect(p)->kernel, r->kernel, border ? "_border" : "");
    kernel_params(p, r, restrict_ptrs, border ? 1 : 0);
    print_fmt(p, ")\n{\n");
    if (!border) local_array_decls(p, r);
    kernel_fold_open(p, r);
    kernel_body(p, r, border, false, src);
    kernel_fold_close(p, r);
    print_fmt(p, "}\n\n");
}

/* The interior and the border boxes in one kernel, one launch. */
static void kernel_one_launch(PrintCtx *p, Region *r, const char *src, bool restrict_ptrs)
{
    Iterator *it = r->iter;
    print_fmt(p, "/* %s:%d: parac_iterator %s, the interior%s and the border boxes (border rule %s) in one launch */\n",
        src, r->node->tok->line, it->name,
        r->vector_width > 1 ? lang_format(" (%d outputs per work-item)", r->vector_width) : "", lang_rule_names(it));
    print_fmt(p, "%s %s_all(", dialect(p)->kernel, r->kernel);
    kernel_params(p, r, restrict_ptrs, 2);
    print_fmt(p, ")\n{\n");
    if (r->use_local_tiles) tile_decls(p, r);
    kernel_fold_open(p, r);
    if (r->use_local_tiles) {
        /* the work-group fills its tiles, then every work-item of every
         * group meets at one barrier outside any branch (PoCL's work-group
         * loops need that), then the border's groups or the interior's run */
        print_fmt(p, "    if (!(%s)) {\n", border_block_test(p));
        p->indent = 1;
        print_bases(p, r);
        tile_fill(p, r);
        print_fmt(p, "    }\n    %s;\n", dialect(p)->cuda ? "__syncthreads()" : "barrier(CLK_LOCAL_MEM_FENCE)");
    }
    print_fmt(p, "    if (%s) {\n", border_block_test(p));
    p->no_returns = r->use_local_tiles;
    kernel_body(p, r, true, true, src);
    print_fmt(p, p->no_returns ? "    } else {\n" : "    return;\n    }\n");
    kernel_body(p, r, false, true, src);
    if (p->no_returns) print_fmt(p, "    }\n");
    kernel_fold_close(p, r);
    print_fmt(p, "}\n\n");
    p->no_returns = false;
}

/* The interior's first counters of this work-item: k<d>, or k<d>base where
 * it computes several outputs along d. */
static void print_bases(PrintCtx *p, Region *r)
{
    Iterator *it = r->iter;
    const int nd = it->ndim, last = nd - 1, V = r->vector_width, R = r->rows_per_item;
    for (int d = nd - 1, g = 0; d >= 0; d--, g++) {
        print_indent(p);
        if (R > 1 && d == 0)
            print_fmt(p, "const int k0base = k0lo + %s * %d;\n", kernel_global_id(p, g), R);
        else if (V > 1 && d == last && axis_step(it, d) == 1)
            print_fmt(p, "const int k%dbase = k%dlo - ((first%d + k%dlo) %% %d + %d) %% %d + %s * %d;\n",
                      d, d, d, d, V, V, V, kernel_global_id(p, g), V);
        else if (V > 1 && d == last)
            print_fmt(p, "const int k%dbase = k%dlo + %s * %d;\n", d, d, kernel_global_id(p, g), V);
        else
            print_fmt(p, "const int k%d = k%dlo + %s;\n", d, d, kernel_global_id(p, g));
    }
}

static long const_values(const Obj *c)
{
    bool ok;
    long n = 1;
    for (int d = 0; d < c->ty->ndim; d++) n *= const_eval(c->ty->dims[d], &ok);
    return n;
}

/* `[rows][cols] = {{...}, ...}` (or `[n] = {...}`): a constant matrix's sizes and values. */
static void const_sizes_and_values(PrintCtx *p, const Obj *c)
{
    bool ok;
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
    print_fmt(p, "}");
}

/* The tables of the kernels' program: every constant matrix of at least
 * PARAC_TABLE_MIN values that a kernel reads, once, in the device's memory
 * (CUDA global memory through the cache, OpenCL's constant memory). A
 * kernel's private copy of a large table would be filled by every thread. */
static void program_tables(PrintCtx *p, Program *prog)
{
    int n = 0;
    for (Region *r = prog->regions; r; r = r->next)
        for (int v = -1; v < r->nvariants; v++) {
            Region *q = v < 0 ? r : r->variants[v];
            for (int i = 0; i < q->nconsts; i++) {
                Obj *c = q->consts[i];
                if (c->table_id || const_values(c) < PARAC_TABLE_MIN) continue;
                c->table_id = ++n;
                print_fmt(p, "/* the table %s (%ld values) */\n%s %s parac_tab%d", c->name, const_values(c),
                          p->cuda ? "__device__ const" : "__constant", ty_c_name(c->ty->base, true), n);
                const_sizes_and_values(p, c);
                print_fmt(p, ";\n");
            }
        }
    if (n) print_fmt(p, "\n");
}

/* The constant matrices the body indexes at run time: a small one as an
 * array of the kernel, a table by its name bound to the program's table. */
void kernel_consts(PrintCtx *p, Region *r)
{
    for (int i = 0; i < r->nconsts; i++) {
        Obj *c = r->consts[i];
        print_indent(p);
        const char *T = ty_c_name(c->ty->base, true), *space = p->cuda ? "const" : "__constant";
        if (c->table_id && c->ty->ndim == 2) {
            bool ok;
            print_fmt(p, "%s %s (*%s)[%ld] = parac_tab%d;\n", space, T, c->name, const_eval(c->ty->dims[1], &ok),
                      c->table_id);
        } else if (c->table_id) {
            print_fmt(p, "%s %s *%s = parac_tab%d;\n", space, T, c->name, c->table_id);
        } else {
            print_fmt(p, "const %s %s", T, c->name);
            const_sizes_and_values(p, c);
            print_fmt(p, ";\n");
        }
    }
}

static void kernel_body(PrintCtx *p, Region *r, bool border, bool one_launch, const char *src)
{
    Iterator *it = r->iter;
    int nd = it->ndim;
    /* vector parallelism: V outputs per work-item along the last axis, the
     * first work-item's start aligned down to a multiple of V */
    int V = border ? 1 : r->vector_width, last = nd - 1;
    p->indent = 1;
    if (border) {
        /* all border boxes in one launch: work-item g finds its box, then
         * its counters (the last axis fastest) */
        print_fmt(p, "    int parac_g = %s, parac_b = 0;\n", one_launch ? border_flat_index(p) : kernel_global_id(p, 0));
        if (p->no_returns) {
            /* past a barrier, loops whose trip count differs between
             * work-items break PoCL's work-group loops: every work-item
             * walks all boxes */
            print_fmt(p, "    for (int parac_q = 0; parac_q < parac_bx.n; parac_q++) {\n        int parac_vol = 1;\n");
            print_fmt(p, "        for (int d = 0; d < %d; d++) parac_vol *= parac_bx.b[parac_q][2 * d + 1] - parac_bx.b[parac_q][2 * d];\n", nd);
            print_fmt(p, "        if (parac_b == parac_q && parac_g >= parac_vol) {\n            parac_g -= parac_vol;\n"
                         "            parac_b = parac_q + 1;\n        }\n    }\n");
        } else {
            print_fmt(p, "    for (; parac_b < parac_bx.n; parac_b++) {\n        int parac_vol = 1;\n");
            print_fmt(p, "        for (int d = 0; d < %d; d++) parac_vol *= parac_bx.b[parac_b][2 * d + 1] - parac_bx.b[parac_b][2 * d];\n", nd);
            print_fmt(p, "        if (parac_g < parac_vol) break;\n        parac_g -= parac_vol;\n    }\n");
        }
        /* past the barrier of a tiled kernel, no return (PoCL's work-group loops): the rest in a block */
        print_fmt(p, p->no_returns ? "    if (parac_b < parac_bx.n) {\n" : "    if (parac_b >= parac_bx.n) return;\n");
        for (int d = nd - 1; d >= 0; d--) {
            print_fmt(p, "    const int k%d = parac_bx.b[parac_b][%d] + parac_g %% (parac_bx.b[parac_b][%d] - parac_bx.b[parac_b][%d]);\n",
                      d, 2 * d, 2 * d + 1, 2 * d);
            if (d) print_fmt(p, "    parac_g /= parac_bx.b[parac_b][%d] - parac_bx.b[parac_b][%d];\n", 2 * d + 1, 2 * d);
        }
    }
    const int R = border ? 1 : r->rows_per_item; /* rows of outputs per work-item (2D) */
    if (!border) {
        print_bases(p, r);
        print_indent(p);
        print_fmt(p, p->no_returns ? "if (!(" : "if (");
        for (int d = 0; d < nd; d++)
            print_fmt(p, "%sk%d%s >= k%dhi", d ? " || " : "", d, (V > 1 && d == last) || (R > 1 && d == 0) ? "base" : "", d);
        print_fmt(p, p->no_returns ? ")) {\n" : ") return;\n");
    }
    kernel_consts(p, r);
    for (int d = 0; d < nd; d++) {
        if ((V > 1 && d == last) || (R > 1 && d == 0)) continue;
        print_indent(p);
        print_fmt(p, "const int %s%c = first%d + k%d * %ld;\n", it->name, "xyz"[d], d, d, axis_step(it, d));
        if (dialect(p)->cuda) { /* NVRTC warns of index variables the body does not use */
            print_indent(p);
            print_fmt(p, "(void)%s%c;\n", it->name, "xyz"[d]);
        }
    }
    p->in_kernel = true;
    p->border = border;
    p->region = r;
    if (R > 1) {
        shared_row_loads(p, r, last);
        fused_cache_fill(p, r);
        print_fmt(p, "    #pragma unroll\n    for (int parac_r = 0; parac_r < %d; parac_r++) {\n", R);
        print_fmt(p, p->no_returns ? "    const int k0 = k0base + parac_r;\n    if (k0 < k0hi) {\n"
                                : "    const int k0 = k0base + parac_r;\n    if (k0 >= k0hi) break;\n");
        print_fmt(p, "    const int %sx = first0 + k0 * %ld;\n", it->name, axis_step(it, 0));
        if (dialect(p)->cuda) print_fmt(p, "    (void)%sx;\n", it->name);
    }
    if (V > 1) {
        if (R == 1) {
            vector_loads(p, r, last);
            fused_cache_fill(p, r);
        }
        for (int i = 0; i < r->nmerge; i++) {
            Type *et = r->merge_lhs[i]->var->ty->base;
            print_fmt(p, "    ");
            if (dialect(p)->cuda) print_fmt(p, "alignas(%ld) ", (long)ty_size(et) * V); /* stored as one vector */
            print_fmt(p, "%s parac_st%d_%s[%d];\n", ty_c_name(et, true), i, r->merge_lhs[i]->var->name, V);
        }
        /* A work-item whose V outputs all lie inside runs them with no test
           between: one basic block, where the compiler finds the values that
           neighbouring outputs share (a window's columns) and computes them
           once; the tested loop is for the partial work-items at the edges.
           Not past a tiled kernel's barrier (PoCL's work-group loops); see
           plan_whole_items. */
        const bool whole_path = !p->no_returns && !border && plan_whole_items(r);
        for (int pass = whole_path ? 0 : 1; pass < 2; pass++) {
            if (whole_path && pass == 0)
                print_fmt(p, "    if (k%dbase >= k%dlo && k%dbase + %d <= k%dhi) {\n", last, last, last, V, last);
            else if (whole_path)
                print_fmt(p, "    } else {\n");
            print_fmt(p, "    #pragma unroll\n    for (int parac_v = 0; parac_v < %d; parac_v++) {\n", V);
            print_fmt(p, "        const int k%d = k%dbase + parac_v;\n", last, last);
            if (pass == 1)
                print_fmt(p, p->no_returns ? "        if (k%d >= k%dlo && k%d < k%dhi) {\n"
                                           : "        if (k%d < k%dlo || k%d >= k%dhi) continue;\n",
                          last, last, last, last);
            print_fmt(p, "        const int %s%c = first%d + k%d * %ld;\n", it->name, "xyz"[last], last, last,
                      axis_step(it, last));
            if (dialect(p)->cuda) print_fmt(p, "        (void)%s%c;\n", it->name, "xyz"[last]);
            p->indent = 2;
            p->merging = true;
            print_stmt(p, it->body);
            p->merging = false;
            print_fmt(p, p->no_returns ? "    }\n    }\n" : "    }\n");
        }
        if (whole_path) print_fmt(p, "    }\n");
        merged_stores(p, r, last, src);
    } else {
        print_stmt(p, it->body);
    }
    if (R > 1) print_fmt(p, p->no_returns ? "    }\n    }\n" : "    }\n");
    if (p->no_returns) print_fmt(p, "    }\n");
    p->border = false;
    p->region = NULL;
    p->indent = 0;
}

/* A reduction's first step: each work-item folds the elements of m it is
 * given (from `start`, `step` apart) into acc. */
static void accumulate_loop(PrintCtx *p, Obj *m, const char *A, const char *start, const char *step)
{
    /* rows at least as wide as a work-group: the groups take whole rows and
     * the work-items 16-byte vectors of their columns (rows are padded to 64
     * bytes, so the vectors are aligned), no division per element; narrower
     * rows: the elements in one flat sequence */
    const char *group = dialect(p)->cuda ? "(long)blockIdx.x" : "(long)get_group_id(0)";
    const char *groups = dialect(p)->cuda ? "(long)gridDim.x" : "(long)get_num_groups(0)";
    const char *item = dialect(p)->cuda ? "(long)threadIdx.x" : "(long)get_local_id(0)";
    const char *items = dialect(p)->cuda ? "(long)blockDim.x" : "(long)get_local_size(0)";
    const Type *et = m->ty->base;
    const int V = ty_size(et) >= 1 && ty_size(et) <= 8 ? (int)(16 / ty_size(et)) : 1;
    const char *T = ty_c_name(et, true);
    print_fmt(p, "    if (cols >= %s) {\n", items);
    if (V > 1) print_fmt(p, "        const long vcols = cols / %d * %d;\n", V, V);
    else print_fmt(p, "        const long vcols = 0;\n");
    print_fmt(p, "        for (long row = %s; row < total / cols; row += %s) {\n", group, groups);
    if (V > 1) {
        const char *VT = vector_type(p, et, V);
        print_fmt(p, "            for (long col = %s * %d; col < vcols; col += %s * %d) {\n", item, V, items, V);
        print_fmt(p, "                const %s parac_vec = *(%sconst %s *)&%s[row * %s_pitch + col];\n", VT, dialect(p)->global, VT,
                  m->name, m->name);
        print_fmt(p, "                #pragma unroll\n                for (int k = 0; k < %d; k++) {\n", V);
        print_fmt(p, "                    const %s v = ((const %s *)&parac_vec)[k];\n", A, T);
        print_fmt(p, "                    acc = PARAC_OP(acc, v);\n                }\n            }\n");
    }
    print_fmt(p, "            for (long col = vcols + %s; col < cols; col += %s) {\n", item, items);
    print_fmt(p, "                const %s v = %s[row * %s_pitch + col];\n", A, m->name, m->name);
    print_fmt(p, "                acc = PARAC_OP(acc, v);\n            }\n        }\n    } else\n");
    print_fmt(p, "    for (long i = %s; i < total; i += %s) {\n", start, step);
    print_fmt(p, "        const long row = i / cols, col = i - row * cols;\n");
    print_fmt(p, "        const %s v = %s[row * %s_pitch + col];\n", A, m->name, m->name);
    print_fmt(p, "        acc = PARAC_OP(acc, v);\n    }\n");
}

/* One warp's values combined by shuffles (lane 0 gets them). */
static void warp_reduce(PrintCtx *p, const char *A)
{
    print_fmt(p, "    for (int o = 16; o > 0; o >>= 1) {\n        const %s v = parac_shfl_down(acc, o);\n"
                 "        acc = PARAC_OP(acc, v);\n    }\n", A);
}

/* One warp's values combined by shuffles, then the warps' results in
 * shared memory by the first warp; lane 0 of warp 0 holds the block's. */
static void cuda_block_reduce(PrintCtx *p, const char *A, const char *init)
{
    warp_reduce(p, A);
    print_fmt(p, "    __shared__ %s parac_warp[32];\n", A);
    print_fmt(p, "    const int lane = (int)threadIdx.x & 31, warp = (int)threadIdx.x >> 5;\n");
    print_fmt(p, "    if (lane == 0) parac_warp[warp] = acc;\n    __syncthreads();\n    if (warp != 0) return;\n");
    print_fmt(p, "    acc = lane < (int)(blockDim.x >> 5) ? parac_warp[lane] : %s;\n", init);
    warp_reduce(p, A);
}

/* The CUDA form of reduction_kernels: blocks of whole warps (the runtime
 * launches multiples of 32 threads), no barrier inside a warp. */
static void reduction_kernels_cuda(PrintCtx *p, Region *r, const char *src, const char *A, const char *T,
                                   const char *init, const char *op, int last)
{
    Obj *m = r->red_var;
    print_fmt(p, "/* %s:%d: independent %s(%s), level 1: each block reduces its share (warp shuffles) */\n",
        src, r->node->tok->line, parac_op_name(r->red_op), m->name);
    print_fmt(p, "#define PARAC_OP(a, b) %s\n", op);
    print_fmt(p, "%s %s(const %s *%s, const int %s_pitch, const int %s_d0, const int %s_d1, const int %s_d2,\n"
                 "    %s *partial)\n{\n", dialect(p)->kernel, r->kernel, T, m->name, m->name, m->name, m->name, m->name, A);
    print_fmt(p, "    const long cols = %s_d%d, total = (long)%s_d0 * %s_d1 * %s_d2;\n", m->name, last, m->name, m->name, m->name);
    print_fmt(p, "    %s acc = %s;\n", A, init);
    accumulate_loop(p, m, A, "(long)blockIdx.x * blockDim.x + threadIdx.x", "(long)gridDim.x * blockDim.x");
    cuda_block_reduce(p, A, init);
    print_fmt(p, "    if (lane == 0) partial[blockIdx.x] = acc;\n}\n\n");
    print_fmt(p, "/* level 2: one block reduces the partial results of all blocks */\n");
    print_fmt(p, "%s %s_final(const %s *partial, const int n, %s *result)\n{\n", dialect(p)->kernel, r->kernel, A, A);
    print_fmt(p, "    %s acc = %s;\n", A, init);
    print_fmt(p, "    for (int i = (int)threadIdx.x; i < n; i += (int)blockDim.x) {\n        const %s v = partial[i];\n"
                 "        acc = PARAC_OP(acc, v);\n    }\n", A);
    cuda_block_reduce(p, A, init);
    print_fmt(p, "    if (lane == 0) result[0] = acc;\n}\n#undef PARAC_OP\n\n");
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
    if (dialect(p)->cuda) {
        reduction_kernels_cuda(p, r, src, A, T, init, op, last);
        return;
    }
    print_fmt(p, "/* %s:%d: independent %s(%s), level 1: each work-group reduces its share in local memory */\n",
        src, r->node->tok->line, parac_op_name(r->red_op), m->name);
    print_fmt(p, "#define PARAC_OP(a, b) %s\n", op);
    print_fmt(p, "__kernel void %s(__global const %s *%s, const int %s_pitch, const int %s_d0, const int %s_d1, "
           "const int %s_d2,\n    __global %s *partial, __local %s *scratch)\n{\n",
        r->kernel, T, m->name, m->name, m->name, m->name, m->name, A, A);
    print_fmt(p, "    const long cols = %s_d%d, total = (long)%s_d0 * %s_d1 * %s_d2;\n", m->name, last, m->name, m->name, m->name);
    print_fmt(p, "    %s acc = %s;\n", A, init);
    accumulate_loop(p, m, A, "get_global_id(0)", "get_global_size(0)");
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

/* What CUDA C++ lacks of what the kernels use from OpenCL C: the limits of
 * the integer types and INFINITY (no headers under NVRTC), min/max of any
 * type, shuffles of any accumulator, wide vector storage. */
static const char cuda_prelude[] =
    "#ifndef INT_MAX\n"
    "#define SCHAR_MIN (-128)\n#define SCHAR_MAX 127\n#define UCHAR_MAX 255\n"
    "#define SHRT_MIN (-32768)\n#define SHRT_MAX 32767\n#define USHRT_MAX 65535\n"
    "#define INT_MIN (-2147483647 - 1)\n#define INT_MAX 2147483647\n#define UINT_MAX 4294967295u\n"
    "#define LONG_MIN (-9223372036854775807L - 1)\n#define LONG_MAX 9223372036854775807L\n"
    "#define ULONG_MAX 18446744073709551615ul\n"
    "#endif\n"
    "#ifndef INFINITY\n#define INFINITY __int_as_float(0x7f800000)\n#endif\n"
    "template <class T> __device__ __forceinline__ T parac_min(T a, T b) { return b < a ? b : a; }\n"
    "template <class T> __device__ __forceinline__ T parac_max(T a, T b) { return b > a ? b : a; }\n"
    "/* shuffles: 1- and 2-byte values travel as int */\n"
    "template <class T> __device__ __forceinline__ T parac_shfl_down(T v, int o) { return (T)__shfl_down_sync(0xffffffffu, (int)v, o); }\n"
    "#define PARAC_SHFL(T) __device__ __forceinline__ T parac_shfl_down(T v, int o) { return __shfl_down_sync(0xffffffffu, v, o); }\n"
    "PARAC_SHFL(int) PARAC_SHFL(unsigned) PARAC_SHFL(long) PARAC_SHFL(unsigned long) PARAC_SHFL(long long)\n"
    "PARAC_SHFL(unsigned long long) PARAC_SHFL(float) PARAC_SHFL(double)\n"
    "#undef PARAC_SHFL\n"
    "/* vectors as storage of 1 to 128 bytes, moved as one */\n"
    "typedef unsigned char parac_b1;\ntypedef unsigned short parac_b2;\ntypedef unsigned int parac_b4;\n"
    "typedef uint2 parac_b8;\ntypedef uint4 parac_b16;\n"
    "struct alignas(32) parac_b32 { uint4 a, b; };\n"
    "struct alignas(64) parac_b64 { uint4 a, b, c, d; };\n"
    "struct alignas(128) parac_b128 { uint4 a[8]; };\n";

void emit_device_kernels(Program *prog, FILE *o, const char *kernel_name, bool cuda)
{
    PrintCtx pc = {0}, *p = &pc;
    p->out = o;
    p->opencl = true;
    p->cuda = cuda;
    p->line_marks = !prog->opt || !prog->opt->no_line;
    const char *src = prog->file->name;
    if (cuda) {
        print_fmt(p, "/* %s: generated by paracc from %s. CUDA C++ for NVRTC. */\n", kernel_name, src);
        print_fmt(p, "%s", cuda_prelude);
    } else {
        print_fmt(p, "/* %s: generated by paracc from %s. OpenCL C 1.2. */\n", kernel_name, src);
        print_fmt(p, "#ifdef cl_khr_fp64\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#endif\n");
    }
    print_fmt(p, "#define PARAC_MIN(a, b) ((a) < (b) ? (a) : (b))\n#define PARAC_MAX(a, b) ((a) > (b) ? (a) : (b))\n");
    print_fmt(p, "/* the border boxes of one launch: lo and hi of each axis (parac_%s_launch_boxes) */\n"
                 "typedef struct parac_boxes { int n; int b[6][6]; } parac_boxes;\n\n", cuda ? "cu" : "cl");
    /* the program's macros */
    for (Node *n = prog->top; n; n = n->next)
        if (n->kind == ND_DIRECTIVE) {
            const char *t = n->text + 1;
            while (*t == ' ' || *t == '\t') t++;
            if (!strncmp(t, "define", 6) || !strncmp(t, "undef", 5)) print_fmt(p, "%s\n", n->text);
        }
    print_order_helpers(p, prog);
    /* and its file-scope enumerations: their constants may stand in kernels */
    for (Node *n = prog->top; n; n = n->next)
        if (n->kind == ND_VERBATIM && n->text) {
            const char *t = n->text;
            if (!strncmp(t, "typedef", 7)) t += 7;
            while (*t == ' ' || *t == '\t' || *t == '\n') t++;
            if (!strncmp(t, "enum", 4) && (t[4] == ' ' || t[4] == '{' || t[4] == '\t' || t[4] == '\n'))
                print_fmt(p, "%s;\n", n->text);
        }
    print_fmt(p, "\n");
    program_tables(p, prog); /* after the enumerations, whose constants a table's values may name */
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
            if (r->iter->nstages) {
                kernel_staged(p, r, src, restrict_ptrs);
                for (int i = 0; i < r->nvariants; i++) {
                    print_fmt(p, "/* a candidate of the search: %s */\n", r->variants[i]->variant_what);
                    kernel_staged(p, r->variants[i], src, restrict_ptrs);
                }
            } else if (r->nhist) {
                kernel_histograms(p, r, src, restrict_ptrs);
            } else if (r->one_launch) {
                kernel_one_launch(p, r, src, restrict_ptrs);
                for (int i = 0; i < r->nvariants; i++) { /* the search's other candidates */
                    print_fmt(p, "/* a candidate of the search: %s */\n", r->variants[i]->variant_what);
                    kernel_one_launch(p, r->variants[i], src, restrict_ptrs);
                }
            } else {
                kernel(p, r, false, src, restrict_ptrs);
                if (r->has_border) kernel(p, r, true, src, restrict_ptrs);
            }
        } else
            reduction_kernels(p, r, src);
    }
}
