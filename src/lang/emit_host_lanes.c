/* The C target's lanes of one row as plan_lanes.c planned them: the body's
 * uniform statements that may run first once per row, then (lane_block > 0) blocks of
 * lanes in which uniform statements and loop heads run once and each run of
 * varying statements is an `omp simd` loop over the block's lanes, then the
 * lanes left over (fewer than a block) around the rest of the body as
 * before. */
#include "lang/emit_host.h"
#include "lang/print.h"

static void print_seq(PrintCtx *p, Region *r, Node **s, int n);

static bool contains(const Node *n, const Node *x, int depth)
{
    if (!n || depth > 400) return false;
    if (n == x) return true;
    NodeKids k = {.n = (Node *)n};
    for (Node *c; (c = lang_next_kid(&k));)
        if (contains(c, x, depth + 1)) return true;
    return false;
}

static void print_run_lanes(PrintCtx *p, Region *r, Node **s, int n);

/* A run of varying statements, lane by lane over the block: where its
 * clamps hold at the block's first and last lanes (their columns move
 * evenly, so they hold between), without them. */
static void print_run(PrintCtx *p, Region *r, Node **s, int n)
{
    int mine[16], nmine = 0;
    for (int c = 0; c < r->nlane_clamps && nmine < 16; c++)
        for (int i = 0; i < n; i++)
            if (contains(s[i], r->lane_clamps[c].site, 0)) {
                mine[nmine++] = c;
                break;
            }
    if (!nmine) {
        print_run_lanes(p, r, s, n);
        return;
    }
    const int last = r->iter->ndim - 1;
    print_line(p, "{");
    p->indent++;
    print_line(p, "int parac_in = 1; /* the block's lanes where each clamp below is its value */");
    for (int end = 0; end < 2; end++) {
        print_line(p, "{");
        p->indent++;
        print_line(p, "const int parac_k%d = parac_kb + %d;", last, end ? r->lane_block - 1 : 0);
        host_index_var(p, r->iter, last, "parac_lane0");
        for (int m = 0; m < nmine; m++) {
            const LaneClamp *c = &r->lane_clamps[mine[m]];
            print_indent(p);
            print_fmt(p, "parac_in &= (long)(");
            print_expr(p, c->lo);
            print_fmt(p, ") <= (long)(");
            print_expr(p, c->v);
            print_fmt(p, ") && (long)(");
            print_expr(p, c->v);
            print_fmt(p, ") <= (long)(");
            print_expr(p, c->hi);
            print_fmt(p, ");\n");
        }
        p->indent--;
        print_line(p, "}");
    }
    print_line(p, "if (parac_in)");
    print_line(p, "{");
    p->indent++;
    const struct Region *was = p->lane_clamps;
    p->lane_clamps = r;
    print_run_lanes(p, r, s, n);
    p->lane_clamps = was;
    p->indent--;
    print_line(p, "}");
    print_line(p, "else");
    print_line(p, "{");
    p->indent++;
    print_run_lanes(p, r, s, n);
    p->indent--;
    print_line(p, "}");
    p->indent--;
    print_line(p, "}");
}

static void print_run_lanes(PrintCtx *p, Region *r, Node **s, int n)
{
    Iterator *it = r->iter;
    const int last = it->ndim - 1;
    print_line(p, "#pragma omp simd");
    print_line(p, "for (int parac_l = 0; parac_l < %d; parac_l++)", r->lane_block);
    print_line(p, "{");
    p->indent++;
    print_line(p, "const int parac_k%d = parac_kb + parac_l;", last);
    host_index_var(p, it, last, "parac_lane0");
    for (int i = 0; i < n; i++) print_stmt(p, s[i]);
    p->indent--;
    print_line(p, "}");
}

/* A statement run once for the block, its own statements braced. */
static void print_braced(PrintCtx *p, Region *r, Node *s)
{
    print_line(p, "{");
    p->indent++;
    print_seq(p, r, &s, 1);
    p->indent--;
    print_line(p, "}");
}

/* `if (cond)`, `while (cond)`: a head with its condition, then `tail`. */
static void print_head(PrintCtx *p, const char *keyword, Node *cond, const char *tail)
{
    print_indent(p);
    print_fmt(p, "%s (", keyword);
    print_expr(p, cond);
    print_fmt(p, ")%s\n", tail);
}

/* A control statement the same for every lane, its statements in lanes. */
static void print_control(PrintCtx *p, Region *r, Node *s)
{
    switch (s->kind) {
    case ND_BLOCK: {
        Node *kids[LANES_MAX_STATEMENTS];
        int n = lanes_children(s, kids, LANES_MAX_STATEMENTS);
        print_line(p, "{");
        p->indent++;
        print_seq(p, r, kids, n);
        p->indent--;
        print_line(p, "}");
        return;
    }
    case ND_IF:
        print_head(p, "if", s->cond, "");
        print_braced(p, r, s->then);
        if (s->els) {
            print_line(p, "else");
            print_braced(p, r, s->els);
        }
        return;
    case ND_FOR:
        print_loop_open(p, s);
        print_seq(p, r, &s->body, 1);
        print_loop_close(p);
        return;
    case ND_WHILE:
        print_head(p, "while", s->cond, "");
        print_braced(p, r, s->body);
        return;
    case ND_DO:
        print_line(p, "do");
        print_braced(p, r, s->body);
        print_head(p, "while", s->cond, ";");
        return;
    default:
        print_stmt(p, s);
        return;
    }
}

/* Statements in order: uniform ones once, control ones with their
 * statements, runs of varying ones lane by lane. */
