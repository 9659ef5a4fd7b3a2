/* Host code generation, both targets: the file's prelude, its functions (with
 * their NAME_try() wrappers) and statements. Matrices, transfers and global
 * reductions are emit_host_matrices.c's; parallel regions as OpenMP loops or
 * launches, and the C target's strips, emit_host_loops.c's.
 *
 * The program's own C is printed back (with matrices as flat arrays plus
 * NAME_pitch and NAME_d0..d2). Each parallel region becomes:
 *   --target c       an OpenMP loop nest over the interior box, then loop nests
 *                    over the border boxes with the border-rule variant;
 *   --target opencl, cuda  launches of the region's kernels (emit_kernels.c)
 *                    through the libparac runtime, with transfers decided by
 *                    each matrix's host/device state.
 * Independent operators are computed into parac_red_N before their statement. */
#include <string.h>

#include "lang/emit_host.h"
#include "parac/status.h"

/* The prelude of every generated host file: real headers in prelude/,
 * embedded at build time (cmake/embed_text.cmake). */
extern const char lang_prelude_helpers[], lang_prelude_failures[], lang_prelude_device[];

/* ---- functions ---------------------------------------------------------------- */
/* The entry point of calls from this file (sema_calls.c): each matrix
 * parameter travels as its host storage, its sizes and pitch {d0, d1, d2,
 * pitch} and, on the device targets, its device copy. */
static const char *handle_name(const char *name) { return lang_format("parac__m_%s", name); }

static void print_signature(PrintCtx *p, Node *f, bool handles)
{
    if (handles || f->is_static) print_fmt(p, "static "); /* parac__m_NAME serves this file only */
    if (f->is_inline && !handles) print_fmt(p, "inline ");
    print_type_decl(p->out, f->ty->base, handles ? handle_name(f->name) : f->name, false);
    print_fmt(p, "(");
    if (!f->ty->params) print_fmt(p, f->ty->variadic ? "" : "void");
    for (Node *q = f->ty->params; q; q = q->next) {
        if (q != f->ty->params) print_fmt(p, ", ");
        const char *name = q->var ? q->var->name : q->name ? q->name : "";
        print_type_decl(p->out, q->ty, name, false);
        if (handles && q->var && q->ty->kind == TY_MATRIX) {
            print_fmt(p, ", const long *%s_shape", name);
            if (host_ocl(p)) print_fmt(p, ", parac_%s_matrix *%s_devp", host_rt(p), name);
        }
    }
    if (f->ty->variadic) print_fmt(p, ", ...");
    print_fmt(p, ")");
}

/* A matrix parameter's sizes, pitch and device copy at the function's start. */
static void param_prologue(PrintCtx *p, Node *f, Node *q, bool handles)
{
    Obj *o = q->var;
    print_line(p, "/* %s:%d: parameter %s parac_matrix &%s%s */", p->host->file, q->tok->line,
         ty_c_name(o->ty->base, false), o->name, handles ? " (with its sizes, pitch and device copy)" : "");
    host_matrix_dims(p, o);
    if (handles) {
        print_line(p, "parac__same_shape(%s_shape, %s_d0, %s_d1, %s_d2, \"%s:%d\", \"%s\");", o->name, o->name, o->name,
             o->name, p->host->file, q->tok->line, o->name);
        print_line(p, "const long %s_pitch = %s_shape[3];", o->name, o->name);
        print_line(p, "(void)%s; /* the host rows: NULL where only kernels use the matrix */", o->name);
    } else
        print_line(p, "const long %s_pitch = %s_d%d;", o->name, o->name, o->ty->ndim - 1);
    host_matrix_unused(p, o);
    if (!handles) host_matrix_bind(p, o);
    if (host_ocl(p) && o->used_in_kernel) host_push_matrix(p, o, f->body);
}

