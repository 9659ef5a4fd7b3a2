/* The ParaC application suite (examples/apps/) as paracc compiled it for
 * this executable's target (bench_parac_suite_cuda, _opencl, _c): the time of
 * one call of each app, median of --runs calls after two warm-up calls. On
 * CUDA and OpenCL the sum of the call's kernel times (the runtime's events,
 * PARAC_CU_PROFILE / PARAC_CL_PROFILE), data already on the device; with
 * --wall 1 also the wall clock of whole calls (copies to the device and back
 * included). On the C target the wall clock. Beside each time: the bytes
 * the app must move at least (its input read once, its output written
 * once) as a rate and as a share of the device's copy rate.
 *
 *   bench_parac_suite_cuda [--runs N] [--sizes 2560x1536,4096x4096] [--wall 1] [--kernels 1] [--apps a,b] [--json FILE]
 * (--kernels 1: each kernel's mean time per call as well)
 * (sizes are rows x columns; 2560 x 1536 is the size of Halide's apps; camera_pipe's
 * output is of the size, from a raw image 24 rows and 32 columns larger) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "parac/cuda.h"
#include "parac/opencl.h"

#ifdef PARAC_BENCH_TARGET_CUDA
#define profile_ns parac_cu_profile_ns
#define profile_kernel parac_cu_profile_kernel
#define BACKEND "cuda"
#elif defined(PARAC_BENCH_TARGET_C)
#define profile_ns parac_cl_profile_ns /* not called: the C target is timed by the wall clock */
#define profile_kernel parac_cl_profile_kernel
#define BACKEND "c"
#else
#define profile_ns parac_cl_profile_ns
#define profile_kernel parac_cl_profile_kernel
#define BACKEND "opencl"
#endif

void harris(int H, int W, float *in, float *out);
void stencil_chain(int H, int W, uint16_t *in, uint16_t *out);
void hist(int H, int W, uint8_t *in, uint8_t *out);
void hist_pieces(int H, int W, uint8_t *in, uint8_t *out);
void max_filter(int H, int W, float *in, float *out);
void median5(int H, int W, uint8_t *in, uint8_t *out);
void resize(int H, int W, int OH, int OW, float *in, float *out);
void nl_means(int H, int W, float sigma, float *in, float *out);
void interpolate(int H, int W, int levels, float *in, float *out);
void local_laplacian(int H, int W, int levels, float alpha, float beta, int J, uint16_t *in, uint16_t *out);
void bilateral_grid(int H, int W, float r_sigma, float *in, float *out);
void bilateral_grid_gather(int H, int W, float r_sigma, float *in, float *out);
void pyramid_blending(int H, int W, int levels, float *a, float *b, float *mask, float *out);
void box9_const(int H, int W, float *in, float *out);
void box_run_time(int H, int W, int r, float *in, float *out);
void camera_pipe(int RH, int RW, float color_temp, float gamma, float contrast, float sharpen_strength, int black_level,
                 int white_level, uint16_t *in, float *m3200, float *m7000, uint8_t *out);

typedef struct buffers {
    int H, W;
    void *in, *out;
} buffers;

enum {
    INPUT_BYTES,  /* random bytes */
    INPUT_FLOATS, /* floats in [0.05, 1.05) */
    INPUT_RAW10   /* 16-bit values of 10 bits, as a camera's raw image (camera_pipe's white level: 1023) */
};

typedef struct suite_app {
    const char *name;
    int input;                             /* INPUT_BYTES, INPUT_FLOATS or INPUT_RAW10 */
    double (*bytes)(int H, int W);         /* at least: the input read and the output written once */
    void (*run)(buffers *b);
} suite_app;

static double px(int H, int W) { return (double)H * W; }
static double b_harris(int H, int W) { return 12 * px(H, W) + 4 * px(H - 6, W - 6); }
static double b_chain(int H, int W) { return 2 * px(H, W) + 2 * px(H - 32, W - 32); }
static double b_hist(int H, int W) { return 6 * px(H, W); }
static double b_max(int H, int W) { return 24 * px(H, W); }
static double b_median(int H, int W) { return 2 * px(H, W); }
static double b_down(int H, int W) { return 12 * px(H, W) + 12 * px(H / 2, W / 2); }
static double b_up(int H, int W) { return 12 * px(H, W) + 12 * px(2 * H, 2 * W); }
static double b_nlm(int H, int W) { return 24 * px(H, W); }
static double b_interp(int H, int W) { return 28 * px(H, W); }
static double b_llf(int H, int W) { return 12 * px(H, W); }
static double b_bilateral(int H, int W) { return 8 * px(H, W); }
static double b_blend(int H, int W) { return 40 * px(H, W); }
static double b_box(int H, int W) { return 8 * px(H, W); }
static double b_camera(int H, int W) { return 2 * px(H + 24, W + 32) + 3 * px(H, W); }

