/* Host code of parallel regions: the iteration space split into the
 * interior and border boxes, then OpenMP loop nests (the C target) or
 * launches of the region's kernels (device targets); the C target's strips
 * of rows over a run of iterators (strips.c's plan). */
#include <string.h>

#include "lang/emit_host.h"
#include "lang/print.h"

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

/* The run-time lengths of the windows that operators of n run over, checked
 * before the iterator runs (a filter vector as long as its window). */
static void check_window_lengths(PrintCtx *p, Node *n, int depth)
{
    if (!n || depth > 400) return;
    NodeKids kids = {.n = n};
    for (Node *c; (c = lang_next_kid(&kids));) check_window_lengths(p, c, depth + 1);
    if (!print_is_run_time_op(n)) return;
    const char *where = lang_format("%s:%d", p->host->file, n->tok->line);
    for (Node *w = n->args; w; w = w->next) {
        if (!lang_window_is_dynamic(w)) continue;
        for (int d = 0; d < w->nidx; d++) {
            Node *ix = w->idx[d];
            if (ix->kind != ND_SLICE || ix->axis != 0) continue;
            print_indent(p);
            fprintf(p->out, "parac__window_length((long)(");
            print_expr(p, ix->rhs);
            fprintf(p->out, "), \"%s\", \"%s\");\n", where, w->var->name);
            if (ix->whole_vector) {
                print_indent(p);
                fprintf(p->out, "parac__filter_length(%s_d0, (long)(", w->var->name);
                print_expr(p, ix->rhs);
                fprintf(p->out, "), \"%s\", \"%s\");\n", where, w->var->name);
            }
        }
    }
}

/* The reach of reach i's reads along axis d of its matrix when windows of
 * run-time length are among them, as host variables parac_rlo<i>_<d> and
 * parac_rhi<i>_<d> (at least the other reads' reach): each window starts
 * at rest before the element at coef * index and ends (length - 1) * step
 * after its start. Returns the first variable's name. */
const char *host_run_time_reach(PrintCtx *p, const Region *r, int i, int d)
{
    const RuleReach *rr = &r->reach[i];
    const char *lo = lang_format("parac_rlo%d_%d", i, d), *hi = lang_format("parac_rhi%d_%d", i, d);
    print_line(p, "long %s = %d, %s = %d;", lo, rr->fixed_lo[d], hi, rr->fixed_hi[d]);
    for (int k = 0; k < rr->ndyn[d]; k++) {
        const RunTimeReach *w = &rr->dyn[d][k];
        print_line(p, "{");
        p->indent++;
        print_indent(p);
        fprintf(p->out, "const long parac_rs = (long)(");
        print_expr(p, w->rest);
        fprintf(p->out, "), parac_rl = (long)(");
        print_expr(p, w->len);
        fprintf(p->out, ");\n");
        print_line(p, "if (-parac_rs > %s) %s = -parac_rs;", lo, lo);
        print_line(p, "if (parac_rs + (parac_rl - 1) * %ld > %s) %s = parac_rs + (parac_rl - 1) * %ld;", w->step, hi, hi,
                   w->step);
        p->indent--;
        print_line(p, "}");
    }
    return lo;
}

/* Iteration counts, first indices and the interior box. */
static void region_setup(PrintCtx *p, Region *r)
{
    Iterator *it = r->iter;
    int nd = it->ndim;
    check_window_lengths(p, it->body, 0);
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
    for (int i = 0; r->has_border && i < r->nreach; i++) {
        const RuleReach *rr = &r->reach[i];
        Obj *v = rr->rule->var;
        for (int d = 0; v && d < v->ty->ndim; d++) {
            Affine a = rr->aff[d];
            if (a.axis < 0 || (!rr->need_lo[d] && !rr->need_hi[d])) continue;
            long step = it->r[a.axis].stride * (it->iter_element && it->elem[a.axis] > 1 ? it->elem[a.axis] : 1);
            const char *side = d == v->ty->ndim - 1 ? "columns" : d == v->ty->ndim - 2 ? "rows" : "planes";
            const char *at = lang_format("%s%c", it->name, "xyz"[a.axis]);
            const char *lo = lang_format("%d", rr->need_lo[d]), *hi = lang_format("%d", rr->need_hi[d]);
            if (rr->ndyn[d]) {
                lo = host_run_time_reach(p, r, i, d);
                hi = lang_format("parac_rhi%d_%d", i, d);
            }
            print_line(p, "/* interior along %s of %s: every access -%s..+%s around %ld*%s stays inside%s */", side,
                       v->name, lo, hi, a.coef, at, rr->ndyn[d] ? " (windows of run-time length)" : "");
            print_line(p, "parac__interior(parac_first[%d], %ld, parac_n[%d], parac__ceildiv(%s, %ld), "
                    "parac__floordiv(%s_d%d - 1 - %s, %ld), &parac_lo[%d], &parac_hi[%d]);",
                 a.axis, step, a.axis, lo, a.coef, v->name, d, hi, a.coef, a.axis, a.axis);
        }
    }
    host_check_rule_values(p, r);
    for (int i = 0; r->has_border && i < r->nreach; i++)
        if (r->reach[i].everywhere) {
            print_line(p, "/* a window of run-time length under border rule %s: its reach is not known, so "
                       "every iteration tests where its reads fall (no interior) */", r->reach[i].rule->name);
            print_line(p, "parac_lo[0] = parac_hi[0] = 0;");
            break;
        }
    print_line(p, "parac__box parac_box[7];");
    print_line(p, "const int parac_nbox = parac__regions(%d, parac_n, parac_lo, parac_hi, parac_box);", nd);
}

