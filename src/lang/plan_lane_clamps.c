/* The C target's lanes without their clamps where the clamps hold. A read
 * at a clamped column, in[r][CLAMP(y - 3, 0, W - 1)], is a conditional
 * inside the SIMD loop: GCC turns it into a gather (slow on x86 cores) or,
 * beside a call, keeps the loop scalar. Yet across most of a row the clamp
 * is its value: where lo <= v <= hi, CLAMP(v, lo, hi) is v. So, as
 * Halide's loop partitioning does for its boundary conditions, the row's
 * lanes are split in three: the lanes before the interior and after it run
 * the body as written, the interior runs it with each such clamp printed as
 * its value (contiguous loads there).
 *
 * A clamp here is `v < lo ? lo : v > hi ? hi : v` (the comparisons < or
 * <=, > or >=, either test first; a macro's expansion), or a call of a
 * function of the file whose body is `return` of that form of its int
 * parameters (`clampi(v, lo, hi)`), of int values, where
 *   - v moves evenly from lane to lane (a sum of constant or uniform
 *     multiples of the lane's index and uniform values), and
 *   - v, lo and hi name nothing but iterator indices, values declared
 *     outside the body and locals run once per row before the lanes, so
 *     that the row's interior can be worked out before its lanes run (v at
 *     two lanes: its step; plan_lanes.c's affine test says it has one).
 * Where the lanes run 16 at a time (plan_lanes.c's blocks), each run of
 * them checks its block instead: v at its first and last lane inside the
 * bounds, the run without the clamps, else as written; v, lo and hi may
 * then also name the body's locals that are the same for every lane. */
#include <string.h>

#include "lang.h"

enum { MAX_CLAMPS = 16 };

static bool is_int(const Type *t) { return t && ty_is_integer(t) && !t->is_unsigned && ty_size(t) == 4; }

static bool op_is(const Node *n, const char *a, const char *b)
{
    return n && n->kind == ND_BINARY && n->op && (!strcmp(n->op, a) || !strcmp(n->op, b));
}

/* c ? lo : (v > hi ? hi : v) with c = v < lo, or the tests the other way round */
static bool match_form(Node *n, Node **v, Node **lo, Node **hi)
{
    if (!n || n->kind != ND_COND || !n->els || n->els->kind != ND_COND) return false;
    Node *c1 = n->cond, *c2 = n->els->cond;
    const bool low_first = op_is(c1, "<", "<=") && op_is(c2, ">", ">=");
    const bool high_first = op_is(c1, ">", ">=") && op_is(c2, "<", "<=");
    if (!low_first && !high_first) return false;
    Node *x = c1->lhs;
    if (!tree_same(c2->lhs, x) || !tree_same(n->els->els, x) || !tree_same(n->then, c1->rhs) ||
        !tree_same(n->els->then, c2->rhs))
        return false;
    *v = x;
    *lo = low_first ? c1->rhs : c2->rhs;
    *hi = low_first ? c2->rhs : c1->rhs;
    return true;
}

/* Which of the names is each of the clamp's v, lo and hi (all different). */
static bool clamp_of_names(Node *form, const char *const *names, int n, int which[3])
{
    Node *v, *lo, *hi;
    if (!match_form(form, &v, &lo, &hi)) return false;
    Node *parts[3] = {v, lo, hi};
    for (int k = 0; k < 3; k++) {
        which[k] = -1;
        if (parts[k]->kind != ND_VAR || !parts[k]->name) return false;
        for (int i = 0; i < n; i++)
            if (names[i] && !strcmp(names[i], parts[k]->name)) which[k] = i;
        if (which[k] < 0) return false;
    }
    return which[0] != which[1] && which[0] != which[2] && which[1] != which[2];
}

/* The file's function (or function-like macro) `name` when its body is
 * (`return` of) a clamp of its parameters: which parameter is v, lo and hi. */
static bool clamp_function(const Program *prog, const char *name, int *nparams, int which[3])
{
    const char *const *mparams;
    Node *body = lang_macro_body(name, &mparams, nparams);
    if (body) return clamp_of_names(body, mparams, *nparams, which);
    for (Node *f = prog->top; f; f = f->next) {
        if (f->kind != ND_FUNC || !f->name || strcmp(f->name, name)) continue;
        Node *b = f->body;
        if (!f->ty || !is_int(f->ty->base) || !b || b->kind != ND_BLOCK || !b->args || b->args->next ||
            b->args->kind != ND_RETURN)
            return false;
        const char *names[8];
        int n = 0;
        for (Node *p = f->ty->params; p; p = p->next) {
            if (n == 8) return false;
            names[n++] = p->name && is_int(p->ty) ? p->name : NULL; /* (an int parameter: no conversion) */
        }
        *nparams = n;
        return clamp_of_names(b->args->lhs, names, n, which);
    }
    return false;
}

