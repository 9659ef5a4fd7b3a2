/* paracc: the ParaC compiler.
 *
 *   paracc FILE.pc --target opencl|cuda|c -o BASE [--dump=ast|hast|analysis]
 *
 * writes BASE.c (and the kernels: BASE.cl for OpenCL, BASE.cu for CUDA); with --dump, prints that stage to
 * stdout instead. Errors are reported as file:line:col with the source line;
 * on any error nothing is written and the exit status is 1. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lang/lang.h"

static void usage(FILE *o)
{
    fputs("usage: paracc FILE.pc [--target opencl|cuda|c] -o BASE [-O0|-O1|-O2] [-f[no-]FLAG] [--explain]\n"
          "  --target c         plain C with OpenMP (BASE.c)\n"
          "  --target opencl    OpenCL C 1.2 kernels (BASE.cl) and host C (BASE.c) using libparac\n"
          "  --target cuda      CUDA C++ kernels (BASE.cu, compiled at run time by NVRTC) and host C\n"
          "                     (BASE.c) using libparac's CUDA runtime\n"
          "  -O0                no optimisation: one output per work-item, plain loads and stores\n"
          "  -O1, -O2           the optimisation model (default -O2)\n"
          "  -fno-vectorize     one output per work-item (no vector parallelism)\n"
          "  -fno-merge-stores  no merging of neighbouring outputs into vector stores\n"
          "  -fno-vector-loads  no loading of the rows a work-item reads as aligned vectors\n"
          "  -fno-restrict      matrix arguments without restrict\n"
          "  -fno-fuse          no kernel fusion at all\n"
          "  -f[no-]fuse-stencils  a stencil stage recomputed inside the stencil that reads it (on at -O2\n"
          "                     for opencl and cuda; the C target only with -ffuse-stencils)\n"
          "  -fno-one-launch    the border boxes in a launch of their own, after the interior's\n"
          "  -fno-merge-launches  (opencl, cuda) small independent iterators (one axis, or two of at most\n"
          "                     64 iterations) in kernels of their own, not merged into one launch (on at -O2)\n"
          "  -fno-stage-stencils  (opencl, cuda) a chain of stencil stages that recomputation does not fuse\n"
          "                     keeps its kernels and images, not computed by the last stage's work-groups into\n"
          "                     local-memory tiles with halos (on at -O2)\n"
          "  -fno-whole-items   (opencl, cuda) a work-item of several outputs tests each against the iteration\n"
          "                     space, not only those at the edges (on from -O1: a work-item whose outputs\n"
          "                     all lie inside runs them untested, where the compiler shares their values)\n"
          "  -fno-fold-reductions  (cuda) an integer parac_matrix_sum / _mean of a matrix that the iterator\n"
          "                     just before writes whole runs in kernels of its own, not summed by that\n"
          "                     iterator's kernel as it stores the values (on from -O1)\n"
          "  -fno-work-group-histograms  atomic updates (hist[v] += 1) made in global memory one by one, not\n"
          "                     counted in a copy of the matrix per work-group (local memory; the C target:\n"
          "                     per thread) and added once (on from -O1 where the matrix's sizes are constants)\n"
          "  -fno-local-arrays  (opencl, cuda) an array of an iterator's body indexed by data (h[bin] += v)\n"
          "                     stays on the work-item's stack, not in a slice of the work-group's local\n"
          "                     memory (on from -O1)\n"
          "  -fno-loops-in-kernels  a host loop whose body is one iterator (after fusion) launches it once\n"
          "                     per round, not once with the rounds inside its kernel (on from -O1)\n"
          "  -fno-lane-blocks   (C target) an iterator's last axis as SIMD lanes around its whole body, not\n"
          "                     statements the same for every lane once per row or per 16 lanes and the\n"
          "                     rest as SIMD loops over the lanes (on from -O1)\n"
          "  -fno-split-clamps  (C target) clamps (v < lo ? lo : v > hi ? hi : v) computed in every lane, not\n"
          "                     a row's lanes split where they hold and their values used there (on from -O1)\n"
          "  -fno-skip-zeroing  (C target) every declared matrix starts as zeros, also where every element\n"
          "                     is written before any is read (their zeroing skipped from -O1)\n"
          "  -fno-strips        (C target) consecutive iterators one after another over whole images,\n"
          "                     not in strips of rows that keep their intermediates in cache\n"
          "  -fno-fold-storage  (C target) an intermediate that only a run of strips uses keeps all its\n"
          "                     rows, not a ring of the rows a strip needs (on from -O1)\n"
          "  -fno-strip-loops   (C target) host loops whose body is a run of strips run around it, not\n"
          "                     inside each strip, each thread running the loops over its own strips\n"
          "                     (on from -O1)\n"
          "  -fno-thread-strips (C target) the threads share each strip of a run, a barrier between its\n"
          "                     stages, not each thread running every stage over strips of its own,\n"
          "                     computing the rows behind and ahead of them that later stages read\n"
          "                     (on from -O1)\n"
          "  -f[no-]if-convert  `if (c) x = a; [else x = b;]` as x = c ? a : b, straight-line code that the\n"
          "                     vector plan accepts (on at -O1 and up for the c and cuda targets; opencl: -fif-convert);\n"
          "                     statements that begin both arms alike are hoisted before the if from -O1\n"
          "  -f[no-]local-memory  the rows a work-group reads go through a local-memory tile loaded once\n"
          "                     by the whole group (-flocal-memory: in the default kernel; -fno-: never)\n"
          "  -fno-search-variants  only the model's kernel per region and its fusion as the model chose\n"
          "                     it (by default at -O2 the search (PARAC_CL_SEARCH / PARAC_CU_SEARCH) also\n"
          "                     times other vector widths, rows per work-item and local-memory tiles,\n"
          "                     and each fused region against its statements fused with less or not at all)\n"
          "  --vector-width N   N outputs per work-item (1, 2, 4, 8 or 16) where the model allows any\n"
          "  --rows-per-item N  N rows of outputs per work-item (1 to 16) where the rows it reads are vector\n"
          "                     loads: each row loaded once for all of them\n"
          "  --explain          print, for every parallel region, what the model decided and why\n"
          "  --no-line          no #line directives (by default each statement maps back to FILE.pc)\n"
          "  --dump=STAGE       print the AST, the HAST (parallel regions) or the analysis\n"
          "  --max-errors N     stop after N errors (default 20)\n",
          o);
}

static char *read_file(const char *path, size_t *len)
{
    struct stat sb;
    if (stat(path, &sb) != 0) return NULL;
    if (!S_ISREG(sb.st_mode)) {
        errno = EISDIR;
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (n + 1 >= cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = b;
        }
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0) break;
    }
    if (ferror(f)) {
        fclose(f);
        free(buf);
        return NULL;
    }
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

/* Write atomically: a temporary next to the target, then rename. */
static int write_file(const char *path, const char *data, size_t len)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) return -1;
    if (fwrite(data, 1, len, f) != len) {
        fclose(f);
        remove(tmp);
        return -1;
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

/* An identifier for kernel names from BASE's file name. */
static char *base_ident(const char *base)
{
    const char *slash = strrchr(base, '/');
    const char *b = slash ? slash + 1 : base;
    size_t n = strlen(b);
    char *id = malloc(n + 2);
    size_t k = 0;
    if (!isalpha((unsigned char)b[0]) && b[0] != '_') id[k++] = 'p';
    for (size_t i = 0; i < n; i++) id[k++] = isalnum((unsigned char)b[i]) ? b[i] : '_';
    id[k] = 0;
    return id;
}

static const char *file_part(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int main(int argc, char **argv)
{
    const char *input = NULL, *base = NULL, *dump = NULL, *target = "opencl";
    int max_errors = 20, level = 2, vectorize = -1, merge = -1, loads = -1, restr = -1, fuse = -1, fuse_stencils = -1, one = -1, strips = -1, ifc = -1, local = -1, variants = -1, fold = -1, merge_launch = -1, stage = -1, whole = -1, histograms = -1, larr = -1, loops = -1, lanes = -1, clamps = -1, zeroing = -1, folding = -1, strip_loops = -1, thread_strips = -1, width = 0, rows = 0;
    bool explain = false, no_line = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "-o") && i + 1 < argc)
            base = argv[++i];
        else if (!strcmp(a, "--target") && i + 1 < argc)
            target = argv[++i];
        else if (!strncmp(a, "--target=", 9))
            target = a + 9;
        else if (!strncmp(a, "--dump=", 7))
            dump = a + 7;
        else if (!strcmp(a, "--max-errors") && i + 1 < argc)
            max_errors = atoi(argv[++i]);
        else if (!strcmp(a, "-O0") || !strcmp(a, "-O1") || !strcmp(a, "-O2"))
            level = a[2] - '0';
        else if (!strcmp(a, "-fvectorize") || !strcmp(a, "-fno-vectorize"))
            vectorize = a[2] != 'n';
        else if (!strcmp(a, "-fmerge-stores") || !strcmp(a, "-fno-merge-stores"))
            merge = a[2] != 'n';
        else if (!strcmp(a, "-fvector-loads") || !strcmp(a, "-fno-vector-loads"))
            loads = a[2] != 'n';
        else if (!strcmp(a, "-frestrict") || !strcmp(a, "-fno-restrict"))
            restr = a[2] != 'n';
        else if (!strcmp(a, "-ffuse") || !strcmp(a, "-fno-fuse"))
            fuse = a[2] != 'n';
        else if (!strcmp(a, "-ffuse-stencils") || !strcmp(a, "-fno-fuse-stencils"))
            fuse_stencils = a[2] != 'n';
        else if (!strcmp(a, "-fone-launch") || !strcmp(a, "-fno-one-launch"))
            one = a[2] != 'n';
        else if (!strcmp(a, "-fstrips") || !strcmp(a, "-fno-strips"))
            strips = a[2] != 'n';
        else if (!strcmp(a, "-fif-convert") || !strcmp(a, "-fno-if-convert"))
            ifc = a[2] != 'n';
        else if (!strcmp(a, "-flocal-memory") || !strcmp(a, "-fno-local-memory"))
            local = a[2] != 'n';
        else if (!strcmp(a, "-fsearch-variants") || !strcmp(a, "-fno-search-variants"))
            variants = a[2] != 'n';
        else if (!strcmp(a, "-ffold-reductions") || !strcmp(a, "-fno-fold-reductions"))
            fold = a[2] != 'n';
        else if (!strcmp(a, "-fmerge-launches") || !strcmp(a, "-fno-merge-launches"))
            merge_launch = a[2] != 'n';
        else if (!strcmp(a, "-fstage-stencils") || !strcmp(a, "-fno-stage-stencils"))
            stage = a[2] != 'n';
        else if (!strcmp(a, "-fwhole-items") || !strcmp(a, "-fno-whole-items"))
            whole = a[2] != 'n';
        else if (!strcmp(a, "-fwork-group-histograms") || !strcmp(a, "-fno-work-group-histograms"))
            histograms = a[2] != 'n';
        else if (!strcmp(a, "-flocal-arrays") || !strcmp(a, "-fno-local-arrays"))
            larr = a[2] != 'n';
        else if (!strcmp(a, "-floops-in-kernels") || !strcmp(a, "-fno-loops-in-kernels"))
            loops = a[2] != 'n';
        else if (!strcmp(a, "-flane-blocks") || !strcmp(a, "-fno-lane-blocks"))
            lanes = a[2] != 'n';
        else if (!strcmp(a, "-fsplit-clamps") || !strcmp(a, "-fno-split-clamps"))
            clamps = a[2] != 'n';
        else if (!strcmp(a, "-fskip-zeroing") || !strcmp(a, "-fno-skip-zeroing"))
            zeroing = a[2] != 'n';
        else if (!strcmp(a, "-ffold-storage") || !strcmp(a, "-fno-fold-storage"))
            folding = a[2] != 'n';
        else if (!strcmp(a, "-fstrip-loops") || !strcmp(a, "-fno-strip-loops"))
            strip_loops = a[2] != 'n';
        else if (!strcmp(a, "-fthread-strips") || !strcmp(a, "-fno-thread-strips"))
            thread_strips = a[2] != 'n';
        else if (!strcmp(a, "--explain"))
            explain = true;
        else if (!strcmp(a, "--no-line"))
            no_line = true;
        else if (!strcmp(a, "--rows-per-item") && i + 1 < argc) {
            rows = atoi(argv[++i]);
            if (rows < 1 || rows > 16) {
                fprintf(stderr, "paracc: --rows-per-item takes 1 to 16\n");
                return 1;
            }
        } else if (!strcmp(a, "--vector-width") && i + 1 < argc) {
            const char *v = argv[++i];
            width = atoi(v);
            if (strspn(v, "0123456789") != strlen(v) || (width != 1 && width != 2 && width != 4 && width != 8 && width != 16)) {
                fprintf(stderr, "paracc: --vector-width takes 1, 2, 4, 8 or 16, not '%s'\n", v);
                return 2;
            }
        }
        else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "paracc: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (!input)
            input = a;
        else {
            fprintf(stderr, "paracc: more than one input file ('%s' and '%s')\n", input, a);
            return 2;
        }
    }
    if (!input) {
        usage(stderr);
        return 2;
    }
    if (strcmp(target, "c") && strcmp(target, "opencl") && strcmp(target, "cuda")) {
        fprintf(stderr, "paracc: unknown target '%s' (use opencl, cuda or c)\n", target);
        return 2;
    }
    if (dump && strcmp(dump, "ast") && strcmp(dump, "hast") && strcmp(dump, "analysis")) {
        fprintf(stderr, "paracc: unknown dump stage '%s' (use ast, hast or analysis)\n", dump);
        return 2;
    }
    if (!dump && !base) {
        fprintf(stderr, "paracc: missing -o BASE (the output names BASE.c%s)\n",
                !strcmp(target, "opencl") ? " and BASE.cl" : !strcmp(target, "cuda") ? " and BASE.cu" : "");
        return 2;
    }
    size_t len = 0;
    char *text = read_file(input, &len);
    if (!text) {
        fprintf(stderr, "paracc: cannot read '%s': %s\n", input, strerror(errno));
        return 1;
    }
    if (strlen(text) != len) {
        fprintf(stderr, "%s: error: the file contains a NUL byte\n", input);
        free(text);
        return 1;
    }
    SourceFile file = {input, text, len};
    lang_diag.out = stderr;
    lang_diag.max_errors = max_errors > 0 ? max_errors : 20;
    char *ident = base_ident(base ? base : input);
    char *c_name = NULL, *cl_name = NULL;
    if (base) {
        size_t n = strlen(base) + 4;
        c_name = malloc(n);
        cl_name = malloc(n);
        snprintf(c_name, n, "%s.c", base);
        snprintf(cl_name, n, "%s.%s", base, strcmp(target, "cuda") ? "cl" : "cu");
    }
    CompileOptions opt = {0};
    opt.target = !strcmp(target, "c") ? TARGET_C : !strcmp(target, "cuda") ? TARGET_CUDA : TARGET_OPENCL;
    opt.dump = dump;
    opt.opt_level = level;
    opt.vectorize = vectorize;
    opt.merge_stores = merge;
    opt.vector_loads = loads;
    opt.restrict_ptrs = restr;
    opt.fuse = fuse;
    opt.fuse_stencils = fuse_stencils;
    opt.one_launch = one;
    opt.strips = strips;
    opt.local_memory = local;
    opt.if_convert = ifc;
    opt.search_variants = variants;
    opt.fold_reductions = fold;
    opt.merge_launches = merge_launch;
    opt.stage_stencils = stage;
    opt.whole_items = whole;
    opt.work_group_histograms = histograms;
    opt.local_arrays = larr;
    opt.loops_in_kernels = loops;
    opt.lane_blocks = lanes;
    opt.split_clamps = clamps;
    opt.skip_zeroing = zeroing;
    opt.fold_storage = folding;
    opt.strip_loops = strip_loops;
    opt.thread_strips = thread_strips;
    opt.vector_width = width;
    opt.rows_per_item = rows;
    opt.explain_out = explain ? stdout : NULL;
    opt.no_line = no_line;
    opt.dump_out = stdout;
    opt.base_name = ident;
    opt.c_name = c_name ? file_part(c_name) : NULL;
    opt.cl_name = cl_name ? file_part(cl_name) : NULL;
    char *hbuf = NULL, *kbuf = NULL;
    size_t hlen = 0, klen = 0;
    FILE *h = open_memstream(&hbuf, &hlen);
    FILE *k = open_memstream(&kbuf, &klen);
    int rc = (h && k) ? lang_compile(&file, &opt, h, k) : 1;
    if (h) fclose(h);
    if (k) fclose(k);
    if (rc == 0 && !dump) {
        if (write_file(c_name, hbuf, hlen) != 0) {
            fprintf(stderr, "paracc: cannot write '%s': %s\n", c_name, strerror(errno));
            rc = 1;
        } else if (target_has_device(opt.target) && write_file(cl_name, kbuf, klen) != 0) {
            fprintf(stderr, "paracc: cannot write '%s': %s\n", cl_name, strerror(errno));
            remove(c_name);
            rc = 1;
        }
    }
    if (rc != 0 && lang_diag.errors)
        fprintf(stderr, "%d error%s generated.\n", lang_diag.errors, lang_diag.errors == 1 ? "" : "s");
    free(hbuf);
    free(kbuf);
    free(text);
    free(ident);
    free(c_name);
    free(cl_name);
    lang_reset();
    return rc;
}