/* "reads of A outside the image follow border rule a" for each rule */
static const char *ruled_reads(const Iterator *it)
{
    const char *s = "";
    for (int i = 0; i < it->nrules; i++)
        s = lang_format("%s%sreads of %s outside the image follow border rule %s", s, i ? "; " : "",
                        it->rules[i]->var->name, it->rules[i]->name);
    return s;
}

/* The index variable of axis d: `base` (an int expression) plus the counter
 * times the step, in int arithmetic: an index that is the int counter plus
 * an invariant is an induction variable the compiler can vectorise along (a
 * long counter truncated to int is not: the truncation may wrap, so it
 * cannot analyse the addresses). */
void host_index_var(PrintCtx *p, Iterator *it, int d, const char *base)
{
    long step = it->r[d].stride * (it->iter_element && it->elem[d] > 1 ? it->elem[d] : 1);
    print_line(p, "const int %s%c = %s + (int)parac_k%d * %ld;", it->name, "xyz"[d], base, d, step);
    print_line(p, "(void)%s%c;", it->name, "xyz"[d]);
}

/* How a box's loops share the threads: a parallel loop of its own, the
 * loop of a team already running (strips), or one thread's (the strips of
 * loops, each thread over its own). */
enum { LOOPS_PARALLEL, LOOPS_IN_TEAM, LOOPS_ONE_THREAD };

/* `list` with m's pointer, pitch and sizes added (for firstprivate). */
static const char *matrix_copies(const char *list, const Obj *m)
{
    list = lang_format("%s%s%s, %s_pitch", list, *list ? ", " : "", m->name, m->name);
    for (int d = 0; d < m->ty->ndim; d++) list = lang_format("%s, %s_d%d", list, m->name, d);
    return list;
}

/* The loops of one box of a region: `b` names it; `mode` as above. */
static void omp_box_loops(PrintCtx *p, Region *r, bool border, const char *b, int mode)
{
    Iterator *it = r->iter;
    int nd = it->ndim;
    const char *par = mode == LOOPS_PARALLEL ? " parallel" : "";
    /* -O1 and up: threads over the outer axes, the last axis as SIMD lanes
     * (iterations are independent, so `omp simd` is always allowed); -O0 or
     * -fno-vectorize: every axis collapsed into one threaded loop */
    /* (a thread's copy of a histogram is updated plainly: never by SIMD lanes at once) */
    const bool simd = p->host->prog->opt && plan_flag(p->host->prog->opt, p->host->prog->opt->vectorize, 1) && !r->nhist;
    const bool lanes = simd && nd > 1;
    /* With SIMD lanes, every thread takes its own copy of the matrices'
     * pointers, pitches and sizes: read through the shared ones, a store of
     * an unsigned char may alias them (character types alias anything), so
     * the compiler would reload them per element and vectorise nothing. */
    const char *priv = "";
    if (lanes && r->nmats > 0) {
        const char *list = "";
        for (int i = 0; i < r->nmats; i++) list = matrix_copies(list, r->mats[i]);
        priv = lang_format(" firstprivate(%s)", list);
    }
    if (mode == LOOPS_ONE_THREAD) {
        if (simd && nd == 1) print_line(p, "#pragma omp simd");
    } else if (!simd)
        print_line(p, "#pragma omp%s for%s", par, nd > 1 ? lang_format(" collapse(%d)", nd) : "");
    else if (nd == 1)
        print_line(p, "#pragma omp%s for simd", par);
    else
        print_line(p, "#pragma omp%s for%s%s", par, nd > 2 ? lang_format(" collapse(%d)", nd - 1) : "", priv);
    const int outer = lanes ? nd - 1 : nd;
    for (int d = 0; d < outer; d++) {
        if (simd && d == nd - 1) /* 1D: the SIMD lanes, an int counter (host_index_var) */
            print_line(p, "for (int parac_k%d = (int)%s.lo[%d]; parac_k%d < (int)%s.hi[%d]; parac_k%d++)", d, b, d, d, b, d, d);
        else
            print_line(p, "for (long parac_k%d = %s.lo[%d]; parac_k%d < %s.hi[%d]; parac_k%d++)", d, b, d, d, b, d, d);
        p->indent++;
    }
    p->indent--;
    print_line(p, "{");
    p->indent++;
    if (lanes) {
        /* the outer indices, the lanes' base and bounds once per row, in
         * locals (read from the shared arrays in the lanes' loop, they would
         * be reloaded per element, as above) */
        for (int d = 0; d < nd - 1; d++) host_index_var(p, it, d, lang_format("(int)parac_first[%d]", d));
        print_line(p, "const int parac_lane0 = (int)parac_first[%d];", nd - 1);
        print_line(p, "const int parac_lane_lo = (int)%s.lo[%d], parac_lane_hi = (int)%s.hi[%d];", b, nd - 1, b, nd - 1);
    } else {
        for (int d = 0; d < nd; d++) host_index_var(p, it, d, lang_format("(int)parac_first[%d]", d));
    }
    bool k = p->in_kernel, bo = p->border;
    Region *rr = p->region;
    p->in_kernel = true;
    p->border = border;
    p->region = r;
    const Region *rows = p->lane_rows;
    if (lanes && r->why_lanes) p->lane_rows = r; /* (planned by plan_lanes.c) */
    if (lanes)
        host_print_lanes(p, r); /* (as plan_lanes.c planned them) */
    else
        print_stmt(p, it->body);
    p->lane_rows = rows;
    p->in_kernel = k;
    p->border = bo;
    p->region = rr;
    p->indent--;
    print_line(p, "}");
    p->indent -= outer - 1;
}

