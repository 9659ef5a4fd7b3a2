/* Compiles the CUDA kernels that paracc generated with NVRTC for sm_90, as
 * the CUDA runtime does on an H100, so that the CUDA target's output is
 * checked on machines without a GPU. Usage: check_nvrtc FILE.cu... */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *t = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (t && fread(t, 1, (size_t)n, f) != (size_t)n) {
        free(t);
        t = NULL;
    }
    if (t) t[n] = 0;
    fclose(f);
    return t;
}

int main(int argc, char **argv)
{
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        char *src = read_text(argv[i]);
        if (!src) {
            fprintf(stderr, "%s: cannot read\n", argv[i]);
            return 1;
        }
        nvrtcProgram prog;
        const char *opts[] = {"--gpu-architecture=sm_90", "--std=c++17"};
        nvrtcResult r = nvrtcCreateProgram(&prog, src, argv[i], 0, NULL, NULL);
        if (r == NVRTC_SUCCESS) r = nvrtcCompileProgram(prog, 2, opts);
        size_t n = 0;
        if (nvrtcGetProgramLogSize(prog, &n) == NVRTC_SUCCESS && n > 1) {
            char *log = malloc(n);
            if (log && nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS) fprintf(stderr, "%s", log);
            free(log);
        }
        size_t cubin = 0;
        if (r == NVRTC_SUCCESS) r = nvrtcGetCUBINSize(prog, &cubin);
        printf("%s: %s (%zu bytes of sm_90 code)\n", argv[i], nvrtcGetErrorString(r), cubin);
        failed |= r != NVRTC_SUCCESS;
        nvrtcDestroyProgram(&prog);
        free(src);
    }
    return failed;
}
