/* The pipeline, the one place that orders the passes: tokenize -> parse ->
 * sema (and its checks) -> tree rewrites (if-conversion, fusion, merged
 * launches) -> HAST -> analysis -> split -> the plan (the model, cached
 * values, folded reductions, strips, work-group histograms, local arrays)
 * -> explain / dump -> emit. */
#include <stdlib.h>
#include <string.h>

#include "lang/lang.h"

/* What a compile holds outside the arena (the streams being written and
 * the kernels' text), released by the out-of-memory handler too. */
static struct {
    FILE *stream;
    char *raw;
    size_t len;
    char *kernels;
} held;

static void release_held(void)
{
    if (held.stream) fclose(held.stream);
    free(held.raw);
    free(held.kernels);
    memset(&held, 0, sizeof held);
}

/* The kernels (kernel_source NULL) or the host code, with the #line marks
 * resolved to lines of `name`; NULL when no memory is left. */
static char *emit_resolved(Program *prog, const char *kernel_source, Target target, const char *name,
                           const char *cl_name)
{
    held.stream = open_memstream(&held.raw, &held.len);
    if (!held.stream) return NULL;
    if (!kernel_source) emit_device_kernels(prog, held.stream, name, target == TARGET_CUDA);
    else emit_host_program(prog, held.stream, target, name, cl_name, kernel_source);
    const int closed = fclose(held.stream);
    held.stream = NULL;
    char *raw = held.raw;
    held.raw = NULL;
    if (closed != 0) {
        free(raw);
        return NULL;
    }
    char *text = NULL;
    size_t tlen = 0;
    FILE *t = open_memstream(&text, &tlen);
    if (!t) {
        free(raw);
        return NULL;
    }
    lang_fix_line_marks(raw, name, t);
    free(raw);
    if (fclose(t) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

static int out_of_memory(void)
{
    FILE *o = lang_diag.out ? lang_diag.out : stderr;
    fprintf(o, "paracc: out of memory\n");
    lang_diag.errors++;
    return 1;
}

static int compile(SourceFile *file, const CompileOptions *opt, FILE *host, FILE *kernels);

/* Out of memory anywhere in the passes: what the compile holds released,
 * the arena left to lang_reset(), and 1 returned with a message. */
int lang_compile(SourceFile *file, const CompileOptions *opt, FILE *host, FILE *kernels)
{
    jmp_buf handler;
    jmp_buf *outer = lang_on_oom(&handler);
    int rc;
    if (setjmp(handler) == 0) {
        rc = compile(file, opt, host, kernels);
    } else {
        release_held();
        rc = out_of_memory();
    }
    lang_on_oom(outer);
    return rc;
}

static int compile(SourceFile *file, const CompileOptions *opt, FILE *host, FILE *kernels)
{
    lang_diag.errors = 0;
    const char **macro_matrices = NULL;
    int nmacro_matrices = 0;
    Token *toks = lang_expand_matrix_macros(tokenize(file), &macro_matrices, &nmacro_matrices);
    Program *prog = parse_program(file, toks);
    prog->macro_matrices = macro_matrices;
    prog->nmacro_matrices = nmacro_matrices;
    prog->base = opt->base_name ? opt->base_name : "parac";
    prog->opt = opt;
    bool ast_only = opt->dump && !strcmp(opt->dump, "ast");
    if (lang_diag.errors == 0) {
        sema_program(prog);
        sema_check_writes(prog);
        sema_check_macros(prog);
        sema_check_matrix_calls(prog);
    }
    if (ast_only) {
        dump_ast(prog, opt->dump_out ? opt->dump_out : stdout);
        return lang_diag.errors ? 1 : 0;
    }
    if (lang_diag.errors == 0) if_convert_program(prog);
    if (lang_diag.errors == 0) fuse_program(prog);
    if (lang_diag.errors == 0) merge_launches(prog);
    if (lang_diag.errors == 0) hast_build(prog);
    if (lang_diag.errors == 0) analyse_program(prog);
    if (lang_diag.errors == 0) split_program(prog);
    if (lang_diag.errors == 0) plan_program(prog);
    if (lang_diag.errors == 0) plan_fused_caches(prog);
    if (lang_diag.errors == 0) plan_fold_reductions(prog);
    if (lang_diag.errors == 0) plan_strips(prog);
    if (lang_diag.errors == 0) plan_histograms(prog);
    if (lang_diag.errors == 0) plan_local_arrays(prog);
    if (lang_diag.errors == 0) plan_lanes(prog);
    if (opt->explain_out && lang_diag.errors == 0) explain_program(prog, opt->explain_out);
    if (opt->dump && lang_diag.errors == 0) {
        FILE *o = opt->dump_out ? opt->dump_out : stdout;
        if (!strcmp(opt->dump, "hast")) dump_hast(prog, o);
        else if (!strcmp(opt->dump, "analysis")) dump_analysis(prog, o);
        return 0;
    }
    if (lang_diag.errors) {
        if (lang_diag.errors > lang_diag.max_errors) {
            FILE *o = lang_diag.out ? lang_diag.out : stderr;
            fprintf(o, "paracc: too many errors (%d), stopping\n", lang_diag.errors);
        }
        return 1;
    }
    const char *c_name = opt->c_name ? opt->c_name : "out.c", *cl_name = opt->cl_name ? opt->cl_name : "kernels.cl";
    /* both texts made before either is written: a failure writes nothing */
    if (target_has_device(opt->target)) {
        held.kernels = emit_resolved(prog, NULL, opt->target, cl_name, NULL);
        if (!held.kernels) return out_of_memory();
    }
    char *hsrc = host ? emit_resolved(prog, held.kernels ? held.kernels : "", opt->target, c_name, cl_name) : NULL;
    if (host && !hsrc) {
        release_held();
        return out_of_memory();
    }
    if (kernels && held.kernels) fputs(held.kernels, kernels);
    if (hsrc) fputs(hsrc, host);
    free(hsrc);
    release_held();
    return 0;
}
