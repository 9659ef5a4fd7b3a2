/* The C target's SIMD lanes through bodies with loops. The C target runs an
 * iterator's last axis as `omp simd` lanes around the whole body. A body
 * with a loop inside (max_filter's 53 columns of the disc, a sum over a
 * patch) then asks the C compiler to vectorise an outer loop, which GCC
 * does not do, and statements that are the same for every lane (a row
 * clamped once, a table entry indexed by the inner loop's counter) are
 * computed again by each lane, which also keeps it from vectorising.
 *
 * Here the body's statements are told apart: uniform ones are the same for
 * every lane (they read no lane index, no local that differs between lanes,
 * no matrix the iterator writes, and call only pure functions), the others
 * vary. The printer (emit_host_lanes.c) then
 *   - runs the body's leading uniform statements once per row, before the
 *     lanes (`lane_hoist`), and later uniform declarations that nothing
 *     else assigns where only pure declarations lie between;
 *   - where a uniform loop holds varying statements (`lane_block` > 0), runs
 *     the rest for lane_block lanes at a time: uniform statements and loop
 *     heads once per block, each run of varying statements as an `omp simd`
 *     loop over the block's lanes. A varying local that statements in two
 *     runs share becomes an array of lane_block values (`lane_vars`).
 * Lanes are independent (the reason `omp simd` is allowed at all), so each
 * lane's statements run in their order, the lanes interleaved; a uniform
 * statement runs once where each lane would have computed the same. Bodies
 * with jumps out of a varying statement, `static` locals or varying arrays
 * shared between runs keep the plain form. */
#include <string.h>

#include "lang.h"

enum { LANE_BLOCK = 16 };

typedef struct LaneCtx {
    Region *r;
    Obj **vary;
    int nvary, cap;
    Obj **locals; /* the locals the body declares */
    int nlocals, lcap;
    bool changed;
} LaneCtx;

static bool in_list(Obj *const *v, int n, const Obj *o)
{
    for (int i = 0; i < n; i++)
        if (v[i] == o) return true;
    return false;
}

static void grow(void **v, int *cap, int n, size_t size)
{
    if (n < *cap) return;
    int c = *cap ? 2 * *cap : 16;
    void *w = lang_alloc(size * (size_t)c);
    if (n) memcpy(w, *v, size * (size_t)n);
    *v = w;
    *cap = c;
}

static bool add_obj(Obj ***v, int *n, int *cap, Obj *o)
{
    if (!o || in_list(*v, *n, o)) return false;
    grow((void **)v, cap, *n, sizeof(Obj *));
    (*v)[(*n)++] = o;
    return true;
}

static bool written_by(const Region *r, const Obj *m)
{
    for (const Access *a = r->accesses; a; a = a->next)
        if (a->is_write && a->var == m) return true;
    return false;
}

static bool is_incdec(const Node *n)
{
    return (n->kind == ND_UNARY || n->kind == ND_POSTFIX) && n->op && (!strcmp(n->op, "++") || !strcmp(n->op, "--"));
}

/* Whether expression n may differ between lanes (or has an effect). */
static bool expr_varies(const Region *r, Node *n, int depth)
{
    if (!n) return false;
    if (depth > 200 || (n->ty && n->ty->kind == TY_SMALL)) return true;
    switch (n->kind) {
    case ND_ITER_INDEX:
        return n->iter == r->iter && n->axis == r->iter->ndim - 1;
    case ND_VAR: /* (a name without a declaration here: a macro's or a header's, the same for all lanes
                  * unless the body assigns such names) */
        if (!n->var) return r->lane_names_written;
        return n->var->ty->kind == TY_MATRIX || n->var->ty->kind == TY_PYRAMID ||
               in_list(r->lane_vary, r->nlane_vary, n->var);
    case ND_MAT_ELEM:
        if (written_by(r, n->var)) return true;
        break;
    case ND_WINDOW: case ND_PARAC_OP: case ND_TRANSE: case ND_EWMUL: case ND_VERBATIM: case ND_INIT_LIST:
    case ND_ASSIGN: case ND_STR: case ND_LEVEL:
    case ND_INDEX: case ND_MEMBER: /* (memory through a pointer: the body may write it) */
        return true;
    case ND_CALL:
        if (!lang_pure_call(n->name)) return true;
        break;
    default:
        if (is_incdec(n) || (n->kind == ND_UNARY && n->op && !strcmp(n->op, "*"))) return true;
        break;
    }
    NodeKids k = {.n = n};
    for (Node *x; (x = lang_next_kid(&k));)
        if (expr_varies(r, x, depth + 1)) return true;
    return false;
}