/* f's body (handles: as parac__m_NAME). */
static void emit_function(PrintCtx *p, Node *f, bool handles)
{
    p->host->func = f;
    p->host->handles = handles;
    p->host->sp = 0;
    print_fmt(p, "/* %s:%d%s */\n", p->host->file, f->tok->line,
              handles ? ": the entry point of calls from this file, matrices passed with their sizes, pitch and "
                        "device copy" : "");
    print_signature(p, f, handles);
    print_fmt(p, "\n{\n");
    p->indent = 1;
    p->host->block = f->body;
    for (Node *q = f->ty->params; q; q = q->next)
        if (q->var && q->var->ty->kind == TY_MATRIX) param_prologue(p, f, q, handles);
    /* the body's statements, inside the function's own braces */
    for (Node *s = f->body->args; s;) {
        Node *saved = p->host->block;
        int k = host_strip_run(p, s);
        if (k <= 0) {
            print_stmt(p, s);
            k = 1;
        }
        p->host->block = saved;
        while (k-- > 0 && s) s = s->next;
    }
    host_block_end(p, f->body);
    p->indent = 0;
    print_fmt(p, "}\n\n");
    p->host->func = NULL;
    p->host->handles = false;
}

/* NAME for callers outside the file, where parac__m_NAME holds the body: its
 * matrices bound as packed host rows, then passed on. */
static void emit_public_wrapper(PrintCtx *p, Node *f)
{
    p->host->func = f;
    p->host->sp = 0;
    print_fmt(p, "/* %s:%d */\n", p->host->file, f->tok->line);
    print_signature(p, f, false);
    print_fmt(p, "\n{\n");
    p->indent = 1;
    for (Node *q = f->ty->params; q; q = q->next)
        if (q->var && q->var->ty->kind == TY_MATRIX) param_prologue(p, f, q, false);
    Type *rt = f->ty->base;
    const bool has_value = rt && rt->kind != TY_VOID;
    print_indent(p);
    if (has_value) {
        print_type_decl(p->out, rt, "parac_result", false);
        print_fmt(p, " = ");
    }
    print_fmt(p, "%s(", handle_name(f->name));
    for (Node *q = f->ty->params; q; q = q->next) {
        const char *name = q->var ? q->var->name : "";
        print_fmt(p, "%s%s", q != f->ty->params ? ", " : "", name);
        if (q->var && q->ty->kind == TY_MATRIX) host_print_matrix_extras(p, q->var);
    }
    print_fmt(p, ");\n");
    host_release_all(p);
    if (has_value) print_line(p, "return parac_result;");
    p->indent = 0;
    print_fmt(p, "}\n\n");
    p->host->func = NULL;
}

/* Track the current block for matrix lifetimes. */
static void block_end_hook(PrintCtx *p, Node *block)
{
    host_block_end(p, block);
}

/* Matrices live until the end of the block that declares them: print.c calls
 * block_end with each block it closes, and each declaration is marked with
 * its block beforehand (assign_blocks), so a matrix declared in block B is
 * pushed with B. */
static void assign_blocks(Node *n, Node *block)
{
    if (!n) return;
    switch (n->kind) {
    case ND_BLOCK:
        for (Node *s = n->args; s; s = s->next) assign_blocks(s, n);
        return;
    case ND_DECL:
        for (Node *d = n->decls; d; d = d->next) d->body = block;
        return;
    case ND_IF: assign_blocks(n->then, block); assign_blocks(n->els, block); return;
    case ND_FOR: case ND_WHILE: case ND_DO: case ND_SWITCH: assign_blocks(n->body, block); return;
    default: return;
    }
}

static void decl_matrix_tracked(PrintCtx *p, Node *d)
{
    p->host->block = d->body;
    host_decl_matrix(p, d);
}

static const HostHooks hooks = {
    .iterator = host_iterator,
    .before_stmt = host_before_stmt,
    .after_stmt = host_after_stmt,
    .decl_matrix = decl_matrix_tracked,
    .block_end = block_end_hook,
    .before_return = host_before_return,
    .needs_wrap = host_needs_wrap,
    .cond_expr = host_cond_expr,
    .stmt_run = host_strip_run,
    .matrix_extras = host_print_matrix_extras,
    .level_arg = host_print_level_arg,
};

/* NAME_try(): the function with its failures returned instead of reported.
 * Returns 0 or the failing step's status (a parac_status code); a non-void
 * result goes to *parac_result when that is not NULL. Nested calls release
 * only what their own call holds. */
