/* Printing matrix accesses (flat arrays with a row pitch; through border
 * rules, vector-loaded rows, tiles and cached values) and small-matrix values
 * element by element (print.c prints the rest). */
#include <stdarg.h>
#include <string.h>

#include "lang/print.h"

/* ---- matrix accesses ------------------------------------------------------ */

static void print_term(PrintCtx *p, Node *e, long add)
{
    bool simple = e && (e->kind == ND_VAR || e->kind == ND_NUM || e->kind == ND_ITER_INDEX) && add == 0;
    if (!simple) out(p, "(");
    if (add != 0 && e && print_expr_prec(e) < 12) {
        out(p, "(");
        print_expr(p, e);
        out(p, ")");
    } else
        print_expr(p, e);
    if (add > 0) fprintf(p->out, " + %ld", add);
    if (add < 0) fprintf(p->out, " - %ld", -add);
    if (!simple) out(p, ")");
}

/* The row index of m; a matrix kept as a ring of rows (strips.c) wraps it. */
static void print_row_term(PrintCtx *p, Obj *m, Node *e, long add)
{
    if (!m->fold_run) {
        print_term(p, e, add);
        return;
    }
    out(p, "(");
    print_term(p, e, add);
    fprintf(p->out, " & %s_mask)", m->name);
}

void print_mat_index(PrintCtx *p, Obj *m, Node **e, const long *add, int n)
{
    const char *name = m->name;
    const char *L = "(long)"; /* 64-bit: an image may exceed 2^31 elements (each size stays below 2^31) */
    /* (a column that moves evenly from lane to lane stays a plain index: a
     * contiguous or strided access, which the compiler analyses best that way) */
    bool row = p->lane_rows && n >= 2 && lanes_gather_index(p->lane_rows, e[n - 1]);
    for (int d = 0; row && d < n - 1; d++) row = !lanes_expr_varies(p->lane_rows, e[d]);
    if (row) { /* (m + the row's offset)[column] */
        fprintf(p->out, "(%s + %s", name, n == 3 ? "(" : "");
        fprintf(p->out, "%s", L);
        if (n == 3)
            print_term(p, e[0], add[0]); /* (a plane: rings are 2D) */
        else
            print_row_term(p, m, e[0], add[0]);
        if (n == 3) {
            fprintf(p->out, " * %s_d1 + ", name);
            print_term(p, e[1], add[1]);
            out(p, ")");
        }
        fprintf(p->out, " * %s_pitch)[", name);
        print_term(p, e[n - 1], add[n - 1]);
        out(p, "]");
        return;
    }
    fprintf(p->out, "%s[", name);
    if (n == 1) {
        print_term(p, e[0], add[0]);
    } else if (n == 2) {
        fprintf(p->out, "%s", L);
        print_row_term(p, m, e[0], add[0]);
        fprintf(p->out, " * %s_pitch + ", name);
        print_term(p, e[1], add[1]);
    } else {
        fprintf(p->out, "(%s", L);
        print_term(p, e[0], add[0]);
        fprintf(p->out, " * %s_d1 + ", name);
        print_term(p, e[1], add[1]);
        fprintf(p->out, ") * %s_pitch + ", name);
        print_term(p, e[2], add[2]);
    }
    out(p, "]");
}

/* In a border variant, what the region's reads of m reach through m's rule
 * (NULL: m has no rule there). */
static const RuleReach *active_reach(PrintCtx *p, const Obj *m)
{
    if (!p->border || !p->region || !p->region->iter) return NULL;
    for (int i = 0; i < p->region->nreach; i++)
        if (p->region->reach[i].rule->var == m) return &p->region->reach[i];
    return NULL;
}

static BorderEntry *find_entry(BorderRule *r, int sx, int sy)
{
    for (BorderEntry *e = r->entries; e; e = e->next)
        if (e->side[0] == sx && e->side[1] == sy) return e;
    return NULL;
}

