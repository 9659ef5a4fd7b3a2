/* Reconstruction timings: every method on the workloads of docs/morphology.md,
 * through the operation registry with data resident where the method runs
 * (CUDA events on the GPU, wall clock on the CPU; warm-up + median).
 *   bench_morph --sides 1024,4096 --dtypes u8,f32 --cases hmax10,hmax40,fill,serpentine,spiral,seed
 *               --methods cpu:hybrid,cpu:downhill,cpu:parallel,cuda:wavefront,cuda:heap:R:K:U
 *               --runs N --json FILE     (cuda:heap:R:K:U: node size R, K heaps, 0 = default;
 *                                         U = pipelined or serial updates)
 *               --cuda cuda:0,cuda:1    the devices of the cuda: methods (default cuda);
 *                                       several devices are timed by wall clock (their
 *                                       workers' streams are not the context's)
 *               --wall 1                wall clock for one device too, to compare
 * Workloads: hmaxH = reconstruction of (mask - H) under smoothed noise (the
 * h-maxima class); fill = fill-holes of smoothed noise; serpentine = a
 * 1-pixel corridor through the whole image seeded at one end; spiral = the
 * same as a square spiral; seed = one seed pixel in a uniform mask; volH = an
 * n³ volume of the h-maxima class (26-connected). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "parac/parac.h"

#ifdef PARAC_BENCH_LEPTONICA
/* The classic single-core C peer: Leptonica's pixSeedfillGray (Vincent's
 * fast hybrid, 8-bit), method "peer:leptonica", 8-connected. */
#include <allheaders.h>

typedef struct lept_job {
    PIX *marker, *mask;
} lept_job;

static int run_lept(void *user, int it)
{
    (void)it;
    lept_job *j = user;
    PIX *seed = pixCopy(NULL, j->marker); /* filled in place */
    int rc = pixSeedfillGray(seed, j->mask, 8);
    pixDestroy(&seed);
    return rc;
}

static PIX *to_pix(const parac_image *im)
{
    PIX *p = pixCreate((l_int32)im->width, (l_int32)im->height, 8);
    l_uint32 *data = pixGetData(p);
    const l_int32 wpl = pixGetWpl(p);
    for (int64_t y = 0; y < im->height; y++)
        for (int64_t x = 0; x < im->width; x++)
            SET_DATA_BYTE(data + y * wpl, (l_int32)x, *(const uint8_t *)parac_image_at(im, x, y, 0));
    return p;
}
#endif

typedef struct job {
    parac_context *ctx;
    const char *op;
    parac_image *in[2];
    int nin;
    parac_args *args;
    int sync; /* wall clock: wait for the device before the time is taken */
} job;

static int run_job(void *user, int it)
{
    (void)it;
    job *j = user;
    parac_image *out = NULL;
    parac_status st = parac_op_run(j->ctx, j->op, j->in, j->nin, &out, 1, j->args, NULL, 0);
    if (st == PARAC_OK && j->sync) st = parac_context_synchronize(j->ctx);
    parac_image_destroy(out);
    if (st != PARAC_OK) fprintf(stderr, "bench_morph: %s\n", parac_error_message());
    return st == PARAC_OK ? 0 : -1;
}

static void put(parac_image *im, int64_t x, int64_t y, double v)
{
    void *p = parac_image_at(im, x, y, 0);
    switch (im->dtype) {
    case PARAC_U8: *(uint8_t *)p = (uint8_t)v; break;
    case PARAC_U16: *(uint16_t *)p = (uint16_t)v; break;
    default: *(float *)p = (float)v; break;
    }
}

/* Smoothed noise scaled to 0..255 (u8 levels in every dtype): three box
 * blurs of radius 4 over white noise. */
