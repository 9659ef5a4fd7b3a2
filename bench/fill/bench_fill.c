/* Region-filling timings: every method on the paper's six resolutions, and
 * batches of images through the device, through the operation registry.
 *   bench_fill --sizes 640x480,7680x4320 --cases contours,spiral,noise
 *              --methods cpu:serial,cpu:seeds,cuda:ccl,cuda:seeds,cuda:hybrid,cuda:ccl+io
 *              --runs N --json FILE --save DIR
 *   bench_fill --sizes 7680x4320 --batch 200 --workers 4 --methods cuda:ccl,cuda:hybrid
 * Single images: CPU methods on host data (wall clock); cuda:ccl and
 * cuda:seeds with the image already on the device (CUDA events); cuda:hybrid
 * from host memory to a device output (wall clock, its CPU fill included);
 * cuda:ccl+io from pinned host memory back to pinned host memory (wall
 * clock, both transfers included). Batches: `workers` threads, each with its
 * own context and stream, take images in turn from a ring of pinned host
 * buffers and bring the result back into pinned memory; images per second
 * end to end, no disk.
 * Cases: contours = rings and rectangles at random (closed under 4-connected
 * filling, the paper's kind of image); spiral = one square spiral corridor;
 * noise = 40% random contour pixels (very many tiny holes). --save writes
 * each input as DIR/CASE_WxH.npy for the peers (peers.py). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "parac/parac.h"

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static void make_case(parac_image *im, const char *name)
{
    const int64_t w = im->width, h = im->height, s = w < h ? w : h;
    uint8_t *p = im->data;
    memset(p, 0, (size_t)(w * h));
    uint64_t seed = 0x1234567ull + (uint64_t)w * 31 + (uint64_t)h;
    if (strcmp(name, "noise") == 0) {
        for (int64_t i = 0; i < w * h; i++) p[i] = rnd(&seed) % 100 < 40 ? 255 : 0;
        return;
    }
    if (strcmp(name, "spiral") == 0) {
        for (int64_t lo = 1, hi = s - 2; lo < hi; lo += 2, hi -= 2) {
            for (int64_t k = lo; k <= hi; k++) p[lo * w + k] = p[k * w + hi] = p[hi * w + k] = 255;
            for (int64_t k = lo + 2; k <= hi; k++) p[k * w + lo] = 255;
        }
        return;
    }
    /* contours: rings of width 1.5 (4-closed) and rectangle outlines */
    for (int c = 0; c < 40; c++) {
        const double cx = (double)(rnd(&seed) % (uint64_t)w), cy = (double)(rnd(&seed) % (uint64_t)h);
        const double r = (double)s / 40 + (double)(rnd(&seed) % (uint64_t)(s / 6 + 1));
        const int64_t y0 = (int64_t)fmax(0, cy - r - 1), y1 = (int64_t)fmin((double)h - 1, cy + r + 1);
        const int64_t x0 = (int64_t)fmax(0, cx - r - 1), x1 = (int64_t)fmin((double)w - 1, cx + r + 1);
        for (int64_t y = y0; y <= y1; y++)
            for (int64_t x = x0; x <= x1; x++) {
                const double d = sqrt((x - cx) * (x - cx) + (y - cy) * (y - cy));
                if (fabs(d - r) <= 0.75) p[y * w + x] = 255;
            }
    }
    for (int c = 0; c < 12; c++) {
        int64_t x0 = (int64_t)(rnd(&seed) % (uint64_t)w), x1 = (int64_t)(rnd(&seed) % (uint64_t)w);
        int64_t y0 = (int64_t)(rnd(&seed) % (uint64_t)h), y1 = (int64_t)(rnd(&seed) % (uint64_t)h);
        if (x0 > x1) { int64_t t = x0; x0 = x1; x1 = t; }
        if (y0 > y1) { int64_t t = y0; y0 = y1; y1 = t; }
        for (int64_t x = x0; x <= x1; x++) p[y0 * w + x] = p[y1 * w + x] = 255;
        for (int64_t y = y0; y <= y1; y++) p[y * w + x0] = p[y * w + x1] = 255;
    }
}

typedef struct job {
    parac_context *ctx;
    parac_image *in, *back; /* back: pinned host image for the +io variant */
    parac_args *args;
} job;