static void omp_loops(PrintCtx *p, Region *r, bool border)
{
    omp_box_loops(p, r, border, border ? "parac_box[parac_b]" : "parac_box[0]", LOOPS_PARALLEL);
}

/* The C target's form of work-group histograms (plan_histograms.c): each
 * thread counts into copies of its own (unsigned words: they wrap as the
 * atomic adds do), then adds their nonzero elements to the matrices. */
static void omp_histogram_loops(PrintCtx *p, Region *r)
{
    print_line(p, "#pragma omp parallel");
    print_line(p, "{");
    p->indent++;
    for (int k = 0; k < r->nhist; k++) {
        print_line(p, "unsigned int parac_wh%d[%ld]; /* this thread's counts of %s */", k, r->hist_n[k], r->hist[k]->name);
        print_line(p, "for (int parac_i = 0; parac_i < %ld; parac_i++) parac_wh%d[parac_i] = 0u;", r->hist_n[k], k);
    }
    omp_box_loops(p, r, false, "parac_box[0]", LOOPS_IN_TEAM);
    for (int k = 0; k < r->nhist; k++) {
        Obj *m = r->hist[k];
        Node *e[3];
        long add[3] = {0, 0, 0};
        lang_hist_element(r, k, "parac_i", e);
        print_line(p, "for (int parac_i = 0; parac_i < %ld; parac_i++)", r->hist_n[k]);
        print_indent(p);
        print_fmt(p, "    if (parac_wh%d[parac_i]) __atomic_fetch_add((unsigned int *)&", k);
        print_mat_index(p, m, e, add, m->ty->ndim);
        print_fmt(p, ", parac_wh%d[parac_i], __ATOMIC_RELAXED);\n", k);
    }
    p->indent--;
    print_line(p, "}");
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
    if (!border && reruns_safely(r) && !r->nlarr) { /* (local arrays: sized for the planned shape) */
        print_line(p, "PARAC__CHECK(parac_%s_launch_tuned(parac__session(), \"%s\", %d, parac_box[0].lo, parac_box[0].hi, "
                "parac_wg, %s, (int)(sizeof parac_args / sizeof parac_args[0]), parac_args));", host_rt(p), kn, nd,
             r->vector_width > 1 ? "parac_items" : "NULL");
        return;
    }
    if (!border && (r->vector_width > 1 || r->nhist)) {
        print_line(p, "PARAC__CHECK(parac_%s_launch_items(parac__session(), \"%s\", %d, parac_box[0].lo, parac_box[0].hi, "
                "parac_wg, parac_items, (int)(sizeof parac_args / sizeof parac_args[0]), parac_args));", host_rt(p), kn, nd);
        return;
    }
    if (border) {
        print_line(p, "PARAC__CHECK(parac_%s_launch_boxes(parac__session(), \"%s\", %d, parac_nbox - 1, parac_box[1].lo, "
                "(int)(sizeof parac_args / sizeof parac_args[0]), parac_args));", host_rt(p), kn, nd);
        return;
    }
    print_line(p, "PARAC__CHECK(parac_%s_launch(parac__session(), \"%s\", %d, parac_box[0].lo, parac_box[0].hi, parac_wg, "
            "(int)(sizeof parac_args / sizeof parac_args[0]), parac_args));", host_rt(p), kn, nd);
}

