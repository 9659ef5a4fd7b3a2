/* The approximate field against the exact one: speed and error, on a tube
 * whose radius varies along it (r (1 + 0.3 sin(z/10))) and on the paper's
 * 256x256x487 cylinder of bench_pipeline (r = 49.5).
 *   bench_approx [--radius 12 --length 100] [--big 1] [--theta 0.25]
 * Reference: the CPU's double sum where it is small enough, else the GPU's
 * fp32 `tiled` kernel (its own error is ~1e-6 of this one's). Errors: the
 * angle between the approximate and exact vectors (mean, 99th percentile,
 * max) and the largest |F_approx - F_exact| / |F_exact|. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parac/parac.h"
#include "skeleton/skel.h"
#include "skeleton/skel_field_approx.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void compare(const char *label, const float *E, const float *A, int64_t nt)
{
    double *ang = malloc((size_t)nt * sizeof *ang), sum = 0, rel = 0;
    for (int64_t i = 0; i < nt; i++) {
        double ee = 0, aa = 0, ea = 0, dd = 0;
        for (int k = 0; k < 3; k++) {
            ee += (double)E[3 * i + k] * E[3 * i + k], aa += (double)A[3 * i + k] * A[3 * i + k];
            ea += (double)E[3 * i + k] * A[3 * i + k];
            dd += ((double)E[3 * i + k] - A[3 * i + k]) * ((double)E[3 * i + k] - A[3 * i + k]);
        }
        const double c = ea / (sqrt(ee * aa) + 1e-300);
        ang[i] = acos(c > 1 ? 1 : c < -1 ? -1 : c) * 57.29577951308232;
        sum += ang[i];
        if (ee > 0 && sqrt(dd / ee) > rel) rel = sqrt(dd / ee);
    }
    qsort(ang, (size_t)nt, sizeof *ang, by_value);
    printf("  %-28s angle mean %.5f, p99 %.4f, max %.3f degrees; largest relative error %.2e\n", label, sum / nt,
           ang[(int64_t)(0.99 * (nt - 1))], ang[nt - 1], rel);
    free(ang);
}

typedef struct lists {
    float *t, *c;
    int64_t nt, nc;
} lists;

static lists shape(int64_t w, int64_t h, int64_t d, double r, double wobble)
{
    parac_image *im;
    parac_image_create_zeroed(&im, w, h, d, 1, PARAC_U8, PARAC_MEMORY_HOST, -1);
    for (int64_t z = 2; z < d - 2; z++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                const double dx = x - (w - 1) / 2.0, dy = y - (h - 1) / 2.0, rr = r * (1 + wobble * sin(z * 0.1));
                if (dx * dx + dy * dy <= rr * rr) *(uint8_t *)parac_image_at(im, x, y, z) = 255;
            }
    uint8_t *cls = malloc((size_t)(w * h * d));
    lists l = {0};
    int64_t *ix;
    parac__skel_classify(im, 1, PARAC__SKEL_RULES_PAPER, cls);
    parac__skel_collect(cls, w, h, d, PARAC__SKEL_INTERIOR, &l.t, &ix, &l.nt);
    free(ix);
    parac__skel_collect(cls, w, h, d, PARAC__SKEL_SURFACE, &l.c, &ix, &l.nc);
    free(ix), free(cls);
    parac_image_destroy(im);
    return l;
}

static void run(const char *name, lists l, int cpu_reference, parac_context *cuda, double theta)
{
    printf("%s: %lld targets x %lld charges\n", name, (long long)l.nt, (long long)l.nc);
    float *E = malloc((size_t)l.nt * 12), *A = malloc((size_t)l.nt * 12), *G = malloc((size_t)l.nt * 12);
    double t0 = now(), t_exact = 0, t_gpu_exact = 0;
    if (cpu_reference) {
        parac__skel_field_cpu(l.t, l.nt, l.c, l.nc, 6, E, 64);
        t_exact = now() - t0;
        printf("  cpu exact (double, all threads) %9.3f s\n", t_exact);
    }
    parac__skel_tree tree;
    t0 = now();
    parac__skel_tree_build(l.t, l.nt, l.c, l.nc, 4, theta, &tree);
    const double t_build = now() - t0;
    printf("  theta %.3f: %lld L1 cells, %lld L2 cells, %lld target blocks; built in %.3f s (host, all threads)\n",
           theta, (long long)tree.n_l1, (long long)tree.n_l2, (long long)tree.n_blocks, t_build);
    t0 = now();
    parac__skel_field_approx_cpu(&tree, 6, A, 64);
    const double t_approx = now() - t0;
    printf("  cpu approx (double, all threads) %8.3f s%s\n", t_approx, cpu_reference ? "" : "");
    if (cpu_reference) {
        printf("  cpu speed-up %.1fx (with the build %.1fx)\n", t_exact / t_approx, t_exact / (t_approx + t_build));
        compare("cpu approx vs exact", E, A, l.nt);
    }
    if (cuda) {
        const int dev = parac_context_cuda_device(cuda);
        void *stream = parac_context_stream(cuda);
        parac_image *th, *ch, *td, *cd, *fd, *fh = NULL;
        parac_image_wrap(&th, l.t, 3 * l.nt, 1, 1, 1, PARAC_F32, 4, 12 * l.nt, 12 * l.nt, PARAC_MEMORY_HOST, -1);
        parac_image_wrap(&ch, l.c, 3 * l.nc, 1, 1, 1, PARAC_F32, 4, 12 * l.nc, 12 * l.nc, PARAC_MEMORY_HOST, -1);
        parac_image_upload(&td, th, dev, stream);
        parac_image_upload(&cd, ch, dev, stream);
        parac_image_create(&fd, 3 * l.nt, 1, 1, 1, PARAC_F32, PARAC_MEMORY_CUDA, dev);
        for (int rep = 0; rep < 2; rep++) { /* the second run is timed */
            parac_context_synchronize(cuda);
            t0 = now();
            parac__skel_field_cuda("tiled", td->data, l.nt, cd->data, l.nc, 6, fd->data, stream);
            parac_context_synchronize(cuda);
            t_gpu_exact = now() - t0;
        }
        parac_image_download(&fh, fd, 0, stream);
        parac_context_synchronize(cuda);
        memcpy(G, fh->data, (size_t)l.nt * 12);
        double t_gpu = 0;
        float kernel_ms = 0;
        for (int rep = 0; rep < 2; rep++) {
            t0 = now();
            if (parac__skel_field_approx_cuda(&tree, 6, A, stream, &kernel_ms) != PARAC_OK)
                printf("  gpu approx failed: %s\n", parac_error_message());
            t_gpu = now() - t0;
        }
        printf("  gpu exact (tiled kernel) %9.4f s; gpu approx kernel %9.4f s: %.1fx; with its transfers %.4f s "
               "(%.1fx), and the tree's build %.1fx\n", t_gpu_exact, kernel_ms / 1e3, t_gpu_exact / (kernel_ms / 1e3),
               t_gpu, t_gpu_exact / t_gpu, t_gpu_exact / (t_gpu + t_build));
        compare("gpu approx vs exact", cpu_reference ? E : G, A, l.nt);
        if (cpu_reference) compare("gpu exact (tiled) vs cpu", E, G, l.nt);
        parac_image_destroy(th), parac_image_destroy(ch), parac_image_destroy(td), parac_image_destroy(cd);
        parac_image_destroy(fd), parac_image_destroy(fh);
    }
    parac__skel_tree_free(&tree);
    free(E), free(A), free(G), free(l.t), free(l.c);
}

int main(int argc, char **argv)
{
    int r = 12, len = 100, big = 1;
    double theta = PARAC__SKEL_THETA;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--radius")) r = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--length")) len = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--big")) big = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--theta")) theta = atof(argv[i + 1]);
    }
    int ndev = 0;
    parac_context *cuda = NULL;
    if (parac_cuda_device_count(&ndev) == PARAC_OK && ndev > 0) parac_context_create(&cuda, "cuda");
    char name[128];
    snprintf(name, sizeof name, "tube r=%d (1 + 0.3 sin(z/10)), length %d", r, len);
    run(name, shape(2 * r + 15, 2 * r + 15, len + 4, r, 0.3), 1, cuda, theta);
    if (big && cuda) run("cylinder 256x256x487, r = 49.5", shape(256, 256, 487, 49.5, 0), 0, cuda, theta);
    parac_context_destroy(cuda);
    return 0;
}
