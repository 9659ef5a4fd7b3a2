/* paracc out of memory at every point: for each program given and each
 * target, the compile runs with the k-th chunk of the compiler's arena
 * failing, for k = 1, 2, ... until a compile takes fewer than k chunks.
 * Each such compile returns 1 with "out of memory" and no output; the last
 * succeeds. The sanitizer build (CI) sees no leak on any of these paths.
 * Usage: test_out_of_memory FILE.pc... */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lang.h"

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t cap = 0;
    FILE *m = open_memstream(&buf, &cap);
    int c;
    while ((c = fgetc(f)) != EOF) fputc(c, m);
    fclose(f);
    fclose(m);
    *len = cap;
    return buf;
}

/* One compile with the k-th chunk failing (k = 0: none). Returns paracc's
 * status; *failed: whether the failure was reached; *quiet: no output. */
static int compile_once(SourceFile *file, Target target, long k, int *failed, int *quiet, char **messages)
{
    char *hbuf = NULL, *kbuf = NULL, *mbuf = NULL;
    size_t hlen = 0, klen = 0, mlen = 0;
    FILE *h = open_memstream(&hbuf, &hlen), *kf = open_memstream(&kbuf, &klen), *m = open_memstream(&mbuf, &mlen);
    CompileOptions opt = {0};
    opt.target = target;
    opt.opt_level = 2;
    opt.vectorize = opt.merge_stores = opt.vector_loads = opt.restrict_ptrs = opt.fuse = opt.fuse_stencils = -1;
    opt.one_launch = opt.strips = opt.if_convert = opt.local_memory = opt.search_variants = -1;
    opt.fold_reductions = opt.merge_launches = opt.stage_stencils = opt.whole_items = opt.work_group_histograms = opt.local_arrays = opt.loops_in_kernels = opt.lane_blocks = opt.split_clamps = opt.skip_zeroing = opt.fold_storage = opt.strip_loops = -1;
    opt.base_name = "oom";
    lang_diag.out = m;
    lang_alloc_fail_after(k);
    const int rc = lang_compile(file, &opt, h, kf);
    *failed = lang_alloc_failures() > 0;
    lang_alloc_fail_after(0);
    lang_reset();
    lang_diag.out = NULL;
    fclose(h);
    fclose(kf);
    fclose(m);
    *quiet = hlen == 0 && klen == 0;
    *messages = mbuf;
    free(hbuf);
    free(kbuf);
    return rc;
}

int main(int argc, char **argv)
{
    int bad = 0;
    long total = 0;
    for (int a = 1; a < argc; a++) {
        size_t len = 0;
        char *text = read_all(argv[a], &len);
        if (!text) {
            fprintf(stderr, "cannot read %s\n", argv[a]);
            return 1;
        }
        SourceFile file = {argv[a], text, len};
        for (int t = 0; t < 3; t++) {
            const Target target = t == 0 ? TARGET_C : t == 1 ? TARGET_OPENCL : TARGET_CUDA;
            long k = 1;
            for (;; k++) {
                int failed = 0, quiet = 0;
                char *msg = NULL;
                const int rc = compile_once(&file, target, k, &failed, &quiet, &msg);
                if (!failed) {
                    if (rc != 0) {
                        fprintf(stderr, "%s (%s): fails without a failed allocation:\n%s", argv[a], target_name(target),
                                msg);
                        bad++;
                    }
                    free(msg);
                    break;
                }
                if (rc != 1 || !strstr(msg, "paracc: out of memory") || !quiet) {
                    fprintf(stderr, "%s (%s), chunk %ld failing: status %d, output %s, messages:\n%s", argv[a],
                            target_name(target), k, rc, quiet ? "none" : "written", msg);
                    bad++;
                }
                free(msg);
            }
            printf("%s (%s): %ld chunks, each made to fail\n", argv[a], target_name(target), k - 1);
            total += k - 1;
        }
        free(text);
    }
    printf("%ld failing compiles, %d wrong\n", total, bad);
    return bad ? 1 : 0;
}