static void emit_try_wrapper(PrintCtx *p, Node *f)
{
    if (f->is_static || !strcmp(f->name, "main") || f->ty->variadic) return;
    for (Node *q = f->ty->params; q; q = q->next)
        if (!q->var) return; /* an unnamed parameter cannot be passed on */
    Type *rt = f->ty->base;
    const bool has_value = rt && rt->kind != TY_VOID;
    print_fmt(p, "/* %s:%d: %s() returning 0 or the status of a failed step; %s_error() is its message */\n",
              p->host->file, f->tok->line, f->name, f->name);
    print_fmt(p, "const char *%s_error(void);\n", f->name);
    print_fmt(p, "const char *%s_error(void) { return parac__message; }\n", f->name);
    for (int def = 0; def < 2; def++) { /* the prototype, then the definition */
        print_fmt(p, "int %s_try(", f->name);
        for (Node *q = f->ty->params; q; q = q->next) {
            if (q != f->ty->params) print_fmt(p, ", ");
            print_type_decl(p->out, q->ty, q->var->name, false);
        }
        if (has_value) {
            if (f->ty->params) print_fmt(p, ", ");
            print_type_decl(p->out, rt, "*parac_result", false);
        } else if (!f->ty->params)
            print_fmt(p, "void");
        print_fmt(p, def ? ")\n{\n" : ");\n");
    }
    print_fmt(p, "    jmp_buf parac_env;\n"
                 "    jmp_buf *const parac_outer = parac__jmp;\n"
                 "    const int parac_outer_base = parac__held_base;\n"
                 "    parac__jmp = &parac_env;\n"
                 "    parac__held_base = parac__held_n;\n"
                 "    if (setjmp(parac_env)) {\n"
                 "        parac__jmp = parac_outer;\n"
                 "        parac__held_base = parac_outer_base;\n"
                 "        return parac__jmp_status;\n"
                 "    }\n");
    print_fmt(p, "    ");
    if (has_value) {
        print_type_decl(p->out, rt, "parac_value", false);
        print_fmt(p, " = ");
    }
    print_fmt(p, "%s(", f->name);
    for (Node *q = f->ty->params; q; q = q->next) print_fmt(p, "%s%s", q != f->ty->params ? ", " : "", q->var->name);
    print_fmt(p, ");\n");
    if (has_value) print_fmt(p, "    if (parac_result) *parac_result = parac_value;\n");
    print_fmt(p, "    parac__held_n = parac__held_base; /* what a jump out of a block left behind */\n"
                 "    parac__jmp = parac_outer;\n"
                 "    parac__held_base = parac_outer_base;\n"
                 "    return 0;\n}\n\n");
}

/* Whether the host code (outside iterators) calls `name`. */
static bool host_calls(Node *n, const char *name, int depth)
{
    if (!n || depth > 400 || n->kind == ND_ITERATOR) return false;
    if (n->kind == ND_CALL && n->name && !strcmp(n->name, name)) return true;
    if (n->kind == ND_VAR && n->name && !strcmp(n->name, name)) return true; /* address taken */
    NodeKids k = {.n = n};
    for (Node *c; (c = lang_next_kid(&k));)
        if (host_calls(c, name, depth + 1)) return true;
    return false;
}

static bool device_only_at(Program *prog, Node *f, int depth)
{
    if (depth > 16) return false;
    bool used = false;
    for (Region *r = prog->regions; r; r = r->next)
        for (int i = 0; i < r->nfuncs; i++) used |= r->funcs[i] == f;
    if (!used) return false;
    for (Node *n = prog->top; n; n = n->next) {
        /* a caller that is itself printed only into the kernels does not count */
        if (n->kind == ND_FUNC && n != f && host_calls(n->body, f->name, 0) &&
            !(n->is_static && device_only_at(prog, n, depth + 1)))
            return false;
        if (n->kind == ND_DECL && host_calls(n, f->name, 0)) return false;
    }
    return true;
}

static bool device_only(Program *prog, Node *f) { return device_only_at(prog, f, 0); }