bool lanes_expr_varies(const Region *r, Node *e) { return expr_varies(r, e, 0); }

static bool assigns(Node *n, const Obj *v, int depth);

/* The initialiser of local v when the body declares it once and assigns it
 * nowhere else, else NULL. */
static Node *only_value(Node *n, const Obj *v, int depth)
{
    if (!n || depth > 400) return NULL;
    if (n->kind == ND_DECL)
        for (Node *d = n->decls; d; d = d->next)
            if (d->var == v) return d->init;
    NodeKids k = {.n = n};
    for (Node *x; (x = lang_next_kid(&k));) {
        Node *e = only_value(x, v, depth + 1);
        if (e) return e;
    }
    return NULL;
}

/* Whether index e is a sum of constant multiples of the lane's index and of
 * values the same for every lane (locals followed to their one value):
 * such an index moves evenly from lane to lane, a load the compiler makes
 * contiguous or strided. */
static bool affine_in_lane(const Region *r, Node *e, int depth)
{
    if (!e || depth > 16) return false;
    if (!expr_varies(r, e, 0)) return true;
    switch (e->kind) {
    case ND_ITER_INDEX: return true;
    case ND_CAST: return e->ty && ty_is_integer(e->ty) && affine_in_lane(r, e->lhs, depth + 1);
    case ND_UNARY: return e->op && !strcmp(e->op, "-") && affine_in_lane(r, e->lhs, depth + 1);
    case ND_BINARY:
        if (!e->op) return false;
        if (!strcmp(e->op, "+") || !strcmp(e->op, "-"))
            return affine_in_lane(r, e->lhs, depth + 1) && affine_in_lane(r, e->rhs, depth + 1);
        if (!strcmp(e->op, "*"))
            return (!expr_varies(r, e->lhs, 0) && affine_in_lane(r, e->rhs, depth + 1)) ||
                   (!expr_varies(r, e->rhs, 0) && affine_in_lane(r, e->lhs, depth + 1));
        return false;
    case ND_VAR: {
        if (!e->var || !in_list(r->lane_locals, r->nlane_locals, e->var) || assigns(r->iter->body, e->var, 0))
            return false;
        return affine_in_lane(r, only_value(r->iter->body, e->var, 0), depth + 1);
    }
    default:
        return false;
    }
}

bool lanes_gather_index(const Region *r, Node *e) { return !affine_in_lane(r, e, 0); }
bool lanes_moves_evenly(const Region *r, Node *e) { return affine_in_lane(r, e, 0); }
bool lanes_body_assigns(const Region *r, const Obj *v) { return assigns(r->iter->body, v, 0); }

/* A local of the body that lanes may keep one copy of. */
static bool uniform_local(const Region *r, const Obj *o)
{
    return o && ty_is_arith(o->ty) && in_list(r->lane_locals, r->nlane_locals, o) &&
           !in_list(r->lane_vary, r->nlane_vary, o);
}

/* An update of a uniform local by a uniform value: v = e, v op= e, v++. */
static bool uniform_update(const Region *r, Node *e)
{
    if (!e) return true;
    if (e->kind == ND_COMMA) return uniform_update(r, e->lhs) && uniform_update(r, e->rhs);
    Node *target = e->kind == ND_ASSIGN || is_incdec(e) ? e->lhs : NULL;
    if (!target) return !expr_varies(r, e, 0);
    if (target->kind != ND_VAR || !uniform_local(r, target->var)) return false;
    return e->kind != ND_ASSIGN || !expr_varies(r, e->rhs, 0);
}