static void print_rule_value(PrintCtx *p, BorderEntry *be, Node **e, const long *add, int nd)
{
    Node *sw[3] = {p->wild_e[0], p->wild_e[1], p->wild_e[2]};
    long sa[3] = {p->wild_add[0], p->wild_add[1], p->wild_add[2]};
    for (int i = 0; i < nd; i++) {
        p->wild_e[i] = e[i];
        p->wild_add[i] = add[i];
    }
    p->rule_depth++;
    out(p, "(");
    print_expr(p, be->value);
    out(p, ")");
    p->rule_depth--;
    for (int i = 0; i < 3; i++) {
        p->wild_e[i] = sw[i];
        p->wild_add[i] = sa[i];
    }
}

/* An entry at every distance (`M[*][-d] = ...`): its value with d standing
 * for how far index e[a] + add[a] lies outside on side dir of axis a. */
static void print_any_distance(PrintCtx *p, BorderRule *r, BorderEntry *be, int a, int dir, Node **e,
                               const long *add, int nd)
{
    const Obj *sv = p->dist_var;
    Node *se = p->dist_e;
    const long sa = p->dist_add;
    const int sd = p->dist_dir;
    const char *sm = p->dist_dim;
    p->dist_var = r->dist;
    p->dist_e = e[a];
    p->dist_add = add[a];
    p->dist_dir = dir;
    p->dist_dim = lang_format("%s_d%d", r->var->name, a);
    print_rule_value(p, be, e, add, nd);
    p->dist_var = sv;
    p->dist_e = se;
    p->dist_add = sa;
    p->dist_dir = sd;
    p->dist_dim = sm;
}

void print_distance(PrintCtx *p)
{
    /* before the image: index -d; after it: index dim - 1 + d */
    out(p, "(");
    if (p->dist_dir < 0) {
        out(p, "-");
        print_term(p, p->dist_e, p->dist_add);
    } else {
        print_term(p, p->dist_e, p->dist_add);
        fprintf(p->out, " - (%s - 1)", p->dist_dim);
    }
    out(p, ")");
}

/* The value of the side border on axis `a` at distance index `e` (outside):
 * the entries at fixed distances, tested, then the one at every distance. */
static void print_side_chain(PrintCtx *p, BorderRule *r, int a, int dir, Node **e, const long *add, int nd)
{
    int w = dir < 0 ? r->width_lo[a] : r->width_hi[a];
    const char *D = lang_format("%s_d%d", r->var->name, a);
    if (w == 0) {
        /* no rule on this side: clamp (never reached when the static check passed) */
        out(p, "0");
        return;
    }
    BorderEntry *any = NULL;
    if (w == PARAC_SIDE_ANY) {
        any = find_entry(r, nd == 1 ? dir * PARAC_SIDE_ANY : a == 0 ? dir * PARAC_SIDE_ANY : 0,
                         nd == 1 ? 0 : a == 1 ? dir * PARAC_SIDE_ANY : 0);
        w = 0; /* the fixed distances: those of the entries */
        for (BorderEntry *be = r->entries; be; be = be->next) {
            const int s = be->side[a] * dir;
            if (s > 0 && s < PARAC_SIDE_ANY && (nd == 1 || be->side[1 - a] == 0) && s > w) w = s;
        }
    }
    out(p, "(");
    for (int k = 1; k <= w; k++) {
        int sx = nd == 1 ? dir * k : (a == 0 ? dir * k : 0);
        int sy = nd == 1 ? 0 : (a == 1 ? dir * k : 0);
        BorderEntry *be = find_entry(r, sx, sy);
        if (any && !be) continue;
        const bool test = k < w || any;
        if (test) {
            print_term(p, e[a], add[a]);
            if (dir < 0) fprintf(p->out, " == %d ? ", -k);
            else fprintf(p->out, " == %s + %d ? ", D, k - 1);
        }
        if (be) print_rule_value(p, be, e, add, nd);
        else out(p, "0");
        if (test) out(p, " : ");
    }
    if (any) print_any_distance(p, r, any, a, dir, e, add, nd);
    out(p, ")");
}