void host_iterator(PrintCtx *p, Node *n)
{
    Iterator *it = n->iter;
    Region *r = it->region;
    if (!r) return;
    print_indent(p);
    if (it->synthetic)
        print_fmt(p, "/* %s:%d: whole-image statement as an iterator over (", p->host->file, n->tok->line);
    else
        print_fmt(p, "/* %s:%d: parac_iterator %s(%s", p->host->file, n->tok->line, it->name, it->iter_element ? "iter_element; " : "");
    range_header(p, it);
    print_fmt(p, ")%s%s: %s */\n", it->rule ? " parac_border_rule " : "", lang_rule_names(it),
        class_name(r->cls));
    if (host_ocl(p) && r->fold_red)
        print_line(p, "int parac_folded_%d = 0; /* whether the kernel below summed all of %s for the next statement */",
             r->fold_red->id, r->fold_red->red_var->name);
    print_line(p, "{");
    p->indent++;
    region_setup(p, r);
    if (!host_ocl(p) && r->nhist) {
        print_line(p, "/* the updates of %s counted by each thread, added once */", r->hist[0]->name);
        omp_histogram_loops(p, r);
        print_line(p, "(void)parac_nbox;");
    } else if (!host_ocl(p)) {
        print_line(p, "/* interior: no border tests */");
        omp_loops(p, r, false);
        if (r->has_border) {
            print_line(p, "/* border boxes: %s */", ruled_reads(it));
            print_line(p, "for (int parac_b = 1; parac_b < parac_nbox; parac_b++)");
            print_line(p, "{");
            p->indent++;
            omp_loops(p, r, true);
            p->indent--;
            print_line(p, "}");
        } else
            print_line(p, "(void)parac_nbox;");
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
                print_fmt(p, ") parac_%s_matrix_overwritten(%s); /* every element written, none read */\n",
                          host_rt(p), host_dev(p, m));
            }
            print_line(p, "PARAC__CHECK(parac_%s_to_device(%s));", host_rt(p), host_dev(p, m));
        }
        if (r->fold_red) {
            Obj *m = r->fold_red->red_var;
            print_line(p, "void *parac_fold_slot = NULL; /* where the kernel sums what it stores into %s */", m->name);
            print_line(p, "PARAC__CHECK(parac_cu_fold_slot(parac__session(), %d, &parac_fold_slot));", r->fold_red->id);
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
            print_line(p, "const %s parac_arg_%s = (%s)%s;", kt, o->name, kt, o->name);
        }
        print_indent(p);
        print_fmt(p, "const parac_%s_arg parac_args[] = {", host_rt(p));
        for (int d = 0; d < nd; d++) print_fmt(p, "%sPARAC_%s_VALUE(parac_first_i[%d])", d ? ", " : "", host_RT(p), d);
        for (int i = 0; i < r->nmats; i++) print_fmt(p, ", PARAC_%s_MATRIX(%s)", host_RT(p), host_dev(p, r->mats[i]));
        for (int i = 0; i < r->nscalars; i++) print_fmt(p, ", PARAC_%s_VALUE(parac_arg_%s)", host_RT(p), r->scalars[i]->name);
        if (r->fold_red) print_fmt(p, ", PARAC_CU_VALUE(parac_fold_slot)");
        print_fmt(p, "};\n");
        const bool table = (r->one_launch && r->nvariants) || it->nstages; /* shapes in a table of candidates */
        if (!table)
            print_line(p, "const int parac_wg[3] = {%d, %d, %d};", r->wg[0], r->wg[1], r->wg[2]);
        if ((r->vector_width > 1 || r->nhist) && !table) {
            print_indent(p);
            print_fmt(p, "const int parac_items[%d] = {", nd);
            for (int d = 0; d < nd; d++)
                print_fmt(p, "%s%d", d ? ", " : "",
                          d == (r->nhist ? r->hist_axis : 0) && r->rows_per_item > 1 ? r->rows_per_item
                          : d == nd - 1                                                ? r->vector_width
                                                                                       : 1);
            print_fmt(p, "}; /* outputs per work-item along each axis */\n");
        }
        if (it->nstages) {
            /* stages in local memory: the tiles are sized for each candidate's work-group, which the
             * search must not change (fixed shapes); it times the candidates' rows per work-item */
            print_line(p, "/* %d stage%s computed in local memory by each work-group; the search (PARAC_%s_SEARCH) times "
                    "%d candidate%s */", it->nstages, it->nstages > 1 ? "s" : "", host_RT(p), r->nvariants + 1,
                 r->nvariants ? "s" : "");
            print_line(p, "static const parac_kernel_variant parac_variants[] = {");
            for (int i = 0; i <= r->nvariants; i++) {
                const Region *v = i ? r->variants[i - 1] : r;
                print_line(p, "    {\"%s\", {%d, %d, %d}, {%d, 1, 1}, 1}, /* %s */", v->kernel, v->wg[0], v->wg[1], v->wg[2],
                     v->rows_per_item, i ? v->variant_what : "the model's plan");
            }
            print_line(p, "};");
            print_line(p, "PARAC__CHECK(parac_%s_launch_variants(parac__session(), %d, parac_variants, %d, parac_box[0].lo, "
                    "parac_box[0].hi, 0, NULL, (int)(sizeof parac_args / sizeof parac_args[0]), parac_args, %d));",
                 host_rt(p), r->nvariants + 1, nd, reruns_safely(r) ? 1 : 0);
        } else if (r->one_launch && r->nvariants) {
            print_line(p, "/* the interior (no border tests) and the border boxes (border rule %s) in one launch; the "
                    "search (PARAC_%s_SEARCH) times the model's kernel and %d other candidates */",
                 lang_rule_names(it), host_RT(p), r->nvariants);
            print_line(p, "static const parac_kernel_variant parac_variants[] = {");
            for (int i = 0; i <= r->nvariants; i++) {
                const Region *v = i ? r->variants[i - 1] : r;
                print_line(p, "    {\"%s_all\", {%d, %d, %d}, {%d, %d, 1}, %d}, /* %s */", v->kernel, v->wg[0], v->wg[1],
                     v->wg[2], nd == 2 ? v->rows_per_item : v->vector_width, nd == 2 ? v->vector_width : 1,
                     v->use_local_tiles ? 1 : 0, i ? v->variant_what : "the model's plan");
            }
            print_line(p, "};");
            print_line(p, "PARAC__CHECK(parac_%s_launch_variants(parac__session(), %d, parac_variants, %d, parac_box[0].lo, "
                    "parac_box[0].hi, parac_nbox - 1, parac_box[1].lo, (int)(sizeof parac_args / sizeof parac_args[0]), "
                    "parac_args, %d));", host_rt(p), r->nvariants + 1, nd, reruns_safely(r) ? 1 : 0);
        } else if (r->one_launch) {
            print_line(p, "/* the interior (no border tests) and the border boxes (border rule %s) in one launch */",
                 lang_rule_names(it));
            print_line(p, "PARAC__CHECK(parac_%s_launch_all(parac__session(), \"%s_all\", %d, parac_box[0].lo, parac_box[0].hi, "
                    "parac_wg, %s, parac_nbox - 1, parac_box[1].lo, (int)(sizeof parac_args / sizeof parac_args[0]), "
                    "parac_args, %d));", host_rt(p), r->kernel, nd, r->vector_width > 1 ? "parac_items" : "NULL",
                 reruns_safely(r) ? 1 : 0);
        } else {
            print_line(p, "/* interior: no border tests */");
            cl_launch(p, r, false);
        }
        if (r->has_border && !r->one_launch) {
            print_line(p, "/* border boxes: %s */", ruled_reads(it));
            cl_launch(p, r, true);
        } else if (!r->has_border)
            print_line(p, "(void)parac_nbox;");
        for (Access *a = r->accesses; a; a = a->next) {
            if (!a->is_write) continue;
            bool dup = false;
            for (Access *b = r->accesses; b != a; b = b->next) dup |= b->is_write && b->var == a->var;
            if (!dup) print_line(p, "parac_%s_device_modified(%s);", host_rt(p), host_dev(p, a->var));
        }
    }
    p->indent--;
    print_line(p, "}");
}