LaneClass lanes_stmt_class(const Region *r, Node *s)
{
    switch (s->kind) {
    case ND_NULL_STMT: case ND_BREAK: case ND_CONTINUE:
        return LANE_UNIFORM;
    case ND_DECL:
        if (s->is_static || s->is_extern || s->is_typedef) return LANE_VARYING;
        for (Node *d = s->decls; d; d = d->next)
            if (d->var && (!uniform_local(r, d->var) || expr_varies(r, d->init, 0))) return LANE_VARYING;
        return LANE_UNIFORM;
    case ND_EXPR_STMT:
        return uniform_update(r, s->lhs) ? LANE_UNIFORM : LANE_VARYING;
    case ND_BLOCK: { /* a block of varying statements is one, and so is a block too long to plan */
        int count = 0;
        for (Node *x = s->args; x; x = x->next) count++;
        if (count > LANES_MAX_STATEMENTS) return LANE_VARYING;
        for (Node *x = s->args; x; x = x->next)
            if (lanes_stmt_class(r, x) != LANE_VARYING) return LANE_CONTROL;
        return s->args ? LANE_VARYING : LANE_UNIFORM;
    }
    case ND_IF: case ND_WHILE: case ND_DO:
        return expr_varies(r, s->cond, 0) ? LANE_VARYING : LANE_CONTROL;
    case ND_FOR:
        if (s->init && lanes_stmt_class(r, s->init) != LANE_UNIFORM) return LANE_VARYING;
        return expr_varies(r, s->cond, 0) || !uniform_update(r, s->inc) ? LANE_VARYING : LANE_CONTROL;
    default:
        return LANE_VARYING;
    }
}

/* The statements a control statement runs: a block's in order, a loop's
 * body, an if's branches (NULL-ended). */
int lanes_children(Node *s, Node **kids, int cap)
{
    int n = 0;
    if (s->kind == ND_BLOCK) {
        for (Node *x = s->args; x && n < cap; x = x->next) kids[n++] = x;
    } else if (s->kind == ND_IF) {
        if (s->then) kids[n++] = s->then;
        if (s->els) kids[n++] = s->els;
    } else if (s->body) {
        kids[n++] = s->body;
    }
    return n;
}

static void collect_locals(LaneCtx *c, Node *n, int depth)
{
    if (!n || depth > 400) return;
    if (n->kind == ND_DECL)
        for (Node *d = n->decls; d; d = d->next) add_obj(&c->locals, &c->nlocals, &c->lcap, d->var);
    NodeKids k = {.n = n};
    for (Node *x; (x = lang_next_kid(&k));) collect_locals(c, x, depth + 1);
}

/* Whether the body assigns a name declared outside this file. */
static bool assigns_undeclared(Node *n, int depth)
{
    if (!n || depth > 400) return false;
    if ((n->kind == ND_ASSIGN || is_incdec(n)) && n->lhs && n->lhs->kind == ND_VAR && !n->lhs->var) return true;
    NodeKids k = {.n = n};
    for (Node *x; (x = lang_next_kid(&k));)
        if (assigns_undeclared(x, depth + 1)) return true;
    return false;
}

/* Every local that a varying statement declares or assigns varies. */
static void mark_assigned(LaneCtx *c, Node *n, int depth)
{
    if (!n || depth > 400) return;
    if (n->kind == ND_DECL)
        for (Node *d = n->decls; d; d = d->next) c->changed |= add_obj(&c->vary, &c->nvary, &c->cap, d->var);
    if ((n->kind == ND_ASSIGN || is_incdec(n)) && n->lhs && n->lhs->kind == ND_VAR)
        c->changed |= add_obj(&c->vary, &c->nvary, &c->cap, n->lhs->var);
    NodeKids k = {.n = n};
    for (Node *x; (x = lang_next_kid(&k));) mark_assigned(c, x, depth + 1);
}

static void mark_stmt(LaneCtx *c, Node *s, int depth)
{
    if (!s || depth > 200) return;
    c->r->lane_vary = c->vary;
    c->r->nlane_vary = c->nvary;
    LaneClass k = lanes_stmt_class(c->r, s);
    if (k == LANE_VARYING) {
        mark_assigned(c, s, depth);
        return;
    }
    if (k != LANE_CONTROL) return;
    if (s->kind == ND_FOR) mark_stmt(c, s->init, depth + 1);
    Node *kids[LANES_MAX_STATEMENTS];
    int n = lanes_children(s, kids, LANES_MAX_STATEMENTS);
    for (int i = 0; i < n; i++) mark_stmt(c, kids[i], depth + 1);
}

/* ---- runs of varying statements --------------------------------------- */
typedef struct RunInfo {
    int run;          /* the run being walked, from 1 */
    Obj **seen;       /* each varying local named, and the run that named it first */
    int *first;
    int nseen, seen_cap, first_cap;
    Obj **shared;     /* varying locals that two runs name */
    int nshared, cap;
    bool loop_with_run; /* a uniform loop holds a run */
    const char *refusal;
} RunInfo;

