/* Kernels of a staged iterator: its stages computed by each work-group into
 * local-memory tiles with halos (fuse_tile.c's plan), then its own body read
 * from them (emit_kernels.c prints the other kernels). */
#include <string.h>

#include "lang/emit_kernels.h"

/* ---- stages in local memory (fuse_tile.c) ------------------------------------ */

/* Cell (parac_gr, parac_gc) of stage st outside its matrix, on axis a (the
 * other axis inside): the rule's entry there maps it to a row or column of
 * the matrix, or gives its value; no entry leaves the cell 0. */
static void stage_rule_axis(PrintCtx *p, const Stage *st, int a)
{
    const char *g = a ? "parac_gc" : "parac_gr", *dim = a ? "parac_e1" : "parac_e0";
    const char *T = ty_c_name(st->m->ty->base, true);
    print_fmt(p, "            ");
    for (const BorderEntry *e = st->rule ? st->rule->entries : NULL; e; e = e->next) {
        if (!e->side[a] || e->side[1 - a]) continue;
        if (e->side[a] < 0) print_fmt(p, "if (%s == %d) ", g, e->side[a]);
        else print_fmt(p, "if (%s == %s + %d) ", g, dim, e->side[a] - 1);
        Node *f = lang_rule_map(e, st->m, a);
        if (f) {
            print_fmt(p, "%s = ", g);
            print_expr(p, f);
            print_fmt(p, ";\n            else ");
            continue;
        }
        /* a value: '*' is the cell's index on the other axis */
        Node gr = {0}, gc = {0};
        gr.kind = gc.kind = ND_ITER_INDEX;
        gr.name = "parac_gr";
        gc.name = "parac_gc";
        Node *sw[2] = {p->wild_e[0], p->wild_e[1]};
        p->wild_e[0] = &gr;
        p->wild_e[1] = &gc;
        p->rule_depth++;
        print_fmt(p, "{\n                parac_cell = (%s)(", T);
        print_expr(p, e->value);
        print_fmt(p, ");\n                parac_out = 1;\n            } else ");
        p->rule_depth--;
        p->wild_e[0] = sw[0];
        p->wild_e[1] = sw[1];
    }
    print_fmt(p, "parac_out = 1;\n");
}

/* A region with stages: the work-group computes each stage's tile, halo
 * included, into local memory (every work-item takes cells in turn, then
 * all meet at a barrier), then its outputs from the tiles: R rows of them
 * per work-item, interleaved, one column each. Every work-item reaches
 * every barrier; none returns (the body has no jumps: fuse_tile.c). */