static void print_corner_chain(PrintCtx *p, BorderRule *r, int dx, int dy, Node **e, const long *add)
{
    /* the corners of this quadrant, nearest first */
    int n = 0;
    out(p, "(");
    for (BorderEntry *be = r->entries; be; be = be->next) {
        if (be->side[0] * dx <= 0 || be->side[1] * dy <= 0) continue;
        out(p, "(");
        print_term(p, e[0], add[0]);
        if (dx < 0) fprintf(p->out, " == %d", be->side[0]);
        else fprintf(p->out, " == %s_d0 + %d", r->var->name, be->side[0] - 1);
        out(p, " && ");
        print_term(p, e[1], add[1]);
        if (dy < 0) fprintf(p->out, " == %d", be->side[1]);
        else fprintf(p->out, " == %s_d1 + %d", r->var->name, be->side[1] - 1);
        out(p, ") ? ");
        print_rule_value(p, be, e, add, 2);
        out(p, " : ");
        n++;
    }
    out(p, "0)");
    (void)n;
}

/* entry be is about the places on side dir[d] of every axis d */
static bool place_matches(const BorderEntry *be, const int dir[3])
{
    for (int d = 0; d < 3; d++)
        if ((be->side[d] > 0) - (be->side[d] < 0) != dir[d]) return false;
    return true;
}

/* 3-D: the value where the read falls on side dir[d] (-1 before, +1
 * after, 0 inside) of every axis: the entries of that kind, each tested
 * where its indices are (the last without a test: the static check made
 * sure some entry covers every place a read reaches). */
static void print_place_3d(PrintCtx *p, BorderRule *r, Node **e, const long *add, const int dir[3])
{
    if (!dir[0] && !dir[1] && !dir[2]) {
        print_mat_index(p, r->var, e, add, 3);
        return;
    }
    int n = 0;
    BorderEntry *any = NULL; /* an entry at every distance: last, untested */
    for (BorderEntry *be = r->entries; be; be = be->next) {
        if (!place_matches(be, dir)) continue;
        bool every = false;
        for (int d = 0; d < 3; d++) every |= be->side[d] == PARAC_SIDE_ANY || be->side[d] == -PARAC_SIDE_ANY;
        if (every) any = be;
        else n++;
    }
    if (n == 0 && !any) {
        out(p, "0"); /* never reached when the static check passed */
        return;
    }
    out(p, "(");
    int i = 0;
    const int tested = any ? n : n - 1;
    for (BorderEntry *be = r->entries; be; be = be->next) {
        if (!place_matches(be, dir) || be == any) continue;
        if (i < tested) {
            out(p, "(");
            const char *and = "";
            for (int d = 0; d < 3; d++) {
                if (!dir[d]) continue;
                out(p, and);
                print_term(p, e[d], add[d]);
                if (dir[d] < 0) fprintf(p->out, " == %d", be->side[d]);
                else fprintf(p->out, " == %s_d%d + %d", r->var->name, d, be->side[d] - 1);
                and = " && ";
            }
            out(p, ") ? ");
        }
        print_rule_value(p, be, e, add, 3);
        if (i < tested) out(p, " : ");
        i++;
    }
    if (any) {
        int a = 0;
        while (a < 2 && !any->side[a]) a++;
        print_any_distance(p, r, any, a, dir[a], e, add, 3);
    }
    out(p, ")");
}

