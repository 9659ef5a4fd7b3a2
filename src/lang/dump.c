/* --dump=ast|hast|analysis: each stage in a stable text form, for tests and users. */
#include <string.h>

#include "lang/lang.h"

static const char *kind_name(NodeKind k)
{
    static const char *names[] = {
        "NUM", "STR", "CHAR", "VAR", "BINARY", "ASSIGN", "UNARY", "POSTFIX", "COND", "COMMA", "CALL",
        "INDEX", "MEMBER", "CAST", "SIZEOF", "SIZEOF", "INIT_LIST", "SLICE", "WILDCARD", "MAT_ELEM",
        "WINDOW", "PARAC_OP", "TRANSE", "EWMUL", "ITER_INDEX", "LEVEL", "BLOCK", "EXPR_STMT", "DECL", "IF",
        "FOR", "WHILE", "DO", "RETURN", "BREAK", "CONTINUE", "SWITCH", "CASE", "DEFAULT", "GOTO",
        "LABEL", "NULL_STMT", "ITERATOR", "BORDER_RULE", "FUNC", "DIRECTIVE", "VERBATIM", "PARAM"};
    _Static_assert(sizeof names / sizeof *names == ND_PARAM + 1, "a name for every node kind");
    return (size_t)k < sizeof names / sizeof *names ? names[k] : "?";
}

static void type_str(FILE *o, Type *t)
{
    if (!t) {
        fputs("?", o);
        return;
    }
    if (t->kind == TY_MATRIX) {
        fprintf(o, "%s parac_%s[%dD]", ty_c_name(t->base, false), t->is_vector ? "vector" : "matrix", t->ndim);
        return;
    }
    if (t->kind == TY_PYRAMID) {
        fprintf(o, "%s parac_pyramid[%dD levels]", ty_c_name(t->base, false), t->base->ndim);
        return;
    }
    if (t->kind == TY_SMALL) {
        fprintf(o, "E[%d][%d] of %s", t->rows, t->cols, ty_c_name(t->base, false));
        return;
    }
    if (t->kind == TY_FUNC) {
        fputs("function returning ", o);
        type_str(o, t->base);
        return;
    }
    fputs(ty_c_name(t, false), o);
}

static void dump_node(FILE *o, Node *n, int depth)
{
    if (!n || depth > 200) return;
    fprintf(o, "%*s%s", depth * 2, "", kind_name(n->kind));
    if (n->op) fprintf(o, " '%s'", n->op);
    if (n->name) fprintf(o, " %s", n->name);
    if (n->kind == ND_NUM || n->kind == ND_STR || n->kind == ND_CHARLIT)
        fprintf(o, " %.*s", n->tok->len, n->tok->loc);
    if (n->kind == ND_PARAC_OP) fprintf(o, " %s", parac_op_name(n->pop));
    if ((n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW || n->kind == ND_LEVEL) && n->var) fprintf(o, " %s", n->var->name);
    if (n->kind == ND_SLICE) fprintf(o, " len=%d stride=%d", n->axis, n->reduction_id);
    if (n->ty) {
        fputs(" : ", o);
        type_str(o, n->ty);
    }
    if (n->tok) fprintf(o, "  @%d:%d", n->tok->line, n->tok->col);
    fputc('\n', o);
    if (n->kind == ND_ITERATOR && n->iter) {
        Iterator *it = n->iter;
        for (int d = 0; d < it->ndim; d++) {
            fprintf(o, "%*srange %c stride %ld\n", depth * 2 + 2, "", "xyz"[d], it->r[d].stride);
            dump_node(o, it->r[d].lb, depth + 2);
            dump_node(o, it->r[d].ub, depth + 2);
        }
        for (Node *nm = it->rule_name; nm; nm = nm->next)
            fprintf(o, "%*sborder_rule %s\n", depth * 2 + 2, "", nm->name);
    }
    if (n->kind == ND_DECL || n->kind == ND_PARAM) {
        if (n->decls == NULL && n->name) {
            fprintf(o, "%*stype ", depth * 2 + 2, "");
            type_str(o, n->ty);
            fputc('\n', o);
        }
        for (Node *d = n->decls; d; d = d->next) {
            fprintf(o, "%*sdeclarator %s : ", depth * 2 + 2, "", d->name ? d->name : "?");
            type_str(o, d->var ? d->var->ty : d->ty);
            if (d->is_typedef && d->ty && d->ty->kind == TY_MATRIX) fputs(" (reference)", o);
            fputc('\n', o);
            if (d->init) dump_node(o, d->init, depth + 2);
        }
    }
    for (int i = 0; i < n->nidx; i++) dump_node(o, n->idx[i], depth + 1);
    dump_node(o, n->lhs, depth + 1);
    dump_node(o, n->rhs, depth + 1);
    dump_node(o, n->cond, depth + 1);
    dump_node(o, n->then, depth + 1);
    dump_node(o, n->els, depth + 1);
    dump_node(o, n->init, depth + 1);
    dump_node(o, n->inc, depth + 1);
    if (n->kind != ND_ITERATOR || !n->iter) dump_node(o, n->body, depth + 1);
    else dump_node(o, n->iter->body, depth + 1);
    if (n->kind == ND_FUNC && n->ty)
        for (Node *q = n->ty->params; q; q = q->next) dump_node(o, q, depth + 1);
    if (n->kind == ND_BORDER_RULE) {
        for (Node *s = n->body; s && !n->rule; s = s->next) dump_node(o, s, depth + 1);
        if (n->rule)
            for (BorderEntry *e = n->rule->entries; e; e = e->next) {
                fprintf(o, "%*sentry [%d][%d]%s\n", depth * 2 + 2, "", e->side[0], e->side[1],
                        e->side[2] ? lang_format("[%d]", e->side[2]) : "");
                dump_node(o, e->value, depth + 2);
            }
    }
    for (Node *a = n->args; a; a = a->next) dump_node(o, a, depth + 1);
}

