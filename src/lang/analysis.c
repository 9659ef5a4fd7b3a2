/* Program-feature analysis (the paper's Algorithm 2):
 * - each access index as coef*it + offset (affine) where possible;
 * - per variable: read/write, point or chunk, access range, horizontal /
 *   vertical reuse;
 * - region class: point, local block, global;
 * - border needs per matrix axis, checked against the attached rule's widths
 *   and corner entries;
 * - defaults for the optimisation plan (work-group shape, vector width). */
#include <string.h>

#include "lang/lang.h"

static VarUse *var_use(Region *r, Obj *o)
{
    VarUse **p = &r->vars;
    for (; *p; p = &(*p)->next)
        if ((*p)->var == o) return *p;
    VarUse *u = lang_alloc(sizeof *u);
    u->var = o;
    u->range_known = true;
    for (int i = 0; i < 3; i++) {
        u->lo[i] = 1L << 40;
        u->hi[i] = -(1L << 40);
    }
    *p = u;
    return u;
}

static const char *side_name(int axis, int ndim)
{
    if (ndim == 1) return "elements";
    if (ndim == 3 && axis == 0) return "planes";
    return axis == ndim - 2 ? "rows" : "columns";
}

/* ---- loop variables with constant bounds ----------------------------------
 * `for (int v = A; v < B; v++)` (or <=; or counting down with > / >= and
 * --; or += 1 / -= 1) whose body neither assigns v nor takes its address,
 * nor passes v to a call that may be a macro, and that no #define of the
 * file names (macros reach the generated code unexpanded):
 * the declaration scopes v to the loop, so wherever it is read it lies in
 * A..B-1. A read under a border rule at such an offset (`in[mx + i][my + j]`)
 * is then bounded, and the rule gives its values outside the image. */
enum { MAX_LOOP_BOUNDS = 64 };

static bool changes_var(const Node *n, const Obj *v, int depth)
{
    if (!n || depth > 400) return false;
    if (n->kind == ND_ASSIGN && n->lhs && n->lhs->kind == ND_VAR && n->lhs->var == v) return true;
    if (n->kind == ND_CALL && !(n->lhs && n->lhs->var && n->lhs->var->is_func)) {
        /* not a function of this file: maybe a macro, which may assign an argument named v */
        for (const Node *a = n->args; a; a = a->next)
            if (a->kind == ND_VAR && a->var == v) return true;
    }
    if ((n->kind == ND_POSTFIX || n->kind == ND_UNARY) && n->op &&
        (!strcmp(n->op, "++") || !strcmp(n->op, "--") || !strcmp(n->op, "&")) && n->lhs &&
        n->lhs->kind == ND_VAR && n->lhs->var == v)
        return true;
    NodeKids k = {.n = n};
    for (Node *c; (c = lang_next_kid(&k));)
        if (changes_var(c, v, depth + 1)) return true;
    return false;
}

/* The step of inc on v: +1, -1, or 0 (another form). */
static int unit_step(const Node *inc, const Obj *v)
{
    if (!inc || !inc->lhs || inc->lhs->kind != ND_VAR || inc->lhs->var != v || !inc->op) return 0;
    if (inc->kind == ND_POSTFIX || inc->kind == ND_UNARY)
        return !strcmp(inc->op, "++") ? 1 : !strcmp(inc->op, "--") ? -1 : 0;
    if (inc->kind == ND_ASSIGN && (!strcmp(inc->op, "+=") || !strcmp(inc->op, "-="))) {
        bool ok;
        long k = const_eval(inc->rhs, &ok);
        if (!ok || k != 1) return 0;
        return inc->op[0] == '+' ? 1 : -1;
    }
    return 0;
}

