/* The potential field (stage 2 of the skeleton), every kernel, on a solid
 * cylinder along z: exact all-pairs sums in interactions per second and as a
 * fraction of the FP32 issue bound (15 operations per interaction at M = 6:
 * 3 subtractions, 3 multiply-adds for r^2, rsqrt, 4 multiplications for the
 * power, 3 multiply-adds for the force; counting as the N-body sample does).
 *   bench_field --radius 20 --length 240 --M 6 --runs 5 [--cpu-radius 8 --cpu-length 60] [--clock-mhz 1980]
 * CPU (double, all threads) on its own smaller cylinder: the exact sum is
 * O(targets x charges). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "parac/parac.h"
#include "skeleton/skel.h"

typedef struct job {
    const char *method;
    float *t, *c, *F;
    int64_t nt, nc;
    int M;
    void *stream;
} job;

static int run_gpu(void *user, int it)
{
    (void)it;
    job *j = user;
    return parac__skel_field_cuda(j->method, j->t, j->nt, j->c, j->nc, j->M, j->F, j->stream) == PARAC_OK ? 0 : -1;
}

static int run_cpu(void *user, int it)
{
    (void)it;
    job *j = user;
    return parac__skel_field_cpu(j->t, j->nt, j->c, j->nc, j->M, j->F, 64) == PARAC_OK ? 0 : -1;
}

static void cylinder(int r, int len, uint8_t **cls, int64_t *w, int64_t *h, int64_t *d, float **t, int64_t *nt,
                     float **c, int64_t *nc)
{
    *w = *h = 2 * r + 5;
    *d = len + 4;
    parac_image *im;
    parac_image_create_zeroed(&im, *w, *h, *d, 1, PARAC_U8, PARAC_MEMORY_HOST, -1);
    for (int64_t z = 2; z < len + 2; z++)
        for (int64_t y = 0; y < *h; y++)
            for (int64_t x = 0; x < *w; x++) {
                const double dx = x - (*w - 1) / 2.0, dy = y - (*h - 1) / 2.0;
                if (dx * dx + dy * dy <= (double)r * r) *(uint8_t *)parac_image_at(im, x, y, z) = 255;
            }
    *cls = malloc((size_t)(*w * *h * *d));
    parac__skel_classify(im, 1, PARAC__SKEL_RULES_PFSKEL, *cls);
    int64_t *ix;
    parac__skel_collect(*cls, *w, *h, *d, PARAC__SKEL_INTERIOR, t, &ix, nt);
    free(ix);
    parac__skel_collect(*cls, *w, *h, *d, PARAC__SKEL_SURFACE, c, &ix, nc);
    free(ix);
    parac_image_destroy(im);
}

int main(int argc, char **argv)
{
    int r = 20, len = 240, M = 6, runs = 5, cr = 8, clen = 60;
    double mhz = 1980; /* H100/H200 SXM boost clock; --clock-mhz for others */
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--radius")) r = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--length")) len = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--M")) M = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--runs")) runs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--cpu-radius")) cr = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--cpu-length")) clen = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--clock-mhz")) mhz = atof(argv[i + 1]);
    }
    uint8_t *cls;
    int64_t w, h, d, nt, nc;
    float *t, *c;
    int ndev = 0;
    if (parac_cuda_device_count(&ndev) == PARAC_OK && ndev > 0) {
        cylinder(r, len, &cls, &w, &h, &d, &t, &nt, &c, &nc);
        const double inter = (double)nt * (double)nc;
        printf("cylinder r=%d length %d (%lldx%lldx%lld): %lld targets x %lld charges = %.3g interactions, M=%d\n", r,
               len, (long long)w, (long long)h, (long long)d, (long long)nt, (long long)nc, inter, M);
        parac_context *ctx;
        parac_context_create(&ctx, "cuda");
        parac_image *th, *ch, *td, *cd, *fd;
        parac_image_wrap(&th, t, 3 * nt, 1, 1, 1, PARAC_F32, 4, 12 * nt, 12 * nt, PARAC_MEMORY_HOST, -1);
        parac_image_wrap(&ch, c, 3 * nc, 1, 1, 1, PARAC_F32, 4, 12 * nc, 12 * nc, PARAC_MEMORY_HOST, -1);
        parac_image_upload(&td, th, 0, NULL);
        parac_image_upload(&cd, ch, 0, NULL);
        parac_image_create(&fd, 3 * nt, 1, 1, 1, PARAC_F32, PARAC_MEMORY_CUDA, 0);
        int sms = 0;
        parac_cuda_device_info info;
        if (parac_cuda_device_query(0, &info) == PARAC_OK) sms = info.multiprocessors;
        /* FP32 issue bound: SMs x 128 lanes x clock / 15 operations per interaction */
        const double bound = sms && mhz ? sms * 128.0 * mhz * 1e6 / 15.0 : 0;
        static const char *methods[] = {"tiled", "global", "constant"};
        for (int k = 0; k < 3; k++) {
            job j = {methods[k], td->data, cd->data, fd->data, nt, nc, M, parac_context_stream(ctx)};
            bench_stats s;
            if (bench_time_cuda(run_gpu, &j, j.stream, 1, runs, &s) != 0) {
                printf("  cuda:%-9s failed: %s\n", methods[k], parac_error_message());
                continue;
            }
            const double rate = inter / (s.median_ms / 1e3);
            printf("  cuda:%-9s %9.3f ms  %8.1f G interactions/s", methods[k], s.median_ms, rate / 1e9);
            if (bound > 0) printf("  %5.1f%% of the FP32 issue bound (%.0f G/s)", 100 * rate / bound, bound / 1e9);
            printf("\n");
        }
        parac_image_destroy(th), parac_image_destroy(ch), parac_image_destroy(td), parac_image_destroy(cd);
        parac_image_destroy(fd);
        parac_context_destroy(ctx);
        free(cls), free(t), free(c);
    }
    cylinder(cr, clen, &cls, &w, &h, &d, &t, &nt, &c, &nc);
    float *F = malloc((size_t)nt * 3 * sizeof *F);
    job j = {"cpu", t, c, F, nt, nc, M, NULL};
    bench_stats s;
    if (bench_time_cpu(run_cpu, &j, 0, 3, &s) == 0)
        printf("cpu (double, all threads), cylinder r=%d length %d: %lld x %lld: %.3f ms, %.2f G interactions/s\n", cr,
               clen, (long long)nt, (long long)nc, s.median_ms, (double)nt * nc / (s.median_ms / 1e3) / 1e9);
    free(F), free(cls), free(t), free(c);
    return 0;
}
