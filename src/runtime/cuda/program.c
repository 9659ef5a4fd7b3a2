/* The program of a CUDA session: the generated CUDA C++ compiled by NVRTC
 * into a binary for the device's architecture (or, for a device newer than
 * this NVRTC knows, PTX of the newest architecture it does, which the driver
 * compiles), loaded through the runtime's library API.
 *
 * Binaries are cached on disk (core/disk_cache.h), keyed by the source, the
 * options, NVRTC's version, the device's name and architecture and the
 * driver's version; a missing or rejected entry means a compile. */
#define _POSIX_C_SOURCE 200809L
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "runtime/common/disk_cache.h"
#include "core/error_internal.h"
#include "runtime/cuda/runtime_internal.h"

#define NVRTC_TRY(call, what)                                                                        \
    do {                                                                                             \
        nvrtcResult parac__r = (call);                                                               \
        if (parac__r != NVRTC_SUCCESS) {                                                             \
            st = parac__fail(PARAC_ERR_CUDA, "%s failed: %s", what, nvrtcGetErrorString(parac__r));  \
            goto done;                                                                               \
        }                                                                                            \
    } while (0)

/* The architecture to compile for: the device's own as a binary when NVRTC
 * supports it, else the newest older one as PTX. */
static parac_status pick_arch(int device_arch, int *arch, int *as_ptx)
{
    int n = 0;
    if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0 || n > 256)
        return parac__fail(PARAC_ERR_CUDA, "NVRTC lists no architectures");
    int list[256];
    if (nvrtcGetSupportedArchs(list) != NVRTC_SUCCESS) return parac__fail(PARAC_ERR_CUDA, "NVRTC lists no architectures");
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (list[i] == device_arch) {
            *arch = device_arch;
            *as_ptx = 0;
            return PARAC_OK;
        }
        if (list[i] < device_arch && list[i] > best) best = list[i];
    }
    if (best < 0)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "this NVRTC cannot compile for sm_%d (oldest it knows: sm_%d)",
                           device_arch, list[0]);
    *arch = best;
    *as_ptx = 1;
    return PARAC_OK;
}

static parac_status load(parac_cu_session *s, const void *code, const char *what)
{
    cudaError_t e = cudaLibraryLoadData(&s->library, code, NULL, NULL, 0, NULL, NULL, 0);
    if (e != cudaSuccess) {
        s->library = NULL;
        return parac__fail(PARAC_ERR_CUDA, "loading %s on %s failed: %s", what, s->rt.label, cudaGetErrorString(e));
    }
    return PARAC_OK;
}

/* NVRTC compile of source; on success *code (malloc'ed) and *len. */
static parac_status compile(const char *name, const char *source, const char *const *opts, int nopt, int as_ptx,
                            const char *label, char **code, size_t *len)
{
    parac_status st = PARAC_OK;
    nvrtcProgram prog = NULL;
    char file[300];
    snprintf(file, sizeof file, "%s.cu", name);
    NVRTC_TRY(nvrtcCreateProgram(&prog, source, file, 0, NULL, NULL), "nvrtcCreateProgram");
    nvrtcResult r = nvrtcCompileProgram(prog, nopt, opts);
    if (r != NVRTC_SUCCESS) {
        size_t n = 0;
        char *log = NULL;
        if (nvrtcGetProgramLogSize(prog, &n) == NVRTC_SUCCESS && (log = parac__malloc(n + 1)) != NULL) {
            log[0] = 0;
            if (nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) log[0] = 0;
            log[n] = 0;
        }
        st = parac__fail(PARAC_ERR_CUDA, "compiling the kernels of '%s' for %s failed (%s):\n%s", name, label,
                         nvrtcGetErrorString(r), log ? log : "");
        free(log);
        goto done;
    }
    if (as_ptx) {
        NVRTC_TRY(nvrtcGetPTXSize(prog, len), "nvrtcGetPTXSize");
    } else {
        NVRTC_TRY(nvrtcGetCUBINSize(prog, len), "nvrtcGetCUBINSize");
    }
    *code = parac__malloc(*len + 1);
    if (!*code) {
        st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "program binary of %zu bytes", *len);
        goto done;
    }
    if (as_ptx) {
        NVRTC_TRY(nvrtcGetPTX(prog, *code), "nvrtcGetPTX");
    } else {
        NVRTC_TRY(nvrtcGetCUBIN(prog, *code), "nvrtcGetCUBIN");
    }
    (*code)[*len] = 0;
done:
    if (st != PARAC_OK && code && *code) {
        free(*code);
        *code = NULL;
    }
    if (prog) nvrtcDestroyProgram(&prog);
    return st;
}

parac_status parac__cu_load_program(parac_cu_session *s, const char *name, const char *source)
{
    int arch = 0, as_ptx = 0;
    PARAC_TRY(pick_arch(s->arch, &arch, &as_ptx));
    char arch_opt[64];
    snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=%s_%d", as_ptx ? "compute" : "sm", arch);
    const char *opts[] = {arch_opt, "--std=c++17"};
    const int nopt = (int)(sizeof opts / sizeof *opts);
    int major = 0, minor = 0, driver = 0;
    nvrtcVersion(&major, &minor);
    cudaDriverGetVersion(&driver);
    char ver[768];
    snprintf(ver, sizeof ver, "nvrtc %d.%d driver %d %s", major, minor, driver, s->rt.label);
    uint64_t h = 0xcbf29ce484222325ULL;
    h = parac__fnv(h, source);
    for (int i = 0; i < nopt; i++) h = parac__fnv(h, opts[i]);
    h = parac__fnv(h, ver);
    s->rt.program_key = h;
    char dir[1024], path[1200];
    const int have_dir = parac__cache_dir(dir, sizeof dir);
    if (have_dir) {
        snprintf(path, sizeof path, "%s/%s-%016llx.%s", dir, name, (unsigned long long)h, as_ptx ? "ptx" : "cubin");
        size_t len = 0;
        unsigned char *bin = parac__read_all(path, &len);
        if (bin) {
            /* PTX is text: loaded with its terminating zero */
            unsigned char *code = as_ptx ? parac__realloc(bin, len + 1) : bin;
            if (code) {
                if (as_ptx) code[len] = 0;
                parac_status st = load(s, code, "the cached program");
                free(code);
                if (st == PARAC_OK) {
                    s->rt.from_cache = 1;
                    return PARAC_OK;
                }
                /* a stale entry: compiled again below and replaced */
            } else
                free(bin);
        }
    }
    char *code = NULL;
    size_t len = 0;
    PARAC_TRY(compile(name, source, opts, nopt, as_ptx, s->rt.label, &code, &len));
    parac_status st = load(s, code, "the compiled program");
    if (st == PARAC_OK && have_dir) parac__write_atomic(path, (const unsigned char *)code, len);
    free(code);
    s->rt.from_cache = 0;
    return st;
}
