/* Host code of matrices (storage, device copies, lifetimes by block),
 * transfers around the host statements that touch them, and the global
 * reductions computed before a statement (emit_host.c's hooks). */
#include <string.h>

#include "lang/emit_host.h"

/* ---- matrices ---------------------------------------------------------------- */
void host_push_matrix(PrintCtx *p, Obj *o, Node *block)
{
    HostEmitter *h = p->host;
    if (h->sp == h->cap) { /* grows from the arena: no cap on matrices in scope */
        const int cap = h->cap ? 2 * h->cap : 64;
        Obj **stack = lang_alloc(sizeof *stack * (size_t)cap);
        Node **blocks = lang_alloc(sizeof *blocks * (size_t)cap);
        if (h->sp) {
            memcpy(stack, h->stack, sizeof *stack * (size_t)h->sp);
            memcpy(blocks, h->stack_block, sizeof *blocks * (size_t)h->sp);
        }
        h->stack = stack;
        h->stack_block = blocks;
        h->cap = cap;
    }
    h->stack[h->sp] = o;
    h->stack_block[h->sp] = block;
    h->sp++;
}

void host_matrix_dims(PrintCtx *p, Obj *o)
{
    Type *m = o->ty;
    print_indent(p);
    for (int i = 0; i < 3; i++) {
        print_fmt(p, "%sconst long %s_d%d = ", i ? " " : "", o->name, i);
        if (i < m->ndim) {
            print_fmt(p, "(");
            print_expr(p, m->dims[i]);
            print_fmt(p, ");");
        } else
            print_fmt(p, "1;");
    }
    print_fmt(p, "\n");
}

void host_matrix_bind(PrintCtx *p, Obj *o)
{
    if (!host_ocl(p) || !o->used_in_kernel) return;
    const char *T = ty_c_name(o->ty->base, false);
    print_line(p, "parac_%s_matrix %s_dev;", host_rt(p), o->name);
    print_line(p, "PARAC__CHECK(parac_%s_matrix_bind(parac__session(), &%s_dev, %s, sizeof(%s), %d, %s_d0, %s_d1, %s_d2, "
            "(size_t)%s_pitch * sizeof(%s)));",
         host_rt(p), o->name, o->name, T, o->ty->ndim, o->name, o->name, o->name, o->name, T);
    print_line(p, "parac__hold(parac__release_dev, &%s_dev);", o->name);
}

const char *host_dev(const PrintCtx *p, const Obj *o)
{
    return p->host->handles && o->is_param ? lang_format("%s_devp", o->name) : lang_format("&%s_dev", o->name);
}

void host_print_matrix_extras(PrintCtx *p, Obj *o)
{
    print_fmt(p, ", (const long[4]){%s_d0, %s_d1, %s_d2, %s_pitch}", o->name, o->name, o->name, o->name);
    if (host_ocl(p)) print_fmt(p, ", %s", host_dev(p, o));
}

void host_matrix_unused(PrintCtx *p, Obj *o)
{
    print_line(p, "(void)%s_d0; (void)%s_d1; (void)%s_d2; (void)%s_pitch;", o->name, o->name, o->name, o->name);
}

/* Whether host code of n (not iterator bodies, not border rules, which
 * are compiled into kernels) names o. */
static bool host_names(const Node *n, const Obj *o, int depth)
{
    if (!n) return false;
    if (depth > 400) return true;
    /* (a rule fusion dropped is an empty statement that keeps its entries) */
    if (n->kind == ND_BORDER_RULE || n->kind == ND_VERBATIM || n->kind == ND_NULL_STMT) return false;
    if (n->kind == ND_ITERATOR) {
        for (int d = 0; n->iter && d < n->iter->ndim; d++)
            if (host_names(n->iter->r[d].lb, o, depth + 1) || host_names(n->iter->r[d].ub, o, depth + 1)) return true;
        return false;
    }
    /* passed on to a function of the file that uses it in kernels only */
    if (n->handle_param && !n->handle_param->host_used) return false;
    if ((n->kind == ND_VAR || n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW) && n->var == o) return true;
    NodeKids k = {.n = n};
    for (const Node *c; (c = lang_next_kid(&k));)
        if (host_names(c, o, depth + 1)) return true;
    return false;
}

