/* The optimisation model (the paper's Algorithm 1) for the OpenCL target.
 * Per parallel region it decides:
 * - the vector width V: each work-item computes V neighbouring outputs along
 *   the last iterator axis (the paper's vector parallelism), so loads shared
 *   by neighbouring outputs (horizontal reuse) are made once and narrow
 *   pixels are handled V at a time;
 * - which point writes merge into one vector store: the V values go to a
 *   private array and leave in one aligned store (the padded pitch keeps
 *   rows aligned), the paper's "defer adjacent stores";
 * - restrict-qualified matrix arguments: every matrix is its own device
 *   buffer, so the kernel compiler may keep loads across stores.
 * Every decision records its reason for --explain. */
#include <stdio.h>
#include <string.h>

#include "lang/lang.h"

/* Statements that leave an iteration early or jump: a coarsened loop would
 * change their meaning. */
static bool has_jump(Node *n)
{
    for (; n; n = n->next) {
        switch (n->kind) {
        case ND_RETURN: case ND_GOTO: case ND_LABEL: return true;
        default: break;
        }
        if (has_jump(n->then) || has_jump(n->els) || has_jump(n->body)) return true;
        if (n->kind == ND_BLOCK && has_jump(n->args)) return true;
        if ((n->kind == ND_CASE || n->kind == ND_DEFAULT) && has_jump(n->lhs)) return true;
    }
    return false;
}

static bool vector_type_ok(const Type *t)
{
    if (!t || !ty_is_arith(t) || t->kind == TY_BOOL || t->kind == TY_LDOUBLE) return false;
    size_t s = ty_size(t);
    return s == 1 || s == 2 || s == 4 || s == 8;
}

/* Whether n is the target of one of the body's own statements `M[..] = v;`. */
static bool top_level_write(Node *body, Node *n)
{
    for (Node *s = body && body->kind == ND_BLOCK ? body->args : body; s; s = s->next) {
        if (s->kind == ND_EXPR_STMT && s->lhs && s->lhs->kind == ND_ASSIGN && !strcmp(s->lhs->op, "=") &&
            s->lhs->lhs == n)
            return true;
        if (body->kind != ND_BLOCK) break;
    }
    return false;
}

/* A write that can merge: `M[...][it + 0] = value;` as a statement of the
 * body itself (executed once per iteration), M a point matrix not read in
 * the region, the other indices free of the vector axis. M may be written
 * by several such statements (the planes of a fused channel loop): each
 * merges on its own, and their stores keep the statements' order. */
static bool mergeable(Region *r, Node *stmt, int axis, long step)
{
    if (stmt->kind != ND_EXPR_STMT || !stmt->lhs || stmt->lhs->kind != ND_ASSIGN) return false;
    Node *as = stmt->lhs;
    if (strcmp(as->op, "=") || !as->lhs || as->lhs->kind != ND_MAT_ELEM) return false;
    if (as->rhs && as->rhs->kind == ND_ASSIGN) return false;
    Obj *m = as->lhs->var;
    if (!m || !vector_type_ok(m->ty->base) || step != 1) return false;
    Access *w = NULL;
    for (Access *a = r->accesses; a; a = a->next) {
        if (a->var != m) continue;
        if (!a->is_write) return false; /* read in the region */
        if (!top_level_write(r->iter->body, a->node)) return false; /* also written under a condition */
        if (a->node == as->lhs) w = a;
    }
    if (!w || w->ndim != m->ty->ndim) return false;
    for (int d = 0; d < w->ndim; d++) {
        const Affine *f = &w->aff[d];
        if (!f->ok) return false;
        bool last = d == w->ndim - 1;
        if (last && !(f->axis == axis && f->coef == 1 && f->offset == 0)) return false;
        if (!last && f->axis == axis) return false;
    }
    return true;
}

static bool written_in(Region *r, Obj *m)
{
    for (Access *a = r->accesses; a; a = a->next)
        if (a->var == m && a->is_write) return true;
    return false;
}

