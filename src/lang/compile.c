/* The pipeline: tokenize -> parse -> sema -> HAST -> analysis -> split -> plan -> emit. */
#include <stdlib.h>
#include <string.h>

#include "lang/lang.h"

void emit_host_program(Program *prog, FILE *o, Target target, const char *c_name, const char *cl_name,
                       const char *kernel_source);
void emit_opencl_kernels(Program *prog, FILE *o, const char *cl_name);

int lang_compile(SourceFile *file, const CompileOptions *opt, FILE *host, FILE *kernels)
{
    lang_diag.errors = 0;
    Token *toks = tokenize(file);
    Program *prog = parse_program(file, toks);
    prog->base = opt->base_name ? opt->base_name : "parac";
    prog->opt = opt;
    bool ast_only = opt->dump && !strcmp(opt->dump, "ast");
    if (lang_diag.errors == 0) sema_program(prog);
    if (ast_only) {
        dump_ast(prog, opt->dump_out ? opt->dump_out : stdout);
        return lang_diag.errors ? 1 : 0;
    }
    if (lang_diag.errors == 0) hast_build(prog);
    if (lang_diag.errors == 0) analyse_program(prog);
    if (lang_diag.errors == 0) split_program(prog);
    if (lang_diag.errors == 0) plan_program(prog);
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
    if (opt->target == TARGET_OPENCL) {
        char *ksrc = NULL;
        size_t klen = 0;
        FILE *k = open_memstream(&ksrc, &klen);
        if (!k) return 1;
        emit_opencl_kernels(prog, k, opt->cl_name ? opt->cl_name : "kernels.cl");
        fclose(k);
        if (kernels) fputs(ksrc, kernels);
        if (host) emit_host_program(prog, host, TARGET_OPENCL, opt->c_name ? opt->c_name : "out.c",
                                    opt->cl_name ? opt->cl_name : "kernels.cl", ksrc);
        free(ksrc);
    } else if (host) {
        emit_host_program(prog, host, TARGET_C, opt->c_name ? opt->c_name : "out.c", NULL, "");
    }
    return 0;
}