/* Which matrix parameters of the functions with parac__m_NAME their host
 * code reads or writes, directly or through the callees it passes them to:
 * a caller's matrix passed only to parameters that are not may live on the
 * device only. Grows to a fixed point over the calls. */
void host_mark_param_use(Program *prog)
{
    for (bool changed = true; changed;) {
        changed = false;
        for (Node *f = prog->top; f; f = f->next) {
            if (f->kind != ND_FUNC || !f->var || !f->var->handle_variant) continue;
            for (Node *q = f->ty->params; q; q = q->next)
                if (q->var && q->var->ty->kind == TY_MATRIX && !q->var->host_used && host_names(f->body, q->var, 0)) {
                    q->var->host_used = true;
                    changed = true;
                }
        }
    }
}

void host_decl_matrix(PrintCtx *p, Node *d)
{
    Obj *o = d->var;
    if (o->ty->kind == TY_PYRAMID) {
        host_decl_pyramid(p, d);
        return;
    }
    Type *m = o->ty;
    const char *T = ty_c_name(m->base, false);
    print_line(p, "/* %s:%d: %s parac_matrix %s%s */", p->host->file, d->tok->line, T, o->is_ref ? "&" : "", o->name);
    if (o->is_small_const) {
        print_indent(p);
        print_fmt(p, "static const %s %s", T, o->name);
        bool ok;
        for (int i = 0; i < m->ndim; i++) print_fmt(p, "[%ld]", const_eval(m->dims[i], &ok));
        long rows = m->ndim == 2 ? const_eval(m->dims[0], &ok) : 1, cols = const_eval(m->dims[m->ndim - 1], &ok);
        print_fmt(p, " = {");
        Node *v = o->init->args;
        for (long r = 0; r < rows; r++) {
            if (m->ndim == 2) print_fmt(p, "%s{", r ? ", " : "");
            for (long c = 0; c < cols; c++) {
                if (c || (m->ndim == 1 && r)) print_fmt(p, ", ");
                print_fmt(p, "(%s)(", T);
                if (v) print_expr(p, v);
                else print_fmt(p, "0");
                print_fmt(p, ")");
                if (v) v = v->next;
            }
            if (m->ndim == 2) print_fmt(p, "}");
        }
        print_fmt(p, "};\n");
        print_line(p, "(void)%s;", o->name);
        return;
    }
    host_matrix_dims(p, o);
    if (o->is_ref) {
        print_indent(p);
        print_fmt(p, "%s *%s = (%s *)(", T, o->name, T);
        print_expr(p, o->bound);
        print_fmt(p, ");\n");
        print_line(p, "const long %s_pitch = %s_d%d;", o->name, o->name, m->ndim - 1);
    } else if (host_ocl(p) && o->used_in_kernel && !o->init && p->host->func && !host_names(p->host->func->body, o, 0)) {
        /* only kernels use it: its device copy starts as zeros, and the host
         * never reads it, so it has no host storage to allocate and clear */
        o->device_only = true;
        print_line(p, "const long %s_pitch = parac__matrix_pitch(%s_d%d, sizeof(%s));", o->name, o->name, m->ndim - 1, T);
        print_line(p, "%s *%s = NULL; /* only kernels use %s: no host storage */", T, o->name, o->name);
        host_push_matrix(p, o, p->host->block);
    } else {
        /* (C target) storage that its first use writes whole before any read is not zeroed */
        const CompileOptions *opt = p->host->prog->opt;
        const bool unset = !host_ocl(p) && plan_flag(opt, opt->skip_zeroing, 1) &&
                           p->host->func && lang_written_before_read(p->host->func->body, p->host->block, d, o);
        const char *alloc = unset ? "parac__alloc_matrix_unset" : "parac__alloc_matrix";
        print_line(p, "long %s_pitch;", o->name);
        if (o->fold_run && o->fold_threads) {
            /* only a run of strips of each thread's own uses it: a ring per thread (strips.c) */
            print_line(p, "const long %s_strip = %s(), %s_mask = parac__ring_rows(%s_strip + %ld) - 1;", o->name,
                       o->fold_run->strip_loop ? "parac__thread_strip_rows" : "parac__block_strip_rows", o->name, o->name,
                       o->fold_span);
            print_line(p, "%s *%s = (%s *)%s((%s_mask + 1) * parac__max_threads(), %s_d1, sizeof(%s), &%s_pitch);", T,
                       o->name, T, alloc, o->name, o->name, T, o->name);
        } else if (o->fold_run) {
            /* only a run of strips uses it: a ring of the rows a strip needs (strips.c) */
            print_line(p, "const long %s_strip = parac__strip_rows(), %s_mask = parac__ring_rows(%s_strip + %ld) - 1;",
                       o->name, o->name, o->name, o->fold_span);
            print_line(p, "%s *%s = (%s *)%s(%s_mask + 1, %s_d1, sizeof(%s), &%s_pitch);", T, o->name, T, alloc,
                       o->name, o->name, T, o->name);
        } else if (m->ndim == 1)
            print_line(p, "%s *%s = (%s *)%s(1, %s_d0, sizeof(%s), &%s_pitch);", T, o->name, T, alloc, o->name, T,
                 o->name);
        else
            print_line(p, "%s *%s = (%s *)%s(%s_d0 * %s_d1 * %s_d2 / %s_d%d, %s_d%d, sizeof(%s), &%s_pitch);", T,
                 o->name, T, alloc, o->name, o->name, o->name, o->name, m->ndim - 1, o->name, m->ndim - 1, T, o->name);
        host_push_matrix(p, o, p->host->block);
    }
    host_matrix_unused(p, o);
    host_matrix_bind(p, o);
    /* a declared matrix starts as zeros: the device makes its own copy */
    if (!o->is_ref && host_ocl(p) && o->used_in_kernel) print_line(p, "parac_%s_matrix_zeroed(&%s_dev);", host_rt(p), o->name);
    if (o->is_ref && host_ocl(p) && o->used_in_kernel) host_push_matrix(p, o, p->host->block);
}

