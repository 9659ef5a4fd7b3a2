/* parac run PROGRAM.pc IN OUT: apply a ParaC program to an image.
 *
 * The program defines
 *     const char parac_main_dtype[] = "u8";      (u8, u16, i32, f32 or f64)
 *     void parac_main(int C, int H, int W, T *in, T *out);
 * where in and out hold C planes of H x W elements of that type, channel
 * first, rows packed (the layout of `T parac_matrix &M[C][H][W] = in;`).
 * The command compiles the program with paracc and the system C compiler
 * into a shared object, loads it, converts IN to planes, calls parac_main
 * and writes OUT with the same size, channels and type. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "parac_run_paths.h"

#ifndef PARAC_RUN_INCLUDE_DIRS
#define PARAC_RUN_INCLUDE_DIRS ""
#endif
#ifndef PARAC_RUN_LIB_DIR
#define PARAC_RUN_LIB_DIR ""
#endif

void cmd_run_help(FILE *out)
{
    fprintf(out,
            "usage: parac run PROGRAM.pc IN OUT [--target c|opencl|cuda] [--keep DIR] [--paracc-flag F]...\n\n"
            "Compiles a ParaC program with paracc and the C compiler ($CC, default cc) and\n"
            "applies it to image IN, writing OUT. The program defines\n"
            "    const char parac_main_dtype[] = \"u8\";   /* u8, u16, i32, f32 or f64 */\n"
            "    void parac_main(int C, int H, int W, T *in, T *out);\n"
            "with in/out as C planes of H x W packed elements (bind them with\n"
            "T parac_matrix &M[C][H][W] = in;). IN must have that dtype.\n"
            "  --target c       C with OpenMP (default)\n"
            "  --target opencl  OpenCL kernels; device from PARAC_OPENCL_DEVICE\n"
            "  --target cuda    CUDA kernels (NVRTC); device from PARAC_CUDA_DEVICE\n"
            "  --keep DIR       keep the generated code and the shared object in DIR\n"
            "  --paracc-flag F  pass F to paracc (repeatable: --paracc-flag -O0,\n"
            "                   --paracc-flag --vector-width --paracc-flag 4)\n"
            "Environment: PARACC (the compiler; default: next to parac), CC.\n");
}

/* Run argv[0] with arguments; 0 when it exits with status 0. */
static int spawn(char *const argv[])
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        execvp(argv[0], argv);
        fprintf(stderr, "parac: run: cannot start '%s': %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0) return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void find_paracc(char *out, size_t size)
{
    const char *env = getenv("PARACC");
    if (env && *env) {
        snprintf(out, size, "%s", env);
        return;
    }
    char self[PATH_MAX - 64];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = 0;
            snprintf(out, size, "%s/paracc", self);
            if (access(out, X_OK) == 0) return;
        }
    }
    snprintf(out, size, "paracc");
}

static parac_status to_planes(const parac_image *img, void *planes, size_t esize)
{
    int64_t W = img->width, H = img->height * img->depth;
    for (int c = 0; c < img->channels; c++)
        for (int64_t y = 0; y < H; y++) {
            const char *row = (const char *)img->data + y * img->row_pitch;
            char *dst = (char *)planes + (((size_t)c * (size_t)H + (size_t)y) * (size_t)W) * esize;
            for (int64_t x = 0; x < W; x++)
                memcpy(dst + (size_t)x * esize, row + x * img->pixel_stride + (size_t)c * esize, esize);
        }
    return PARAC_OK;
}

static void from_planes(parac_image *img, const void *planes, size_t esize)
{
    int64_t W = img->width, H = img->height * img->depth;
    for (int c = 0; c < img->channels; c++)
        for (int64_t y = 0; y < H; y++) {
            char *row = (char *)img->data + y * img->row_pitch;
            const char *src = (const char *)planes + (((size_t)c * (size_t)H + (size_t)y) * (size_t)W) * esize;
            for (int64_t x = 0; x < W; x++)
                memcpy(row + x * img->pixel_stride + (size_t)c * esize, src + (size_t)x * esize, esize);
        }
}

