/* Queries on the tree and the regions that several passes ask: no pass
 * asks another pass, they all ask here (and types.c, walk.c). */
#include <string.h>

#include "lang/lang.h"

/* Whether every iteration of the region writes m[it0][it1]... (each index
 * exactly its iterator variable, axis by axis) in a statement of the body's
 * top level, and nothing in the region reads m. Then, when the iteration
 * space is m's whole index space (checked at run time), the kernels overwrite
 * every element and m's host copy need not be uploaded first. A matrix with
 * one more (leading) dimension than the iterator counts too when such
 * statements write m[0][it0].., m[1][it0].., ... m[K-1][it0].. (the planes
 * of a fused channel loop, fuse.c): *planes is then K, to be checked
 * against m's first size; else 0. */
bool lang_writes_whole(Region *r, Obj *m, int *planes)
{
    Iterator *it = r->iter;
    const int lead = m->ty->ndim - (it ? it->ndim : 0);
    *planes = 0;
    if (!it || it->iter_element || lead < 0 || lead > 1 || lang_any_jump(it->body)) return false;
    for (int d = 0; d < it->ndim; d++)
        if (it->r[d].stride != 1) return false;
    Node *body = it->body;
    bool seen[16] = {false}, any = false;
    for (Node *st = body && body->kind == ND_BLOCK ? body->args : body; st; st = st->next) {
        Node *as = st->kind == ND_EXPR_STMT ? st->lhs : NULL;
        if (as && as->kind == ND_ASSIGN && !strcmp(as->op, "=") && as->lhs && as->lhs->kind == ND_MAT_ELEM &&
            as->lhs->var == m) {
            const Access *w = NULL;
            for (Access *a = r->accesses; a; a = a->next)
                if (a->node == as->lhs) w = a;
            bool ok = w && w->ndim == m->ty->ndim;
            for (int d = 0; ok && d < it->ndim; d++) {
                const Affine *f = &w->aff[lead + d];
                ok = f->ok && f->axis == d && f->coef == 1 && f->offset == 0;
            }
            if (ok && lead) {
                const Affine *f = &w->aff[0];
                ok = f->ok && f->axis < 0 && f->offset >= 0 && f->offset < 16;
                if (ok) seen[f->offset] = true;
            }
            any |= ok;
        }
        if (body->kind != ND_BLOCK) break;
    }
    if (!any) return false;
    for (Access *a = r->accesses; a; a = a->next)
        if (a->var == m && (!a->is_write || a->is_window)) return false; /* read in the region */
    if (lead) {
        while (*planes < 16 && seen[*planes]) (*planes)++;
        for (int k = *planes; k < 16; k++)
            if (seen[k]) return false; /* a gap: the planes past it are not written */
    }
    return true;
}

static Affine affine(Node *e, int depth)
{
    Affine a = {0};
    if (!e || depth > 50) return a;
    bool ok;
    long v = const_eval(e, &ok);
    if (ok) {
        a.ok = true;
        a.axis = -1;
        a.offset = v;
        return a;
    }
    if (e->kind == ND_ITER_INDEX) {
        a.ok = true;
        a.axis = e->axis;
        a.coef = 1;
        return a;
    }
    if (e->kind == ND_BINARY && (!strcmp(e->op, "+") || !strcmp(e->op, "-"))) {
        Affine l = affine(e->lhs, depth + 1), r = affine(e->rhs, depth + 1);
        if (!l.ok || !r.ok) return a;
        if (l.axis >= 0 && r.axis >= 0) return a;
        long sign = e->op[0] == '-' ? -1 : 1;
        if (r.axis >= 0 && sign < 0) return a;
        a.ok = true;
        a.axis = l.axis >= 0 ? l.axis : r.axis;
        a.coef = l.axis >= 0 ? l.coef : r.coef;
        a.offset = l.offset + sign * r.offset;
        return a;
    }
    if (e->kind == ND_BINARY && !strcmp(e->op, "*")) {
        Affine l = affine(e->lhs, depth + 1), r = affine(e->rhs, depth + 1);
        if (!l.ok || !r.ok) return a;
        if (l.axis >= 0 && r.axis >= 0) return a;
        Affine var = l.axis >= 0 ? l : r, k = l.axis >= 0 ? r : l;
        a.ok = true;
        a.axis = var.axis;
        a.coef = var.coef * k.offset;
        a.offset = var.offset * k.offset;
        if (a.axis >= 0 && a.coef == 0) a.axis = -1;
        return a;
    }
    return a;
}