/* Release (and for references, bring back) the matrices of one scope. */
static void release(PrintCtx *p, Obj *o)
{
    if (p->host->handles && o->is_param) return; /* the caller's */
    if (o->ty->kind == TY_PYRAMID) {
        host_release_pyramid(p, o);
        return;
    }
    if (host_ocl(p) && o->used_in_kernel) {
        if (o->is_ref) print_line(p, "PARAC__CHECK(parac_%s_to_host(%s));", host_rt(p), host_dev(p, o));
        print_line(p, "parac__drop_dev(%s);", host_dev(p, o));
    }
    if (!o->is_ref && !o->device_only) print_line(p, "parac__free_matrix(%s);", o->name);
}

void host_release_all(PrintCtx *p)
{
    while (p->host->sp > 0) release(p, p->host->stack[--p->host->sp]);
}

void host_block_end(PrintCtx *p, Node *block)
{
    /* A block that ends in a return released its matrices on that path
     * already; releasing them again after it would be dead code. */
    Node *last = NULL;
    for (Node *s = block ? block->args : NULL; s; s = s->next) last = s;
    const bool ends_in_return = last && last->kind == ND_RETURN;
    while (p->host->sp > 0 && p->host->stack_block[p->host->sp - 1] == block) {
        p->host->sp--;
        if (!ends_in_return) release(p, p->host->stack[p->host->sp]);
    }
}