static void run_harris(buffers *b) { harris(b->H, b->W, b->in, b->out); }
static void run_chain(buffers *b) { stencil_chain(b->H, b->W, b->in, b->out); }
static void run_hist(buffers *b) { hist(b->H, b->W, b->in, b->out); }
static void run_hist_pieces(buffers *b) { hist_pieces(b->H, b->W, b->in, b->out); }
static void run_max(buffers *b) { max_filter(b->H, b->W, b->in, b->out); }
static void run_median(buffers *b) { median5(b->H, b->W, b->in, b->out); }
static void run_down(buffers *b) { resize(b->H, b->W, b->H / 2, b->W / 2, b->in, b->out); }
static void run_up(buffers *b) { resize(b->H, b->W, 2 * b->H, 2 * b->W, b->in, b->out); }
static void run_nlm(buffers *b) { nl_means(b->H, b->W, 0.12f, b->in, b->out); } /* Halide's test's sigma */
static void run_interp(buffers *b) { interpolate(b->H, b->W, 10, b->in, b->out); } /* Halide's 10 levels */
static void run_llf(buffers *b) { local_laplacian(b->H, b->W, 8, 1.0f, 1.0f, 8, b->in, b->out); } /* Halide's test's */
static void run_bilateral(buffers *b) { bilateral_grid(b->H, b->W, 0.1f, b->in, b->out); }          /* Halide's test's r_sigma */
static void run_bilateral_gather(buffers *b) { bilateral_grid_gather(b->H, b->W, 0.1f, b->in, b->out); }
static void run_blend(buffers *b) /* PolyMage's 4 levels; the input's planes: a (3), b (3), the mask */
{
    float *in = b->in;
    const size_t n = (size_t)b->H * b->W;
    pyramid_blending(b->H, b->W, 4, in, in + 3 * n, in + 6 * n, b->out);
}

/* a 9 x 9 box mean: its window's length a constant, and a run-time value (suite/box_windows.pc) */
static void run_box9(buffers *b) { box9_const(b->H, b->W, b->in, b->out); }
static void run_box_rt(buffers *b) { box_run_time(b->H, b->W, 4, b->in, b->out); }

/* camera_pipe: an output of H x W from a raw image of (H + 24) x (W + 32), with the
   parameters and colour matrices of Halide's test (3700 K, gamma 2, contrast 50,
   sharpening 1, black and white levels 25 and 1023; the Nokia N900's calibrations) */
static void run_camera(buffers *b)
{
    static float m3200[12] = {1.6697f, -0.2693f, -0.4004f, -42.4346f, -0.3576f, 1.0615f, 1.5949f, -37.1158f,
                              -0.2175f, -1.8751f, 6.9640f, -26.6970f};
    static float m7000[12] = {2.2997f, -0.4478f, 0.1706f, -39.0923f, -0.3826f, 1.5906f, -0.2080f, -25.4311f,
                              -0.0888f, -0.7344f, 2.2832f, -20.0826f};
    camera_pipe(b->H + 24, b->W + 32, 3700.0f, 2.0f, 50.0f, 1.0f, 25, 1023, b->in, m3200, m7000, b->out);
}

static const suite_app apps[] = {
    {"harris", INPUT_FLOATS, b_harris, run_harris},
    {"stencil_chain", INPUT_BYTES, b_chain, run_chain},
    {"hist", INPUT_BYTES, b_hist, run_hist},
    {"max_filter", INPUT_FLOATS, b_max, run_max},
    {"median5", INPUT_BYTES, b_median, run_median},
    {"resize_down2", INPUT_FLOATS, b_down, run_down},
    {"resize_up2", INPUT_FLOATS, b_up, run_up},
    {"nl_means", INPUT_FLOATS, b_nlm, run_nlm},
    {"interpolate", INPUT_FLOATS, b_interp, run_interp},
    {"local_laplacian", INPUT_BYTES, b_llf, run_llf},
    {"bilateral_grid", INPUT_FLOATS, b_bilateral, run_bilateral},
    {"pyramid_blending", INPUT_FLOATS, b_blend, run_blend},
    {"camera_pipe", INPUT_RAW10, b_camera, run_camera},
    {"box9_const", INPUT_FLOATS, b_box, run_box9},
    {"hist_pieces", INPUT_BYTES, b_hist, run_hist_pieces},
    {"box9_run_time", INPUT_FLOATS, b_box, run_box_rt},
    {"bilateral_grid_gather", INPUT_FLOATS, b_bilateral, run_bilateral_gather},
};