/* A `for` of the form above: its variable and range into *b. */
static bool loop_bound(const Program *prog, const Node *f, LoopBound *b)
{
    const Node *init = f->init;
    if (!init || init->kind != ND_DECL || !init->decls || init->decls->next || !f->cond || !f->inc) return false;
    const Node *d = init->decls;
    const Obj *v = d->var;
    /* signed: an unsigned offset would wrap where the read leaves the image, past the rule's tests */
    if (!v || !ty_is_integer(v->ty) || v->ty->is_unsigned || v->ty->kind == TY_CHAR || v->ty->kind == TY_BOOL ||
        !d->init)
        return false;
    bool ok;
    const long a = const_eval(d->init, &ok);
    if (!ok) return false;
    const Node *c = f->cond;
    if (c->kind != ND_BINARY || !c->op || !c->lhs || c->lhs->kind != ND_VAR || c->lhs->var != v) return false;
    const long e = const_eval(c->rhs, &ok);
    if (!ok) return false;
    const int step = unit_step(f->inc, v);
    long lo, hi;
    if (step > 0 && !strcmp(c->op, "<")) lo = a, hi = e - 1;
    else if (step > 0 && !strcmp(c->op, "<=")) lo = a, hi = e;
    else if (step < 0 && !strcmp(c->op, ">")) lo = e + 1, hi = a;
    else if (step < 0 && !strcmp(c->op, ">=")) lo = e, hi = a;
    else return false;
    if (lo > hi || hi - lo > 4096 || changes_var(f->body, v, 0) || changes_var(f->cond, v, 0)) return false;
    if (v->name && lang_defines_mention(prog, v->name)) return false; /* a macro of the file may assign it */
    *b = (LoopBound){.var = v, .lo = lo, .hi = hi};
    return true;
}

static void collect_loop_bounds(const Program *prog, const Node *n, LoopBound *b, int *nb, int depth)
{
    if (!n || depth > 400) return;
    if (n->kind == ND_FOR && *nb < MAX_LOOP_BOUNDS && loop_bound(prog, n, &b[*nb])) (*nb)++;
    NodeKids k = {.n = n};
    for (Node *c; (c = lang_next_kid(&k));) collect_loop_bounds(prog, c, b, nb, depth + 1);
}

/* The corners (in 3-D also the edges) that access a of rule's matrix
 * reaches, out of it on two axes or more (out[d]: on axis d; its offsets
 * alo..ahi), each need an entry; false after reporting the first missing. */
static bool check_corners(const Access *a, const BorderRule *rule, const bool out[3], const long alo[3],
                          const long ahi[3])
{
    const Obj *v = rule->var;
    const int nd = v->ty->ndim;
    long lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int d = 0; d < nd; d++)
        if (out[d]) {
            lo[d] = alo[d] < -16 ? -16 : alo[d] > 0 ? 0 : alo[d];
            hi[d] = ahi[d] > 16 ? 16 : ahi[d] < 0 ? 0 : ahi[d];
        }
    for (long x = lo[0]; x <= hi[0]; x++)
        for (long y = lo[1]; y <= hi[1]; y++)
            for (long z = lo[2]; z <= hi[2]; z++) {
                const int s[3] = {(int)x, (int)y, (int)z};
                if ((x != 0) + (y != 0) + (z != 0) < 2) continue;
                bool found = false;
                for (const BorderEntry *e = rule->entries; e && !found; e = e->next)
                    found = e->side[0] == s[0] && e->side[1] == s[1] && e->side[2] == s[2];
                if (found) continue;
                const char *at = "";
                for (int d = 0; d < nd; d++) at = s[d] ? lang_format("%s[%+d]", at, s[d]) : lang_format("%s[*]", at);
                diag_error_tok(a->node->tok, "this access of '%s' reaches the corner %s%s but border rule '%s' "
                               "gives no value there", v->name, v->name, at, rule->name);
                return false;
            }
    return true;
}

/* Whether v reads a matrix at a place that moves with `dist` (one of its
 * indices mentions it). */
static bool reads_at_distance(Node *v, const Obj *dist, int depth)
{
    if (!v || depth > 400) return false;
    if (v->kind == ND_MAT_ELEM)
        for (int d = 0; d < 3; d++)
            if (tree_mentions(v->idx[d], dist, 0) > 0) return true;
    if (v->kind == ND_INDEX) {
        const Node *base = v;
        bool moves = false;
        for (; base->kind == ND_INDEX; base = base->lhs) moves |= tree_mentions(base->rhs, dist, 0) > 0;
        if (moves && base->kind == ND_VAR && base->var && base->var->ty && base->var->ty->kind == TY_MATRIX)
            return true;
    }
    NodeKids kids = {.n = v};
    for (Node *c; (c = lang_next_kid(&kids));)
        if (reads_at_distance(c, dist, depth + 1)) return true;
    return false;
}

/* A matrix read in a border rule's value whose index the host cannot
 * evaluate before the iterator runs (a matrix element, a call): such a read
 * could lie outside its matrix and nothing would check it (the host checks
 * every other; emit_host_rules.c). The index, or NULL. */