/* 3-D: where the read falls on axes d.. (those the region's reads leave) */
static void print_ruled_axes_3d(PrintCtx *p, const RuleReach *rr, Node **e, const long *add, int d, int dir[3])
{
    if (d == 3) {
        print_place_3d(p, rr->rule, e, add, dir);
        return;
    }
    dir[d] = 0;
    if (!rr->need_lo[d] && !rr->need_hi[d]) {
        print_ruled_axes_3d(p, rr, e, add, d + 1, dir);
        return;
    }
    out(p, "(");
    print_term(p, e[d], add[d]);
    out(p, " < 0 ? ");
    dir[d] = -1;
    print_ruled_axes_3d(p, rr, e, add, d + 1, dir);
    out(p, " : ");
    print_term(p, e[d], add[d]);
    fprintf(p->out, " >= %s_d%d ? ", rr->rule->var->name, d);
    dir[d] = 1;
    print_ruled_axes_3d(p, rr, e, add, d + 1, dir);
    out(p, " : ");
    dir[d] = 0;
    print_ruled_axes_3d(p, rr, e, add, d + 1, dir);
    out(p, ")");
}

/* A read of the ruled matrix in a border variant. */
static void print_ruled_read(PrintCtx *p, const RuleReach *rr, Node **e, const long *add, int nd)
{
    BorderRule *r = rr->rule;
    const char *nm = r->var->name;
    if (nd == 3) {
        int dir[3] = {0, 0, 0};
        print_ruled_axes_3d(p, rr, e, add, 0, dir);
        return;
    }
    if (nd == 1) {
        out(p, "(");
        print_term(p, e[0], add[0]);
        out(p, " < 0 ? ");
        print_side_chain(p, r, 0, -1, e, add, 1);
        out(p, " : ");
        print_term(p, e[0], add[0]);
        fprintf(p->out, " >= %s_d0 ? ", nm);
        print_side_chain(p, r, 0, 1, e, add, 1);
        out(p, " : ");
        print_mat_index(p, r->var, e, add, 1);
        out(p, ")");
        return;
    }
    bool need_x = rr->need_lo[0] || rr->need_hi[0];
    bool need_y = rr->need_lo[1] || rr->need_hi[1];
    out(p, "(");
    if (need_x) {
        for (int dir = -1; dir <= 1; dir += 2) {
            print_term(p, e[0], add[0]);
            if (dir < 0) out(p, " < 0 ? ");
            else fprintf(p->out, " >= %s_d0 ? ", nm);
            if (need_y) {
                out(p, "(");
                print_term(p, e[1], add[1]);
                out(p, " < 0 ? ");
                print_corner_chain(p, r, dir, -1, e, add);
                out(p, " : ");
                print_term(p, e[1], add[1]);
                fprintf(p->out, " >= %s_d1 ? ", nm);
                print_corner_chain(p, r, dir, 1, e, add);
                out(p, " : ");
                print_side_chain(p, r, 0, dir, e, add, 2);
                out(p, ")");
            } else
                print_side_chain(p, r, 0, dir, e, add, 2);
            out(p, " : ");
        }
    }
    if (need_y) {
        print_term(p, e[1], add[1]);
        out(p, " < 0 ? ");
        print_side_chain(p, r, 1, -1, e, add, 2);
        out(p, " : ");
        print_term(p, e[1], add[1]);
        fprintf(p->out, " >= %s_d1 ? ", nm);
        print_side_chain(p, r, 1, 1, e, add, 2);
        out(p, " : ");
    }
    print_mat_index(p, r->var, e, add, 2);
    out(p, ")");
}

