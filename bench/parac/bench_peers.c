/* The hand-written CUDA peers of the ParaC example programs (peers/<app>.cu):
 * each checked against the plain-C reference (examples/<app>_ref.c: exact for
 * the integer programs, within 1e-5 relative for the float ones) on odd
 * sizes and on the timed ones, then timed with CUDA events on the same
 * buffers, as bench_apps.c times paracc's programs (median of --runs calls,
 * data on the device). Rates: the bytes the program moves as the ParaC
 * source writes it (bench_apps.c's figure) and the least it must move (read
 * its input once, write its outputs once), against the device's copy rate.
 *
 *   bench_parac_peers [--runs N] [--sizes 1536x2560,4096x4096] [--check 37x61,101x203] [--json FILE]
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "peers/peers.h"
#include "peers/peers_check.h"

typedef struct job {
    int app, H, W;
    void *in, *out, *aux, *scratch; /* device */
} job;

typedef struct opts {
    int runs;
    double copy_gbs;
    FILE *json;
} opts;

static int run(void *user, int iteration)
{
    (void)iteration;
    job *j = user;
    switch (j->app) {
    case PEER_BLUR: return peer_blur(j->H, j->W, j->in, j->out, NULL);
    case PEER_GAUSSIAN: return peer_gaussian(j->H, j->W, j->in, j->out, NULL);
    case PEER_LAPLACIAN: return peer_laplacian(j->H, j->W, j->in, j->out, j->aux, NULL);
    case PEER_SHARPENING: return peer_sharpening(j->H, j->W, 8, 4, j->in, j->out, j->scratch, NULL);
    default: return peer_unsharp(j->H, j->W, j->in, j->out, NULL);
    }
}

static int failed(const char *what, cudaError_t e)
{
    if (e == cudaSuccess) return 0;
    fprintf(stderr, "bench_parac_peers: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

/* Check one program at one size against its reference; time it when runs > 0. */
static int one(int app, int H, int W, void *user)
{
    const opts *o = user;
    size_t in_b, out_b, aux_b;
    peer_sizes(app, H, W, &in_b, &out_b, &aux_b);
    void *in = malloc(in_b), *want = calloc(1, out_b), *got = calloc(1, out_b);
    void *want_aux = calloc(1, aux_b + 1), *got_aux = calloc(1, aux_b + 1);
    job j = {app, H, W, NULL, NULL, NULL, NULL};
    int rc = !in || !want || !got || !want_aux || !got_aux;
    if (rc) fprintf(stderr, "bench_parac_peers: out of memory at %dx%d\n", H, W);
    if (!rc) {
        peer_fill_random(app, in, in_b);
        peer_reference(app, H, W, in, want, want_aux);
        rc = failed("cudaMalloc", cudaMalloc(&j.in, in_b)) || failed("cudaMalloc", cudaMalloc(&j.out, out_b)) ||
             (aux_b && failed("cudaMalloc", cudaMalloc(&j.aux, aux_b))) ||
             (app == PEER_SHARPENING &&
              failed("cudaMalloc", cudaMalloc(&j.scratch, (size_t)peer_sharpening_scratch(H, W)))) ||
             failed("upload", cudaMemcpy(j.in, in, in_b, cudaMemcpyHostToDevice)) ||
             failed(peer_names[app], (cudaError_t)run(&j, 0)) || failed("run", cudaDeviceSynchronize()) ||
             failed("download", cudaMemcpy(got, j.out, out_b, cudaMemcpyDeviceToHost)) ||
             (aux_b && failed("download", cudaMemcpy(got_aux, j.aux, aux_b, cudaMemcpyDeviceToHost)));
    }
    if (!rc) rc = peer_compare(app, H, W, got, want, out_b) || peer_compare(app, H, W, got_aux, want_aux, aux_b);
    if (!rc && o->runs > 0) {
        bench_stats st;
        rc = bench_time_cuda(run, &j, NULL, 2, o->runs, &st) != 0;
        if (rc) fprintf(stderr, "bench_parac_peers: %s %dx%d failed while timed\n", peer_names[app], H, W);
        else peer_report(o->json, "cuda", app, H, W, st.median_ms, o->copy_gbs);
    } else if (!rc) {
        printf("  %-11s %5dx%-5d  matches the reference\n", peer_names[app], H, W);
    }
    cudaFree(j.in);
    cudaFree(j.out);
    cudaFree(j.aux);
    cudaFree(j.scratch);
    free(in), free(want), free(got), free(want_aux), free(got_aux);
    return rc;
}

int main(int argc, char **argv)
{
    opts o = {20, 0, NULL};
    const char *sizes = "1536x2560,4096x4096", *check = "37x61,101x203,64x9", *json_path = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--runs")) o.runs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--sizes")) sizes = argv[i + 1];
        else if (!strcmp(argv[i], "--check")) check = argv[i + 1];
        else if (!strcmp(argv[i], "--json")) json_path = argv[i + 1];
        else {
            fprintf(stderr, "bench_parac_peers: unknown option %s\n", argv[i]);
            return 1;
        }
    }
    if (o.runs < 1 || o.runs > 1000) o.runs = 20;
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        fprintf(stderr, "bench_parac_peers: no CUDA device\n");
        return 1;
    }
    o.json = json_path ? fopen(json_path, "a") : NULL;
    o.copy_gbs = bench_copy_bandwidth_gbs(0);
    printf("hand-written CUDA peers; copy rate %.0f GB/s (read + write)\n", o.copy_gbs);
    int rc = peer_check_then_time(check, sizes, &o.runs, one, &o);
    if (o.json) fclose(o.json);
    return rc;
}