static void note_var(const Region *r, RunInfo *ri, Obj *o)
{
    if (!o || !in_list(r->lane_vary, r->nlane_vary, o)) return;
    int i = 0;
    while (i < ri->nseen && ri->seen[i] != o) i++;
    if (i == ri->nseen) {
        grow((void **)&ri->seen, &ri->seen_cap, ri->nseen, sizeof(Obj *));
        grow((void **)&ri->first, &ri->first_cap, ri->nseen, sizeof(int));
        ri->seen[ri->nseen] = o;
        ri->first[ri->nseen++] = ri->run;
    } else if (ri->first[i] != ri->run && add_obj(&ri->shared, &ri->nshared, &ri->cap, o) && !ty_is_arith(o->ty) &&
               !ri->refusal) {
        ri->refusal = lang_format("%s, which differs between lanes, is not a scalar", o->name);
    }
}

static void note_names(const Region *r, RunInfo *ri, Node *n, int depth)
{
    if (!n || depth > 400) return;
    if (n->kind == ND_VAR) note_var(r, ri, n->var);
    if (n->kind == ND_DECL)
        for (Node *d = n->decls; d; d = d->next) note_var(r, ri, d->var);
    NodeKids k = {.n = n};
    for (Node *x; (x = lang_next_kid(&k));) note_names(r, ri, x, depth + 1);
}

/* A jump inside varying statement n that leaves it (loops, switches: those
 * around it inside n), or a return or goto anywhere. */
static const char *jump_out(Node *n, int loops, int switches, int depth)
{
    if (!n || depth > 400) return NULL;
    switch (n->kind) {
    case ND_RETURN: return "a return";
    case ND_GOTO: case ND_LABEL: return "a goto";
    case ND_BREAK: return loops + switches ? NULL : "a break out of a statement that differs between lanes";
    case ND_CONTINUE: return loops ? NULL : "a continue out of a statement that differs between lanes";
    default: break;
    }
    const bool loop = n->kind == ND_FOR || n->kind == ND_WHILE || n->kind == ND_DO;
    NodeKids k = {.n = n};
    for (Node *x; (x = lang_next_kid(&k));) {
        const char *why = jump_out(x, loops + loop, switches + (n->kind == ND_SWITCH), depth + 1);
        if (why) return why;
    }
    return NULL;
}

/* Walks statement s; `in_run`: the statement before it in its block was
 * varying (so a varying s joins that run). */
static void walk_stmt(const Region *r, RunInfo *ri, Node *s, bool in_loop, bool *has_run, bool *in_run, int depth)
{
    if (!s || depth > 200) return;
    LaneClass k = lanes_stmt_class(r, s);
    if (k == LANE_VARYING) {
        const char *why = jump_out(s, 0, 0, 0);
        if (why && !ri->refusal) ri->refusal = why;
        if (!*in_run) ri->run++;
        *in_run = *has_run = true;
        if (in_loop) ri->loop_with_run = true;
        note_names(r, ri, s, depth);
        return;
    }
    *in_run = false;
    if (k != LANE_CONTROL) return;
    const bool loop = s->kind == ND_FOR || s->kind == ND_WHILE || s->kind == ND_DO;
    Node *kids[LANES_MAX_STATEMENTS];
    int n = lanes_children(s, kids, LANES_MAX_STATEMENTS);
    bool run = false;
    for (int i = 0; i < n; i++) {
        if (s->kind != ND_BLOCK) run = false;
        walk_stmt(r, ri, kids[i], in_loop || loop, has_run, &run, depth + 1);
    }
}

/* Whether n assigns local v (=, op=, ++, --). */
static bool assigns(Node *n, const Obj *v, int depth)
{
    if (!n || depth > 400) return false;
    if ((n->kind == ND_ASSIGN || is_incdec(n)) && n->lhs && n->lhs->kind == ND_VAR && n->lhs->var == v) return true;
    NodeKids k = {.n = n};
    for (Node *x; (x = lang_next_kid(&k));)
        if (assigns(x, v, depth + 1)) return true;
    return false;
}

