/* The ParaC example programs as paracc compiled them with one set of flags
 * (this executable's variant, PARAC_BENCH_VARIANT), on the OpenCL device
 * that PARAC_OPENCL_DEVICE names. Reports the kernel time of one call of
 * each program (the sum of its kernels' OpenCL event times, data already on
 * the device; PARAC_CL_PROFILE=1 is set here), median of --runs calls, and
 * for the memory-bound stencils the rate against the device's copy rate.
 *
 *   bench_parac_O2 [--runs N] [--sizes 1536x2560,4096x4096] [--json FILE] [--kernels 1]
 * (--kernels 1: each kernel's mean time per call too; --events 0: no kernel
 * times, for running under Nsight Compute; --first-call 1: the wall
 * clock of each program's first call at each size too, which pays for the
 * program's load at the first size and for the search, or for reading its
 * cached choices, at every new size; --wall 1: the median wall clock of a
 * whole call too, transfers and allocations included, best with --events 0)
 * Built with PARAC_BENCH_TARGET_C (bench_parac_c_O0, _O2): the C target's
 * programs, each call timed by the wall clock, against the host's copy rate.
 * Built with PARAC_BENCH_TARGET_CUDA (bench_parac_cuda_O0, _O2): the CUDA
 * target's, timed by CUDA events (PARAC_CU_PROFILE=1) on the CUDA device.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "parac/cuda.h"
#include "parac/opencl.h"

/* the device runtime's kernel times */
#ifdef PARAC_BENCH_TARGET_CUDA
#define profile_kernel parac_cu_profile_kernel
#define profile_ns parac_cu_profile_ns
#else
#define profile_kernel parac_cl_profile_kernel
#define profile_ns parac_cl_profile_ns
#endif

#ifndef PARAC_BENCH_VARIANT
#define PARAC_BENCH_VARIANT "unknown"
#endif

void blur(int H, int W, uint16_t *in, uint16_t *out);
void gaussian(int H, int W, float *in, float *out);
int laplacian_level(int M, int N, unsigned char *Src, short *layer, unsigned char *down);
void sharpening(int H, int W, int strength, int overshoot, unsigned char *src, unsigned char *dst);
void unsharp(int H, int W, float *in, float *out);

typedef struct app_buffers {
    int H, W;
    void *in, *out, *aux;
} app_buffers;

typedef struct app {
    const char *name;
    /* bytes per pixel the program must move as written (each stage reads its
     * inputs and writes its output once); 0: not a plain stencil chain */
    double bytes_per_px;
    void (*run)(app_buffers *b);
} app;

static void run_blur(app_buffers *b) { blur(b->H, b->W, b->in, b->out); }
static void run_gaussian(app_buffers *b) { gaussian(b->H, b->W, b->in, b->out); }
static void run_laplacian(app_buffers *b) { laplacian_level(b->H, b->W, b->in, b->out, b->aux); }
static void run_sharpening(app_buffers *b) { sharpening(b->H, b->W, 8, 4, b->in, b->out); }
static void run_unsharp(app_buffers *b) { unsharp(b->H, b->W, b->in, b->out); }

static const app apps[] = {
    {"blur", 8, run_blur},            /* u16: in -> blur_x -> out */
    {"gaussian", 16, run_gaussian},   /* f32: in -> rows -> out */
    {"laplacian", 0, run_laplacian},
    {"sharpening", 0, run_sharpening},
    {"unsharp", 64, run_unsharp},     /* f32: gray 16, hblur 8, ratio 12, out 28 */
};

#include "bench_timing.h"

/* Milliseconds of one call: the sum of its kernels' event times on the
 * device, or the wall clock for the C target. */
static double time_call(const app *a, app_buffers *b)
{
    const double t0 = call_clock_ms();
    a->run(b);
    return call_clock_ms() - t0;
}

#ifdef PARAC_BENCH_TARGET_C
/* The host's copy rate (read + write, GB/s): memcpy of 256 MiB, best of 5. */
static double host_copy_gbs(void)
{
    const size_t bytes = (size_t)256 << 20;
    char *a = malloc(bytes), *c = malloc(bytes);
    if (!a || !c) {
        free(a);
        free(c);
        return 0;
    }
    memset(a, 1, bytes);
    memset(c, 2, bytes);
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        double t0 = wall_ms();
        memcpy(c, a, bytes);
        double t = wall_ms() - t0;
        if (t < best) best = t;
    }
    free(a);
    free(c);
    return 2.0 * (double)bytes / (best * 1e6);
}
#endif

