/* GPU Gaussian timings: every CUDA method of `gauss` (called through its
 * launcher, data resident on the device, CUDA events, warm-up + median,
 * inputs rotated through more than twice the L2), plus `auto` through the
 * operation registry and, in the paper experiment, the CPU separable filter.
 *   bench_gauss_cuda --paper            1024..4096, radius 3 and 20, f32 (+ CPU separable)
 *   bench_gauss_cuda --grid             1024..8192, u8 and f32, sigma 1..100
 *   options: --sides 1024,2048 --sigmas 1,5 --dtypes u8,f32 --methods separable,fft,auto,op:separable
 *            --runs N --json FILE --table (rows for src/filter/gauss_crossover.c)
 * Effective bandwidth counts the image read once and written once; "%copy"
 * compares it with the measured device-to-device copy rate. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "bench_util.h"
#include "filter/filter_cpu.h"
#include "filter/filter_internal.h"
#include "parac/parac.h"

typedef struct job {
    const char *method;
    parac_image **in;
    int nin;
    parac_image *out;
    parac__fir1d fir[3];
    float *k2d;
    int r;
    parac__iir1d iir[3];
    parac__border_rule border;
    void *stream;
    /* auto / cpu through the registry */
    parac_context *ctx;
    parac_args *args;
} job;

static int run_launcher(void *user, int it)
{
    job *j = user;
    const parac_image *in = j->in[it % j->nin];
    parac_status st;
    const char *m = j->method;
    if (!strcmp(m, "separable")) st = parac__cuda_separable(in, j->out, j->fir, j->border, j->stream);
    else if (!strcmp(m, "texture")) st = parac__cuda_separable_texture(in, j->out, j->fir, j->border, j->stream);
    else if (!strcmp(m, "direct")) st = parac__cuda_direct2d(in, j->out, j->k2d, j->r, j->r, &j->fir[2], j->border, j->stream);
    else if (!strcmp(m, "fft")) st = parac__cuda_fft2d(in, j->out, j->k2d, j->r, j->r, &j->fir[2], j->border, j->stream);
    else st = parac__cuda_iir(in, j->out, j->iir, j->border, j->stream);
    if (st != PARAC_OK) fprintf(stderr, "%s: %s\n", m, parac_error_message());
    return st == PARAC_OK ? 0 : 1;
}

static int run_op(void *user, int it)
{
    job *j = user;
    parac_image *out = NULL;
    parac_image *in = j->in[it % j->nin];
    parac_status st = parac_op_run(j->ctx, "gauss", &in, 1, &out, 1, j->args, NULL, 0);
    parac_image_destroy(out);
    if (st != PARAC_OK) fprintf(stderr, "gauss (%s): %s\n", j->method, parac_error_message());
    return st == PARAC_OK ? 0 : 1;
}

static int split(char *s, char **items, int max)
{
    int n = 0;
    for (char *t = strtok(s, ","); t && n < max; t = strtok(NULL, ",")) items[n++] = t;
    return n;
}

static void fill(parac_image *h, uint64_t seed)
{
    for (int64_t y = 0; y < h->height; y++)
        for (int64_t x = 0; x < h->width; x++) {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            void *p = parac_image_at(h, x, y, 0);
            if (h->dtype == PARAC_U8) *(uint8_t *)p = (uint8_t)(seed >> 24);
            else *(float *)p = (float)((seed >> 11) % 100000) / 100000.0f;
        }
}

