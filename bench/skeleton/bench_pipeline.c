/* The whole skeleton pipeline, stage by stage, on the paper's sequence of
 * volumes S x S x 487 (S = 16 ... 256). The paper's body volumes are not
 * public, so each is a solid cylinder along z, slices 1..485, its radius
 * and centre (on a voxel or between two) fitted so that its surface-voxel
 * count (the paper's rules) comes nearest the paper's table: 10,971 /
 * 22,254 / 45,464 / 101,619 / 206,010.
 *   bench_pipeline [--sizes 16,32,64,128,256] [--methods tiled] [--serial-max 32]
 *                  [--cpu-full-max 64] [--sample 64]
 * Every run uses parac's defaults (the paper's rules, charges one layer
 * outside the object, M = 6, divergence seeds 0.5). The GPU runs the field
 * with each CUDA method; the CPU pipeline (double, all threads) runs whole
 * up to --cpu-full-max and single-threaded up to --serial-max; above those
 * the CPU field is timed on every --sample-th target and scaled (marked
 * "est."), the other stages being the same CPU code the GPU run timed. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parac/parac.h"
#include "skeleton/skel.h"
#include "skeleton/skel_pipeline.h"

#define DEPTH 487

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double centre_shift; /* 0 or 0.5: the axis on a voxel or between two */

static int in_disk(int64_t x, int64_t y, int64_t S, double r)
{
    const double c = (S - 1) / 2.0 + centre_shift, dx = x - c, dy = y - c;
    return x >= 0 && y >= 0 && x < S && y < S && dx * dx + dy * dy <= r * r;
}

/* Surface voxels of the cylinder of radius r: the rim of every inner slice
 * (a disk pixel with a pixel outside among its 8 neighbours) and both end
 * slices whole. */
static int64_t surface_count(int64_t S, double r)
{
    int64_t rim = 0, disk = 0;
    for (int64_t y = 0; y < S; y++)
        for (int64_t x = 0; x < S; x++) {
            if (!in_disk(x, y, S, r)) continue;
            disk++;
            int edge = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) edge |= !in_disk(x + dx, y + dy, S, r);
            rim += edge;
        }
    return rim * (485 - 2) + 2 * disk;
}

static double fit_radius_for(int64_t S, int64_t want)
{
    double lo = 1, hi = (S - 1) / 2.0 - 1;
    for (int it = 0; it < 40; it++) {
        const double mid = (lo + hi) / 2;
        if (surface_count(S, mid) < want) lo = mid;
        else hi = mid;
    }
    return llabs(surface_count(S, lo) - want) < llabs(surface_count(S, hi) - want) ? lo : hi;
}

/* The radius and centre shift whose count is nearest `want`. */
static double fit_radius(int64_t S, int64_t want)
{
    double best_r = 1, best_shift = 0;
    int64_t best = INT64_MAX;
    for (int k = 0; k < 2; k++) {
        centre_shift = 0.5 * k;
        const double r = fit_radius_for(S, want);
        if (llabs(surface_count(S, r) - want) < best) best = llabs(surface_count(S, r) - want), best_r = r, best_shift = centre_shift;
    }
    centre_shift = best_shift;
    return best_r;
}

static parac_image *cylinder(int64_t S, double r)
{
    parac_image *im = NULL;
    if (parac_image_create_zeroed(&im, S, S, DEPTH, 1, PARAC_U8, PARAC_MEMORY_HOST, -1) != PARAC_OK) return NULL;
    for (int64_t z = 1; z <= 485; z++)
        for (int64_t y = 0; y < S; y++)
            for (int64_t x = 0; x < S; x++)
                if (in_disk(x, y, S, r)) *(uint8_t *)parac_image_at(im, x, y, z) = 255;
    return im;
}

static void print_stats(const char *label, const parac__skel_stats *s, double field_override, const char *note)
{
    const double field = field_override >= 0 ? field_override : s->seconds_field;
    const double total = s->seconds_total - s->seconds_field + field;
    printf("  %-26s classify %7.3f  field %9.3f%s  critical %6.3f  trace %6.3f  seeds %6.3f  total %9.3f s%s"
           "  (%lld critical, %lld segments)\n",
           label, s->seconds_classify, field, note, s->seconds_critical, s->seconds_trace, s->seconds_seeds, total, note,
           (long long)s->critical, (long long)s->segments);
}

/* Interactions per second of the CPU field, timed on every `sample`-th
 * target of the object's own classes against all its surface voxels. */
static double cpu_field_rate(const parac_image *im, int sample, int threads)
{
    const int64_t W = im->width + 2, H = im->height + 2, D = im->depth + 2, N = W * H * D;
    parac_image *framed = NULL;
    if (parac_image_create_zeroed(&framed, W, H, D, 1, PARAC_U8, PARAC_MEMORY_HOST, -1) != PARAC_OK) return -1;
    for (int64_t z = 0; z < im->depth; z++)
        for (int64_t y = 0; y < im->height; y++)
            memcpy(parac_image_at(framed, 1, y + 1, z + 1), parac_image_at(im, 0, y, z), (size_t)im->width);
    uint8_t *cls = malloc((size_t)N);
    float *t = NULL, *c = NULL, *F = NULL;
    int64_t *ti = NULL, *ci = NULL, nt = 0, nc = 0;
    double seconds = -1;
    if (cls && parac__skel_classify(framed, 1, PARAC__SKEL_RULES_PAPER, cls) == PARAC_OK &&
        parac__skel_collect(cls, W, H, D, PARAC__SKEL_INTERIOR, &t, &ti, &nt) == PARAC_OK &&
        parac__skel_collect(cls, W, H, D, PARAC__SKEL_SURFACE, &c, &ci, &nc) == PARAC_OK) {
        const int64_t ns = (nt + sample - 1) / sample;
        for (int64_t i = 0; i < ns; i++) memcpy(t + 3 * i, t + 3 * i * sample, 3 * sizeof *t);
        F = malloc((size_t)ns * 3 * sizeof *F);
        const double t0 = now();
        if (F && parac__skel_field_cpu(t, ns, c, nc, 6, F, threads) == PARAC_OK)
            seconds = (double)ns * (double)nc / (now() - t0);
    }
    free(cls), free(t), free(c), free(F), free(ti), free(ci);
    parac_image_destroy(framed);
    return seconds;
}

