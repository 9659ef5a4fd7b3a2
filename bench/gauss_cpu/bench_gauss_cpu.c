/* CPU Gaussian timings: every CPU method of `gauss` on square single-channel
 * images, data in host memory, all cores. Prints one JSON line per case and,
 * with --table, rows for src/filter/gauss_crossover_cpu.c (the fastest of the
 * runs: on a shared machine the minimum is the least disturbed figure).
 *   bench_gauss_cpu [--sides 512,1024,2048] [--sigmas 1,2,3,5,10,25,50]
 *                   [--methods separable,fft,recursive,yvv] [--dtypes u8,f32]
 *                   [--runs 5] [--table] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "parac/parac.h"

typedef struct job {
    parac_context *ctx;
    parac_image *in;
    parac_args *args;
} job;

static int run_once(void *user, int iteration)
{
    (void)iteration;
    job *j = user;
    parac_image *out = NULL;
    parac_status st = parac_op_run(j->ctx, "gauss", &j->in, 1, &out, 1, j->args, NULL, 0);
    parac_image_destroy(out);
    if (st != PARAC_OK) fprintf(stderr, "gauss: %s\n", parac_error_message());
    return st == PARAC_OK ? 0 : 1;
}

static int split(char *s, char **items, int max)
{
    int n = 0;
    for (char *t = strtok(s, ","); t && n < max; t = strtok(NULL, ",")) items[n++] = t;
    return n;
}

int main(int argc, char **argv)
{
    char sides_s[256] = "512,1024,2048", sigmas_s[256] = "1,2,3,5,10,25,50";
    char methods_s[256] = "separable,direct,fft,recursive,yvv,deriche2", dtypes_s[64] = "u8,f32";
    int runs = 5, table = 0;
    for (int i = 1; i < argc; i++) {
        char *dst = NULL;
        if (strcmp(argv[i], "--table") == 0) table = 1;
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--sides") == 0) dst = sides_s;
        else if (strcmp(argv[i], "--sigmas") == 0) dst = sigmas_s;
        else if (strcmp(argv[i], "--methods") == 0) dst = methods_s;
        else if (strcmp(argv[i], "--dtypes") == 0) dst = dtypes_s;
        else {
            fprintf(stderr, "unknown argument %s\n", argv[i]);
            return 1;
        }
        if (dst) {
            if (i + 1 >= argc) return 1;
            snprintf(dst, 256, "%s", argv[++i]);
        }
    }
    char *sides[16], *sigmas[32], *methods[16], *dtypes[4];
    int ns = split(sides_s, sides, 16), ng = split(sigmas_s, sigmas, 32);
    int nm = split(methods_s, methods, 16), nd = split(dtypes_s, dtypes, 4);
    parac_context *ctx = NULL;
    if (parac_context_create(&ctx, "cpu") != PARAC_OK) return 1;
    for (int d = 0; d < nd; d++)
        for (int s = 0; s < ns; s++) {
            int side = atoi(sides[s]);
            parac_dtype dt;
            if (parac_dtype_from_name(dtypes[d], &dt) != PARAC_OK) return 1;
            job j = {ctx, NULL, NULL};
            if (parac_image_create(&j.in, side, side, 1, 1, dt, PARAC_MEMORY_HOST, -1) != PARAC_OK) return 1;
            uint64_t seed = 88172645463325252ULL;
            for (int64_t y = 0; y < side; y++)
                for (int64_t x = 0; x < side; x++) {
                    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
                    void *p = parac_image_at(j.in, x, y, 0);
                    if (dt == PARAC_U8) *(uint8_t *)p = (uint8_t)seed;
                    else *(float *)p = (float)(seed % 1000) / 1000.0f;
                }
            for (int g = 0; g < ng; g++)
                for (int m = 0; m < nm; m++) {
                    double sigma = atof(sigmas[g]);
                    /* direct is O(r^2): skip cases that would take minutes */
                    if (strcmp(methods[m], "direct") == 0 && sigma > 5) continue;
                    parac_args_create(&j.args);
                    parac_args_set(j.args, "sigma", sigmas[g]);
                    parac_args_set(j.args, "method", methods[m]);
                    bench_stats st;
                    if (bench_time_cpu(run_once, &j, 1, runs, &st) != 0) return 1;
                    if (table)
                        printf("    {\"%s\", PARAC_%s, %d, %s, %.4g},\n", methods[m],
                               dt == PARAC_U8 ? "U8" : "F32", side, sigmas[g], st.min_ms);
                    else
                        printf("{\"bench\":\"gauss_cpu\",\"dtype\":\"%s\",\"side\":%d,\"sigma\":%s,"
                               "\"method\":\"%s\",\"median_ms\":%.4f,\"min_ms\":%.4f}\n",
                               dtypes[d], side, sigmas[g], methods[m], st.median_ms, st.min_ms);
                    fflush(stdout);
                    parac_args_destroy(j.args);
                }
            parac_image_destroy(j.in);
        }
    parac_context_destroy(ctx);
    return 0;
}
