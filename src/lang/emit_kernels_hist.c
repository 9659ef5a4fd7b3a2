/* The kernel of an iterator whose atomic updates are counted per work-group
 * (plan_histograms.c): the work-group clears its copies in local memory,
 * runs PARAC_HIST_ROWS iterations along one axis per work-item (that axis's
 * work-items interleaved, so that a warp's reads stay neighbours), its updates going
 * to the copies by local atomics, and adds each nonzero element of the
 * copies to the matrix once. Every work-item reaches both barriers, and every
 * loop has the same trip count in all work-items of a group (PoCL's
 * work-group loops). */
#include "lang/emit_kernels.h"

static const char *barrier(const PrintCtx *p)
{
    return dialect(p)->cuda ? "__syncthreads()" : "barrier(CLK_LOCAL_MEM_FENCE)";
}

static long axis_step(const Iterator *it, int d) { return it->r[d].stride; }

/* Element j of copy k added to its matrix: j's indices from the constant
 * sizes, the matrix's element through its pitch. */
static void merge_copy(PrintCtx *p, Region *r, int k)
{
    Obj *m = r->hist[k];
    const char *T = m->ty->base->is_unsigned ? "unsigned int" : "int";
    print_fmt(p, "    for (int parac_i = 0; parac_i < %ld; parac_i += parac_nl) {\n", r->hist_n[k]);
    print_fmt(p, "        const int parac_j = parac_i + parac_lt;\n");
    print_fmt(p, "        const %s parac_v = parac_j < %ld ? parac_wh%d[parac_j] : 0;\n", T, r->hist_n[k], k);
    print_fmt(p, "        if (parac_v != 0) {\n");
    Node *e[3];
    long add[3] = {0, 0, 0};
    lang_hist_element(r, k, "parac_j", e);
    if (dialect(p)->cuda)
        print_fmt(p, "            atomicAdd(&");
    else
        print_fmt(p, "            atomic_add((volatile __global %s *)&", T);
    print_mat_index(p, m, e, add, m->ty->ndim);
    print_fmt(p, ", parac_v);\n        }\n    }\n");
}

void kernel_histograms(PrintCtx *p, Region *r, const char *src, bool restrict_ptrs)
{
    Iterator *it = r->iter;
    const int nd = it->ndim, R = r->rows_per_item, a = r->hist_axis, ga = nd - 1 - a;
    const bool cuda = dialect(p)->cuda;
    print_fmt(p, "/* %s:%d: parac_iterator %s, its updates of", src, r->node->tok->line, it->name);
    for (int k = 0; k < r->nhist; k++) print_fmt(p, "%s %s", k ? "," : "", r->hist[k]->name);
    print_fmt(p, " counted per work-group in local memory, %d iterations along axis %d per work-item */\n", R, a);
    print_fmt(p, "%s %s(", dialect(p)->kernel, r->kernel);
    kernel_params(p, r, restrict_ptrs, 0);
    print_fmt(p, ")\n{\n");
    for (int k = 0; k < r->nhist; k++)
        print_fmt(p, "    %s%s parac_wh%d[%ld];\n", cuda ? "__shared__ " : "__local ",
                  r->hist[k]->ty->base->is_unsigned ? "unsigned int" : "int", k, r->hist_n[k]);
    print_fmt(p, "    const int parac_lt = (%s * %s + %s) * %s + %s;\n", kernel_local_id(p, 2), kernel_local_size(p, 1),
              kernel_local_id(p, 1), kernel_local_size(p, 0), kernel_local_id(p, 0));
    print_fmt(p, "    const int parac_nl = %s * %s * %s;\n", kernel_local_size(p, 0), kernel_local_size(p, 1),
              kernel_local_size(p, 2));
    for (int k = 0; k < r->nhist; k++)
        print_fmt(p, "    for (int parac_i = 0; parac_i < %ld; parac_i += parac_nl)\n"
                     "        if (parac_i + parac_lt < %ld) parac_wh%d[parac_i + parac_lt] = 0;\n",
                  r->hist_n[k], r->hist_n[k], k);
    print_fmt(p, "    %s;\n    {\n", barrier(p));
    /* the other axes: one iteration per work-item, as in the plain kernel */
    for (int d = 0; d < nd; d++)
        if (d != a) print_fmt(p, "    const int k%d = k%dlo + %s;\n", d, d, kernel_global_id(p, nd - 1 - d));
    p->indent = 1;
    kernel_consts(p, r);
    print_fmt(p, "    for (int parac_r = 0; parac_r < %d; parac_r++) {\n", R);
    print_fmt(p, "        const long parac_ka = (long)k%dlo + ((long)%s * %d + parac_r) * %s + %s;\n", a, kernel_group_id(p, ga), R,
              kernel_local_size(p, ga), kernel_local_id(p, ga));
    print_fmt(p, "        if (parac_ka < k%dhi", a);
    for (int d = 0; d < nd; d++)
        if (d != a) print_fmt(p, " && k%d < k%dhi", d, d);
    print_fmt(p, ") {\n            const int k%d = (int)parac_ka;\n", a);
    for (int d = 0; d < nd; d++) {
        print_fmt(p, "            const int %s%c = first%d + k%d * %ld;\n", it->name, "xyz"[d], d, d, axis_step(it, d));
        if (cuda) print_fmt(p, "            (void)%s%c;\n", it->name, "xyz"[d]);
    }
    p->in_kernel = true;
    p->border = false;
    p->region = r;
    p->indent = 3;
    print_stmt(p, it->body);
    p->in_kernel = false;
    p->region = NULL;
    p->indent = 0;
    print_fmt(p, "        }\n    }\n    }\n    %s;\n", barrier(p));
    for (int k = 0; k < r->nhist; k++) merge_copy(p, r, k);
    print_fmt(p, "}\n\n");
}