/* Whether statement b assigns a local that statement a declares or assigns. */
static bool sets_any_of(Node *a, Node *b)
{
    if (a->kind == ND_DECL) {
        for (Node *d = a->decls; d; d = d->next)
            if (d->var && assigns(b, d->var, 0)) return true;
        return false;
    }
    if (a->kind == ND_EXPR_STMT && a->lhs && (a->lhs->kind == ND_ASSIGN || is_incdec(a->lhs)) && a->lhs->lhs &&
        a->lhs->lhs->kind == ND_VAR)
        return assigns(b, a->lhs->lhs->var, 0);
    return a->kind != ND_NULL_STMT; /* (a loop or block ahead: kept only alone) */
}

static bool is_hoisted(Node *const *hoist, int n, const Node *s)
{
    for (int i = 0; i < n; i++)
        if (hoist[i] == s) return true;
    return false;
}

static bool mentions_var(Node *n, const Obj *v, int depth)
{
    if (!n || depth > 400) return false;
    if (n->kind == ND_VAR && n->var == v) return true;
    NodeKids k = {.n = n};
    for (Node *x; (x = lang_next_kid(&k));)
        if (mentions_var(x, v, depth + 1)) return true;
    return false;
}

static bool has_effects(Node *n, int depth)
{
    if (!n) return false;
    if (depth > 400 || n->kind == ND_ASSIGN || is_incdec(n) || (n->kind == ND_CALL && !lang_pure_call(n->name)))
        return true;
    NodeKids k = {.n = n};
    for (Node *x; (x = lang_next_kid(&k));)
        if (has_effects(x, depth + 1)) return true;
    return false;
}

/* Whether statement a may not move ahead of statement b: b sets a local
 * that a reads, or b is more than a declaration without side effects. */
static bool reads_what_sets(Node *a, Node *b)
{
    if (b->kind == ND_DECL) {
        if (has_effects(b, 0)) return true;
        for (Node *d = b->decls; d; d = d->next)
            if (d->var && mentions_var(a, d->var, 0)) return true;
        return false;
    }
    return b->kind != ND_NULL_STMT;
}

/* Declarations of several locals in the body's blocks become one
 * declaration each (`int k = 0, s = 0;` as `int k = 0; int s = 0;`: the
 * same in C), so that a uniform local declared beside a varying one stays
 * uniform. */
static void split_declarations(Node *n, int depth)
{
    if (!n || depth > 200) return;
    if (n->kind == ND_BLOCK)
        for (Node *s = n->args; s; s = s->next)
            while (s->kind == ND_DECL && s->decls && s->decls->next) {
                Node *rest = new_node(ND_DECL, s->tok);
                *rest = *s;
                rest->decls = s->decls->next;
                s->decls->next = NULL;
                s->next = rest;
                s = rest;
            }
    NodeKids k = {.n = n};
    for (Node *x; (x = lang_next_kid(&k));) split_declarations(x, depth + 1);
}

static bool c_target_lanes(const Program *prog, const Region *r)
{
    const CompileOptions *opt = prog->opt;
    return opt && opt->target == TARGET_C && plan_flag(opt, opt->vectorize, 1) &&
           plan_flag(opt, opt->lane_blocks, 1) && r->iter && r->iter->ndim > 1 && r->iter->body && !r->nhist &&
           !r->red_var && !r->fold_red;
}