void dump_ast(Program *prog, FILE *o)
{
    for (Node *n = prog->top; n; n = n->next) dump_node(o, n, 0);
}

static const char *cls(OpClass c)
{
    return c == CLASS_POINT ? "point" : c == CLASS_LOCAL_BLOCK ? "local-block" : "global";
}

void dump_hast(Program *prog, FILE *o)
{
    fprintf(o, "program %s: %d parallel region%s\n", prog->file->name, prog->nregions, prog->nregions == 1 ? "" : "s");
    for (Region *r = prog->regions; r; r = r->next) {
        if (r->iter) {
            Iterator *it = r->iter;
            fprintf(o, "region %d %s: iterator %s%s, %d dims, line %d\n", r->id, r->kernel, it->name,
                    it->synthetic ? " (whole-image statement)" : "", it->ndim, r->node->tok->line);
            if (it->iter_element)
                fprintf(o, "  iter_element sizes %ld %ld %ld\n", it->elem[0], it->elem[1], it->elem[2]);
            for (int i = 0; i < it->nrules; i++) {
                BorderRule *b = it->rules[i];
                const int k = b->var && b->var->ty->ndim == 3; /* planes first */
                fprintf(o, "  border rule %s on %s: widths %srows -%d/+%d columns -%d/+%d, %s\n", b->name,
                        b->var ? b->var->name : "?",
                        k ? lang_format("planes -%d/+%d ", b->width_lo[0], b->width_hi[0]) : "", b->width_lo[k],
                        b->width_hi[k], b->width_lo[k + 1], b->width_hi[k + 1], "no border value depends on another");
            }
        } else {
            fprintf(o, "region %d %s: independent %s(%s), line %d\n", r->id, r->kernel,
                    parac_op_name(r->red_op), r->red_var->name, r->node->tok->line);
        }
        for (Access *a = r->accesses; a; a = a->next)
            fprintf(o, "  access %s %s%s @%d:%d\n", a->is_write ? "write" : "read", a->var->name,
                    a->is_window ? " window" : "", a->node->tok->line, a->node->tok->col);
        for (int i = 0; i < r->nmats; i++) fprintf(o, "  matrix %s\n", r->mats[i]->name);
        for (int i = 0; i < r->nscalars; i++) fprintf(o, "  scalar %s : %s\n", r->scalars[i]->name, ty_c_name(r->scalars[i]->ty, false));
        for (int i = 0; i < r->nconsts; i++) fprintf(o, "  constant matrix %s\n", r->consts[i]->name);
        for (int i = 0; i < r->nfuncs; i++) fprintf(o, "  calls %s\n", r->funcs[i]->name);
    }
}

/* ---- matrices written through calls (parac.compile's outputs) -------------- */
typedef struct Written { Obj **v; int n, cap; } Written;

static bool written_has(const Written *w, const Obj *o)
{
    for (int i = 0; i < w->n; i++)
        if (w->v[i] == o) return true;
    return false;
}