static bool hoisted_local(const Region *r, const Obj *o)
{
    for (int i = 0; i < r->nlane_hoist; i++)
        for (Node *d = r->lane_hoist[i]->kind == ND_DECL ? r->lane_hoist[i]->decls : NULL; d; d = d->next)
            if (d->var == o) return true;
    return false;
}

/* Whether e names only what is defined before the row's lanes run (or,
 * where the lanes run 16 at a time, before each run of them: the body's
 * locals the same for every lane too). */
static bool known_before_lanes(const Region *r, const Node *e, int depth)
{
    const bool blocks = r->lane_block > 0;
    if (!e || depth > 32) return false;
    bool ok;
    switch (e->kind) {
    case ND_NUM: return true;
    case ND_ITER_INDEX: return true;
    case ND_VAR: {
        if (!e->var && e->name) { /* a macro of a constant (#define R (PATCH / 2)) */
            lang_macro_value(e->name, &ok);
            return ok;
        }
        if (!e->var || !is_int(e->ty)) return false;
        for (int i = 0; i < r->nlane_locals; i++)
            if (r->lane_locals[i] == e->var) {
                if (!blocks) return hoisted_local(r, e->var);
                for (int j = 0; j < r->nlane_vary; j++)
                    if (r->lane_vary[j] == e->var) return false;
                return true;
            }
        return !lanes_body_assigns(r, e->var); /* declared outside the body */
    }
    case ND_CAST: return is_int(e->ty) && known_before_lanes(r, e->lhs, depth + 1);
    case ND_UNARY: return e->op && !strcmp(e->op, "-") && known_before_lanes(r, e->lhs, depth + 1);
    case ND_BINARY:
        if (e->op && (!strcmp(e->op, "+") || !strcmp(e->op, "-") || !strcmp(e->op, "*")))
            return known_before_lanes(r, e->lhs, depth + 1) && known_before_lanes(r, e->rhs, depth + 1);
        const_eval((Node *)e, &ok); /* a constant of any operators (a macro's R / 2) */
        return ok;
    default: return false;
    }
}

typedef struct Found {
    const Program *prog;
    Region *r;
    LaneClamp c[MAX_CLAMPS];
    int n;
} Found;

static void add_if_clamp(Found *f, Node *n)
{
    Node *v = NULL, *lo = NULL, *hi = NULL;
    if (n->kind == ND_COND) {
        if (!is_int(n->ty) || !match_form(n, &v, &lo, &hi)) return;
    } else if (n->kind == ND_CALL && n->name && (!n->lhs || n->lhs->kind == ND_VAR) && !n->handle_call) {
        int which[3], nparams = 0;
        if (!is_int(n->ty) || !clamp_function(f->prog, n->name, &nparams, which)) return;
        Node *args[3] = {NULL, NULL, NULL};
        int i = 0;
        for (Node *a = n->args; a; a = a->next, i++)
            for (int k = 0; k < 3; k++)
                if (which[k] == i) args[k] = a;
        if (i != nparams || !args[0] || !args[1] || !args[2]) return;
        v = args[0], lo = args[1], hi = args[2];
    } else {
        return;
    }
    if (!v || !is_int(v->ty) || !is_int(lo->ty) || !is_int(hi->ty) || !lanes_moves_evenly(f->r, v) ||
        !lanes_expr_varies(f->r, v) || lanes_expr_varies(f->r, lo) || lanes_expr_varies(f->r, hi) ||
        !known_before_lanes(f->r, v, 0) || !known_before_lanes(f->r, lo, 0) || !known_before_lanes(f->r, hi, 0))
        return;
    if (f->n < MAX_CLAMPS) f->c[f->n++] = (LaneClamp){.site = n, .v = v, .lo = lo, .hi = hi};
}

static void find(Found *f, Node *n, int depth)
{
    if (!n || depth > 400) return;
    if (n->kind == ND_COND || n->kind == ND_CALL) {
        const int before = f->n;
        add_if_clamp(f, n);
        if (f->n > before) return; /* (what lies inside it prints as written) */
    }
    NodeKids k = {.n = n};
    for (Node *x; (x = lang_next_kid(&k));) find(f, x, depth + 1);
}

void plan_lane_clamps(const Program *prog, Region *r, Node **rest, int nrest)
{
    const CompileOptions *opt = prog->opt;
    if (!plan_flag(opt, opt->split_clamps, 1)) return;
    Found f = {.prog = prog, .r = r};
    for (int i = 0; i < nrest; i++) find(&f, rest[i], 0);
    if (!f.n) return;
    r->lane_clamps = lang_alloc(sizeof(LaneClamp) * (size_t)f.n);
    memcpy(r->lane_clamps, f.c, sizeof(LaneClamp) * (size_t)f.n);
    r->nlane_clamps = f.n;
}

Node *lanes_clamp_value(const Region *r, const Node *n)
{
    for (int i = 0; r && i < r->nlane_clamps; i++)
        if (r->lane_clamps[i].site == n) return r->lane_clamps[i].v;
    return NULL;
}