#include "bench_timing.h"

/* --apps a,b: whether `app` is one of them (all without the option) */
static int wanted(const char *list, const char *app)
{
    if (!list) return 1;
    const size_t n = strlen(app);
    for (const char *p = list; (p = strstr(p, app)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == 0)) return 1;
    return 0;
}

static double time_call(const suite_app *a, buffers *b)
{
    const double t0 = call_clock_ms();
    a->run(b);
    return call_clock_ms() - t0;
}

static double median_of(const suite_app *a, buffers *b, int runs, int wall)
{
    double *ms = malloc((size_t)runs * sizeof *ms);
    if (!ms) return -1;
    for (int r = 0; r < runs; r++) {
        const double t0 = wall_ms();
        const double t = time_call(a, b);
        ms[r] = wall ? wall_ms() - t0 : t;
    }
    qsort(ms, (size_t)runs, sizeof *ms, cmp_double);
    const double med = ms[runs / 2];
    free(ms);
    return med;
}

int main(int argc, char **argv)
{
    int runs = 20, wall = 0, per_kernel = 0;
    const char *sizes = "2560x1536,4096x4096", *json_path = NULL, *only = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--runs")) runs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--apps")) only = argv[i + 1];
        else if (!strcmp(argv[i], "--sizes")) sizes = argv[i + 1];
        else if (!strcmp(argv[i], "--wall")) wall = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--kernels")) per_kernel = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--json")) json_path = argv[i + 1];
        else {
            fprintf(stderr, "bench_parac_suite: unknown option %s\n", argv[i]);
            return 1;
        }
    }
    if (runs < 1 || runs > 1000) runs = 20;
#ifndef PARAC_BENCH_TARGET_C
    setenv("PARAC_CL_PROFILE", "1", 1);
    setenv("PARAC_CU_PROFILE", "1", 1);
    const double copy_gbs = bench_copy_bandwidth_gbs(0);
#else
    const double copy_gbs = 0;
    wall = per_kernel = 0;
#endif
    FILE *json = json_path ? fopen(json_path, "a") : NULL;
    printf("ParaC suite, target %s; copy rate %.0f GB/s (read + write)\n", BACKEND, copy_gbs);
    char *list = strdup(sizes);
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        int H = 0, W = 0;
        if (sscanf(tok, "%dx%d", &H, &W) != 2 || H < 40 || W < 40 || H > 20000 || W > 20000) {
            fprintf(stderr, "bench_parac_suite: bad size '%s' (rows x columns, 40 to 20000)\n", tok);
            return 1;
        }
        const size_t n = (size_t)H * W;
        /* 7 float planes in (camera_pipe's raw image of (H + 24) x (W + 32) 16-bit values is less); 3 planes at twice the size out */
        buffers b = {H, W, malloc(n * 28), malloc(n * 48)};
        if (!b.in || !b.out) {
            fprintf(stderr, "bench_parac_suite: out of memory for %dx%d\n", H, W);
            return 1;
        }
        for (size_t a = 0; a < sizeof apps / sizeof apps[0]; a++) {
            if (!wanted(only, apps[a].name)) continue;
            bench_fill_lcg(b.in, n * 28, apps[a].input == INPUT_FLOATS);
            if (apps[a].input == INPUT_RAW10)
                for (size_t i = 0; i < n * 14; i++) ((uint16_t *)b.in)[i] &= 1023;
            apps[a].run(&b); /* builds (or loads) the kernels */
            apps[a].run(&b);
            if (per_kernel) snapshot_kernel_times();
            const double med = median_of(&apps[a], &b, runs, 0);
            const double bytes = apps[a].bytes(H, W), gbs = bytes / (med * 1e6);
            printf("  %-15s %5dx%-5d  %s %8.4f ms  %7.0f GB/s", apps[a].name, H, W,
                   strcmp(BACKEND, "c") ? "kernels" : "wall   ", med, gbs);
            if (copy_gbs > 0) printf("  %5.1f %% of copy", 100.0 * gbs / copy_gbs);
            printf("\n");
            if (per_kernel) print_kernel_times(runs);
            if (wall) printf("  %-15s %5dx%-5d  call    %8.4f ms (wall: copies to the device and back included)\n",
                             apps[a].name, H, W, median_of(&apps[a], &b, runs, 1));
            if (json) {
                char case_name[64];
                snprintf(case_name, sizeof case_name, "%s_%dx%d", apps[a].name, H, W);
                bench_emit(json, "parac_suite", case_name, "parac", BACKEND, med, bytes, copy_gbs);
            }
        }
        free(b.in);
        free(b.out);
    }
    free(list);
    if (json) fclose(json);
    return 0;
}
