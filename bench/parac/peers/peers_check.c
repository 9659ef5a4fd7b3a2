/* The programs, inputs, references and comparisons of the peer benchmarks. */
#include "peers_check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

void blur_ref(int H, int W, const uint16_t *in, uint16_t *out);
void gaussian_ref(int H, int W, const float *in, float *out);
int laplacian_level_ref(int M, int N, const unsigned char *Src, short *layer, unsigned char *down);
void sharpening_ref(int H, int W, int strength, int overshoot, const unsigned char *src, unsigned char *dst);
void unsharp_ref(int H, int W, const float *in, float *out);

const char *const peer_names[PEER_APPS] = {"blur", "gaussian", "laplacian", "sharpening", "unsharp"};
const double peer_as_written[PEER_APPS] = {8, 16, 0, 0, 64};
const double peer_least[PEER_APPS] = {4, 8, 3.25, 2, 24};

static int is_float(int app) { return app == PEER_GAUSSIAN || app == PEER_UNSHARP; }

void peer_sizes(int app, int H, int W, size_t *in, size_t *out, size_t *aux)
{
    const size_t n = (size_t)H * W;
    *aux = 0;
    switch (app) {
    case PEER_BLUR: *in = *out = 2 * n; break;
    case PEER_GAUSSIAN: *in = *out = 4 * n; break;
    case PEER_LAPLACIAN: *in = n, *out = 2 * n, *aux = (size_t)((H + 1) / 2) * (size_t)((W + 1) / 2); break;
    case PEER_SHARPENING: *in = *out = n; break;
    default: *in = *out = 12 * n; break;
    }
}

void peer_fill_random(int app, void *p, size_t bytes) { bench_fill_lcg(p, bytes, is_float(app)); }

void peer_reference(int app, int H, int W, const void *in, void *out, void *aux)
{
    switch (app) {
    case PEER_BLUR: blur_ref(H, W, in, out); break;
    case PEER_GAUSSIAN: gaussian_ref(H, W, in, out); break;
    case PEER_LAPLACIAN: laplacian_level_ref(H, W, in, out, aux); break;
    case PEER_SHARPENING: sharpening_ref(H, W, 8, 4, in, out); break;
    default: unsharp_ref(H, W, in, out); break;
    }
}

int peer_compare(int app, int H, int W, const void *got, const void *want, size_t bytes)
{
    if (is_float(app)) {
        const float *g = got, *w = want;
        for (size_t i = 0; i < bytes / 4; i++)
            if (!(fabsf(g[i] - w[i]) <= 1e-5f * fmaxf(fabsf(w[i]), 1.0f))) {
                fprintf(stderr, "%s %dx%d: element %zu is %.9g, want %.9g\n", peer_names[app], H, W, i, g[i], w[i]);
                return 1;
            }
        return 0;
    }
    const unsigned char *g = got, *w = want;
    for (size_t i = 0; i < bytes; i++)
        if (g[i] != w[i]) {
            fprintf(stderr, "%s %dx%d: byte %zu is %d, want %d\n", peer_names[app], H, W, i, g[i], w[i]);
            return 1;
        }
    return 0;
}

int peer_each(const char *sizes, int (*fn)(int app, int H, int W, void *user), void *user)
{
    char *copy = strdup(sizes), *save = NULL;
    int rc = copy ? 0 : 1;
    for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && !rc; tok = strtok_r(NULL, ",", &save)) {
        int H = 0, W = 0;
        if (sscanf(tok, "%dx%d", &H, &W) != 2 || H < 8 || W < 8) {
            fprintf(stderr, "bad size '%s' (at least 8x8)\n", tok);
            rc = 1;
            break;
        }
        for (int a = 0; a < PEER_APPS && !rc; a++) rc = fn(a, H, W, user);
    }
    free(copy);
    return rc;
}

int peer_check_then_time(const char *check, const char *sizes, int *runs,
                         int (*fn)(int app, int H, int W, void *user), void *user)
{
    const int keep = *runs;
    *runs = 0;
    int rc = peer_each(check, fn, user);
    *runs = keep;
    return rc ? rc : peer_each(sizes, fn, user);
}

void peer_report(FILE *json, const char *backend, int app, int H, int W, double median_ms, double copy_gbs)
{
    const double n = (double)H * W;
    printf("  %-11s %5dx%-5d  %-7s %8.4f ms", peer_names[app], H, W, backend, median_ms);
    if (copy_gbs > 0 && median_ms > 0) {
        if (peer_as_written[app] > 0)
            printf("  as written %5.1f %% of copy", 100.0 * peer_as_written[app] * n / (median_ms * 1e6) / copy_gbs);
        printf("  least I/O %5.1f %% of copy", 100.0 * peer_least[app] * n / (median_ms * 1e6) / copy_gbs);
    }
    printf("\n");
    if (json) {
        char case_name[64], method[32];
        snprintf(case_name, sizeof case_name, "%s_%dx%d", peer_names[app], H, W);
        snprintf(method, sizeof method, "peer_%s", backend);
        bench_emit(json, "parac_apps", case_name, method, backend, median_ms, peer_as_written[app] * n, copy_gbs);
    }
}