static void smooth_noise(parac_image *im, uint64_t seed)
{
    const int64_t W = im->width, H = im->height;
    float *a = malloc(sizeof(float) * (size_t)(W * H)), *b = malloc(sizeof(float) * (size_t)(W * H));
    for (int64_t i = 0; i < W * H; i++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        a[i] = (float)(seed % 1000) / 1000.0f;
    }
    const int r = 4;
    for (int pass = 0; pass < 3; pass++) {
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) {
                float s = 0;
                int n = 0;
                for (int64_t k = x - r; k <= x + r; k++)
                    if (k >= 0 && k < W) s += a[y * W + k], n++;
                b[y * W + x] = s / n;
            }
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) {
                float s = 0;
                int n = 0;
                for (int64_t k = y - r; k <= y + r; k++)
                    if (k >= 0 && k < H) s += b[k * W + x], n++;
                a[y * W + x] = s / n;
            }
    }
    float lo = 1e30f, hi = -1e30f;
    for (int64_t i = 0; i < W * H; i++) lo = fminf(lo, a[i]), hi = fmaxf(hi, a[i]);
    for (int64_t y = 0; y < H; y++)
        for (int64_t x = 0; x < W; x++) put(im, x, y, floor((a[y * W + x] - lo) / (hi - lo) * 255.0));
    free(a);
    free(b);
}

/* Smoothed noise at any size: images above 8192² repeat a 4096² tile (the
 * same statistics as the 4096² case, generated in seconds). */
static void smooth_noise_any(parac_image *im, uint64_t seed)
{
    if (im->width <= 8192 && im->height <= 8192) {
        smooth_noise(im, seed);
        return;
    }
    parac_image *tile;
    parac_image_create(&tile, 4096, 4096, 1, 1, im->dtype, PARAC_MEMORY_HOST, -1);
    smooth_noise(tile, seed);
    const size_t es = parac_dtype_size(im->dtype);
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < im->height; y++)
        for (int64_t x = 0; x < im->width; x += 4096) {
            const int64_t n = im->width - x < 4096 ? im->width - x : 4096;
            memcpy(parac_image_at(im, x, y, 0), parac_image_at(tile, 0, y % 4096, 0), es * (size_t)n);
        }
    parac_image_destroy(tile);
}

/* Builds the inputs of a case on the host; returns the op name. */
static const char *make_case(const char *name, int64_t n, parac_dtype dt, parac_image **mk,
                             parac_image **ms, int *nin, parac_args *args)
{
    if (strncmp(name, "vol", 3) == 0) { /* n³ volume: two shifted copies of 2D smoothed noise, marker = mask - H */
        const double h = atof(name + 3);
        parac_image *a;
        parac_image_create(&a, n, n, 1, 1, PARAC_F32, PARAC_MEMORY_HOST, -1);
        smooth_noise(a, 777);
        parac_image_create(ms, n, n, n, 1, dt, PARAC_MEMORY_HOST, -1);
        parac_image_create(mk, n, n, n, 1, dt, PARAC_MEMORY_HOST, -1);
#pragma omp parallel for schedule(static)
        for (int64_t z = 0; z < n; z++)
            for (int64_t y = 0; y < n; y++)
                for (int64_t x = 0; x < n; x++) {
                    double v = floor((*(float *)parac_image_at(a, (x + z) % n, y, 0) +
                                      *(float *)parac_image_at(a, x, (y + z) % n, 0)) / 2);
                    void *pm = parac_image_at(*ms, x, y, z), *pk = parac_image_at(*mk, x, y, z);
                    double k = v > h ? v - h : 0;
                    if (dt == PARAC_U8) *(uint8_t *)pm = (uint8_t)v, *(uint8_t *)pk = (uint8_t)k;
                    else if (dt == PARAC_U16) *(uint16_t *)pm = (uint16_t)v, *(uint16_t *)pk = (uint16_t)k;
                    else *(float *)pm = (float)v, *(float *)pk = (float)k;
                }
        parac_image_destroy(a);
        *nin = 2;
        return "reconstruct";
    }
    parac_image_create_zeroed(ms, n, n, 1, 1, dt, PARAC_MEMORY_HOST, -1);
    if (strncmp(name, "hmax", 4) == 0 || strcmp(name, "fill") == 0) {
        smooth_noise_any(*ms, 12345);
        if (strcmp(name, "fill") == 0) {
            *nin = 1;
            *mk = *ms;
            *ms = NULL;
            return "fill-holes";
        }
        double h = atof(name + 4);
        parac_image_create(mk, n, n, 1, 1, dt, PARAC_MEMORY_HOST, -1);
#pragma omp parallel for schedule(static)
        for (int64_t y = 0; y < n; y++)
            for (int64_t x = 0; x < n; x++) {
                double v;
                const void *p = parac_image_at(*ms, x, y, 0);
                v = dt == PARAC_U8 ? *(const uint8_t *)p : dt == PARAC_U16 ? *(const uint16_t *)p : *(const float *)p;
                put(*mk, x, y, v > h ? v - h : 0);
            }
        *nin = 2;
        return "reconstruct";
    }
    parac_image_create_zeroed(mk, n, n, 1, 1, dt, PARAC_MEMORY_HOST, -1);
    if (strcmp(name, "seed") == 0) {
        for (int64_t y = 0; y < n; y++)
            for (int64_t x = 0; x < n; x++) put(*ms, x, y, 200);
        put(*mk, n / 3, n / 2, 200);
    } else if (strcmp(name, "serpentine") == 0) {
        for (int64_t y = 0; y < n; y += 2) {
            for (int64_t x = 0; x < n; x++) put(*ms, x, y, 200);
            if (y + 2 < n) put(*ms, (y / 2) % 2 ? 0 : n - 1, y + 1, 200);
        }
        put(*mk, 0, 0, 200);
    } else { /* spiral */
        int64_t t = 0, l = 0, b = n - 1, r = n - 1;
        while (t <= b && l <= r) {
            for (int64_t x = l; x <= r; x++) put(*ms, x, t, 200);
            for (int64_t y = t; y <= b; y++) put(*ms, r, y, 200);
            if (b - 2 > t)
                for (int64_t x = l; x <= r; x++) put(*ms, x, b, 200);
            if (r - 2 > l)
                for (int64_t y = t + 2; y <= b; y++) put(*ms, l, y, 200);
            t += 2, l += 2, b -= 2, r -= 2;
        }
        put(*mk, 0, 0, 200);
    }
    (void)args;
    *nin = 2;
    return "reconstruct";
}