int main(int argc, char **argv)
{
    const char *sizes = "16,32,64,128,256", *methods = "tiled";
    int serial_max = 32, cpu_full_max = 64, sample = 64;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--sizes")) sizes = argv[i + 1];
        else if (!strcmp(argv[i], "--methods")) methods = argv[i + 1];
        else if (!strcmp(argv[i], "--serial-max")) serial_max = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--cpu-full-max")) cpu_full_max = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--sample")) sample = atoi(argv[i + 1]);
    }
    static const int64_t paper_sizes[] = {16, 32, 64, 128, 256};
    static const int64_t paper_counts[] = {10971, 22254, 45464, 101619, 206010};
    static const double paper_serial[] = {3.1, 24.8, 213.6, 1800.9, 16212.2};
    int ndev = 0;
    const int gpu = parac_cuda_device_count(&ndev) == PARAC_OK && ndev > 0;
    parac_context *cpu = NULL, *cuda = NULL;
    parac_context_create(&cpu, "cpu");
    if (gpu) parac_context_create(&cuda, "cuda");
    const int threads = omp_get_max_threads();
    printf("skeleton pipeline, the paper's sequence; CPU: %d threads; GPU: %s\n", threads,
           gpu ? parac_context_device(cuda) : "none");
    char *list = strdup(sizes), *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const int64_t S = atoll(tok);
        int row = -1;
        for (int k = 0; k < 5; k++)
            if (paper_sizes[k] == S) row = k;
        if (row < 0) {
            printf("size %lld is not in the paper's table\n", (long long)S);
            continue;
        }
        const double r = fit_radius(S, paper_counts[row]);
        parac_image *im = cylinder(S, r);
        uint8_t *vox = malloc((size_t)(S * S * DEPTH));
        if (!im || !vox) return 1;
        printf("%lldx%lldx%d: cylinder r = %.2f (axis shift %.1f), %lld surface voxels (paper %lld); paper: serial "
               "%.1f s\n", (long long)S, (long long)S, DEPTH, r, centre_shift, (long long)surface_count(S, r),
               (long long)paper_counts[row], paper_serial[row]);
        parac__skel_params prm = {.threshold = NAN, .field_strength = 6, .charge_distance = 1,
                                  .rules = PARAC__SKEL_RULES_PAPER, .divergence = 0.5, .spacing = {1, 1, 1}};
        parac__skel_graph g;
        parac__skel_stats st;
        parac__skel_stats gst = {0};
        char mlist[256];
        snprintf(mlist, sizeof mlist, "%s", methods);
        char *msave = NULL;
        for (char *m = strtok_r(mlist, ",", &msave); gpu && m; m = strtok_r(NULL, ",", &msave)) {
            if (!strcmp(m, "exact")) continue;
            prm.field = m, prm.ctx = cuda;
            if (parac__skel_pipeline(im, &prm, &g, vox, &st) != PARAC_OK) {
                printf("  gpu %s failed: %s\n", m, parac_error_message());
                continue;
            }
            parac__skel_graph_free(&g);
            if (parac__skel_pipeline(im, &prm, &g, vox, &st) != PARAC_OK) continue; /* timed: the second run */
            parac__skel_graph_free(&g);
            char label[64];
            snprintf(label, sizeof label, "GPU %s field", m);
            printf("  targets %lld x charges %lld = %.3g interactions\n", (long long)st.targets, (long long)st.charges,
                   (double)st.targets * (double)st.charges);
            print_stats(label, &st, -1, "");
            if (!gst.seconds_total) gst = st;
        }
        prm.field = "exact", prm.ctx = cpu;
        const double work = (double)gst.targets * (double)gst.charges; /* interactions of the pipeline's field */
        if (S <= cpu_full_max) {
            if (parac__skel_pipeline(im, &prm, &g, vox, &st) == PARAC_OK) {
                print_stats("CPU, all threads", &st, -1, "");
                parac__skel_graph_free(&g);
                if (!gst.seconds_total) gst = st;
            }
        } else if (gst.seconds_total) {
            print_stats("CPU, all threads", &gst, work / cpu_field_rate(im, sample, threads), " est.");
        }
        if (S <= serial_max) {
            omp_set_num_threads(1);
            parac_context_set_threads(cpu, 1);
            if (parac__skel_pipeline(im, &prm, &g, vox, &st) == PARAC_OK) {
                print_stats("CPU, one thread", &st, -1, "");
                parac__skel_graph_free(&g);
            }
            omp_set_num_threads(threads);
            parac_context_set_threads(cpu, threads);
        } else if (gst.seconds_total) {
            omp_set_num_threads(1);
            const double f1 = work / cpu_field_rate(im, sample * 4, 1);
            omp_set_num_threads(threads);
            print_stats("CPU, one thread", &gst, f1, " est.");
        }
        free(vox);
        parac_image_destroy(im);
    }
    free(list);
    parac_context_destroy(cpu);
    parac_context_destroy(cuda);
    return 0;
}