static void remove_tree(const char *dir, const char *base)
{
    const char *ext[] = {".c", ".cl", ".cu", ".so"};
    char path[PATH_MAX + 32];
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s%s", dir, base, ext[i]);
        unlink(path);
    }
    rmdir(dir);
}

int cmd_run(int argc, char **argv)
{
    const char *program = NULL, *in_path = NULL, *out_path = NULL, *target = "c", *keep = NULL;
    enum { MAX_FLAGS = 16 };
    const char *flags[MAX_FLAGS];
    int nflags = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--target") && i + 1 < argc) target = argv[++i];
        else if (!strcmp(argv[i], "--keep") && i + 1 < argc) keep = argv[++i];
        else if (!strcmp(argv[i], "--paracc-flag") && i + 1 < argc) {
            if (nflags == MAX_FLAGS) {
                cli_error("run: at most %d --paracc-flag options", MAX_FLAGS);
                return CLI_USER_ERROR;
            }
            flags[nflags++] = argv[++i];
        }
        else if (argv[i][0] == '-' && argv[i][1]) {
            cli_error("run: unknown option '%s'", argv[i]);
            return CLI_USER_ERROR;
        } else if (!program) program = argv[i];
        else if (!in_path) in_path = argv[i];
        else if (!out_path) out_path = argv[i];
        else {
            cli_error("run: too many arguments ('%s')", argv[i]);
            return CLI_USER_ERROR;
        }
    }
    if (!program || !in_path || !out_path) {
        cmd_run_help(stderr);
        return CLI_USER_ERROR;
    }
    if (strcmp(target, "c") && strcmp(target, "opencl") && strcmp(target, "cuda")) {
        cli_error("run: --target must be c, opencl or cuda");
        return CLI_USER_ERROR;
    }
    parac_image *img = NULL;
    parac_status st = parac_image_read(in_path, NULL, &img);
    if (st != PARAC_OK) return cli_fail(st, in_path);

    char dir[PATH_MAX];
    if (keep) {
        snprintf(dir, sizeof dir, "%s", keep);
        mkdir(dir, 0755);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/parac-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            cli_error("run: cannot create a temporary folder: %s", strerror(errno));
            parac_image_destroy(img);
            return CLI_INTERNAL_ERROR;
        }
    }
    const char *base = "program";
    char paracc[PATH_MAX], out_base[PATH_MAX + 16], c_file[PATH_MAX + 32], so_file[PATH_MAX + 32];
    find_paracc(paracc, sizeof paracc);
    snprintf(out_base, sizeof out_base, "%s/%s", dir, base);
    snprintf(c_file, sizeof c_file, "%s.c", out_base);
    snprintf(so_file, sizeof so_file, "%s.so", out_base);
    int rc = CLI_USER_ERROR;
    void *so = NULL;
    void *in_planes = NULL, *out_planes = NULL;
    parac_image *out = NULL;

    char *pargs[8 + MAX_FLAGS] = {paracc, (char *)program, "--target", (char *)target, "-o", out_base};
    for (int i = 0; i < nflags; i++) pargs[6 + i] = (char *)flags[i];
    pargs[6 + nflags] = NULL;
    if (spawn(pargs) != 0) {
        cli_error("run: paracc could not compile %s (messages above)", program);
        goto done;
    }
    /* the C compiler: generated code + libparac */
    const char *cc = getenv("CC");
    char *cargs[32];
    int n = 0;
    char inc[4][PATH_MAX + 2];
    int ninc = 0;
    cargs[n++] = (char *)(cc && *cc ? cc : "cc");
    cargs[n++] = "-shared";
    cargs[n++] = "-fPIC";
    cargs[n++] = "-O2";
    /* the C target runs where it is compiled: the host's vector width (as
     * Halide's host target), math functions in SIMD lanes (no errno: a call
     * that may set it keeps a loop scalar); -ffp-contract=off keeps float
     * results exact */
    if (!strcmp(target, "c")) cargs[n++] = "-march=native";
    if (!strcmp(target, "c")) cargs[n++] = "-fno-math-errno";
    cargs[n++] = "-fopenmp";
    cargs[n++] = "-ffp-contract=off";
    {
        char dirs[] = PARAC_RUN_INCLUDE_DIRS;
        for (char *tok = strtok(dirs, ";"); tok && ninc < 4; tok = strtok(NULL, ";")) {
            snprintf(inc[ninc], sizeof inc[ninc], "-I%s", tok);
            cargs[n++] = inc[ninc++];
        }
    }
    cargs[n++] = c_file;
    cargs[n++] = "-o";
    cargs[n++] = so_file;
    char libdir[PATH_MAX + 4], rpath[PATH_MAX + 16];
    if (PARAC_RUN_LIB_DIR[0]) {
        snprintf(libdir, sizeof libdir, "-L%s", PARAC_RUN_LIB_DIR);
        snprintf(rpath, sizeof rpath, "-Wl,-rpath,%s", PARAC_RUN_LIB_DIR);
        cargs[n++] = libdir;
        cargs[n++] = rpath;
    }
    cargs[n++] = "-lparac";
    cargs[n++] = "-lm";
    cargs[n] = NULL;
    int cc_rc = spawn(cargs);
    if (cc_rc != 0 && !strcmp(target, "c")) { /* a compiler without -march=native: once more without it */
        int k = 0;
        for (int i = 0; cargs[i]; i++)
            if (strcmp(cargs[i], "-march=native") != 0) cargs[k++] = cargs[i];
        cargs[k] = NULL;
        cli_info("run: the C compiler refused -march=native; compiling without it");
        cc_rc = spawn(cargs);
    }
    if (cc_rc != 0) {
        cli_error("run: the C compiler failed on %s", c_file);
        rc = CLI_INTERNAL_ERROR;
        goto done;
    }
    so = dlopen(so_file, RTLD_NOW | RTLD_LOCAL);
    if (!so) {
        cli_error("run: cannot load %s: %s", so_file, dlerror());
        rc = CLI_INTERNAL_ERROR;
        goto done;
    }
    typedef void (*main_fn)(int, int, int, void *, void *);
    main_fn fn;
    *(void **)&fn = dlsym(so, "parac_main");
    if (!fn) {
        cli_error("run: %s defines no 'void parac_main(int C, int H, int W, T *in, T *out)'", program);
        goto done;
    }
    const char *want = dlsym(so, "parac_main_dtype");
    parac_dtype dt = PARAC_U8;
    if (want && parac_dtype_from_name(want, &dt) != PARAC_OK) {
        cli_error("run: parac_main_dtype \"%s\" is not a dtype (u8, u16, i32, f32, f64)", want);
        goto done;
    }
    if (img->dtype != dt) {
        cli_error("run: %s is %s but %s works on %s (convert it first)", in_path, parac_dtype_name(img->dtype),
                  program, parac_dtype_name(dt));
        goto done;
    }
    size_t esize = parac_dtype_size(dt);
    int64_t H = img->height * img->depth, W = img->width;
    if (H > INT_MAX || W > INT_MAX) {
        cli_error("run: image too large");
        goto done;
    }
    size_t bytes = (size_t)img->channels * (size_t)H * (size_t)W * esize;
    in_planes = malloc(bytes ? bytes : 1);
    out_planes = calloc(bytes ? bytes : 1, 1);
    if (!in_planes || !out_planes) {
        cli_error("run: out of memory");
        rc = CLI_INTERNAL_ERROR;
        goto done;
    }
    to_planes(img, in_planes, esize);
    fn(img->channels, (int)H, (int)W, in_planes, out_planes);
    st = parac_image_create(&out, img->width, img->height, img->depth, img->channels, dt, PARAC_MEMORY_HOST, -1);
    if (st != PARAC_OK) {
        rc = cli_fail(st, "run");
        goto done;
    }
    from_planes(out, out_planes, esize);
    st = parac_image_write(out_path, out, NULL);
    if (st != PARAC_OK) {
        rc = cli_fail(st, out_path);
        goto done;
    }
    cli_info("%s: %s -> %s", program, in_path, out_path);
    rc = CLI_OK;
done:
    if (so) dlclose(so);
    free(in_planes);
    free(out_planes);
    parac_image_destroy(out);
    parac_image_destroy(img);
    if (!keep) remove_tree(dir, base);
    return rc;
}