/* ---- independent operators (global reductions) ------------------------------ */
static void find_reductions(Node *e, Node **list, int *n)
{
    if (!e || *n >= 32) return;
    if (e->kind == ND_PARAC_OP && e->reduction_id >= 0 && e->args && e->args->ty &&
        e->args->ty->kind == TY_MATRIX) {
        list[(*n)++] = e;
        return;
    }
    find_reductions(e->lhs, list, n);
    find_reductions(e->rhs, list, n);
    find_reductions(e->cond, list, n);
    find_reductions(e->then, list, n);
    find_reductions(e->els, list, n);
    for (Node *a = e->args; a; a = a->next) find_reductions(a, list, n);
}

static int stmt_reductions(Node *n, Node **list)
{
    int k = 0;
    switch (n->kind) {
    case ND_EXPR_STMT: case ND_RETURN: find_reductions(n->lhs, list, &k); break;
    case ND_IF: case ND_SWITCH: find_reductions(n->cond, list, &k); break;
    case ND_DECL:
        for (Node *d = n->decls; d; d = d->next)
            if (d->init && d->init->kind != ND_INIT_LIST) find_reductions(d->init, list, &k);
        break;
    default: break;
    }
    return k;
}

static const char *type_limit(Type *t, bool max)
{
    switch (t->kind) {
    case TY_CHAR: return t->is_unsigned ? (max ? "UCHAR_MAX" : "0") : (max ? "SCHAR_MAX" : "SCHAR_MIN");
    case TY_SHORT: return t->is_unsigned ? (max ? "USHRT_MAX" : "0") : (max ? "SHRT_MAX" : "SHRT_MIN");
    case TY_INT: return t->is_unsigned ? (max ? "UINT_MAX" : "0") : (max ? "INT_MAX" : "INT_MIN");
    case TY_LONG: case TY_LLONG: return t->is_unsigned ? (max ? "ULONG_MAX" : "0") : (max ? "LONG_MAX" : "LONG_MIN");
    case TY_FLOAT: case TY_DOUBLE: return max ? "INFINITY" : "-INFINITY";
    default: return max ? "INT_MAX" : "INT_MIN";
    }
}

/* Accumulator type of a global reduction. */
static Type *red_acc_type(Node *op)
{
    Type *et = op->args->ty->base;
    if (op->pop == OP_MIN || op->pop == OP_MAX) return et;
    if (ty_is_float(et)) return et;
    return ty_basic(TY_LLONG, et->is_unsigned && ty_rank(et) >= 5);
}