int main(int argc, char **argv)
{
    char sides_s[256] = "4096", sigmas_s[256] = "1,1.5,3,5,10,25,50,100", dtypes_s[64] = "f32";
    char methods_s[256] = "separable,texture,direct,fft,recursive,deriche2,yvv,auto";
    const char *json_path = NULL;
    int runs = 15, table = 0, paper = 0, cpu = 0;
    for (int i = 1; i < argc; i++) {
        char *dst = NULL;
        if (!strcmp(argv[i], "--table")) table = 1;
        else if (!strcmp(argv[i], "--paper")) {
            paper = 1;
            cpu = 1;
            strcpy(sides_s, "1024,2048,3072,4096");
            strcpy(sigmas_s, "r3,r20");
        } else if (!strcmp(argv[i], "--grid")) {
            strcpy(sides_s, "1024,2048,4096,8192");
            strcpy(dtypes_s, "u8,f32");
        } else if (!strcmp(argv[i], "--cpu")) cpu = 1;
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json") && i + 1 < argc) json_path = argv[++i];
        else if (!strcmp(argv[i], "--sides")) dst = sides_s;
        else if (!strcmp(argv[i], "--sigmas")) dst = sigmas_s;
        else if (!strcmp(argv[i], "--methods")) dst = methods_s;
        else if (!strcmp(argv[i], "--dtypes")) dst = dtypes_s;
        else {
            fprintf(stderr, "unknown argument %s\n", argv[i]);
            return 2;
        }
        if (dst) {
            if (i + 1 >= argc) return 2;
            snprintf(dst, 256, "%s", argv[++i]);
        }
    }
    FILE *json = json_path ? fopen(json_path, "a") : NULL;
    char *sides[16], *sigmas[32], *methods[16], *dtypes[4];
    const int ns = split(sides_s, sides, 16), ng = split(sigmas_s, sigmas, 32);
    const int nm = split(methods_s, methods, 16), nd = split(dtypes_s, dtypes, 4);
    const int dev = 0;
    cudaStream_t stream;
    if (cudaSetDevice(dev) != cudaSuccess || cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
        fprintf(stderr, "no CUDA device\n");
        return 1;
    }
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, dev);
    const double copy_gbs = bench_copy_bandwidth_gbs(dev);
    printf("# device %s, L2 %d MB, measured copy %.0f GB/s (read+write)\n", prop.name,
           prop.l2CacheSize >> 20, copy_gbs);
    parac_context *gctx = NULL, *cctx = NULL;
    if (parac_context_create(&gctx, "cuda:0") != PARAC_OK ||
        parac_context_set_stream(gctx, stream) != PARAC_OK) {
        fprintf(stderr, "context: %s\n", parac_error_message());
        return 1;
    }
    if (cpu && parac_context_create(&cctx, "cpu") != PARAC_OK) return 1;
    printf("%-6s %-4s %-7s %-4s %-10s %10s %9s %7s %8s\n", "side", "type", "sigma", "r", "method",
           "median_ms", "GB/s", "%copy", "xfloor");
    for (int d = 0; d < nd; d++)
        for (int s = 0; s < ns; s++) {
            const int side = atoi(sides[s]);
            parac_dtype dt;
            if (parac_dtype_from_name(dtypes[d], &dt) != PARAC_OK) return 2;
            parac_image *host = NULL, *out = NULL;
            if (parac_image_create(&host, side, side, 1, 1, dt, PARAC_MEMORY_HOST, -1) != PARAC_OK) return 1;
            fill(host, 88172645463325252ULL + (uint64_t)side);
            const double bytes = 2.0 * (double)side * side * parac_dtype_size(dt);
            int nin = bench_rotation_count(dev, bytes);
            if (nin > 16) nin = 16;
            parac_image *in[16] = {0};
            for (int i = 0; i < nin; i++) {
                if (parac_image_create(&in[i], side, side, 1, 1, dt, PARAC_MEMORY_CUDA, dev) != PARAC_OK ||
                    parac_image_copy(in[i], host, stream) != PARAC_OK) {
                    fprintf(stderr, "upload: %s\n", parac_error_message());
                    return 1;
                }
            }
            if (parac_image_create(&out, side, side, 1, 1, dt, PARAC_MEMORY_CUDA, dev) != PARAC_OK) return 1;
            const double floor_ms = bytes / (copy_gbs * 1e9) * 1e3;
            for (int g = 0; g < ng; g++) {
                /* "rN": radius N with sigma N/4 (the paper's 7x7 and 41x41 kernels) */
                int r;
                double sigma;
                if (sigmas[g][0] == 'r') {
                    r = atoi(sigmas[g] + 1);
                    sigma = r / 4.0;
                } else {
                    sigma = atof(sigmas[g]);
                    if (parac__gauss_radius(sigma, 4.0, &r) != PARAC_OK) return 1;
                }
                float *taps = malloc(sizeof(float) * (2 * r + 1));
                float *k2d = malloc(sizeof(float) * (2 * r + 1) * (2 * r + 1));
                parac__gauss_taps(sigma, r, taps);
                for (int y = 0; y <= 2 * r; y++)
                    for (int x = 0; x <= 2 * r; x++) k2d[y * (2 * r + 1) + x] = taps[y] * taps[x];
                char sig_txt[32], r_txt[32], case_name[128];
                snprintf(sig_txt, sizeof sig_txt, "%g", sigma);
                snprintf(r_txt, sizeof r_txt, "%d", r);
                snprintf(case_name, sizeof case_name, "%dx%d %s sigma=%g r=%d", side, side, dtypes[d], sigma, r);
                for (int m = 0; m < nm; m++) {
                    const char *meth = methods[m];
                    job j;
                    memset(&j, 0, sizeof j);
                    j.method = meth;
                    j.in = in;
                    j.nin = nin;
                    j.out = out;
                    j.fir[0].radius = j.fir[1].radius = r;
                    j.fir[0].taps = j.fir[1].taps = taps;
                    j.k2d = k2d;
                    j.r = r;
                    j.border.mode = PARAC_BORDER_REFLECT101;
                    j.stream = stream;
                    bench_stats st;
                    int rc;
                    /* direct is O(r^2) per pixel: beyond radius 25 it takes seconds per call */
                    if (!strcmp(meth, "direct") && r > 25) continue;
                    if (!strcmp(meth, "auto") || !strncmp(meth, "op:", 3)) {
                        /* through the registry: "auto", or "op:METHOD" to see the
                         * cost of the operation layer itself */
                        j.ctx = gctx;
                        parac_args_create(&j.args);
                        parac_args_set(j.args, "sigma", sig_txt);
                        if (meth[0] == 'o') parac_args_set(j.args, "method", meth + 3);
                        if (paper) parac_args_set(j.args, "radius", r_txt);
                        rc = bench_time_cuda(run_op, &j, stream, 3, runs, &st);
                        parac_args_destroy(j.args);
                    } else {
                        if (!strcmp(meth, "recursive")) parac__iir_deriche4(sigma, &j.iir[0]);
                        else if (!strcmp(meth, "deriche2")) parac__iir_deriche2(sigma, &j.iir[0]);
                        else if (!strcmp(meth, "yvv")) parac__iir_yvv(sigma, &j.iir[0]);
                        j.iir[1] = j.iir[0];
                        rc = bench_time_cuda(run_launcher, &j, stream, 3, runs, &st);
                    }
                    if (rc != 0) {
                        printf("%-6d %-4s %-7g %-4d %-10s   FAILED\n", side, dtypes[d], sigma, r, meth);
                        continue;
                    }
                    const double gbs = bytes / (st.median_ms * 1e-3) / 1e9;
                    if (table && strcmp(meth, "auto"))
                        printf("    {\"%s\", PARAC_%s, %d, %g, %.5g},\n", meth, dt == PARAC_U8 ? "U8" : "F32",
                               side, sigma, st.median_ms);
                    else
                        printf("%-6d %-4s %-7g %-4d %-10s %10.4f %9.1f %6.1f%% %8.2f\n", side, dtypes[d],
                               sigma, r, meth, st.median_ms, gbs, 100.0 * gbs / copy_gbs,
                               st.median_ms / floor_ms);
                    if (json) bench_emit(json, "gauss_cuda", case_name, meth, prop.name, st.median_ms, bytes,
                                         st.median_ms / floor_ms);
                    fflush(stdout);
                }
                if (cpu) {
                    /* the CPU separable baseline, host data, all cores */
                    job j;
                    memset(&j, 0, sizeof j);
                    j.method = "cpu-separable";
                    j.in = &host;
                    j.nin = 1;
                    j.ctx = cctx;
                    parac_args_create(&j.args);
                    parac_args_set(j.args, "sigma", sig_txt);
                    parac_args_set(j.args, "radius", r_txt);
                    parac_args_set(j.args, "method", "separable");
                    bench_stats st;
                    if (bench_time_cpu(run_op, &j, 1, 5, &st) == 0) {
                        printf("%-6d %-4s %-7g %-4d %-10s %10.4f %9.1f %6s  %8.2f\n", side, dtypes[d], sigma, r,
                               "cpu-sep", st.median_ms, bytes / (st.median_ms * 1e-3) / 1e9, "-",
                               st.median_ms / floor_ms);
                        if (json) bench_emit(json, "gauss_cuda", case_name, "cpu-separable", "cpu", st.median_ms,
                                             bytes, 0.0);
                    }
                    parac_args_destroy(j.args);
                }
                free(taps);
                free(k2d);
            }
            for (int i = 0; i < nin; i++) parac_image_destroy(in[i]);
            parac_image_destroy(out);
            parac_image_destroy(host);
        }
    if (json) fclose(json);
    parac_context_destroy(gctx);
    parac_context_destroy(cctx);
    cudaStreamDestroy(stream);
    return 0;
}