void emit_host_program(Program *prog, FILE *o, Target target, const char *c_name, const char *cl_name,
                       const char *kernel_source)
{
    HostEmitter host = {.prog = prog, .target = target, .file = prog->file->name};
    PrintCtx pc = {0}, *p = &pc;
    p->out = o;
    p->host = &host;
    p->hooks = &hooks;
    p->line_marks = !prog->opt || !prog->opt->no_line;
    const bool dev = target_has_device(target), cuda = target == TARGET_CUDA;
    host_mark_param_use(prog);
    const char *api = cuda ? "CUDA" : "OpenCL", *x = cuda ? "cu" : "cl";
    print_fmt(p, "/* %s: generated by paracc from %s (target %s).\n", c_name, p->host->file, target_name(target));
    if (dev)
        print_fmt(p, " * Kernels: %s (embedded below). Host code calls the %s runtime of libparac. */\n", cl_name, api);
    else
        print_fmt(p, " * Plain C with OpenMP: compile with -fopenmp (without it the loops run serially). */\n");
    fprintf(o, "%s\n", lang_prelude_helpers);
    if (dev) print_fmt(p, "#include <parac/%s.h>\n\n", cuda ? "cuda" : "opencl");
    fprintf(o, "#define PARAC__OUT_OF_MEMORY %d /* PARAC_ERR_OUT_OF_MEMORY */\n", (int)PARAC_ERR_OUT_OF_MEMORY);
    fprintf(o, "#define PARAC__INVALID_ARGUMENT %d /* PARAC_ERR_INVALID_ARGUMENT */\n", (int)PARAC_ERR_INVALID_ARGUMENT);
    fprintf(o, "%s\n", lang_prelude_failures);
    if (!dev) print_order_helpers(p, prog);
    if (dev) {
        print_fmt(p, "/* The kernels of %s. */\nstatic const char parac__kernel_source[] =\n", cl_name);
        const char *s = kernel_source;
        print_fmt(p, "    \"");
        for (; *s; s++) {
            if (*s == '\n') {
                print_fmt(p, "\\n\"");
                if (s[1]) print_fmt(p, "\n    \"");
                continue;
            }
            if (*s == '"' || *s == '\\') fputc('\\', o);
            fputc(*s, o);
        }
        print_fmt(p, ";\n\n");
        print_fmt(p, "/* The %s runtime of libparac (parac/%s.h), for the glue below. */\n", api,
                  cuda ? "cuda" : "opencl");
        print_fmt(p, "#define PARAC__RT(name) parac_%s_##name\n#define PARAC__API \"%s\"\n", x, api);
        print_fmt(p, "#define PARAC__FILE \"%s\"\n#define PARAC__PROGRAM \"%s\"\n", c_name, prog->base);
        fprintf(o, "%s\n", lang_prelude_device);
    }
    for (Node *n = prog->top; n; n = n->next) {
        switch (n->kind) {
        case ND_DIRECTIVE:
            print_fmt(p, "%s\n", n->text);
            break;
        case ND_VERBATIM:
            print_fmt(p, "%s\n", n->text);
            break;
        case ND_DECL:
            print_stmt(p, n);
            /* a prototype of a function with parac__m_NAME: that one's too */
            for (Node *d = n->decls; d; d = d->next)
                if (d->var && d->var->is_func && d->var->handle_variant && d->var->func_def) {
                    print_signature(p, d->var->func_def, true);
                    print_fmt(p, ";\n");
                }
            break;
        case ND_FUNC:
            if (dev && n->is_static && device_only(prog, n)) {
                print_fmt(p, "/* %s:%d: static function %s is called only inside parallel regions: see %s */\n\n",
                    p->host->file, n->tok->line, n->name, cl_name);
                break;
            }
            assign_blocks(n->body, n->body);
            if (n->var && n->var->handle_variant) {
                emit_function(p, n, true);
                if (!n->is_static || n->var->plain_called) emit_public_wrapper(p, n);
                else {
                    print_fmt(p, "/* %s:%d: static function %s is called only from this file with matrices: see %s */\n\n",
                              p->host->file, n->tok->line, n->name, handle_name(n->name));
                    break;
                }
            } else
                emit_function(p, n, false);
            emit_try_wrapper(p, n);
            break;
        case ND_BORDER_RULE:
            print_fmt(p, "/* %s:%d: border rule %s */\n", p->host->file, n->tok->line, n->name ? n->name : "?");
            break;
        default:
            break;
        }
    }
}