Affine lang_affine(Node *e) { return affine(e, 0); }

int lang_stage_of(const Iterator *it, const Obj *m)
{
    for (int k = 0; it && k < it->nstages; k++)
        if (it->stages[k].m == m) return k;
    return -1;
}

Node *lang_rule_map(const BorderEntry *e, const Obj *m, int axis)
{
    Node *v = e->value, *ix[2];
    for (int d = 1; d >= 0; d--) {
        if (!v || v->kind != ND_INDEX) return NULL;
        ix[d] = v->rhs;
        v = v->lhs;
    }
    if (!v || v->kind != ND_VAR || v->var != m) return NULL;
    if (ix[1 - axis]->kind != ND_WILDCARD || ix[axis]->kind == ND_WILDCARD) return NULL;
    return ix[axis];
}

int plan_load_row(Region *r, Obj *m, Node **e, const long *add, int n, long *col_offset)
{
    if (!r || !r->iter || n < 2) return -1;
    int axis = r->iter->ndim - 1, last = n - 1;
    Affine f[3];
    for (int d = 0; d < n; d++) {
        f[d] = lang_affine(e[d]);
        if (!f[d].ok) return -1;
        f[d].offset += add[d];
    }
    if (f[last].axis != axis || f[last].coef != 1) return -1;
    for (int i = 0; i < r->nloads; i++) {
        LoadRow *g = &r->loads[i];
        if (g->var != m) continue;
        bool same = true;
        for (int d = 0; d < last; d++)
            same &= g->other[d].axis == f[d].axis && g->other[d].coef == f[d].coef && g->other[d].offset == f[d].offset;
        if (same && f[last].offset >= g->lo && f[last].offset <= g->hi) {
            *col_offset = f[last].offset;
            return i;
        }
    }
    return -1;
}

/* The indices of a MAT_ELEM, or of element (i,j) of a WINDOW. */
int lang_window_axes(const Node *n, int ax[2])
{
    int nw = 0;
    ax[0] = ax[1] = -1;
    for (int d = 0; d < n->nidx; d++)
        if (n->idx[d] && n->idx[d]->kind == ND_SLICE) {
            if (nw < 2) ax[nw] = d;
            nw++;
        }
    return nw;
}

bool lang_window_is_dynamic(const Node *n)
{
    if (!n || n->kind != ND_WINDOW) return false;
    for (int d = 0; d < n->nidx; d++)
        if (n->idx[d] && n->idx[d]->kind == ND_SLICE && n->idx[d]->axis == 0) return true;
    return false;
}

int print_access_indices(Node *n, int i, int j, Node **e, long *add)
{
    int nd = n->nidx;
    int ax[2];
    const int nw = lang_window_axes(n, ax);
    for (int d = 0; d < nd; d++) {
        Node *ix = n->idx[d];
        add[d] = 0;
        if (ix->kind == ND_SLICE) {
            /* which element coordinate drives this axis: of two windowed
             * axes the first is the rows, the second the columns; alone,
             * the last axis is a row of columns, any other a column of rows */
            long k = nw == 2 ? (d == ax[0] ? i : j) : d == nd - 1 ? j : i;
            e[d] = ix->lhs;
            add[d] = k * ix->reduction_id;
        } else
            e[d] = ix;
    }
    return nd;
}

int lang_hist_index(const Region *r, const Obj *m)
{
    for (int k = 0; r && k < r->nhist; k++)
        if (r->hist[k] == m) return k;
    return -1;
}

void lang_hist_element(const Region *r, int k, const char *flat, Node **e)
{
    const Obj *m = r->hist[k];
    const long *dims = r->hist_dims[k];
    const int n = m->ty->ndim;
    const char *ix[3] = {flat, NULL, NULL};
    if (n == 2) {
        ix[0] = lang_format("%s / %ld", flat, dims[1]);
        ix[1] = lang_format("%s %% %ld", flat, dims[1]);
    } else if (n == 3) {
        ix[0] = lang_format("%s / %ld", flat, dims[1] * dims[2]);
        ix[1] = lang_format("%s / %ld %% %ld", flat, dims[2], dims[1]);
        ix[2] = lang_format("%s %% %ld", flat, dims[2]);
    }
    for (int d = 0; d < n; d++) {
        e[d] = new_node(ND_ITER_INDEX, r->node->tok);
        e[d]->name = lang_format("(%s)", ix[d]);
    }
}
