/* Host code of pyramids (sema_pyramids.c): the sizes of every level, each
 * level's storage and device copy, their release at the end of the block,
 * and a level passed to parac__m_NAME. In generated code a pyramid P is
 *   P_levels          the number of levels (checked: 1 to 64)
 *   P_shape[4 l ...]  level l's sizes and row pitch {d0, d1, d2, pitch}
 *   P_data[l]         its host rows (NULL where only kernels use the levels)
 *   P_dev[l]          its device copy (device targets)
 * all held for NAME_try(), as a declared matrix is. */
#include "lang/emit_host.h"

/* Whether host code reads or writes the levels: a call passes one to a
 * parameter that the callee's host code uses (host_mark_param_use). */
static bool host_reads_levels(const Node *n, const Obj *py, int depth)
{
    if (!n || depth > 400) return n != NULL;
    if (n->kind == ND_LEVEL && n->var == py && n->handle_param && n->handle_param->host_used) return true;
    NodeKids k = {.n = n};
    for (const Node *c; (c = lang_next_kid(&k));)
        if (host_reads_levels(c, py, depth + 1)) return true;
    return false;
}

void host_decl_pyramid(PrintCtx *p, Node *d)
{
    Obj *o = d->var;
    const Type *m = o->ty->base;
    const char *T = ty_c_name(m->base, false), *n = o->name, *where = lang_format("%s:%d", p->host->file, d->tok->line);
    print_line(p, "/* %s: %s parac_pyramid %s */", where, T, n);
    print_indent(p);
    print_fmt(p, "const long %s_levels = parac__pyramid_levels((long)(", n);
    print_expr(p, o->ty->array_len);
    print_fmt(p, "), \"%s\", \"%s\");\n", where, n);
    print_line(p, "long *%s_shape = (long *)parac__held_calloc((size_t)%s_levels * 4, sizeof(long));", n, n);
    print_line(p, "void **%s_data = (void **)parac__held_calloc((size_t)%s_levels, sizeof(void *));", n, n);
    print_indent(p);
    print_fmt(p, "parac__pyramid_shapes(%s_shape, %s_levels", n, n);
    for (int i = 0; i < 3; i++) {
        print_fmt(p, ", ");
        if (i < m->ndim) {
            print_fmt(p, "(long)(");
            print_expr(p, m->dims[i]);
            print_fmt(p, ")");
        } else
            print_fmt(p, "1L");
    }
    print_fmt(p, ", %d, sizeof(%s), \"%s\", \"%s\");\n", m->ndim, T, where, n);
    const bool host = !host_ocl(p) || host_reads_levels(p->host->func->body, o, 0);
    const char *s = lang_format("(%s_shape + 4 * parac__l)", n);
    if (host) { /* each level's host rows (else NULL: only kernels use them) */
        print_line(p, "for (long parac__l = 0; parac__l < %s_levels; parac__l++) {", n);
        p->indent++;
        print_line(p, "long parac__pitch;");
        const char *rows = m->ndim == 3 ? lang_format("%s[0] * %s[1]", s, s) : lang_format("%s[0]", s);
        print_line(p, "%s_data[parac__l] = parac__alloc_matrix(%s, %s[%d], sizeof(%s), &parac__pitch);", n, rows, s,
                   m->ndim - 1, T);
        print_line(p, "(void)parac__pitch;");
        p->indent--;
        print_line(p, "}");
    }
    if (host_ocl(p)) {
        const char *rt = host_rt(p);
        print_line(p, "parac_%s_matrix *%s_dev = (parac_%s_matrix *)parac__held_calloc((size_t)%s_levels, "
                   "sizeof(parac_%s_matrix));", rt, n, rt, n, rt);
        print_line(p, "for (long parac__l = 0; parac__l < %s_levels; parac__l++) {", n);
        p->indent++;
        print_line(p, "PARAC__CHECK(parac_%s_matrix_bind(parac__session(), &%s_dev[parac__l], %s_data[parac__l], "
                   "sizeof(%s), %d, %s[0], %s[1], %s[2], (size_t)%s[3] * sizeof(%s)));", rt, n, n, T, m->ndim, s, s,
                   s, s, T);
        print_line(p, "parac__hold(parac__release_dev, &%s_dev[parac__l]);", n);
        print_line(p, "parac_%s_matrix_zeroed(&%s_dev[parac__l]);", rt, n);
        p->indent--;
        print_line(p, "}");
    }
    host_push_matrix(p, o, p->host->block);
}

void host_release_pyramid(PrintCtx *p, Obj *o)
{
    const char *n = o->name;
    print_line(p, "for (long parac__l = %s_levels; parac__l-- > 0;) {", n);
    p->indent++;
    if (host_ocl(p)) print_line(p, "parac__drop_dev(&%s_dev[parac__l]);", n);
    print_line(p, "if (%s_data[parac__l]) parac__free_matrix(%s_data[parac__l]);", n, n);
    p->indent--;
    print_line(p, "}");
    if (host_ocl(p)) print_line(p, "parac__free_held(%s_dev);", n);
    print_line(p, "parac__free_held(%s_data);", n);
    print_line(p, "parac__free_held(%s_shape);", n);
}

/* The level's index, checked against the number of levels and against the
 * earlier levels of the same pyramid in the call (one matrix passed twice). */
static void print_index(PrintCtx *p, Node *a, bool apart)
{
    const char *where = lang_format("%s:%d", p->host->file, a->tok->line);
    if (apart)
        for (Node *t = a->level_twin; t; t = t->level_twin) print_fmt(p, "parac__level_apart(");
    print_fmt(p, "parac__level(%s_levels, (long)(", a->var->name);
    print_expr(p, a->lhs);
    print_fmt(p, "), \"%s\", \"%s\")", where, a->var->name);
    if (apart)
        for (Node *t = a->level_twin; t; t = t->level_twin) {
            print_fmt(p, ", (long)(");
            print_expr(p, t->lhs);
            print_fmt(p, "), \"%s\", \"%s\")", where, a->var->name);
        }
}

void host_print_level_arg(PrintCtx *p, Node *a)
{
    const char *n = a->var->name, *T = ty_c_name(a->ty->base, false);
    print_fmt(p, "(%s *)%s_data[", T, n);
    print_index(p, a, true);
    print_fmt(p, "], %s_shape + 4 * ", n);
    print_index(p, a, false);
    if (host_ocl(p)) {
        print_fmt(p, ", &%s_dev[", n);
        print_index(p, a, false);
        print_fmt(p, "]");
    }
}