static const Node *unchecked_index(const Node *v, int depth)
{
    if (!v || depth > 400) return NULL;
    if (v->kind == ND_INDEX) {
        const Node *base = v;
        while (base->kind == ND_INDEX) base = base->lhs;
        const Obj *m = base->kind == ND_VAR ? base->var : NULL;
        if (m && m->ty && m->ty->kind == TY_MATRIX && !m->is_small_const)
            for (const Node *ix = v; ix->kind == ND_INDEX; ix = ix->lhs)
                if (ix->rhs && ix->rhs->kind != ND_WILDCARD && !lang_host_value(ix->rhs, 0)) return ix->rhs;
    }
    NodeKids kids = {.n = (Node *)v};
    for (const Node *c; (c = lang_next_kid(&kids));) {
        const Node *bad = unchecked_index(c, depth + 1);
        if (bad) return bad;
    }
    return NULL;
}

/* How far the region's reads of the matrix of rule rr->rule reach past it
 * (rr's widths and index forms), checked against the rule. */
static void check_border(const Program *prog, Region *r, RuleReach *rr)
{
    Iterator *it = r->iter;
    BorderRule *rule = rr->rule;
    Obj *v = rule->var;
    int nd = v->ty->ndim;
    for (int d = 0; d < 3; d++) rr->aff[d].axis = -1;
    for (const BorderEntry *e = rule->entries; e && !rule->entries_checked; e = e->next) {
        const Node *bad = unchecked_index(e->value, 0);
        if (bad)
            diag_error_tok(bad->tok, "border rule '%s' reads a matrix at an index the host cannot evaluate before "
                           "the iterator runs (a matrix element or a call is in it): the read could lie outside "
                           "its matrix and nothing would check it; index a rule's values with constants, "
                           "arguments, the rule's distance and '*'", rule->name);
    }
    rule->entries_checked = true; /* once, whichever iterators name the rule */
    LoopBound bounds[MAX_LOOP_BOUNDS];
    int nbounds = 0;
    collect_loop_bounds(prog, it->body, bounds, &nbounds, 0);
    /* the run-time windows' reaches, taken once the other reads fixed the index forms */
    enum { MAX_CAND = 3 * MAX_RUN_TIME_REACH };
    typedef struct Candidate {
        int d;
        Affine f;
        RunTimeReach reach;
        Token *tok;
    } Candidate;
    Token *unknown = NULL; /* a run-time window whose reach is not known: every iteration tests */
    Candidate cand[MAX_CAND];
    int ncand = 0;
    bool run_time_axis[3] = {false, false, false};
    for (Access *a = r->accesses; a; a = a->next) {
        if (a->var != v || a->is_write) continue;
        bool out[3] = {false, false, false}, dyn = false;
        long alo[3] = {a->lo[0], a->lo[1], a->lo[2]}, ahi[3] = {a->hi[0], a->hi[1], a->hi[2]};
        for (int d = 0; d < nd; d++) {
            Affine f = a->aff[d];
            if (!f.ok && (rule->width_lo[d] > 0 || rule->width_hi[d] > 0)) {
                /* an offset held in loop variables of known bounds: its reach is known too */
                Node *ix = a->node->idx[d];
                const bool slice = ix->kind == ND_SLICE;
                const long len = slice ? ix->axis : 1, st = slice ? ix->reduction_id : 1;
                if (slice && len == 0) {
                    /* a run-time length: its reach is not known when compiling, so the
                     * rule must give every distance; where the window starts at
                     * coef * index + a host value, the host computes the reach and
                     * the interior before the iterator runs, else every iteration tests */
                    if (rule->width_lo[d] == PARAC_SIDE_ANY && rule->width_hi[d] == PARAC_SIDE_ANY) {
                        out[d] = dyn = run_time_axis[d] = true;
                        int axis;
                        long coef;
                        Node *rest;
                        if (ncand < MAX_CAND &&
                            lang_split_index_term(lang_inline_locals(ix->lhs, r->iter, 0), r->iter, &axis, &coef,
                                                  &rest) &&
                            coef > 0)
                            cand[ncand++] = (Candidate){d, {.ok = true, .axis = axis, .coef = coef},
                                                        {.rest = rest, .len = ix->rhs, .step = st}, a->node->tok};
                        else
                            rr->everywhere = true, unknown = a->node->tok;
                    } else
                        diag_error_tok(a->node->tok, "this window of '%s' has a run-time length, and border rule "
                                       "'%s' gives values at fixed distances only: its reach is not known, so the "
                                       "rule needs entries at every distance on both sides (parac_border_rule %s(d) "
                                       "{ %s[...-d...] = ...; %s[...+d...] = ...; })", v->name, rule->name,
                                       rule->name, v->name, v->name);
                    continue;
                }
                int axis;
                long coef, lo, hi;
                if (lang_bounded_index(slice ? ix->lhs : ix, bounds, nbounds, &axis, &coef, &lo, &hi) && axis >= 0 &&
                    coef > 0) {
                    f = (Affine){.ok = true, .axis = axis, .coef = coef, .offset = lo};
                    alo[d] = lo;
                    ahi[d] = hi + (len - 1) * st;
                }
            }
            if (!f.ok && (rule->width_lo[d] > 0 || rule->width_hi[d] > 0)) {
                /* where such an index falls outside the image nothing would give it the rule's value */
                diag_error_tok(a->node->tok, "this read of '%s' is under border rule '%s', but its %s index is not a "
                               "constant times an index variable plus a constant and loop variables of constant bounds "
                               "(a local or a loop variable whose range is not known holds part of it): the "
                               "compiler cannot tell where it leaves the image, so the rule could not apply; index "
                               "with the iterator's variables, constants and `for (int i = A; i <= B; i++)` "
                               "variables, or read a window", v->name, rule->name,
                               nd == 1 ? "" : nd == 3 && d == 0 ? "plane" : d == nd - 2 ? "row" : "column");
                continue;
            }
            if (!f.ok || f.axis < 0 || f.coef <= 0) continue;
            Affine *b = &rr->aff[d];
            if (b->axis < 0) {
                *b = f;
            } else if (b->axis != f.axis || b->coef != f.coef) {
                diag_error_tok(a->node->tok, "the accesses of '%s' use different index forms on one axis; "
                               "border rule '%s' cannot split the iteration space", v->name, rule->name);
                continue;
            }
            long lo = alo[d], hi = ahi[d];
            if (lo < 0) {
                out[d] = true;
                if (-lo > rr->need_lo[d]) rr->need_lo[d] = (int)-lo;
                if (-lo > rule->width_lo[d])
                    diag_error_tok(a->node->tok, "this access of '%s' reaches %ld %s before the image but "
                                   "border rule '%s' covers %d", v->name, -lo, side_name(d, nd),
                                   rule->name, rule->width_lo[d]);
            }
            if (hi > 0) {
                out[d] = true;
                if (hi > rr->need_hi[d]) rr->need_hi[d] = (int)hi;
                if (hi > rule->width_hi[d])
                    diag_error_tok(a->node->tok, "this access of '%s' reaches %ld %s after the image but "
                                   "border rule '%s' covers %d", v->name, hi, side_name(d, nd),
                                   rule->name, rule->width_hi[d]);
            }
        }
        if (dyn && out[0] + out[1] + out[2] >= 2) {
            diag_error_tok(a->node->tok, "this window of '%s' has a run-time length and leaves the image on two "
                           "axes: its corners lie at run-time distances, which border rule '%s' cannot give (a "
                           "run-time window under a rule leaves the image along its own axis only)", v->name,
                           rule->name);
            return;
        }
        if (nd >= 2 && out[0] + out[1] + out[2] >= 2 && !check_corners(a, rule, out, alo, ahi)) return;
    }
    for (int i = 0; i < ncand && !rr->everywhere; i++) {
        const Candidate *c = &cand[i];
        Affine *b = &rr->aff[c->d];
        if (rr->ndyn[c->d] == MAX_RUN_TIME_REACH || (b->axis >= 0 && (b->axis != c->f.axis || b->coef != c->f.coef))) {
            rr->everywhere = true; /* another index form: every iteration tests */
            unknown = c->tok;
            break;
        }
        if (b->axis < 0) *b = c->f;
        rr->dyn[c->d][rr->ndyn[c->d]++] = c->reach;
    }
    if (rr->everywhere)
        for (int d = 0; d < 3; d++) rr->ndyn[d] = 0;
    for (int d = 0; d < 3; d++)
        if (run_time_axis[d]) { /* the border boxes' reads test this axis */
            rr->fixed_lo[d] = rr->need_lo[d];
            rr->fixed_hi[d] = rr->need_hi[d];
            if (!rr->need_lo[d]) rr->need_lo[d] = 1;
            if (!rr->need_hi[d]) rr->need_hi[d] = 1;
        }
    for (int d = 0; d < nd; d++)
        if (rr->need_lo[d] || rr->need_hi[d]) r->has_border = true;
    if (rr->everywhere) r->has_border = true;
    /* Reads of unknown reach may fall any distance outside, so an entry at
     * every distance that reads a matrix at a place moving with the distance
     * could read outside that matrix too, and the host cannot check it
     * before the iterator runs (host_check_rule_values checks the others). */
    for (const BorderEntry *e = rule->entries; unknown && rule->dist && e; e = e->next)
        if (reads_at_distance(e->value, rule->dist, 0)) {
            diag_error_tok(e->tok, "border rule '%s' reads a matrix at a place that moves with '%s', and the window "
                           "of '%s' at line %d has a reach the host cannot compute before the iterator runs (a "
                           "matrix element or a local of several values is in its start, or windows on its axis "
                           "start at other multiples of the index): its reads may fall any distance outside, where "
                           "this entry's read could lie outside its matrix and nothing could check it; start the "
                           "window at a constant times an index variable plus values the host knows (arguments, "
                           "constants), or give this entry a value that does not move with '%s' (a constant, an "
                           "element at a fixed place)", rule->name, rule->dist->name, v->name, unknown->line,
                           rule->dist->name);
            return;
        }
}

