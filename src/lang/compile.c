/* The pipeline, the one place that orders the passes: tokenize -> parse ->
 * sema (and its checks) -> tree rewrites (if-conversion, fusion, merged
 * launches) -> HAST -> analysis -> split -> the plan (the model, cached
 * values, folded reductions, strips) -> explain / dump -> emit. */
#include <stdlib.h>
#include <string.h>

#include "lang/lang.h"

/* The kernels (kernel_source NULL) or the host code, with the #line marks
 * resolved to lines of `name`; NULL when no memory is left. */
static char *emit_resolved(Program *prog, const char *kernel_source, Target target, const char *name,
                           const char *cl_name)
{
    char *raw = NULL, *text = NULL;
    size_t len = 0, tlen = 0;
    FILE *o = open_memstream(&raw, &len);
    if (!o) return NULL;
    if (!kernel_source) emit_device_kernels(prog, o, name, target == TARGET_CUDA);
    else emit_host_program(prog, o, target, name, cl_name, kernel_source);
    if (fclose(o) != 0) {
        free(raw);
        return NULL;
    }
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

int lang_compile(SourceFile *file, const CompileOptions *opt, FILE *host, FILE *kernels)
{
    lang_diag.errors = 0;
    Token *toks = tokenize(file);
    Program *prog = parse_program(file, toks);
    prog->base = opt->base_name ? opt->base_name : "parac";
    prog->opt = opt;
    bool ast_only = opt->dump && !strcmp(opt->dump, "ast");
    if (lang_diag.errors == 0) {
        sema_program(prog);
        sema_check_writes(prog);
        sema_check_macros(prog);
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
    char *ksrc = NULL;
    if (target_has_device(opt->target)) {
        ksrc = emit_resolved(prog, NULL, opt->target, cl_name, NULL);
        if (!ksrc) return 1;
        if (kernels) fputs(ksrc, kernels);
    }
    if (host) {
        char *hsrc = emit_resolved(prog, ksrc ? ksrc : "", opt->target, c_name, cl_name);
        if (!hsrc) {
            free(ksrc);
            return 1;
        }
        fputs(hsrc, host);
        free(hsrc);
    }
    free(ksrc);
    return 0;
}