/* ---- the C target's strips of rows (strips.c) ------------------------------- */
/* Stage k's counts, first indices and boxes, kept in parac_sf<k>, parac_sn<k>,
 * parac_sb<k> and parac_snb<k> for the strips. */
static void strip_stage_setup(PrintCtx *p, Region *r, int k)
{
    print_line(p, "long parac_sf%d[2], parac_sn%d[2];", k, k);
    print_line(p, "parac__box parac_sb%d[7];", k);
    print_line(p, "int parac_snb%d;", k);
    print_line(p, "{");
    p->indent++;
    region_setup(p, r);
    print_line(p, "memcpy(parac_sf%d, parac_first, sizeof parac_sf%d);", k, k);
    print_line(p, "memcpy(parac_sn%d, parac_n, sizeof parac_sn%d);", k, k);
    print_line(p, "memcpy(parac_sb%d, parac_box, sizeof parac_sb%d);", k, k);
    print_line(p, "parac_snb%d = parac_nbox;", k);
    print_line(p, "(void)parac_snb%d;", k);
    p->indent--;
    print_line(p, "}");
}

/* Stage k's boxes, their rows clipped to [from, to). */
static void strip_stage_rows(PrintCtx *p, Region *r, int k, const char *from, const char *to, int mode)
{
    print_line(p, "{");
    p->indent++;
    print_line(p, "const long *const parac_first = parac_sf%d;", k);
    print_line(p, "(void)parac_first;");
    for (int border = 0; border <= (r->has_border ? 1 : 0); border++) {
        if (border) {
            print_line(p, "for (int parac_b = 1; parac_b < parac_snb%d; parac_b++)", k);
            print_line(p, "{");
            p->indent++;
        }
        const char *cb = border ? "parac_cbb" : "parac_cb";
        print_line(p, "parac__box %s = parac_sb%d[%s];", cb, k, border ? "parac_b" : "0");
        print_line(p, "if (%s.lo[0] < %s) %s.lo[0] = %s;", cb, from, cb, from);
        print_line(p, "if (%s.hi[0] > %s) %s.hi[0] = %s;", cb, to, cb, to);
        omp_box_loops(p, r, border, cb, mode);
        if (border) {
            p->indent--;
            print_line(p, "}");
        }
    }
    p->indent--;
    print_line(p, "}");
}