static void emit_reduction(PrintCtx *p, Node *op)
{
    Obj *m = op->args->var;
    Region *r = NULL;
    for (Region *x = p->host->prog->regions; x; x = x->next)
        if (x->id == op->reduction_id) r = x;
    Type *acc = red_acc_type(op);
    const char *A = ty_c_name(acc, false);
    int id = op->reduction_id;
    print_line(p, "/* %s:%d: independent %s(%s): a global reduction over the whole matrix */", p->host->file,
         op->tok->line, parac_op_name(op->pop), m->name);
    const char *init = op->pop == OP_MIN ? type_limit(acc, true) : op->pop == OP_MAX ? type_limit(acc, false) : "0";
    print_line(p, "%s parac_acc_%d = %s;", A, id, init);
    if (host_ocl(p) && r && r->fold_into) {
        print_line(p, "if (parac_folded_%d) /* summed by the kernel of line %d as it wrote %s */", id,
             r->fold_into->node->tok->line, m->name);
        print_line(p, "    PARAC__CHECK(parac_cu_fold_result(parac__session(), %d, sizeof parac_acc_%d, &parac_acc_%d));", id,
             id, id);
        print_line(p, "else {");
        p->indent++;
        print_line(p, "PARAC__CHECK(parac_%s_to_device(%s));", host_rt(p), host_dev(p, m));
        print_line(p, "PARAC__CHECK(parac_%s_reduce(parac__session(), \"%s\", %s, sizeof parac_acc_%d, &parac_acc_%d));",
             host_rt(p), r->kernel, host_dev(p, m), id, id);
        p->indent--;
        print_line(p, "}");
    } else if (host_ocl(p)) {
        print_line(p, "PARAC__CHECK(parac_%s_to_device(%s));", host_rt(p), host_dev(p, m));
        print_line(p, "PARAC__CHECK(parac_%s_reduce(parac__session(), \"%s\", %s, sizeof parac_acc_%d, &parac_acc_%d));",
             host_rt(p), r ? r->kernel : "?", host_dev(p, m), id, id);
    } else {
        const char *clause = op->pop == OP_MIN ? "min" : op->pop == OP_MAX ? "max" : "+";
        print_line(p, "#pragma omp parallel for reduction(%s:parac_acc_%d)", clause, id);
        print_line(p, "for (long parac_r = 0; parac_r < %s_d0 * %s_d1 * %s_d2 / %s_d%d; parac_r++)", m->name, m->name,
             m->name, m->name, m->ty->ndim - 1);
        p->indent++;
        print_line(p, "for (long parac_c = 0; parac_c < %s_d%d; parac_c++) {", m->name, m->ty->ndim - 1);
        p->indent++;
        if (op->pop == OP_MIN || op->pop == OP_MAX)
            print_line(p, "parac_acc_%d = %s(parac_acc_%d, %s[parac_r * %s_pitch + parac_c]);", id,
                 op->pop == OP_MIN ? "PARAC_MIN" : "PARAC_MAX", id, m->name, m->name);
        else
            print_line(p, "parac_acc_%d += %s[parac_r * %s_pitch + parac_c];", id, m->name, m->name);
        p->indent--;
        print_line(p, "}");
        p->indent--;
    }
    if (op->pop == OP_MEAN) {
        const char *T = ty_c_name(op->ty, false);
        print_line(p, "const %s parac_red_%d = (%s)parac_acc_%d / (%s)(%s_d0 * %s_d1 * %s_d2);", T, id, T, id, T,
             m->name, m->name, m->name);
    } else
        print_line(p, "const %s parac_red_%d = parac_acc_%d;", A, id, id);
}

/* ---- transfers around host statements (device targets) ------------------------ */

/* Whether n names o (or, skip aside, any node in it), outside the arguments
 * passed on to parac__m_NAME with their device copies: the callee moves what
 * it needs, and the caller's host copy may not exist. */
static bool names_on_host(Node *n, Obj *o, Node *const *skip, int nskip)
{
    if (!n || n->handle_param) return false;
    for (int i = 0; i < nskip; i++)
        if (n == skip[i]) return false;
    if ((n->kind == ND_VAR || n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW) && n->var == o) return true;
    if (n->kind == ND_ITERATOR) return false;
    NodeKids k = {.n = n};
    for (Node *c; (c = lang_next_kid(&k));)
        if (names_on_host(c, o, skip, nskip)) return true;
    return false;
}

/* Whether expression n reads o's storage on the host. */
static bool mentions_storage(Node *n, Obj *o)
{
    return names_on_host(n, o, NULL, 0) || (o->bound_obj && names_on_host(n, o->bound_obj, NULL, 0));
}

/* Whether the host statement n reads or writes o's storage. The global
 * reductions of the statement run on the device before it (emit_reduction),
 * so the matrices they read are not touched by the host. */
static bool stmt_touches(PrintCtx *p, Node *n, Obj *o)
{
    Node *red[32];
    const int k = host_ocl(p) ? stmt_reductions(n, red) : 0;
    return names_on_host(n, o, red, k) || (o->bound_obj && names_on_host(n, o->bound_obj, red, k));
}