static void analyse_region(const Program *prog, Region *r)
{
    r->vector_width = 1;
    if (!r->iter) {
        r->cls = CLASS_GLOBAL;
        r->wg[0] = 256;
        r->wg[1] = r->wg[2] = 1;
        VarUse *u = var_use(r, r->red_var);
        u->read = true;
        u->range_known = false;
        return;
    }
    Iterator *it = r->iter;
    for (Access *a = r->accesses; a; a = a->next) {
        VarUse *u = var_use(r, a->var);
        if (a->is_write) u->written = true;
        else u->read = true;
        Node *n = a->node;
        for (int d = 0; d < a->ndim; d++) {
            Node *ix = n->idx[d];
            long len = 1, st = 1;
            Node *start = ix;
            if (ix->kind == ND_SLICE) {
                len = ix->axis;
                st = ix->reduction_id;
                start = ix->lhs;
            }
            Affine f = lang_affine(start);
            if (ix->kind == ND_SLICE && len == 0) {
                /* a run-time length: where it reaches is not known */
                f.ok = false;
                u->chunk = true;
            }
            if (f.ok && f.axis >= 0 && it->iter_element && it->elem[f.axis] > 1) {
                /* iter_element: the index variable steps by the element size */
            }
            a->aff[d] = f;
            a->lo[d] = f.offset;
            a->hi[d] = f.offset + (len - 1) * st;
            if (!f.ok) {
                u->range_known = false;
                continue;
            }
            if (a->lo[d] < u->lo[d]) u->lo[d] = a->lo[d];
            if (a->hi[d] > u->hi[d]) u->hi[d] = a->hi[d];
            if (ix->kind == ND_SLICE && len > 1) u->chunk = true;
        }
    }
    bool block = false;
    for (VarUse *u = r->vars; u; u = u->next) {
        int nd = u->var->ty->ndim;
        if (u->range_known && u->read) {
            for (int d = 0; d < nd; d++)
                if (u->hi[d] > u->lo[d]) u->chunk = true;
        }
        if (u->chunk && u->read) {
            block = true;
            if (u->range_known) {
                u->hreuse = u->hi[nd - 1] > u->lo[nd - 1];
                u->vreuse = nd >= 2 && u->hi[nd - 2] > u->lo[nd - 2];
            } else
                u->hreuse = u->vreuse = true;
        }
    }
    r->cls = block ? CLASS_LOCAL_BLOCK : CLASS_POINT;
    r->nreach = 0;
    for (int i = 0; i < it->nrules; i++) {
        RuleReach *rr = &r->reach[r->nreach++];
        *rr = (RuleReach){.rule = it->rules[i]};
        if (it->rules[i]->var) check_border(prog, r, rr);
    }
    /* plan defaults: x of the work-group runs along the last iterator axis */
    if (it->ndim == 1) {
        r->wg[0] = 256;
        r->wg[1] = r->wg[2] = 1;
    } else if (it->ndim == 2) {
        r->wg[0] = 32;
        r->wg[1] = 8;
        r->wg[2] = 1;
    } else {
        r->wg[0] = 32;
        r->wg[1] = 4;
        r->wg[2] = 2;
    }
}

void analyse_program(Program *prog)
{
    for (Region *r = prog->regions; r; r = r->next) analyse_region(prog, r);
}