/* The first statement of a loop's body that is not empty. */
static Node *first_in_body(Node *loop)
{
    for (Node *t = loop->body && loop->body->kind == ND_BLOCK ? loop->body->args : NULL; t; t = t->next)
        if (t->kind != ND_NULL_STMT) return t;
    return NULL;
}

/* Closes n blocks opened with indent++. */
static void close_blocks(PrintCtx *p, int n)
{
    while (n-- > 0) {
        p->indent--;
        print_line(p, "}");
    }
}

/* The run's first region where s is the outermost loop of a nest that
 * runs inside the run's strips (strips.c), else NULL. */
static Region *strip_loop_run(Node *s)
{
    Node *l = s;
    for (int depth = 0; depth < 16 && l && l->kind == ND_FOR; depth++) {
        Node *only = first_in_body(l);
        if (only && only->kind == ND_ITERATOR && only->iter && only->iter->region)
            return only->iter->region->strip_loop == s ? only->iter->region : NULL;
        l = only;
    }
    return NULL;
}

/* A run in strips of each thread's own (strips.c). Each thread takes
 * blocks of rows and runs every stage over the block's strips in order,
 * each stage computing the rows a strip needs that it has not computed
 * yet, into rings of the thread's own: from the block's first row plus the
 * stage's low (rows behind the block that its neighbour computes too), to
 * the strip's end plus its reach. With `loop`, the outermost of a nest
 * whose body is the run, a block is one strip and every round of the loops
 * runs over it (what the rounds carry stays in cache); without, the blocks
 * share the rows evenly among the threads. */
