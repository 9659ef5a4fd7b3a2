/* --explain: what the model decided for every parallel region, and why. */
#include <stdlib.h>
#include <string.h>

#include "lang/lang.h"

void explain_program(Program *prog, FILE *o)
{
    const CompileOptions *opt = prog->opt;
    fprintf(o, "paracc plan for %s (-O%d, target %s)\n", prog->file->name, opt ? opt->opt_level : 2,
            target_name(opt ? opt->target : TARGET_OPENCL));
    bool ocl = opt && target_has_device(opt->target);
    if (opt && !ocl && plan_flag(opt, opt->skip_zeroing, 1))
        for (Node *f = prog->top; f; f = f->next) {
            char names[512];
            if (f->kind != ND_FUNC || !f->body) continue;
            lang_written_first_names(f->body, names, sizeof names);
            if (names[0])
                fprintf(o, "%s:%d: function %s: not zeroed, every element written before any is read: %s "
                           "(-fno-skip-zeroing: zeroed)\n", prog->file->name, f->tok->line, f->name, names);
        }
    for (Region *r = prog->regions; r; r = r->next) {
        if (r->iter && r->iter->alt) {
            /* planned as any region; what the search times it against is told at the fused one */
            fprintf(o, "%s:%d: region %s: alternative %d of fusion choice %d (timed by the search against the fused "
                       "region)\n", prog->file->name, r->node->tok->line, r->kernel, r->iter->alt, r->iter->choice);
            continue;
        }
        fprintf(o, "%s:%d: region %s: %s\n", prog->file->name, r->node->tok->line, r->kernel,
                r->cls == CLASS_POINT ? "point" : r->cls == CLASS_LOCAL_BLOCK ? "local block" : "global");
        bool any = false;
        for (VarUse *u = r->vars; u; u = u->next)
            if (u->hreuse || u->vreuse) {
                fprintf(o, "  reuse: %s%s%s\n", u->var->name, u->hreuse ? " horizontal" : "",
                        u->vreuse ? " vertical" : "");
                any = true;
            }
        if (!any) fprintf(o, "  reuse: none\n");
        if (r->iter && r->iter->selects)
            fprintf(o, "  if-conversion: %d conditional assignment%s made select%s (straight-line code for the vector plan)\n",
                    r->iter->selects, r->iter->selects > 1 ? "s" : "", r->iter->selects > 1 ? "s" : "");
        if (r->iter && r->iter->hoisted)
            fprintf(o, "  hoisted: %d statement%s that both arms of an if began with\n", r->iter->hoisted,
                    r->iter->hoisted > 1 ? "s" : "");
        if (r->iter && r->iter->hoisted_loads)
            fprintf(o, "  hoisted loads: %d matrix element%s that both arms of an if read, loaded before it\n",
                    r->iter->hoisted_loads, r->iter->hoisted_loads > 1 ? "s" : "");
        if (r->iter && r->iter->merged) fprintf(o, "  merged launches: %s\n", r->iter->merged);
        for (int k = 0; k < r->nfcache; k++) {
            const struct FusedCache *c = &r->fcache[k];
            const long R = r->rows_per_item, V = r->vector_width;
            const long rows = (R > 1 ? R - 1 : 0) + c->omax - c->omin + 1, cols = V + c->dcmax - c->dcmin;
            fprintf(o, "  recomputed once per held row and column: %ld values a work-item (parac_fc%d), not %ld\n",
                    rows * cols, k, (long)c->copies * R * V);
        }
        if (r->iter && r->iter->fused)
            fprintf(o, "  fused: %s (values the region would read from memory are computed in it)\n", r->iter->fused);
        if (r->iter && r->iter->nloops)
            fprintf(o, "  host loops in the kernel: the loop of %s, each work-item running its outputs' rounds "
                       "(one launch; -fno-loops-in-kernels)\n", r->iter->loops);
        if (r->iter && r->iter->loops_kept) fprintf(o, "  host loop: %s\n", r->iter->loops_kept);
        if (r->iter && r->iter->alternatives) fprintf(o, "  fusion choice: %s\n", r->iter->alternatives);
        if (r->iter && r->iter->nstages) {
            long bytes = 0;
            fprintf(o, "  local-memory stages:");
            for (int k = 0; k < r->iter->nstages; k++) {
                const Stage *st = &r->iter->stages[k];
                const long rows = (long)r->wg[1] * r->rows_per_item + st->lo[0] + st->hi[0];
                const long cols = (long)r->wg[0] + st->lo[1] + st->hi[1];
                bytes += rows * cols * (long)ty_size(st->m->ty->base);
                fprintf(o, "%s %s %ldx%ld cells (parac_sg%d)", k ? "," : "", st->m->name, rows, cols, k);
            }
            fprintf(o, ": %ld bytes per work-group of %dx%d outputs\n", bytes, r->wg[1] * r->rows_per_item, r->wg[0]);
        }
        if (!r->iter) {
            fprintf(o, "  reduction: %s\n", r->why_vector);
            if (r->fold_into)
                fprintf(o, "  folded: summed by the kernel of region %s (line %d) as it stores %s; these kernels run "
                           "only when that region does not cover all of %s\n",
                        r->fold_into->kernel, r->fold_into->node->tok->line, r->red_var->name, r->red_var->name);
            continue;
        }
        if (r->fold_red)
            fprintf(o, "  folded reduction: %s(%s) of line %d, summed as the values are stored (a warp-shuffle sum per "
                       "block, one atomic per block; -fno-fold-reductions: kernels of its own)\n",
                    parac_op_name(r->fold_red->red_op), r->fold_red->red_var->name, r->fold_red->node->tok->line);
        if (r->why_hist) fprintf(o, "  work-group histograms: %s\n", r->why_hist);
        if (r->why_larr) fprintf(o, "  local arrays: %s\n", r->why_larr);
        fprintf(o, "  vector width: %d (%s)\n", r->vector_width, r->why_vector);
        if (r->why_rows) fprintf(o, "  rows per work-item: %d (%s)\n", r->rows_per_item, r->why_rows);
        if (plan_whole_items(r))
            fprintf(o, "  whole work-items: the %d outputs untested where all lie inside (one block of code, their "
                       "shared values computed once; -fno-whole-items)\n", r->vector_width);
        if (r->vector_width > 1) {
            if (r->nloads) {
                fprintf(o, "  vector loads:");
                for (int i = 0; i < r->nloads; i++)
                    fprintf(o, "%s %s row (%+ld) columns %+ld..%+ld", i ? "," : "", r->loads[i].var->name,
                            r->loads[i].other[0].offset, r->loads[i].lo, r->loads[i].hi);
                fprintf(o, " (%s)\n", r->why_loads);
            } else
                fprintf(o, "  vector loads: none (%s)\n", r->why_loads);
            if (r->nmerge) {
                fprintf(o, "  merged stores:");
                for (int i = 0; i < r->nmerge; i++) fprintf(o, " %s", r->merge_lhs[i]->var->name);
                fprintf(o, " (%s)\n", r->why_merge);
            } else
                fprintf(o, "  merged stores: none (%s)\n", r->why_merge);
        }
        if (ocl) {
            fprintf(o, "  work-group: %dx%dx%d work-items%s\n", r->wg[0], r->wg[1], r->wg[2],
                    r->vector_width > 1 ? lang_format(", %d x %d outputs", r->wg[0] * r->vector_width, r->wg[1] * r->rows_per_item)
                                        : "");
            fprintf(o, "  restrict arguments: %s\n", plan_flag(opt, opt->restrict_ptrs, 1) ? "yes" : "no");
            fprintf(o, "  border: %s\n", r->one_launch ? "the interior and all border boxes in one launch (border blocks after the interior's rows); the interior has no tests"
                            : r->has_border ? "one launch of a border kernel over all border boxes; the interior has no tests"
                                                       : "none needed");
        }
        if (!ocl) {
            if (r->strip_first) {
                int pos = 1;
                for (const Region *q = r->strip_first; q && q != r; q = q->strip_next) pos++;
                const Region *f = r->strip_first;
                if (f->strip_loop)
                    fprintf(o, "  strips of rows: stage %d of %d iterators run strip by strip from line %d with the loop%s of line "
                               "%d inside each strip, a thread running every round over its own strips; for a strip of rows "
                               "[r, r + S) it computes rows [r %s %ld, r + S %s %ld) (-fno-strip-loops: the loops "
                               "around the strips)\n", pos, f->strip_stages, f->node->tok->line, f->strip_nloops > 1 ? "s" : "",
                            f->strip_loop->tok->line, r->strip_low < 0 ? "-" : "+", labs(r->strip_low),
                            r->strip_reach < 0 ? "-" : "+", labs(r->strip_reach));
                else if (f->strip_threads)
                    fprintf(o, "  strips of rows: stage %d of %d iterators run strip by strip from line %d, a thread running "
                               "every stage over its own strips; for a strip of rows [r, r + S) it computes rows [r %s %ld, "
                               "r + S %s %ld) (-fno-thread-strips: the threads share each strip)\n",
                            pos, f->strip_stages, f->node->tok->line, r->strip_low < 0 ? "-" : "+", labs(r->strip_low),
                            r->strip_reach < 0 ? "-" : "+", labs(r->strip_reach));
                else
                    fprintf(o, "  strips of rows: stage %d of %d iterators run strip by strip from line %d; its rows are "
                               "computed %ld ahead of each strip for the stages after it (where the intermediates outgrow the last-level cache; -fno-strips: "
                               "stage after stage)\n", pos, f->strip_stages, f->node->tok->line, r->strip_reach);
                if (r == f && f->strip_loop_kept) fprintf(o, "  loops inside the strips: no (%s)\n", f->strip_loop_kept);
                if (r == f && !f->strip_loop && !f->strip_threads && f->strip_threads_kept)
                    fprintf(o, "  strips of each thread's own: no (%s)\n", f->strip_threads_kept);
                if (r == f && r->strip_folds) {
                    fprintf(o, "  storage folded: only the run uses");
                    Obj *folded[64];
                    const int n = strips_folded(r, folded, 64);
                    for (int i = 0; i < n; i++) fprintf(o, " %s", folded[i]->name);
                    fprintf(o, f->strip_loop || f->strip_threads ? ": each kept as a ring per thread of the rows a strip needs, not whole (-fno-fold-storage)\n"
                                             : ": each kept as a ring of the rows a strip needs, not whole (-fno-fold-storage)\n");
                }
            } else
                fprintf(o, "  strips of rows: no (%s)\n", plan_flag(opt, opt->strips, 1)
                            ? "not with a neighbouring iterator whose rows it reads or feeds at constant offsets"
                            : "-fno-strips or -O0");
            if (r->why_lanes)
                fprintf(o, "  lanes: %s%s\n", r->why_lanes,
                        r->lane_block || r->nlane_hoist ? " (-fno-lane-blocks: around the whole body)" : "");
            if (r->nlane_clamps)
                fprintf(o, "  clamps: %d split off: the lanes where each is its value run without it "
                           "(-fno-split-clamps: in every lane)\n", r->nlane_clamps);
        }
        if (ocl)
            fprintf(o, "  local-memory tiles: %s (%s)\n", r->use_local_tiles ? "yes" : "no",
                    r->why_tiles ? r->why_tiles : "no rows planned for the work-items");
        if (ocl && r->nvariants) {
            fprintf(o, "  search candidates (PARAC_CL_SEARCH / PARAC_CU_SEARCH time each, with the work-group shapes):"
                       " the model's plan");
            for (int i = 0; i < r->nvariants; i++) fprintf(o, "; %s (%s)", r->variants[i]->variant_what, r->variants[i]->kernel);
            fprintf(o, "\n");
        }
    }
}