static int run_job(void *user, int it)
{
    (void)it;
    job *j = user;
    parac_image *out = NULL;
    parac_status st = parac_op_run(j->ctx, "fill", &j->in, 1, &out, 1, j->args, NULL, 0);
    if (st == PARAC_OK && j->back) st = parac_image_copy(j->back, out, parac_context_stream(j->ctx));
    if (st == PARAC_OK && j->back) st = parac_context_synchronize(j->ctx);
    parac_image_destroy(out);
    if (st != PARAC_OK) fprintf(stderr, "bench_fill: %s\n", parac_error_message());
    return st == PARAC_OK ? 0 : -1;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* ---- batches ------------------------------------------------------------------------ */
typedef struct batch {
    parac_image **ring_in, **ring_out;
    int ring;
    int total;
    atomic_int next;
    const char *method;
    int cpu_threads;
    atomic_int failed;
} batch;

static void *batch_worker(void *arg)
{
    batch *b = arg;
    parac_context *ctx;
    if (parac_context_create(&ctx, "cuda") != PARAC_OK) {
        atomic_store(&b->failed, 1);
        return NULL;
    }
    parac_context_set_threads(ctx, b->cpu_threads);
    parac_args *args;
    parac_args_create(&args);
    parac_args_set(args, "method", b->method);
    for (;;) {
        const int i = atomic_fetch_add(&b->next, 1);
        if (i >= b->total) break;
        job j = {ctx, b->ring_in[i % b->ring], b->ring_out[i % b->ring], args};
        if (run_job(&j, i) != 0) {
            atomic_store(&b->failed, 1);
            break;
        }
    }
    parac_args_destroy(args);
    parac_context_destroy(ctx);
    return NULL;
}

static void run_batch(const parac_image *src, const char *method, int total, int workers, int cores, FILE *json,
                      const char *case_name)
{
    batch b = {0};
    b.ring = 2 * workers < total ? 2 * workers : total;
    b.total = total;
    b.method = method;
    b.cpu_threads = cores / workers > 0 ? cores / workers : 1;
    b.ring_in = calloc((size_t)b.ring, sizeof *b.ring_in);
    b.ring_out = calloc((size_t)b.ring, sizeof *b.ring_out);
    for (int i = 0; i < b.ring; i++) {
        if (parac_image_create(&b.ring_in[i], src->width, src->height, 1, 1, PARAC_U8, PARAC_MEMORY_PINNED, -1) != PARAC_OK ||
            parac_image_create(&b.ring_out[i], src->width, src->height, 1, 1, PARAC_U8, PARAC_MEMORY_PINNED, -1) != PARAC_OK) {
            fprintf(stderr, "bench_fill: pinned buffers: %s\n", parac_error_message());
            return;
        }
        parac_image_copy(b.ring_in[i], src, NULL);
    }
    double best = 1e30;
    for (int rep = 0; rep < 3; rep++) { /* the first pass warms the pools up */
        atomic_store(&b.next, 0);
        pthread_t t[64];
        const double t0 = now_s();
        for (int i = 0; i < workers; i++) pthread_create(&t[i], NULL, batch_worker, &b);
        for (int i = 0; i < workers; i++) pthread_join(t[i], NULL);
        const double dt = now_s() - t0;
        if (rep > 0 && dt < best) best = dt;
    }
    if (atomic_load(&b.failed)) {
        printf("  batch %s: failed\n", method);
    } else {
        const double per_s = total / best, bytes = 2.0 * (double)src->width * src->height;
        printf("  batch of %d, %-10s %2d workers: %8.1f images/s  %7.3f ms/image  host link %6.1f GB/s (in + out)\n",
               total, method, workers, per_s, best * 1e3 / total, per_s * bytes / 1e9);
        char m[96];
        snprintf(m, sizeof m, "batch:%s:%dx%d", method, total, workers);
        bench_emit(json, "fill", case_name, m, "cuda", best * 1e3 / total, bytes, per_s);
    }
    for (int i = 0; i < b.ring; i++) {
        parac_image_destroy(b.ring_in[i]);
        parac_image_destroy(b.ring_out[i]);
    }
    free(b.ring_in);
    free(b.ring_out);
}

/* ---- main ---------------------------------------------------------------------------- */
int main(int argc, char **argv)
{
    const char *sizes = "640x480,1280x720,1920x1080,2560x1440,3840x2160,7680x4320";
    const char *cases = "contours";
    const char *methods = "cpu:serial,cpu:seeds";
    const char *json_path = NULL, *save = NULL;
    int runs = 10, batch_n = 0, workers = 4;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--sizes")) sizes = argv[i + 1];
        else if (!strcmp(argv[i], "--cases")) cases = argv[i + 1];
        else if (!strcmp(argv[i], "--methods")) methods = argv[i + 1];
        else if (!strcmp(argv[i], "--runs")) runs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--json")) json_path = argv[i + 1];
        else if (!strcmp(argv[i], "--save")) save = argv[i + 1];
        else if (!strcmp(argv[i], "--batch")) batch_n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--workers")) workers = atoi(argv[i + 1]);
        else { fprintf(stderr, "bench_fill: unknown option %s\n", argv[i]); return 1; }
    }
    FILE *json = json_path ? fopen(json_path, "a") : NULL;
    parac_context *cpu, *gpu = NULL;
    if (parac_context_create(&cpu, "cpu") != PARAC_OK) return 1;
    const int cores = parac_context_threads(cpu);
    int ndev = 0;
    if (parac_cuda_device_count(&ndev) == PARAC_OK && ndev > 0) parac_context_create(&gpu, "cuda");
    printf("fill: %d CPU threads, %s\n", cores, gpu ? "CUDA device 0" : "no GPU");
    char cbuf[256];
    snprintf(cbuf, sizeof cbuf, "%s", cases);
    char *cs_save = NULL;
    for (char *cs = strtok_r(cbuf, ",", &cs_save); cs; cs = strtok_r(NULL, ",", &cs_save)) {
        char sbuf[512];
        snprintf(sbuf, sizeof sbuf, "%s", sizes);
        char *sp_save = NULL;
        for (char *sz = strtok_r(sbuf, ",", &sp_save); sz; sz = strtok_r(NULL, ",", &sp_save)) {
            int64_t w = 0, h = 0;
            if (sscanf(sz, "%" SCNd64 "x%" SCNd64, &w, &h) != 2) { fprintf(stderr, "bad size %s\n", sz); return 1; }
            parac_image *im;
            parac_image_create(&im, w, h, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1);
            make_case(im, cs);
            char name[64];
            snprintf(name, sizeof name, "%s_%lldx%lld", cs, (long long)w, (long long)h);
            if (save) {
                char path[1024];
                snprintf(path, sizeof path, "%s/%s.npy", save, name);
                if (parac_image_write(path, im, NULL) != PARAC_OK) fprintf(stderr, "%s\n", parac_error_message());
            }
            printf("%s (%.1f Mpx)\n", name, w * h / 1e6);
            double serial_ms = 0;
            char mbuf[512];
            snprintf(mbuf, sizeof mbuf, "%s", methods);
            char *m_save = NULL;
            for (char *m = strtok_r(mbuf, ",", &m_save); m; m = strtok_r(NULL, ",", &m_save)) {
                const int is_cuda = strncmp(m, "cuda:", 5) == 0;
                if (is_cuda && !gpu) continue;
                char meth[64];
                snprintf(meth, sizeof meth, "%s", m + (is_cuda ? 5 : 4));
                char *plus = strchr(meth, '+');
                const int io = plus != NULL;
                if (plus) *plus = '\0';
                if (batch_n > 0) {
                    if (is_cuda) run_batch(im, meth, batch_n, workers, cores, json, name);
                    continue;
                }
                parac_args *args;
                parac_args_create(&args);
                parac_args_set(args, "method", meth);
                job j = {is_cuda ? gpu : cpu, im, NULL, args};
                parac_image *dev = NULL, *pin = NULL;
                const int hybrid = strcmp(meth, "hybrid") == 0;
                if (is_cuda && !io && !hybrid) {
                    parac_image_upload(&dev, im, 0, NULL);
                    j.in = dev;
                } else if (io) {
                    parac_image_create(&pin, w, h, 1, 1, PARAC_U8, PARAC_MEMORY_PINNED, -1);
                    parac_image_copy(pin, im, NULL);
                    parac_image_create(&j.back, w, h, 1, 1, PARAC_U8, PARAC_MEMORY_PINNED, -1);
                    j.in = pin;
                }
                bench_stats s;
                const int r = strcmp(meth, "serial") == 0 && w * h > 4000000 ? (runs < 5 ? runs : 5) : runs;
                int rc = is_cuda && !io && !hybrid
                             ? bench_time_cuda(run_job, &j, parac_context_stream(gpu), 2, r, &s)
                             : bench_time_cpu(run_job, &j, 1, r, &s);
                if (rc == 0) {
                    if (strcmp(m, "cpu:serial") == 0) serial_ms = s.median_ms;
                    const double mpx = w * h / 1e6;
                    printf("  %-16s %9.3f ms  %8.1f Mpx/s", m, s.median_ms, mpx / (s.median_ms / 1e3));
                    if (serial_ms > 0) printf("  %6.2fx serial", serial_ms / s.median_ms);
                    printf("\n");
                    bench_emit(json, "fill", name, m, is_cuda ? "cuda" : "cpu", s.median_ms, (double)(w * h),
                               serial_ms > 0 ? serial_ms / s.median_ms : 0);
                } else {
                    printf("  %-16s failed\n", m);
                }
                parac_image_destroy(dev);
                parac_image_destroy(pin);
                parac_image_destroy(j.back);
                parac_args_destroy(args);
            }
            parac_image_destroy(im);
        }
    }
    parac_context_destroy(gpu);
    parac_context_destroy(cpu);
    if (json) fclose(json);
    return 0;
}