static void own_strips(PrintCtx *p, Region *r0, Node *loop)
{
    Obj *folded[64];
    const int nfolded = strips_folded(r0, folded, 64);
    print_indent(p);
    print_fmt(p, "/* %s:", p->host->file);
    int k = 0;
    for (Region *r = r0; r; r = r->strip_next, k++) print_fmt(p, "%s%d", k ? "," : "", r->node->tok->line);
    Node *l = loop;
    if (loop) {
        print_fmt(p, ": %d iterators in strips of rows, the loop%s of line", r0->strip_stages, r0->strip_nloops > 1 ? "s" : "");
        for (int i = 0; i < r0->strip_nloops; i++) {
            print_fmt(p, "%s %d", i ? "," : "", l->tok->line);
            l = first_in_body(l);
        }
        print_fmt(p, " inside each strip: a thread runs every round over its strips");
    } else
        print_fmt(p, ": %d iterators in strips of rows: a thread runs every stage over the strips of its blocks", r0->strip_stages);
    print_fmt(p, " (each stage's rows for a strip [r, r+S):");
    for (Region *r = r0; r; r = r->strip_next) print_fmt(p, " [r%+ld, r+S%+ld)", r->strip_low, r->strip_reach);
    print_fmt(p, "), rings of its own for");
    for (int i = 0; i < nfolded; i++) print_fmt(p, " %s", folded[i]->name);
    print_fmt(p, " */\n");
    print_line(p, "{");
    p->indent++;
    k = 0;
    for (Region *r = r0; r; r = r->strip_next, k++) strip_stage_setup(p, r, k);
    print_line(p, "long parac_strip = %s();", loop ? "parac__thread_strip_rows" : "parac__block_strip_rows");
    for (int i = 0; i < nfolded; i++)
        print_line(p, "if (%s_strip < parac_strip) parac_strip = %s_strip;", folded[i]->name, folded[i]->name);
    print_line(p, "long parac_r0 = parac_sf0[0], parac_r1 = parac_sf0[0] + parac_sn0[0];");
    for (k = 1; k < r0->strip_stages; k++) {
        print_line(p, "if (parac_sf%d[0] < parac_r0) parac_r0 = parac_sf%d[0];", k, k);
        print_line(p, "if (parac_sf%d[0] + parac_sn%d[0] > parac_r1) parac_r1 = parac_sf%d[0] + parac_sn%d[0];", k, k, k, k);
    }
    if (loop) {
        print_line(p, "parac_strip = parac__balanced_strip(parac_r1 - parac_r0, parac_strip);");
        print_line(p, "const long parac_block = parac_strip;");
    } else
        print_line(p, "const long parac_block = parac__thread_block(parac_r1 - parac_r0, parac_strip);");
    print_line(p, "const long parac_nblocks = parac_r1 > parac_r0 ? (parac_r1 - parac_r0 + parac_block - 1) / parac_block : 0;");
    /* every thread its own copies of the matrices' pointers, pitches and
     * sizes (see omp_box_loops), the rings' pointers moved to its rings */
    const char *priv = "";
    Obj *listed[64];
    int nlisted = 0;
    for (Region *r = r0; r; r = r->strip_next)
        for (int i = 0; i < r->nmats && nlisted < 64; i++) {
            Obj *m = r->mats[i];
            if (obj_listed(listed, nlisted, m)) continue;
            listed[nlisted++] = m;
            priv = matrix_copies(priv, m);
        }
    print_line(p, "#pragma omp parallel%s", *priv ? lang_format(" firstprivate(%s)", priv) : "");
    print_line(p, "{");
    p->indent++;
    for (int i = 0; i < nfolded; i++)
        print_line(p, "%s += (long)parac__thread_index() * (%s_mask + 1) * %s_pitch;", folded[i]->name, folded[i]->name,
                   folded[i]->name);
    print_line(p, "#pragma omp for schedule(dynamic, 1)");
    print_line(p, "for (long parac_bi = 0; parac_bi < parac_nblocks; parac_bi++)");
    print_line(p, "{");
    p->indent++;
    print_line(p, "const long parac_b0 = parac_r0 + parac_bi * parac_block;");
    print_line(p, "const long parac_b1 = parac_b0 + parac_block < parac_r1 ? parac_b0 + parac_block : parac_r1;");
    l = loop;
    for (int i = 0; loop && i < r0->strip_nloops; i++) {
        print_loop_open(p, l);
        l = first_in_body(l);
    }
    print_indent(p);
    print_fmt(p, "long parac_done[%d] = {", r0->strip_stages);
    k = 0;
    for (Region *r = r0; r; r = r->strip_next, k++) print_fmt(p, "%sparac_b0 + (%ld)", k ? ", " : "", r->strip_low);
    print_fmt(p, "};\n");
    print_line(p, "for (long parac_r = parac_b0; parac_r < parac_b1; parac_r += parac_strip)");
    print_line(p, "{");
    p->indent++;
    print_line(p, "const long parac_e = parac_r + parac_strip < parac_b1 ? parac_r + parac_strip : parac_b1;");
    k = 0;
    for (Region *r = r0; r; r = r->strip_next, k++) {
        print_line(p, "{");
        p->indent++;
        print_line(p, "const long parac_to = parac_e + (%ld);", r->strip_reach);
        print_line(p, "if (parac_to > parac_done[%d])", k);
        print_line(p, "{");
        p->indent++;
        strip_stage_rows(p, r, k, lang_format("parac_done[%d] - parac_sf%d[0]", k, k), lang_format("parac_to - parac_sf%d[0]", k),
                         LOOPS_ONE_THREAD);
        print_line(p, "parac_done[%d] = parac_to;", k);
        close_blocks(p, 2);
    }
    close_blocks(p, 1); /* the strips' loop */
    for (int i = 0; loop && i < r0->strip_nloops; i++) print_loop_close(p);
    close_blocks(p, 3); /* the blocks' loop, the parallel region, the run */
}

/* A run of iterators in strips of rows (absolute rows, from the stages'
 * first): each stage computes, per strip, its rows up to the strip's end
 * plus its reach. Where a stage starts before row 0, the rows are few or the
 * intermediates fit the cache (checked at run time), stage after stage as
 * usual; a run with matrices kept as rings of rows always runs in strips.
 * Returns the statements printed (border rules between the iterators
 * included). */