static void written_add(Written *w, Obj *o)
{
    if (w->n == w->cap) {
        const int cap = w->cap ? 2 * w->cap : 32;
        Obj **v = lang_alloc(sizeof *v * (size_t)cap);
        if (w->n) memcpy(v, w->v, sizeof *v * (size_t)w->n);
        w->v = v;
        w->cap = cap;
    }
    w->v[w->n++] = o;
}

/* Arguments of calls to parac__m_NAME whose parameter is written: written too. */
static bool through_calls(Node *n, Written *w, int depth)
{
    if (!n || depth > 400 || n->kind == ND_ITERATOR) return false;
    bool grew = false;
    if (n->handle_param && n->var && written_has(w, n->handle_param) && !written_has(w, n->var)) {
        written_add(w, n->var);
        grew = true;
    }
    NodeKids k = {.n = n};
    for (Node *c; (c = lang_next_kid(&k));) grew |= through_calls(c, w, depth + 1);
    return grew;
}

static void dump_calls(Program *prog, FILE *o)
{
    Written w = {0};
    for (Region *r = prog->regions; r; r = r->next)
        for (VarUse *u = r->vars; u; u = u->next)
            if (u->written && !written_has(&w, u->var)) written_add(&w, u->var);
    const int direct = w.n;
    for (bool grew = true; grew;) {
        grew = false;
        for (Node *f = prog->top; f; f = f->next)
            if (f->kind == ND_FUNC) grew |= through_calls(f->body, &w, 0);
    }
    if (w.n == direct) return;
    fputs("calls of this file's functions with matrices\n", o);
    for (int i = direct; i < w.n; i++) fprintf(o, "  var %s: write (by a callee)\n", w.v[i]->name);
}

void dump_analysis(Program *prog, FILE *o)
{
    for (Region *r = prog->regions; r; r = r->next) {
        fprintf(o, "region %d %s: %s\n", r->id, r->kernel, cls(r->cls));
        if (r->iter) {
            fputs("  global work size:", o);
            for (int d = 0; d < r->iter->ndim; d++) {
                fprintf(o, "%s(", d ? " x " : " ");
                PrintCtx p = {0};
                p.out = o;
                print_expr(&p, r->iter->r[d].ub);
                fputs(" - ", o);
                print_expr(&p, r->iter->r[d].lb);
                fprintf(o, ")/%ld", r->iter->r[d].stride);
            }
            fputc('\n', o);
        } else
            fprintf(o, "  global work size: every element of %s, two-level tree reduction\n", r->red_var->name);
        for (VarUse *u = r->vars; u; u = u->next) {
            fprintf(o, "  var %s: %s%s%s %s", u->var->name, u->read ? "read" : "", u->read && u->written ? "+" : "",
                    u->written ? "write" : "", u->chunk ? "chunk" : "point");
            if (u->range_known && r->iter) {
                fputs(" range", o);
                for (int d = 0; d < u->var->ty->ndim; d++) fprintf(o, " [%ld..%ld]", u->lo[d], u->hi[d]);
            } else if (r->iter)
                fputs(" range unknown", o);
            if (u->hreuse) fputs(" hreuse", o);
            if (u->vreuse) fputs(" vreuse", o);
            fputc('\n', o);
        }
        for (int i = 0; r->has_border && i < r->nreach; i++) {
            const RuleReach *rr = &r->reach[i];
            fputs("  border split:", o);
            if (r->nreach > 1) fprintf(o, " %s", rr->rule->var ? rr->rule->var->name : "?");
            const int nd = rr->rule->var ? rr->rule->var->ty->ndim : 2;
            for (int d = 0; d < nd; d++)
                if (rr->need_lo[d] || rr->need_hi[d])
                    fprintf(o, " %s -%d/+%d (via %s%c*%ld)",
                            nd == 3 && d == 0 ? "planes" : d == nd - 2 ? "rows" : "columns", rr->need_lo[d],
                            rr->need_hi[d], r->iter->name, "xyz"[rr->aff[d].axis < 0 ? 0 : rr->aff[d].axis],
                            rr->aff[d].coef);
            fputc('\n', o);
        }
        fprintf(o, "  plan: work-group %dx%dx%d, vector width %d, local tiles %s\n", r->wg[0], r->wg[1], r->wg[2],
                r->vector_width, r->use_local_tiles ? "yes" : "no");
    }
    dump_calls(prog, o);
}