int main(int argc, char **argv)
{
    int runs = 20, per_kernel = 0, first_call = 0, events = 1, wall_calls = 0;
    const char *sizes = "1536x2560,4096x4096", *json_path = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--runs")) runs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--sizes")) sizes = argv[i + 1];
        else if (!strcmp(argv[i], "--json")) json_path = argv[i + 1];
        else if (!strcmp(argv[i], "--kernels")) per_kernel = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--first-call")) first_call = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--events")) events = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--wall")) wall_calls = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "bench_parac: unknown option %s\n", argv[i]);
            return 1;
        }
    }
    if (runs < 1 || runs > 1000) runs = 20;
    FILE *json = json_path ? fopen(json_path, "a") : NULL;
#ifdef PARAC_BENCH_TARGET_C
    const double copy_gbs = host_copy_gbs();
    const char *backend = "c";
    per_kernel = 0;
    (void)events;
#else
    if (events) { /* off for Nsight Compute: its replay of a kernel cannot get past the runtime's event gate */
        setenv("PARAC_CL_PROFILE", "1", 1);
        setenv("PARAC_CU_PROFILE", "1", 1);
    }
    const double copy_gbs = bench_copy_bandwidth_gbs(0);
#ifdef PARAC_BENCH_TARGET_CUDA
    const char *backend = "cuda";
#else
    const char *backend = "opencl";
#endif
#endif
    printf("variant %s; copy rate %.0f GB/s (read + write)\n", PARAC_BENCH_VARIANT, copy_gbs);
    char *list = strdup(sizes);
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        int H = 0, W = 0;
        if (sscanf(tok, "%dx%d", &H, &W) != 2 || H < 8 || W < 8) {
            fprintf(stderr, "bench_parac: bad size '%s'\n", tok);
            return 1;
        }
        size_t n = (size_t)H * W;
        app_buffers b = {H, W, malloc(n * 12), malloc(n * 12), malloc(n)};
        if (!b.in || !b.out || !b.aux) {
            fprintf(stderr, "bench_parac: out of memory for %dx%d\n", H, W);
            return 1;
        }
        for (size_t a = 0; a < sizeof apps / sizeof apps[0]; a++) {
            /* unsharp and gaussian take floats, the others bytes or u16 */
            int as_float = !strcmp(apps[a].name, "unsharp") || !strcmp(apps[a].name, "gaussian");
            bench_fill_lcg(b.in, n * 12, as_float);
            if (per_kernel) snapshot_kernel_times();
            const double t_first = wall_ms();
            apps[a].run(&b); /* builds (or loads) the program */
            if (first_call) printf("  %-11s %5dx%-5d  first call %8.3f ms (wall)\n", apps[a].name, H, W, wall_ms() - t_first);
            apps[a].run(&b);
            double *ms = malloc((size_t)runs * sizeof *ms);
            for (int r = 0; r < runs; r++) ms[r] = time_call(&apps[a], &b);
            qsort(ms, (size_t)runs, sizeof *ms, cmp_double);
            if (per_kernel) print_kernel_times(runs + 2);
            if (wall_calls) { /* whole calls, transfers and allocations included */
                double *wc = malloc((size_t)runs * sizeof *wc);
                for (int r = 0; r < runs; r++) {
                    const double t0 = wall_ms();
                    apps[a].run(&b);
                    wc[r] = wall_ms() - t0;
                }
                qsort(wc, (size_t)runs, sizeof *wc, cmp_double);
                printf("  %-11s %5dx%-5d  call     %8.4f ms (wall, median)\n", apps[a].name, H, W, wc[runs / 2]);
                free(wc);
            }
            double med = ms[runs / 2];
            double bytes = apps[a].bytes_per_px * (double)n;
            printf("  %-11s %5dx%-5d  %s %8.4f ms", apps[a].name, H, W, strcmp(backend, "c") ? "kernels" : "wall   ", med);
            if (bytes > 0 && med > 0) {
                double gbs = bytes / (med * 1e6);
                printf("  %7.0f GB/s", gbs);
                if (copy_gbs > 0) printf("  %5.1f %% of copy", 100.0 * gbs / copy_gbs);
            }
            printf("\n");
            if (json) {
                char case_name[64];
                snprintf(case_name, sizeof case_name, "%s_%dx%d", apps[a].name, H, W);
                bench_emit(json, "parac_apps", case_name, PARAC_BENCH_VARIANT, backend, med, bytes, copy_gbs);
            }
            free(ms);
        }
        free(b.in);
        free(b.out);
        free(b.aux);
    }
    free(list);
    if (json) fclose(json);
    return 0;
}