static long floor_div(long a, long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* Adds the columns lo..hi of the row `other` of m to the load plan. */
static bool add_load(Region *r, Obj *m, const Affine *other, int nother, long lo, long hi)
{
    for (int i = 0; i < r->nloads; i++) {
        LoadRow *g = &r->loads[i];
        if (g->var != m) continue;
        bool same = true;
        for (int d = 0; d < nother; d++)
            same &= g->other[d].axis == other[d].axis && g->other[d].coef == other[d].coef &&
                    g->other[d].offset == other[d].offset;
        if (!same) continue;
        if (lo < g->lo) g->lo = lo;
        if (hi > g->hi) g->hi = hi;
        return true;
    }
    if (r->nloads == (int)(sizeof r->loads / sizeof r->loads[0])) return false;
    LoadRow *g = &r->loads[r->nloads++];
    memset(g, 0, sizeof *g);
    g->var = m;
    for (int d = 0; d < nother; d++) g->other[d] = other[d];
    g->lo = lo;
    g->hi = hi;
    return true;
}

/* Reads `M[...][it + c]` (windows included) of matrices the region does not
 * write: every row a work-item reads is loaded once as aligned vectors. */
static bool plan_loads(Region *r, int axis)
{
    bool covered = true; /* every read that moves with the column is a planned row */
    for (Access *a = r->accesses; a; a = a->next) {
        Obj *m = a->var;
        int nd = a->ndim, last = nd - 1;
        if (a->is_write) continue;
        const Affine *c = &a->aff[last];
        bool moves = !c->ok || c->axis == axis;
        if (nd < 2 || nd != m->ty->ndim || !vector_type_ok(m->ty->base) || written_in(r, m) || !c->ok ||
            c->axis != axis || c->coef != 1 || a->hi[last] - a->lo[last] > 64) {
            covered &= !moves;
            continue;
        }
        bool ok = true;
        long step[2] = {1, 1};
        for (int d = 0; d < last; d++) {
            ok &= a->aff[d].ok && a->aff[d].axis != axis;
            Node *ix = a->node->idx[d];
            if (ix->kind == ND_SLICE && ix->reduction_id > 0) step[d] = ix->reduction_id;
        }
        if (!ok) {
            covered = false;
            continue;
        }
        /* one row per combination of the other indices' window offsets */
        Affine other[2] = {a->aff[0], last > 1 ? a->aff[1] : a->aff[0]};
        for (long o0 = a->lo[0]; ok && o0 <= a->hi[0]; o0 += step[0]) {
            other[0].offset = o0;
            if (last == 1) {
                ok = add_load(r, m, other, 1, a->lo[last], a->hi[last]);
                continue;
            }
            for (long o1 = a->lo[1]; ok && o1 <= a->hi[1]; o1 += step[1]) {
                other[1].offset = o1;
                ok = add_load(r, m, other, 2, a->lo[last], a->hi[last]);
            }
        }
        if (!ok) { /* out of rows: the rest stay plain loads */
            covered = false;
            break;
        }
    }
    return covered;
}

/* The aligned vectors of each planned row, once the width is known. */
static void size_loads(Region *r)
{
    long V = r->vector_width;
    for (int i = 0; i < r->nloads; i++) {
        LoadRow *g = &r->loads[i];
        g->base = floor_div(g->lo, V) * V;
        g->nvec = (int)(floor_div(V - 1 + g->hi, V) - floor_div(g->lo, V) + 1);
    }
}

/* A body of expression statements and declarations only. */
static bool straight_line(Node *body)
{
    if (!body) return false;
    if (body->kind != ND_BLOCK) return body->kind == ND_EXPR_STMT;
    for (Node *s = body->args; s; s = s->next)
        if (s->kind != ND_EXPR_STMT && s->kind != ND_DECL && s->kind != ND_NULL_STMT) return false;
    return true;
}

static void plan_rows(const CompileOptions *opt, Region *r);
static void plan_tiles(const CompileOptions *opt, Region *r);

/* Whether a work-item of r whose outputs all lie inside runs them with no
 * test between them (-fwhole-items): one basic block, where the kernel
 * compiler computes once what neighbouring outputs share. Only for one row
 * per work-item: with several, the values rows share are already cached per
 * held row and column (plan_cache.c), and on the H200 the second copy of the
 * body cost more than it saved (blur, 1536 x 2560: 10.2 -> 12.0 us). */
bool plan_whole_items(const Region *r)
{
    return r->whole_items && r->vector_width > 1 && r->rows_per_item == 1;
}

static void plan_region(const CompileOptions *opt, Region *r)
{
    r->vector_width = 1;
    r->whole_items = plan_flag(opt, opt->whole_items, 1);
    r->use_local_tiles = false;
    r->tile_bytes = 0;
    r->why_tiles = NULL;
    r->nvariants = 0;
    r->rows_per_item = 1;
    r->nrowvars = 0;
    r->why_rows = NULL;
    r->nfcache = 0;
    r->nmerge = 0;
    r->nloads = 0;
    r->why_merge = NULL;
    r->why_loads = NULL;
    if (!r->iter) {
        r->why_vector = "an independent reduction: per-work-item partial sums, then a tree in local memory";
        return;
    }
    /* the interior and its border boxes in one launch (2D and 1D regions:
     * the border's blocks come after the interior's rows) */
    r->one_launch = opt && target_has_device(opt->target) && r->has_border && r->iter->ndim <= 2 &&
                    plan_flag(opt, opt->one_launch, 1);
    if (!opt || !target_has_device(opt->target)) {
        r->why_vector = "the C target: the C compiler vectorises the OpenMP loops";
        return;
    }
    if (r->iter->nstages) {
        /* stages in local memory (fuse_tile.c): a work-group computes a tile
         * of 32 x 64 outputs, each work-item a column of 8 rows of them, so
         * that the halo's share of the tiles stays small (gray and hblur of
         * the unsharp mask: 1.30 and 1.19 cells per output) */
        r->wg[0] = STAGE_WG_X;
        r->wg[1] = STAGE_WG_Y;
        r->wg[2] = 1;
        r->rows_per_item = lang_stage_rows(opt);
        r->why_vector = "the stages' tiles are read one output per work-item";
        r->why_rows = lang_format("%sa work-group's tile of %d x %d outputs, %d rows each work-item, interleaved",
                                  opt->rows_per_item > 0 ? "--rows-per-item: " : "", STAGE_WG_Y * r->rows_per_item,
                                  STAGE_WG_X, r->rows_per_item);
        r->why_tiles = "the stages' tiles take the local memory";
        return;
    }
    if (!plan_flag(opt, opt->vectorize, 1)) {
        r->why_vector = opt->opt_level == 0 ? "-O0" : "-fno-vectorize";
        return;
    }
    Iterator *it = r->iter;
    int axis = it->ndim - 1;
    if (it->iter_element && it->elem[axis] > 1) {
        r->why_vector = "iter_element: every work-item already writes a block";
        return;
    }
    if (has_jump(it->body)) {
        r->why_vector = "the body returns or jumps: iterations cannot share a work-item";
        return;
    }
    /* Two outputs per work-item: on H100 (NVIDIA OpenCL) every example ran
     * fastest with 2 of 1, 2, 4 and 8; wider work-items spread a warp's
     * loads over more sectors and hold more registers
     * (bench/parac/results/first-plan-v8*.txt). The search will try others. */
    int v = 2;
    bool hreuse = false, vreuse = false;
    for (VarUse *u = r->vars; u; u = u->next) hreuse |= u->hreuse, vreuse |= u->vreuse;
    const char *why;
    if (opt->vector_width > 0) {
        v = opt->vector_width;
        why = "--vector-width";
    } else if (hreuse)
        why = "horizontal reuse: neighbouring outputs share their loads, and their stores merge";
    else if (vreuse)
        why = "vertical reuse only (outputs along y too: rows per work-item, below): the stores merge";
    else
        why = "point access: neighbouring outputs' stores merge";
    r->vector_width = v;
    r->why_vector = why;
    if (v == 1) return;
    long step = it->r[axis].stride * (it->iter_element ? it->elem[axis] : 1);
    bool covered = false;
    if (step != 1)
        r->why_loads = "the iterator's last axis steps by more than 1";
    else if (!plan_flag(opt, opt->vector_loads, 1))
        r->why_loads = "-fno-vector-loads";
    else {
        covered = plan_loads(r, axis);
        r->why_loads = r->nloads ? "rows read at unit stride along the last axis, of matrices the region does not write"
                                 : "no read qualifies (stride along the last axis, or the matrix is written here)";
    }
    if (!plan_flag(opt, opt->merge_stores, 1))
        r->why_merge = "-fno-merge-stores";
    else {
        Node *body = it->body;
        for (Node *s = body && body->kind == ND_BLOCK ? body->args : body; s; s = s->next) {
            if (r->nmerge < 8 && mergeable(r, s, axis, step)) r->merge_lhs[r->nmerge++] = s->lhs->lhs;
            if (body->kind != ND_BLOCK) break;
        }
        r->why_merge = r->nmerge ? "unit-stride point writes, once per iteration, of matrices the region does not read"
                                 : "no point write of the body qualifies (stride, reads of the target, or nested in control flow)";
    }
    /* A straight-line stencil whose every moving read is a vector-loaded
     * row, and whose every moving write a merged store: 16 bytes per vector
     * of its widest matrix (at most 8 outputs). On H100 this took the u16
     * blur from 0.140 to 0.122 ms at 4096^2. Other bodies keep 2. */
    int moving_writes = 0; /* writes that move with the column: the merged ones must be all */
    for (Access *a = r->accesses; a; a = a->next)
        if (a->is_write && (!a->aff[a->ndim - 1].ok || a->aff[a->ndim - 1].axis == axis)) moving_writes++;
    if (covered && r->nloads && opt->vector_width == 0 && straight_line(it->body) && moving_writes == r->nmerge) {
        size_t widest = 1;
        for (int i = 0; i < r->nloads; i++) {
            size_t z = ty_size(r->loads[i].var->ty->base);
            if (z > widest) widest = z;
        }
        for (Access *a = r->accesses; a; a = a->next)
            if (a->is_write && ty_size(a->var->ty->base) > widest) widest = ty_size(a->var->ty->base);
        int w = (int)(16 / widest);
        if (w > 8) w = 8;
        if (w > r->vector_width) {
            r->vector_width = w;
            r->why_vector = lang_format("a straight-line stencil whose moving reads are all vector loads: "
                                        "%d outputs, 16 bytes of its widest matrix", w);
        }
    }
    /* Loads of two narrow elements cost more in guards than they save (on
     * H100 the sharpening's overshoot kernel ran at 0.092 ms with them, 0.061
     * without): below the wide width, rows stay plain loads. */
    if (opt->vector_width == 0 && r->nloads && r->vector_width == 2) {
        r->nloads = 0;
        r->why_loads = "a body that is not a straight-line stencil of merged writes keeps 2 outputs: loads of 2 "
                       "elements cost more than they save";
    }
    /* Nothing shared and nothing merged: a second output per work-item only
     * halves the work-items. (On the H200 the sharpening's column border,
     * 383 outputs whose stores are a row apart, took 12.9 us so.) */
    if (opt->vector_width == 0 && r->vector_width > 1 && !hreuse && !r->nmerge && !r->nloads) {
        r->vector_width = 1;
        r->why_vector = "no neighbouring outputs share a load or merge a store: one output per work-item";
        r->why_loads = r->why_merge = NULL;
        return;
    }
    size_loads(r);
    plan_rows(opt, r);
    plan_tiles(opt, r);
}

/* Rows per work-item: a 2D coarsened region whose every loaded row moves
 * with the first axis (row x + o) computes R rows of V outputs, and loads
 * each row its R rows read once (row x + o of output r is row x + o + 1 of
 * output r - 1): a stencil read down a column costs R + height - 1 row loads
 * instead of R * height. */
static void plan_rows(const CompileOptions *opt, Region *r)
{
    r->rows_per_item = 1;
    r->nrowvars = 0;
    for (int i = 0; i < r->nloads; i++) r->loads[i].rv = -1;
    Iterator *it = r->iter;
    /* The paper's rule: vertical reuse, outputs along y too. 4 rows: on the
     * H100 (CUDA) the Gaussian at 4096² took 0.060 / 0.056 / 0.061 ms with
     * 2 / 4 / 8 rows against 0.071 with one, the blur 0.049 / 0.047 / 0.051
     * against 0.054; without vertical reuse 4 rows still helped the
     * Laplacian level (0.078 against 0.083 ms) and left unsharp level
     * (bench/parac/results/rows-2026-11-25.txt). */
    bool vreuse = false;
    for (VarUse *u = r->vars; u; u = u->next) vreuse |= u->vreuse;
    int R = opt->rows_per_item > 0 ? opt->rows_per_item : 4;
    if (R > 16) R = 16;
    if (R <= 1) {
        r->why_rows = "--rows-per-item 1";
        return;
    }
    if (it->ndim != 2 || it->iter_element || it->r[0].stride != 1 || r->vector_width < 2 || !r->nloads) {
        r->why_rows = "only 2D regions of unit stride whose rows are vector loads";
        return;
    }
    const long V = r->vector_width;
    long bytes = 0;
    for (int i = 0; i < r->nloads; i++) {
        LoadRow *g = &r->loads[i];
        if (g->var->ty->ndim != 2 || g->other[0].axis != 0 || g->other[0].coef != 1) {
            r->why_rows = "a loaded row does not move with the first axis";
            r->nrowvars = 0;
            return;
        }
        int k = 0;
        while (k < r->nrowvars && r->rowvars[k].var != g->var) k++;
        if (k == r->nrowvars) {
            if (k == 8) {
                r->why_rows = "more than 8 matrices loaded";
                r->nrowvars = 0;
                return;
            }
            r->rowvars[k] = (RowVar){g->var, g->other[0].offset, g->other[0].offset, g->base, g->nvec};
            r->nrowvars++;
        }
        RowVar *rv = &r->rowvars[k];
        const long end = rv->base + rv->nvec * V, gend = g->base + g->nvec * V;
        if (g->other[0].offset < rv->amin) rv->amin = g->other[0].offset;
        if (g->other[0].offset > rv->amax) rv->amax = g->other[0].offset;
        if (g->base < rv->base) rv->base = g->base;
        rv->nvec = (int)(((gend > end ? gend : end) - rv->base) / V);
        g->rv = k;
    }
    for (int k = 0; k < r->nrowvars; k++) {
        RowVar *rv = &r->rowvars[k];
        rv->amax += R - 1;
        bytes += (rv->amax - rv->amin + 1) * rv->nvec * V * (long)ty_size(rv->var->ty->base);
    }
    if (bytes > 2048) { /* private rows beyond this spill from registers */
        r->why_rows = "the rows would not stay in registers";
        r->nrowvars = 0;
        for (int i = 0; i < r->nloads; i++) r->loads[i].rv = -1;
        return;
    }
    r->rows_per_item = R;
    r->why_rows = lang_format("%s: each row loaded once for the %d rows of outputs that read it (%ld bytes per work-item)",
                              opt->rows_per_item > 0 ? "--rows-per-item"
                              : vreuse ? "vertical reuse (the paper: outputs along y)"
                                       : "more outputs per work-item, fewer work-items",
                              R, bytes);
}

/* Local-memory tiles (the paper's chunk variables in local memory): the
 * rows of a work-group's R-row work-items, loaded once by the whole group
 * into a tile with its halo, coalesced, then read by each work-item. Only
 * in one-launch kernels, whose work-group shape the tile is sized for (a
 * launch may shrink the shape, never widen it). */
enum { TILE_LIMIT = 32768 }; /* bytes per work-group: OpenCL 1.2's minimum local memory, within CUDA's 48 KB */

static void plan_tiles(const CompileOptions *opt, Region *r)
{
    if (!opt || !target_has_device(opt->target) || !r->iter) return;
    if (opt->local_memory == 0 || opt->opt_level == 0) {
        r->why_tiles = opt->opt_level == 0 ? "-O0" : "-fno-local-memory";
        return;
    }
    if (r->rows_per_item < 2 || !r->nrowvars || !r->one_launch) {
        r->why_tiles = "only for regions of rows per work-item run in one launch (their work-group shape is fixed)";
        return;
    }
    const long R = r->rows_per_item, V = r->vector_width, GX = r->wg[0], GY = r->wg[1];
    long bytes = 0, tiled = 0, direct = 0;
    for (int k = 0; k < r->nrowvars; k++) {
        const RowVar *rv = &r->rowvars[k];
        const long rows = rv->amax - rv->amin + 1, tr = (GY - 1) * R + rows, tc = GX + rv->nvec - 1;
        bytes += tr * tc * V * (long)ty_size(rv->var->ty->base);
        tiled += tr * tc;
        direct += GX * GY * rows * rv->nvec;
    }
    r->tile_bytes = bytes;
    if (bytes > TILE_LIMIT) {
        r->tile_bytes = 0;
        r->why_tiles = lang_format("%ld bytes per work-group, over the %d-byte limit", bytes, (int)TILE_LIMIT);
        return;
    }
    /* the reuse threshold: the group's own loads at most half of what its
     * work-items would load one by one */
    if (2 * tiled > direct) {
        r->tile_bytes = 0;
        r->why_tiles = lang_format("too little reuse between work-items (%ld vectors loaded by the group against "
                                   "%ld by its work-items)", tiled, direct);
        return;
    }
    /* bench/parac/results/candidates-2026-11-26.txt: tiled against untiled,
     * CUDA on the H200, gaussian 0.064 / 0.050 ms at 4096^2, the others
     * within 5 % either way */
    r->use_local_tiles = opt->local_memory == 1;
    r->why_tiles = lang_format("%s: %ld bytes per work-group of %ldx%ld, %ld vector loads instead of %ld",
                               r->use_local_tiles ? "-flocal-memory"
                                                  : "not in the model's kernel (on the H200 the tiled kernels took 0.95 "
                                                    "to 1.27 times as long: the L1 cache already serves the rows' re-reads; "
                                                    "the search times the tiled kernel)",
                               bytes, GX, GY, tiled, direct);
}

/* The search's candidates: the region planned again with another vector
 * width, other rows per work-item, or the other choice of tiles. Each is a
 * kernel of its own (NAME_v<k>_all) with the same arguments. */
static void add_variant(const CompileOptions *opt, Region *r, const char *what, int V, int R, int tiles)
{
    if (r->nvariants == (int)(sizeof r->variants / sizeof r->variants[0])) return;
    CompileOptions o = *opt;
    o.explain_out = NULL;
    o.vector_width = V;
    o.rows_per_item = R;
    o.local_memory = tiles;
    Region *v = lang_alloc(sizeof *v);
    *v = *r;
    plan_region(&o, v);
    if (tiles == 1 && !v->use_local_tiles) return;
    if (V && v->vector_width != V) return;
    if (R && v->rows_per_item != R) return;
    /* a plan already among the candidates adds nothing */
    bool same = v->vector_width == r->vector_width && v->rows_per_item == r->rows_per_item &&
                v->use_local_tiles == r->use_local_tiles;
    for (int i = 0; i < r->nvariants && !same; i++) {
        const Region *w = r->variants[i];
        same = v->vector_width == w->vector_width && v->rows_per_item == w->rows_per_item &&
               v->use_local_tiles == w->use_local_tiles;
    }
    if (same) return;
    v->kernel = lang_format("%s_v%d", r->kernel, r->nvariants + 1);
    v->variant_what = what;
    v->next = NULL;
    r->variants[r->nvariants++] = v;
}

/* The local memory a staged region's tiles take with R rows per work-item. */
static long stage_bytes(const Region *r, int R)
{
    long bytes = 0;
    for (int k = 0; k < r->iter->nstages; k++) {
        const Stage *st = &r->iter->stages[k];
        bytes += ((long)STAGE_WG_Y * R + st->lo[0] + st->hi[0]) * (STAGE_WG_X + st->lo[1] + st->hi[1]) *
                 (long)ty_size(st->m->ty->base);
    }
    return bytes;
}

static void plan_variants(const CompileOptions *opt, Region *r)
{
    /* a fusion choice's less fused alternatives are timed with the model's
     * kernel of each region (fuse_choice.c): fewer kernels to compile */
    if (r->iter && r->iter->alt) return;
    if (opt && target_has_device(opt->target) && r->iter && r->iter->nstages && plan_flag(opt, opt->search_variants, 2)) {
        /* staged regions: taller and shorter tiles (on the H200 the unsharp
         * mask's 8 rows were fastest; other devices may differ), within the
         * 48 KB of static local memory a kernel may declare */
        if (r->rows_per_item != 4) add_variant(opt, r, "4 rows per work-item (a tile of 16 x 64 outputs)", 0, 4, 0);
        if (r->rows_per_item != 16 && stage_bytes(r, 16) <= 49152)
            add_variant(opt, r, "16 rows per work-item (a tile of 64 x 64 outputs)", 0, 16, 0);
        return;
    }
    if (!opt || !target_has_device(opt->target) || !r->iter || !r->one_launch || r->vector_width < 2 ||
        !plan_flag(opt, opt->search_variants, 2))
        return;
    const int V = r->vector_width, R = r->rows_per_item;
    const int lm = opt->local_memory;
    if (r->tile_bytes && lm != 0)
        add_variant(opt, r, r->use_local_tiles ? "no local-memory tiles" : "local-memory tiles", 0, 0,
                    r->use_local_tiles ? 0 : 1);
    if (V >= 4) add_variant(opt, r, lang_format("vector width %d", V / 2), V / 2, R, lm == 1 ? 1 : 0);
    if (R > 1) add_variant(opt, r, "one row per work-item", 0, 1, 0);
    /* 2 rows, not 8: on the H200 (CUDA, 2026-11-26) 8 rows was never the
     * fastest, 2 rows was for the sharpening's fused clamp stage (0.0225
     * against 0.0250 ms at 1536x2560, 0.0763 against 0.0849 at 4096²:
     * bench/parac/results/rows-h200-2026-11-26.txt) */
    if (R == 4) add_variant(opt, r, "2 rows per work-item", 0, 2, lm == 1 ? 1 : 0);
}

void plan_program(Program *prog)
{
    for (Region *r = prog->regions; r; r = r->next) {
        plan_region(prog->opt, r);
        plan_variants(prog->opt, r);
    }
}