static int split(char *s, char **out, int max)
{
    int n = 0;
    for (char *t = strtok(s, ","); t; t = strtok(NULL, ",")) {
        if (n == max) {
            fprintf(stderr, "bench_morph: more than %d items in a list; '%s' and after left out\n", max, t);
            break;
        }
        out[n++] = t;
    }
    return n;
}

int main(int argc, char **argv)
{
    char sides_s[256] = "1024,4096", dtypes_s[64] = "u8", cases_s[256] = "hmax10,hmax40,fill,serpentine,spiral,seed",
         methods_s[2048] = "cpu:hybrid,cpu:downhill,cpu:parallel,cuda:wavefront";
    int runs = 5;
    char cuda_dev[64] = "cuda"; /* --cuda cuda:0,cuda:1: what "cuda:" methods run on */
    int wall = 0;               /* --wall 1: wall clock for one device too (as several need) */
    FILE *json = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--sides")) snprintf(sides_s, sizeof sides_s, "%s", argv[i + 1]);
        else if (!strcmp(argv[i], "--dtypes")) snprintf(dtypes_s, sizeof dtypes_s, "%s", argv[i + 1]);
        else if (!strcmp(argv[i], "--cases")) snprintf(cases_s, sizeof cases_s, "%s", argv[i + 1]);
        else if (!strcmp(argv[i], "--methods")) snprintf(methods_s, sizeof methods_s, "%s", argv[i + 1]);
        else if (!strcmp(argv[i], "--runs")) runs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--cuda")) snprintf(cuda_dev, sizeof cuda_dev, "%s", argv[i + 1]);
        else if (!strcmp(argv[i], "--wall")) wall = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--json")) json = fopen(argv[i + 1], "a");
    }
    char *sides[16], *dtypes[4], *cases[16], *methods[64];
    int ns = split(sides_s, sides, 16), nd = split(dtypes_s, dtypes, 4), nc = split(cases_s, cases, 16),
        nm = split(methods_s, methods, 64);
    printf("%-6s %-4s %-11s %-22s %10s %10s %9s\n", "side", "dt", "case", "method", "median_ms", "min_ms", "MPx/s");
    for (int si = 0; si < ns; si++)
        for (int di = 0; di < nd; di++)
            for (int ci = 0; ci < nc; ci++) {
                const int64_t n = atoll(sides[si]);
                parac_dtype dt;
                if (parac_dtype_from_name(dtypes[di], &dt) != PARAC_OK) continue;
                parac_image *mk = NULL, *ms = NULL;
                parac_args *args;
                parac_args_create(&args);
                int nin = 0;
                const char *op = make_case(cases[ci], n, dt, &mk, &ms, &nin, args);
                for (int mi = 0; mi < nm; mi++) {
                    char dev[32], *colon = strchr(methods[mi], ':');
                    if (!colon) continue;
                    if (strcmp(methods[mi], "peer:leptonica") == 0) {
#ifdef PARAC_BENCH_LEPTONICA
                        if (dt != PARAC_U8 || nin != 2 || n > 16384) continue;
                        lept_job lj = {to_pix(mk), to_pix(ms)};
                        bench_stats ls;
                        if (bench_time_cpu(run_lept, &lj, 1, runs, &ls) == 0) {
                            char cname[64];
                            snprintf(cname, sizeof cname, "%s_%lld_%s", cases[ci], (long long)n, dtypes[di]);
                            printf("%-6lld %-4s %-11s %-22s %10.3f %10.3f %9.1f\n", (long long)n, dtypes[di],
                                   cases[ci], methods[mi], ls.median_ms, ls.min_ms, (double)n * n / ls.median_ms / 1e3);
                            fflush(stdout);
                            if (json) bench_emit(json, "morph", cname, methods[mi], "cpu", ls.median_ms, 0, 0);
                        }
                        pixDestroy(&lj.marker);
                        pixDestroy(&lj.mask);
#endif
                        continue;
                    }
                    snprintf(dev, sizeof dev, "%.*s", (int)(colon - methods[mi]), methods[mi]);
                    char method[64], *extra;
                    snprintf(method, sizeof method, "%s", colon + 1);
                    int node = 0, heaps = 0; /* cuda:heap:R:K:U */
                    char updates[16] = "";
                    if ((extra = strchr(method, ':'))) {
                        *extra = '\0';
                        sscanf(extra + 1, "%d:%d:%15s", &node, &heaps, updates);
                    }
                    job j = {0};
                    if (parac_context_create(&j.ctx, strcmp(dev, "cuda") == 0 ? cuda_dev : dev) != PARAC_OK) {
                        fprintf(stderr, "bench_morph: %s\n", parac_error_message());
                        continue;
                    }
                    j.op = op;
                    j.nin = nin;
                    parac_args_create(&j.args);
                    parac_args_set(j.args, "method", method);
                    char num_s[32];
                    if (strcmp(op, "reconstruct") == 0) {
                        if (node) {
                            snprintf(num_s, sizeof num_s, "%d", node);
                            parac_args_set(j.args, "node-size", num_s);
                        }
                        if (heaps) {
                            snprintf(num_s, sizeof num_s, "%d", heaps);
                            parac_args_set(j.args, "heaps", num_s);
                        }
                        if (updates[0]) parac_args_set(j.args, "heap-updates", updates);
                    }
                    int cuda = parac_context_backend(j.ctx) == PARAC_BACKEND_CUDA;
                    parac_image *src[2] = {mk, ms};
                    for (int k = 0; k < nin; k++) {
                        if (cuda) parac_image_upload(&j.in[k], src[k], parac_context_cuda_device(j.ctx), NULL);
                        else j.in[k] = src[k];
                    }
                    bench_stats s;
                    /* several workers run on streams of their own, which events on the
                     * context's stream do not see: wall clock, the call waited for */
                    int ids[16];
                    j.sync = cuda && (wall || parac_context_cuda_workers(j.ctx, ids, 16) > 1);
                    int rc = cuda && !j.sync ? bench_time_cuda(run_job, &j, parac_context_stream(j.ctx), 1, runs, &s)
                                             : bench_time_cpu(run_job, &j, 1, runs, &s);
                    if (rc == 0) {
                        char cname[64];
                        snprintf(cname, sizeof cname, "%s_%lld_%s", cases[ci], (long long)n, dtypes[di]);
                        const double px = (double)parac_image_pixel_count(src[nin - 1]);
                        printf("%-6lld %-4s %-11s %-22s %10.3f %10.3f %9.1f\n", (long long)n, dtypes[di],
                               cases[ci], methods[mi], s.median_ms, s.min_ms, px / s.median_ms / 1e3);
                        fflush(stdout);
                        if (json) bench_emit(json, "morph", cname, methods[mi], dev, s.median_ms, 0, 0);
                    }
                    for (int k = 0; k < nin && cuda; k++) parac_image_destroy(j.in[k]);
                    parac_args_destroy(j.args);
                    parac_context_destroy(j.ctx);
                }
                parac_image_destroy(mk);
                parac_image_destroy(ms);
                parac_args_destroy(args);
            }
    if (json) fclose(json);
    return 0;
}