static void print_seq(PrintCtx *p, Region *r, Node **s, int n)
{
    for (int i = 0; i < n;) {
        LaneClass k = lanes_stmt_class(r, s[i]);
        if (k == LANE_VARYING) {
            int j = i;
            while (j < n && lanes_stmt_class(r, s[j]) == LANE_VARYING) j++;
            print_run(p, r, s + i, j - i);
            i = j;
        } else {
            if (k == LANE_CONTROL) print_control(p, r, s[i]);
            else print_stmt(p, s[i]);
            i++;
        }
    }
}

/* The lanes from `from` to `to` around statements s. */
static void print_lane_range(PrintCtx *p, Region *r, const char *from, const char *to, Node **s, int n)
{
    const int last = r->iter->ndim - 1;
    print_line(p, "#pragma omp simd");
    print_line(p, "for (int parac_k%d = %s; parac_k%d < %s; parac_k%d++)", last, from, last, to, last);
    print_line(p, "{");
    p->indent++;
    host_index_var(p, r->iter, last, "parac_lane0");
    for (int i = 0; i < n; i++) print_stmt(p, s[i]);
    p->indent--;
    print_line(p, "}");
}

/* The value of each of r's clamps at lane `lane` into parac_cv[row][i]. */
static void print_clamp_values(PrintCtx *p, Region *r, const char *lane, int row)
{
    const int last = r->iter->ndim - 1;
    print_line(p, "{");
    p->indent++;
    print_line(p, "const int parac_k%d = %s;", last, lane);
    host_index_var(p, r->iter, last, "parac_lane0");
    for (int i = 0; i < r->nlane_clamps; i++) {
        print_indent(p);
        print_fmt(p, "parac_cv[%d][%d] = (long)(", row, i);
        print_expr(p, r->lane_clamps[i].v);
        print_fmt(p, ");\n");
    }
    p->indent--;
    print_line(p, "}");
}

/* The lanes from `from` to the row's end around statements s: where r has
 * clamps, in three ranges, the middle one (where every clamp is its value,
 * worked out from the values at two lanes: they move evenly) without them. */
static void print_lane_loop(PrintCtx *p, Region *r, const char *from, Node **s, int n)
{
    if (!r->nlane_clamps || r->lane_block) { /* (blocks: each run checks its clamps; these are the lanes left over) */
        print_lane_range(p, r, from, "parac_lane_hi", s, n);
        return;
    }
    print_line(p, "/* the lanes where each clamp below is its value: without it */");
    print_line(p, "long parac_cl0 = %s, parac_cl1 = parac_lane_hi, parac_cv[2][%d];", from, r->nlane_clamps);
    print_clamp_values(p, r, from, 0);
    print_line(p, "{");
    p->indent++;
    print_line(p, "const int parac_next = %s + 1;", from);
    print_clamp_values(p, r, "parac_next", 1);
    p->indent--;
    print_line(p, "}");
    for (int i = 0; i < r->nlane_clamps; i++) {
        print_indent(p);
        print_fmt(p, "parac__clamp_lanes(%s, parac_cv[0][%d], parac_cv[1][%d], (long)(", from, i, i);
        print_expr(p, r->lane_clamps[i].lo);
        print_fmt(p, "), (long)(");
        print_expr(p, r->lane_clamps[i].hi);
        print_fmt(p, "), &parac_cl0, &parac_cl1);\n");
    }
    print_line(p, "const int parac_in0 = (int)parac_cl0, parac_in1 = (int)parac_cl1;");
    print_lane_range(p, r, from, "parac_in0", s, n);
    const struct Region *was = p->lane_clamps;
    p->lane_clamps = r;
    print_lane_range(p, r, "parac_in0", "parac_in1", s, n);
    p->lane_clamps = was;
    print_lane_range(p, r, "parac_in1", "parac_lane_hi", s, n);
}

void host_print_lanes(PrintCtx *p, Region *r)
{
    Iterator *it = r->iter;
    if (!r->nlane_hoist && !r->lane_block) { /* lanes around the whole body */
        print_lane_loop(p, r, "parac_lane_lo", &it->body, 1);
        return;
    }
    Node *rest[LANES_MAX_STATEMENTS];
    const int nrest = lanes_rest(r, rest);
    if (r->nlane_hoist) print_line(p, "/* the same for every lane: once per row */");
    for (int h = 0; h < r->nlane_hoist; h++) print_stmt(p, r->lane_hoist[h]);
    const char *from = "parac_lane_lo";
    if (r->lane_block) {
        print_line(p, "/* %d lanes at a time: what is the same for every lane once, the rest lane by lane */",
                   r->lane_block);
        print_line(p, "int parac_kb = parac_lane_lo;");
        print_line(p, "for (; parac_kb + %d <= parac_lane_hi; parac_kb += %d)", r->lane_block, r->lane_block);
        print_line(p, "{");
        p->indent++;
        for (int i = 0; i < r->nlane_vars; i++) {
            const Obj *v = r->lane_vars[i];
            print_line(p, "%s parac_lane_v%d[%d]; /* %s of each lane */", ty_c_name(v->ty, false), i, r->lane_block,
                       v->name);
        }
        const Region *was = p->lanes;
        p->lanes = r;
        print_seq(p, r, rest, nrest);
        p->lanes = was;
        p->indent--;
        print_line(p, "}");
        from = "parac_kb";
        print_line(p, "/* the lanes left over */");
    }
    if (nrest) print_lane_loop(p, r, from, rest, nrest);
}
