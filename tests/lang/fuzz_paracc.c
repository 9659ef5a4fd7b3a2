/* libFuzzer entry for the ParaC front end and both back ends: any input must
 * end in diagnostics or generated code, never a crash, hang or leak. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lang.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 20000) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    SourceFile file = {"fuzz.pc", text, strlen(text)};
    FILE *sink = fopen("/dev/null", "w");
    lang_diag.out = sink;
    lang_diag.max_errors = 20;
    for (int t = 0; t < 4; t++) { /* C at -O2, OpenCL at -O0, OpenCL at -O2 with its plan explained, CUDA at -O2 */
        CompileOptions opt = {0};
        opt.target = t == 3 ? TARGET_CUDA : t ? TARGET_OPENCL : TARGET_C;
        opt.opt_level = t == 1 ? 0 : 2;
        opt.explain_out = t == 2 ? sink : NULL;
        /* -O2 with every optimisation at its level's default (0 would switch each off) */
        opt.vectorize = opt.merge_stores = opt.vector_loads = opt.restrict_ptrs = -1;
        opt.fuse = opt.fuse_stencils = opt.one_launch = opt.strips = opt.local_memory = opt.search_variants = opt.if_convert = -1;
        opt.fold_reductions = opt.merge_launches = opt.stage_stencils = opt.whole_items = opt.work_group_histograms = opt.local_arrays = opt.loops_in_kernels = opt.lane_blocks = opt.split_clamps = opt.skip_zeroing = opt.fold_storage = opt.strip_loops = -1;
        opt.base_name = "fuzz";
        lang_compile(&file, &opt, sink, sink);
        lang_reset();
    }
    static const char *dumps[] = {"ast", "hast", "analysis"};
    CompileOptions opt = {0};
    opt.dump = dumps[size % 3];
    opt.dump_out = sink;
    opt.base_name = "fuzz";
    lang_compile(&file, &opt, sink, sink);
    lang_reset();
    if (sink) fclose(sink);
    free(text);
    return 0;
}