static void plan_region(Region *r)
{
    Iterator *it = r->iter;
    LaneCtx c = {.r = r};
    split_declarations(it->body, 0);
    collect_locals(&c, it->body, 0);
    r->lane_names_written = assigns_undeclared(it->body, 0);
    r->lane_locals = c.locals;
    r->nlane_locals = c.nlocals;
    do {
        c.changed = false;
        mark_stmt(&c, it->body, 0);
    } while (c.changed);
    r->lane_vary = c.vary;
    r->nlane_vary = c.nvary;
    /* the body's statements (a block's, or the one) */
    Node *kids[LANES_MAX_STATEMENTS];
    int n = it->body->kind == ND_BLOCK ? lanes_children(it->body, kids, LANES_MAX_STATEMENTS) : (kids[0] = it->body, 1);
    int len = 0;
    for (Node *x = it->body->kind == ND_BLOCK ? it->body->args : NULL; x; x = x->next) len++;
    if (len > LANES_MAX_STATEMENTS) {
        r->why_lanes = "around the whole body (too many statements to plan)";
        return;
    }
    /* the leading statements that no lane differs in and that hold none that does */
    int prefix = 0;
    while (prefix < n) {
        Node *s = kids[prefix];
        LaneClass k = lanes_stmt_class(r, s);
        if (k == LANE_VARYING || s->kind == ND_BREAK || s->kind == ND_CONTINUE) break;
        RunInfo probe = {0};
        bool has = false, run = false;
        walk_stmt(r, &probe, s, false, &has, &run, 1);
        if (has || probe.refusal) break;
        prefix++;
    }
    /* a local the leading statements set that the rest assigns again must
     * be set again for each block or lane: those statements stay */
    for (bool cut = true; cut && prefix > 0;) {
        cut = false;
        for (int i = 0; i < prefix && !cut; i++)
            for (int j = prefix; j < n && !cut; j++)
                if (sets_any_of(kids[i], kids[j])) {
                    prefix = i;
                    cut = true;
                }
    }
    /* later uniform declarations run there too where nothing else assigns
     * their local and nothing they are moved ahead of sets what they read: a
     * clamped row left among the lanes is control flow inside the SIMD loop
     * (GCC then leaves the loop scalar) */
    Node *hoist[LANES_MAX_STATEMENTS];
    int nhoist = 0;
    for (int i = 0; i < prefix; i++) hoist[nhoist++] = kids[i];
    for (int i = prefix + 1; i < n && prefix < n; i++) {
        Node *s = kids[i];
        if (s->kind != ND_DECL || !s->decls || s->decls->next || !s->decls->var ||
            lanes_stmt_class(r, s) != LANE_UNIFORM)
            continue;
        RunInfo probe = {0};
        bool has = false, run = false;
        walk_stmt(r, &probe, s, false, &has, &run, 1);
        bool ok = !has && !probe.refusal;
        for (int j = prefix; j < n && ok; j++)
            if (j != i && (sets_any_of(s, kids[j]) || (j < i && !is_hoisted(hoist, nhoist, kids[j]) &&
                                                       reads_what_sets(s, kids[j]))))
                ok = false;
        if (ok) hoist[nhoist++] = s;
    }
    RunInfo ri = {0};
    bool has_run = false, run = false;
    for (int i = prefix; i < n; i++)
        if (!is_hoisted(hoist, nhoist, kids[i])) walk_stmt(r, &ri, kids[i], false, &has_run, &run, 1);
    if (ri.refusal) {
        r->why_lanes = lang_format("around the whole body (%s)", ri.refusal);
        return;
    }
    if (nhoist) {
        r->lane_hoist = lang_alloc(sizeof(Node *) * (size_t)nhoist);
        for (int i = 0; i < nhoist; i++) r->lane_hoist[r->nlane_hoist++] = hoist[i];
    }
    if (ri.loop_with_run) {
        r->lane_block = LANE_BLOCK;
        r->lane_vars = ri.shared;
        r->nlane_vars = ri.nshared;
    }
    const char *pre = nhoist == 1 ? "1 statement the same for every lane once per row"
                      : nhoist      ? lang_format("%d statements the same for every lane once per row", nhoist)
                                    : NULL;
    if (r->lane_block)
        r->why_lanes = lang_format("%d at a time: loops the same for every lane once per %d lanes, what differs inside "
                                   "them as SIMD loops over the lanes (%d local%s kept per lane)%s%s",
                                   LANE_BLOCK, LANE_BLOCK, ri.nshared, ri.nshared == 1 ? "" : "s", pre ? "; " : "",
                                   pre ? pre : "");
    else if (pre)
        r->why_lanes = lang_format("around the rest of the body, %s", pre);
    else
        r->why_lanes = "around the whole body (nothing the same for every lane ahead of the rest or around what "
                       "differs)";
}

int lanes_rest(const Region *r, Node **rest)
{
    Node *body = r->iter->body;
    if ((!r->nlane_hoist && !r->lane_block) || body->kind != ND_BLOCK) {
        rest[0] = body;
        return 1;
    }
    Node *kids[LANES_MAX_STATEMENTS];
    const int n = lanes_children(body, kids, LANES_MAX_STATEMENTS);
    int nrest = 0;
    for (int i = 0; i < n; i++)
        if (!is_hoisted(r->lane_hoist, r->nlane_hoist, kids[i])) rest[nrest++] = kids[i];
    return nrest;
}

void plan_lanes(Program *prog)
{
    for (Region *r = prog->regions; r; r = r->next)
        if (c_target_lanes(prog, r)) {
            plan_region(r);
            Node *rest[LANES_MAX_STATEMENTS];
            plan_lane_clamps(prog, r, rest, lanes_rest(r, rest));
        }
}
