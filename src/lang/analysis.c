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
    return axis == 0 ? "rows" : "columns";
}

static void check_border(Region *r)
{
    Iterator *it = r->iter;
    BorderRule *rule = it->rule;
    Obj *v = rule->var;
    int nd = v->ty->ndim;
    for (int d = 0; d < nd; d++) r->border_aff[d].axis = -1;
    for (Access *a = r->accesses; a; a = a->next) {
        if (a->var != v || a->is_write) continue;
        bool out[2] = {false, false};
        for (int d = 0; d < nd; d++) {
            Affine f = a->aff[d];
            if (!f.ok && d < 2 && (rule->width_lo[d] > 0 || rule->width_hi[d] > 0)) {
                /* where such an index falls outside the image nothing would give it the rule's value */
                diag_error_tok(a->node->tok, "this read of '%s' is under border rule '%s', but its %s index is not a "
                               "constant times an index variable plus a constant (a loop variable or a local "
                               "holds part of it): the compiler cannot tell where it leaves the image, so the "
                               "rule could not apply; index with the iterator's variables and constants, or "
                               "read a window", v->name, rule->name, nd == 1 ? "" : d == 0 ? "row" : "column");
                continue;
            }
            if (!f.ok || f.axis < 0 || f.coef <= 0) continue;
            Affine *b = &r->border_aff[d];
            if (b->axis < 0) {
                *b = f;
            } else if (b->axis != f.axis || b->coef != f.coef) {
                diag_error_tok(a->node->tok, "the accesses of '%s' use different index forms on one axis; "
                               "border rule '%s' cannot split the iteration space", v->name, rule->name);
                continue;
            }
            long lo = a->lo[d], hi = a->hi[d];
            if (lo < 0) {
                out[d] = true;
                if (-lo > r->need_lo[d]) r->need_lo[d] = (int)-lo;
                if (-lo > rule->width_lo[d])
                    diag_error_tok(a->node->tok, "this access of '%s' reaches %ld %s before the image but "
                                   "border rule '%s' covers %d", v->name, -lo, side_name(d, nd),
                                   rule->name, rule->width_lo[d]);
            }
            if (hi > 0) {
                out[d] = true;
                if (hi > r->need_hi[d]) r->need_hi[d] = (int)hi;
                if (hi > rule->width_hi[d])
                    diag_error_tok(a->node->tok, "this access of '%s' reaches %ld %s after the image but "
                                   "border rule '%s' covers %d", v->name, hi, side_name(d, nd),
                                   rule->name, rule->width_hi[d]);
            }
        }
        if (nd == 2 && out[0] && out[1]) {
            /* corners this access can reach */
            for (long x = a->lo[0]; x <= a->hi[0]; x++)
                for (long y = a->lo[1]; y <= a->hi[1]; y++) {
                    int sx = x < 0 ? (int)x : 0, sy = y < 0 ? (int)y : 0;
                    if (x > 0) sx = (int)x;
                    if (y > 0) sy = (int)y;
                    if (!sx || !sy) continue;
                    if (sx < -16 || sx > 16 || sy < -16 || sy > 16) continue;
                    bool found = false;
                    for (BorderEntry *e = rule->entries; e; e = e->next)
                        if (e->side[0] == sx && e->side[1] == sy) found = true;
                    if (!found) {
                        diag_error_tok(a->node->tok, "this access of '%s' reaches the corner %s[%+d][%+d] "
                                       "but border rule '%s' gives no value there", v->name, v->name, sx, sy,
                                       rule->name);
                        return;
                    }
                }
        }
    }
    for (int d = 0; d < nd; d++)
        if (r->need_lo[d] || r->need_hi[d]) r->has_border = true;
}

static void analyse_region(Region *r)
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
    if (it->rule && it->rule->var) check_border(r);
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
    for (Region *r = prog->regions; r; r = r->next) analyse_region(r);
}