int host_strip_run(PrintCtx *p, Node *s)
{
    if (host_ocl(p)) return 0;
    if (s->kind == ND_FOR) { /* a loop nest whose body is a run, inside the run's strips */
        Region *r0 = strip_loop_run(s);
        if (r0) own_strips(p, r0, s);
        return r0 ? 1 : 0;
    }
    if (s->kind != ND_ITERATOR || !s->iter || !s->iter->region) return 0;
    Region *r0 = s->iter->region;
    if (r0->strip_first != r0 || r0->strip_stages < 2) return 0;
    if (r0->strip_threads) {
        own_strips(p, r0, NULL);
        return r0->strip_stmts;
    }
    const int n = r0->strip_stages;
    long max_reach = 0;
    for (Region *r = r0; r; r = r->strip_next)
        if (r->strip_reach > max_reach) max_reach = r->strip_reach;
    print_indent(p);
    print_fmt(p, "/* %s:", p->host->file);
    int k = 0;
    for (Region *r = r0; r; r = r->strip_next, k++)
        print_fmt(p, "%s%d", k ? "," : "", r->node->tok->line);
    print_fmt(p, ": %d iterators in strips of rows (rows computed ahead of a strip:", n);
    for (Region *r = r0; r; r = r->strip_next) print_fmt(p, " %ld", r->strip_reach);
    print_fmt(p, "): a strip's rows of each intermediate are read while still in cache */\n");
    print_line(p, "{");
    p->indent++;
    k = 0;
    for (Region *r = r0; r; r = r->strip_next, k++) strip_stage_setup(p, r, k);
    /* matrices kept as rings of rows: strips no higher than their rings were made for, always */
    Obj *folded[64];
    const int nfolded = strips_folded(r0, folded, 64);
    print_line(p, "long parac_strip = parac__strip_rows();");
    for (int i = 0; i < nfolded; i++)
        print_line(p, "if (%s_strip < parac_strip) parac_strip = %s_strip;", folded[i]->name, folded[i]->name);
    print_line(p, "long parac_r0 = parac_sf0[0], parac_r1 = parac_sf0[0] + parac_sn0[0], parac_bytes = 0;");
    print_line(p, "int parac_ok = 1;");
    k = 0;
    for (Region *r = r0; r; r = r->strip_next, k++) {
        print_line(p, "if (parac_sf%d[0] < parac_r0) parac_r0 = parac_sf%d[0];", k, k);
        print_line(p, "if (parac_sf%d[0] + parac_sn%d[0] > parac_r1) parac_r1 = parac_sf%d[0] + parac_sn%d[0];", k, k, k, k);
        print_line(p, "parac_ok = parac_ok && parac_sf%d[0] >= 0 && parac_sn%d[0] >= 0;", k, k);
        if (r->strip_bytes > 0)
            print_line(p, "parac_bytes += parac_sn%d[0] * parac_sn%d[1] * %ldL;", k, k, r->strip_bytes);
    }
    if (r0->strip_folds)
        print_line(p, "(void)parac_ok; (void)parac_bytes;");
    else
        print_line(p, "if (parac_ok && parac_r1 - parac_r0 > 2 * parac_strip && parac__strips_pay(parac_bytes))");
    print_line(p, "{");
    p->indent++;
    print_line(p, "#pragma omp parallel");
    print_line(p, "{");
    p->indent++;
    print_indent(p);
    print_fmt(p, "long parac_done[%d] = {", n);
    for (k = 0; k < n; k++) print_fmt(p, "%sparac_sf%d[0]", k ? ", " : "", k);
    print_fmt(p, "};\n");
    /* from low enough that each strip computes at most parac_strip rows of a stage (strips.c's rings) */
    print_line(p, "for (long parac_r = parac_r0 - parac_strip - %ld; parac_r < parac_r1; parac_r += parac_strip)", max_reach);
    print_line(p, "{");
    p->indent++;
    k = 0;
    for (Region *r = r0; r; r = r->strip_next, k++) {
        print_line(p, "{");
        p->indent++;
        print_line(p, "const long parac_end = parac_sf%d[0] + parac_sn%d[0];", k, k);
        print_line(p, "const long parac_to = parac_r + parac_strip + %ld < parac_end ? parac_r + parac_strip + %ld : parac_end;",
             r->strip_reach, r->strip_reach);
        print_line(p, "if (parac_to > parac_done[%d])", k);
        print_line(p, "{");
        p->indent++;
        strip_stage_rows(p, r, k, lang_format("parac_done[%d] - parac_sf%d[0]", k, k),
                         lang_format("parac_to - parac_sf%d[0]", k), LOOPS_IN_TEAM);
        print_line(p, "parac_done[%d] = parac_to;", k);
        close_blocks(p, 2);
    }
    close_blocks(p, 3); /* the strips' loop, the parallel region, the strips' branch */
    if (!r0->strip_folds) {
        print_line(p, "else");
        print_line(p, "{");
        p->indent++;
        k = 0;
        for (Region *r = r0; r; r = r->strip_next, k++)
            strip_stage_rows(p, r, k, "0", lang_format("parac_sn%d[0]", k), LOOPS_PARALLEL);
        p->indent--;
        print_line(p, "}");
    }
    p->indent--;
    print_line(p, "}");
    return r0->strip_stmts;
}