void kernel_staged(PrintCtx *p, Region *r, const char *src, bool restrict_ptrs)
{
    Iterator *it = r->iter;
    const int R = r->rows_per_item;
    print_fmt(p, "/* %s:%d: parac_iterator %s, its %d stage%s computed by each work-group in local memory */\n", src,
              r->node->tok->line, it->name, it->nstages, it->nstages > 1 ? "s" : "");
    /* CUDA: at most the planned work-group, at least 4 resident per
     * multiprocessor. On the H200 this let ptxas take 48 registers instead
     * of 40 and took the unsharp mask at 4096^2 from 0.166 to 0.157 ms; a
     * minimum of 6 gave 0.159, of 7 or 8 (32 registers) 0.198, none 0.182
     * (bench/parac/results/unsharp-staged-shapes-h200-2026-11-26.txt) */
    if (dialect(p)->cuda) print_fmt(p, "%s __launch_bounds__(%d, 4) %s(", dialect(p)->kernel, r->wg[0] * r->wg[1], r->kernel);
    else print_fmt(p, "%s %s(", dialect(p)->kernel, r->kernel);
    kernel_params(p, r, restrict_ptrs, 2); /* launched as the search's candidates are (no border boxes) */
    print_fmt(p, ")\n{\n");
    for (int k = 0; k < it->nstages; k++) { /* sized for the planned work-group: a launch may only shrink it */
        const Stage *st = &it->stages[k];
        const long rows = (long)r->wg[1] * R + st->lo[0] + st->hi[0], cols = (long)r->wg[0] + st->lo[1] + st->hi[1];
        print_fmt(p, "    %s%s parac_sg%d[%ld]; /* %s */\n", dialect(p)->cuda ? "__shared__ " : "__local ",
                  ty_c_name(st->m->ty->base, true), k, rows * cols, st->m->name);
    }
    print_fmt(p, "    const int parac_nx = %s, parac_ny = %s;\n", kernel_local_size(p, 0), kernel_local_size(p, 1));
    print_fmt(p, "    const int parac_me = %s * parac_nx + %s, parac_nth = parac_nx * parac_ny;\n", kernel_local_id(p, 1), kernel_local_id(p, 0));
    print_fmt(p, "    const int parac_r0 = first0 + k0lo + %s * parac_ny * %d, parac_c0 = first1 + k1lo + %s * parac_nx;\n",
              kernel_group_id(p, 1), R, kernel_group_id(p, 0));
    print_fmt(p, "    /* the iterator's space; each stage covers it, or it and a few rows or columns more (fuse_tile.c) */\n");
    print_fmt(p, "    const int parac_d0 = first0 + k0hi, parac_d1 = first1 + k1hi;\n");
    print_fmt(p, "    /* a launch may add a work-group past the box (aligned vector bases elsewhere): it fills nothing */\n");
    print_fmt(p, "    const int parac_live = parac_r0 < parac_d0 && parac_c0 < parac_d1;\n");
    p->in_kernel = true;
    p->region = r;
    p->indent = 1;
    kernel_consts(p, r);
    /* host loops moved inside (fuse_loops.c): every round computes the
     * tiles again, then the outputs' round */
    Node *body = it->body;
    for (int l = 0; l < it->nloops; l++) {
        print_loop_open(p, body);
        body = body->body;
    }
    for (int k = 0; k < it->nstages; k++) {
        const Stage *st = &it->stages[k];
        const char *T = ty_c_name(st->m->ty->base, true);
        print_fmt(p, "    /* %s:%d: %s, rows -%ld..+%ld and columns -%ld..+%ld around the outputs */\n", src,
                  st->p->tok->line, st->m->name, st->lo[0], st->hi[0], st->lo[1], st->hi[1]);
        print_fmt(p, "    const int parac_sr%d = parac_r0 - %ld, parac_sc%d = parac_c0 - %ld, parac_sn%d = parac_nx + %ld;\n", k,
                  st->lo[0], k, st->lo[1], k, st->lo[1] + st->hi[1]);
        /* cell i = a * sn + j: a and j step by the work-group's size, no division per cell */
        print_fmt(p, "    {\n    const int parac_e0 = parac_d0 + %ld, parac_e1 = parac_d1 + %ld; /* %s's sizes */\n", st->grow[0],
                  st->grow[1], st->m->name);
        print_fmt(p, "    int parac_a = parac_me / parac_sn%d, parac_j = parac_me - parac_a * parac_sn%d;\n", k, k);
        print_fmt(p, "    const int parac_da = parac_nth / parac_sn%d, parac_dj = parac_nth - parac_da * parac_sn%d;\n", k, k);
        print_fmt(p, "    #pragma unroll 4\n    for (int parac_i = parac_me; parac_live && parac_i < (parac_ny * %d + %ld) * parac_sn%d; parac_i += parac_nth) {\n",
                  R, st->lo[0] + st->hi[0], k);
        print_fmt(p, "        int parac_gr = parac_sr%d + parac_a, parac_gc = parac_sc%d + parac_j;\n", k, k);
        print_fmt(p, "        parac_a += parac_da;\n        parac_j += parac_dj;\n");
        print_fmt(p, "        if (parac_j >= parac_sn%d) {\n            parac_j -= parac_sn%d;\n            parac_a++;\n        }\n", k, k);
        print_fmt(p, "        %s parac_cell = (%s)0;\n        int parac_out = 0;\n", T, T);
        print_fmt(p, "        if (parac_gr < 0 || parac_gr >= parac_e0) {\n");
        print_fmt(p, "            if (parac_gc < 0 || parac_gc >= parac_e1) parac_out = 1; /* a corner: no entry */\n");
        print_fmt(p, "            else {\n");
        p->indent = 3;
        stage_rule_axis(p, st, 0);
        print_fmt(p, "            }\n        } else if (parac_gc < 0 || parac_gc >= parac_e1) {\n");
        stage_rule_axis(p, st, 1);
        print_fmt(p, "        }\n");
        /* E is evaluated at every cell, unconditionally, so that the loads
         * of consecutive cells overlap: a cell that takes no value of E
         * evaluates it at the tile's first output, (parac_r0, parac_c0),
         * which is inside the image and inside every tile E reads */
        print_fmt(p, "        const int parac_ok = !parac_out && parac_gr >= 0 && parac_gr < parac_e0 && parac_gc >= 0 && "
                     "parac_gc < parac_e1;\n");
        print_fmt(p, "        if (!parac_ok) {\n            parac_gr = parac_r0;\n            parac_gc = parac_c0;\n        }\n");
        Node gr = {0}, gc = {0};
        gr.kind = gc.kind = ND_ITER_INDEX;
        gr.name = "parac_gr";
        gc.name = "parac_gc";
        gr.tok = gc.tok = st->p->tok;
        Subst sub = {.from = st->p, .to = it};
        sub.to_expr[0] = &gr;
        sub.to_expr[1] = &gc;
        p->stage_fill = k + 1;
        if (st->steps) { /* the producer's named steps as written (st->e has them inlined) */
            p->indent = 2;
            for (Node *s = st->steps; s && s->kind != ND_EXPR_STMT; s = s->next)
                if (s->kind == ND_DECL) print_stmt(p, tree_copy(s, &sub));
        }
        print_fmt(p, "        const %s parac_e = (%s)(", T, T);
        print_expr(p, tree_copy(st->steps ? st->value : st->e, &sub));
        p->stage_fill = 0;
        print_fmt(p, ");\n        parac_sg%d[parac_i] = parac_ok ? parac_e : parac_cell;\n    }\n    }\n", k);
        print_fmt(p, "    %s;\n", dialect(p)->cuda ? "__syncthreads()" : "barrier(CLK_LOCAL_MEM_FENCE)");
    }
    kernel_fold_open(p, r);
    /* the outputs: a tile wholly inside the box runs its rows unrolled with
     * no tests (their loads overlap), one on the box's edge tests each */
    print_fmt(p, "    const int parac_k0 = k0lo + %s * parac_ny * %d + %s, parac_k1 = k1lo + %s * parac_nx + %s;\n", kernel_group_id(p, 1), R,
              kernel_local_id(p, 1), kernel_group_id(p, 0), kernel_local_id(p, 0));
    print_fmt(p, "    if (k0lo + (%s + 1) * parac_ny * %d <= k0hi && k1lo + (%s + 1) * parac_nx <= k1hi) {\n", kernel_group_id(p, 1), R,
              kernel_group_id(p, 0));
    for (int whole = 1; whole >= 0; whole--) {
        print_fmt(p, whole ? "    #pragma unroll\n" : "    } else {\n");
        print_fmt(p, "    for (int parac_q = 0; parac_q < %d; parac_q++) {\n", R);
        print_fmt(p, "        const int k0 = parac_k0 + parac_q * parac_ny, k1 = parac_k1;\n");
        if (!whole) print_fmt(p, "        if (k0 >= k0hi || k1 >= k1hi) continue;\n");
        print_fmt(p, "        const int %sx = first0 + k0, %sy = first1 + k1;\n", it->name, it->name);
        if (dialect(p)->cuda) print_fmt(p, "        (void)%sx;\n        (void)%sy;\n", it->name, it->name);
        p->indent = 2;
        print_stmt(p, body);
        print_fmt(p, "    }\n");
    }
    print_fmt(p, "    }\n");
    if (it->nloops) {
        /* no work-item fills the next round's tiles while another still reads these */
        print_fmt(p, "    %s;\n", dialect(p)->cuda ? "__syncthreads()" : "barrier(CLK_LOCAL_MEM_FENCE)");
        p->indent = 1 + 2 * it->nloops;
        for (int l = 0; l < it->nloops; l++) print_loop_close(p);
    }
    kernel_fold_close(p, r);
    print_fmt(p, "}\n\n");
    p->region = NULL;
    p->in_kernel = false;
    p->indent = 0;
}