/* An element of matrix m at index e[i] + add[i]. */
void print_access(PrintCtx *p, Obj *m, Node **e, const long *add, int n, bool is_read)
{
    const int sk = p->region && p->region->iter ? lang_stage_of(p->region->iter, m) : -1;
    if (sk >= 0 && n == 2 && p->stage_fill != sk + 1) {
        /* a stage's local-memory tile (fuse_tile.c): its first row and column
         * are parac_sr<k> and parac_sc<k>, parac_sn<k> cells a row */
        fprintf(p->out, "parac_sg%d[(", sk);
        print_term(p, e[0], add[0]);
        fprintf(p->out, " - parac_sr%d) * parac_sn%d + ", sk, sk);
        print_term(p, e[1], add[1]);
        fprintf(p->out, " - parac_sc%d]", sk);
        return;
    }
    if (p->merging && is_read && p->region && p->region->nloads) {
        /* a row the coarsened work-item loaded as vectors: element v + c of it */
        long col;
        int g = plan_load_row(p->region, m, e, add, n, &col);
        if (g >= 0 && p->region->rows_per_item > 1 && p->region->loads[g].rv >= 0) {
            /* a row shared by the work-item's rows of outputs: row r + o */
            const LoadRow *lr = &p->region->loads[g];
            const RowVar *rv = &p->region->rowvars[lr->rv];
            fprintf(p->out, "((const %s *)parac_lv%d[parac_r + %ld])[parac_v + %ld]", ty_c_name(m->ty->base, true),
                    lr->rv, lr->other[0].offset - rv->amin, col - rv->base);
            return;
        }
        if (g >= 0) {
            fprintf(p->out, "((const %s *)parac_ld%d)[parac_v + %ld]", ty_c_name(m->ty->base, true), g,
                    col - p->region->loads[g].base);
            return;
        }
    }
    const RuleReach *rr = active_reach(p, m);
    if (rr && is_read && p->rule_depth == 0) {
        print_ruled_read(p, rr, e, add, n);
        return;
    }
    print_mat_index(p, m, e, add, n);
}

/* ---- small matrices, element by element --------------------------------- */
void print_elem(PrintCtx *p, Node *n, int i, int j)
{
    if (!is_small_node(n)) {
        /* a scalar inside an expanded element: keep it one operand */
        bool par = print_expr_prec(n) < 14;
        if (par) out(p, "(");
        print_expr(p, n);
        if (par) out(p, ")");
        return;
    }
    switch (n->kind) {
    case ND_WINDOW: {
        Node *e[3];
        long add[3];
        int nd = print_access_indices(n, i, j, e, add);
        print_access(p, n->var, e, add, nd, !p->writing);
        return;
    }
    case ND_VAR: {
        Obj *o = n->var;
        int k = i * n->ty->cols + j, c = 0;
        Node *v = o && o->init ? o->init->args : NULL;
        for (; v && c < k; v = v->next) c++;
        fprintf(p->out, "((%s)", ty_c_name(n->ty->base, p->opencl));
        if (v) {
            out(p, "(");
            print_expr(p, v);
            out(p, ")");
        } else
            out(p, "0");
        out(p, ")");
        return;
    }
    case ND_TRANSE:
        print_elem(p, n->lhs, j, i);
        return;
    case ND_CAST:
        fprintf(p->out, "((%s)", ty_c_name(n->cast_ty, p->opencl));
        print_elem(p, n->lhs, i, j);
        out(p, ")");
        return;
    case ND_UNARY:
        fprintf(p->out, "(%s", n->op);
        print_elem(p, n->lhs, i, j);
        out(p, ")");
        return;
    case ND_EWMUL:
        out(p, "(");
        print_elem(p, n->lhs, i, j);
        out(p, " * ");
        print_elem(p, n->rhs, i, j);
        out(p, ")");
        return;
    case ND_BINARY:
        if (!strcmp(n->op, "*") && is_small_node(n->lhs) && is_small_node(n->rhs)) {
            int K = n->lhs->ty->cols;
            out(p, "(");
            for (int k = 0; k < K; k++) {
                if (k) out(p, " + ");
                print_elem(p, n->lhs, i, k);
                out(p, " * ");
                print_elem(p, n->rhs, k, j);
            }
            out(p, ")");
            return;
        }
        out(p, "(");
        print_elem(p, n->lhs, i, j);
        fprintf(p->out, " %s ", n->op);
        print_elem(p, n->rhs, i, j);
        out(p, ")");
        return;
    case ND_ASSIGN: {
        out(p, "(");
        bool w = p->writing;
        p->writing = true;
        print_elem(p, n->lhs, i, j);
        p->writing = w;
        fprintf(p->out, " %s ", n->op);
        print_elem(p, n->rhs, i, j);
        out(p, ")");
        return;
    }
    default:
        out(p, "0 /* unsupported small-matrix form */");
        return;
    }
}