static bool host_touches(PrintCtx *p, Node *n)
{
    /* a border rule is compiled into the kernels that use it: the host
     * neither reads nor writes the matrices it names */
    if (!host_ocl(p) || stmt_has_iterator(n) || n->kind == ND_BORDER_RULE) return false;
    for (int i = 0; i < p->host->sp; i++) {
        Obj *o = p->host->stack[i];
        if (o && o->used_in_kernel && stmt_touches(p, n, o)) return true;
    }
    return false;
}

bool host_needs_wrap(PrintCtx *p, Node *n)
{
    Node *list[32];
    if (n->kind == ND_ITERATOR || n->kind == ND_RETURN) return false;
    return stmt_reductions(n, list) > 0 || host_touches(p, n);
}

void host_before_stmt(PrintCtx *p, Node *n)
{
    /* a return computes its reductions itself (before_return) */
    if (n->kind == ND_ITERATOR || n->kind == ND_RETURN) return;
    Node *list[32];
    int k = stmt_reductions(n, list);
    for (int i = 0; i < k; i++) emit_reduction(p, list[i]);
    if (host_touches(p, n) && n->kind != ND_RETURN)
        for (int i = 0; i < p->host->sp; i++) {
            Obj *o = p->host->stack[i];
            if (o && o->used_in_kernel && stmt_touches(p, n, o))
                print_line(p, "PARAC__CHECK(parac_%s_to_host(%s)); /* the host reads or writes %s */", host_rt(p), host_dev(p, o),
                     o->name);
        }
}

void host_after_stmt(PrintCtx *p, Node *n)
{
    if (!host_touches(p, n) || n->kind == ND_RETURN) return;
    for (int i = 0; i < p->host->sp; i++) {
        Obj *o = p->host->stack[i];
        if (o && o->used_in_kernel && stmt_touches(p, n, o)) print_line(p, "parac_%s_host_modified(%s);", host_rt(p), host_dev(p, o));
    }
}

/* A condition reading matrices that kernels use: (host copy, ..., condition). */
void host_cond_expr(PrintCtx *p, Node *e)
{
    int n = 0;
    if (host_ocl(p))
        for (int i = 0; i < p->host->sp; i++) {
            Obj *o = p->host->stack[i];
            if (o && o->used_in_kernel && mentions_storage(e, o)) {
                print_fmt(p, "%sparac__host_copy(%s, __LINE__), ", n ? "" : "(", host_dev(p, o));
                n++;
            }
        }
    print_expr(p, e);
    if (n) print_fmt(p, ")");
}

void host_before_return(PrintCtx *p, Node *ret)
{
    Node *list[32];
    int k = stmt_reductions(ret, list);
    bool any = k > 0 || p->host->sp > 0;
    if (!any) {
        print_indent(p);
        print_fmt(p, "return");
        if (ret->lhs) {
            print_fmt(p, " ");
            print_expr(p, ret->lhs);
        }
        print_fmt(p, ";\n");
        return;
    }
    print_line(p, "{");
    p->indent++;
    for (int i = 0; i < k; i++) emit_reduction(p, list[i]);
    /* the value may read matrices that kernels wrote */
    for (int i = 0; ret->lhs && host_ocl(p) && i < p->host->sp; i++) {
        Obj *o = p->host->stack[i];
        if (o && o->used_in_kernel && stmt_touches(p, ret, o))
            print_line(p, "PARAC__CHECK(parac_%s_to_host(%s)); /* the value reads %s */", host_rt(p), host_dev(p, o), o->name);
    }
    Type *rt = p->host->func ? p->host->func->ty->base : NULL;
    bool has_value = ret->lhs && rt && rt->kind != TY_VOID;
    if (has_value) {
        print_indent(p);
        print_type_decl(p->out, rt, "parac_result", false);
        print_fmt(p, " = ");
        print_expr(p, ret->lhs);
        print_fmt(p, ";\n");
    }
    for (int i = p->host->sp - 1; i >= 0; i--) release(p, p->host->stack[i]);
    print_line(p, has_value ? "return parac_result;" : "return;");
    p->indent--;
    print_line(p, "}");
}
