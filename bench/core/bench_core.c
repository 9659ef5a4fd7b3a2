/* Foundation benchmarks: transfer rates (pageable and pinned), the measured
 * device copy ceiling, and the convert and stats operations on CPU and GPU.
 *
 *   bench_core [--size N] [--json FILE]
 *
 * GPU timings: CUDA events, warm-up, median of many runs, inputs rotated
 * through enough buffers to defeat the L2 cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "parac/parac.h"

typedef struct op_case {
    parac_context *ctx;
    const char *op;
    parac_image **inputs; /* rotation */
    int n_inputs;
    parac_args *args;
    parac_image *last;
} op_case;

static int run_op(void *user, int it)
{
    op_case *c = user;
    parac_image_destroy(c->last);
    c->last = NULL;
    parac_image *in = c->inputs[it % c->n_inputs];
    return parac_op_run(c->ctx, c->op, &in, 1, &c->last, 1, c->args, NULL, 0) != PARAC_OK;
}

typedef struct stats_case {
    parac_context *ctx;
    parac_image **inputs;
    int n_inputs;
} stats_case;

static int run_stats(void *user, int it)
{
    stats_case *c = user;
    parac_image_stats s;
    return parac_image_compute_stats(c->ctx, c->inputs[it % c->n_inputs], &s) != PARAC_OK;
}

typedef struct copy_case {
    parac_image *dst, *src;
    void *stream;
} copy_case;

static int run_copy(void *user, int it)
{
    copy_case *c = user;
    return parac_image_copy(c->dst, c->src, c->stream) != PARAC_OK;
}

static void report(FILE *json, const char *name, const char *method, const char *device,
                   const bench_stats *s, double bytes, double ceiling_gbs)
{
    double gbs = bytes / (s->median_ms * 1e-3) / 1e9;
    printf("%-34s %-8s %10.4f ms %9.1f GB/s", name, device, s->median_ms, gbs);
    if (ceiling_gbs > 0) printf("  %5.1f%% of copy", 100.0 * gbs / ceiling_gbs);
    printf("\n");
    bench_emit(json, "core", name, method, device, s->median_ms, bytes,
               ceiling_gbs > 0 ? gbs / ceiling_gbs : 0);
}

static int die(const char *what)
{
    fprintf(stderr, "bench_core: %s: %s\n", what, parac_error_message());
    return 1;
}

int main(int argc, char **argv)
{
    int64_t n = 4096;
    const char *json_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) n = atoll(argv[++i]);
        else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) json_path = argv[++i];
        else {
            fprintf(stderr, "usage: bench_core [--size N] [--json FILE]\n");
            return 1;
        }
    }
    FILE *json = json_path ? fopen(json_path, "a") : NULL;
    const double px = (double)n * n;
    parac_context *cpu = NULL, *gpu = NULL;
    if (parac_context_create(&cpu, "cpu") != PARAC_OK) return die("cpu context");
    int have_gpu = parac_context_create(&gpu, "cuda:0") == PARAC_OK;
    bench_stats s;
    parac_args *to_f32 = NULL;
    parac_args_create(&to_f32);
    parac_args_set(to_f32, "dtype", "f32");

    printf("%-34s %-8s %13s %14s\n", "case", "device", "median", "effective");
    /* CPU: convert u8 -> f32 and stats. */
    parac_image *host_u8[2] = {0}, *host_f32 = NULL;
    for (int i = 0; i < 2; i++) {
        if (parac_image_create(&host_u8[i], n, n, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1)) return die("alloc");
        memset(host_u8[i]->data, 7 + i, (size_t)(host_u8[i]->row_pitch * n));
    }
    if (parac_image_create(&host_f32, n, n, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1)) return die("alloc");
    memset(host_f32->data, 0, (size_t)(host_f32->row_pitch * n));
    op_case oc = {cpu, "convert", host_u8, 2, to_f32, NULL};
    if (bench_time_cpu(run_op, &oc, 2, 10, &s) == 0)
        report(json, "convert u8->f32", "elementwise", "cpu", &s, px * 5, 0);
    parac_image_destroy(oc.last);
    stats_case sc = {cpu, &host_f32, 1};
    if (bench_time_cpu(run_stats, &sc, 1, 10, &s) == 0)
        report(json, "stats f32", "reduce", "cpu", &s, px * 4, 0);

    if (have_gpu) {
        void *stream = parac_context_stream(gpu);
        double ceiling = bench_copy_bandwidth_gbs(0);
        printf("%-34s %-8s %13s %9.1f GB/s (read+write)\n", "device-to-device copy (1 GiB)", "cuda", "", ceiling);
        bench_emit(json, "core", "d2d copy 1GiB", "cudaMemcpy", "cuda", 0, 0, ceiling);
        /* Transfers: pageable and pinned, both directions. */
        parac_image *dev = NULL, *pinned = NULL;
        if (parac_image_create(&dev, n, n, 1, 1, PARAC_F32, PARAC_MEMORY_CUDA, 0)) return die("alloc");
        if (parac_image_create(&pinned, n, n, 1, 1, PARAC_F32, PARAC_MEMORY_PINNED, -1)) return die("alloc");
        copy_case cc[4] = {{dev, host_f32, stream}, {dev, pinned, stream}, {host_f32, dev, stream},
                           {pinned, dev, stream}};
        const char *names[4] = {"upload pageable f32", "upload pinned f32", "download pageable f32",
                                "download pinned f32"};
        for (int i = 0; i < 4; i++)
            if (bench_time_cuda(run_copy, &cc[i], stream, 2, 10, &s) == 0)
                report(json, names[i], "copy", "cuda", &s, px * 4, 0);
        /* Kernels on resident data, rotating inputs past the L2. */
        int rot = bench_rotation_count(0, px);
        parac_image **dev_u8 = calloc((size_t)rot, sizeof *dev_u8);
        for (int i = 0; i < rot; i++)
            if (parac_image_upload(&dev_u8[i], host_u8[i % 2], 0, stream)) return die("upload");
        op_case g = {gpu, "convert", dev_u8, rot, to_f32, NULL};
        if (bench_time_cuda(run_op, &g, stream, 3, 50, &s) == 0)
            report(json, "convert u8->f32", "elementwise", "cuda", &s, px * 5, ceiling);
        parac_image_destroy(g.last);
        int rotf = bench_rotation_count(0, px * 4);
        parac_image **dev_f32 = calloc((size_t)rotf, sizeof *dev_f32);
        for (int i = 0; i < rotf; i++)
            if (parac_image_upload(&dev_f32[i], host_f32, 0, stream)) return die("upload");
        stats_case gs = {gpu, dev_f32, rotf};
        if (bench_time_cuda(run_stats, &gs, stream, 3, 30, &s) == 0)
            report(json, "stats f32 (with result download)", "reduce", "cuda", &s, px * 4, ceiling);
        for (int i = 0; i < rot; i++) parac_image_destroy(dev_u8[i]);
        for (int i = 0; i < rotf; i++) parac_image_destroy(dev_f32[i]);
        free(dev_u8);
        free(dev_f32);
        parac_image_destroy(dev);
        parac_image_destroy(pinned);
    } else {
        printf("no CUDA device: GPU cases skipped\n");
    }
    for (int i = 0; i < 2; i++) parac_image_destroy(host_u8[i]);
    parac_image_destroy(host_f32);
    parac_args_destroy(to_f32);
    parac_context_destroy(gpu);
    parac_context_destroy(cpu);
    if (json) fclose(json);
    return 0;
}
