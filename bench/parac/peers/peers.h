/* Hand-written CUDA versions of the ParaC example programs (examples/<app>.pc),
 * written as an expert would for the evaluation against paracc's output:
 * fused stages, sliding windows in registers, shared-memory rows where a
 * stage's values are reused across threads. Every pointer is device memory;
 * each function queues its kernels on `stream` and returns the CUDA error of
 * the launches (0 on success). Same results as examples/<app>_ref.c. */
#ifndef PARAC_BENCH_PEERS_H
#define PARAC_BENCH_PEERS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int peer_blur(int H, int W, const uint16_t *in, uint16_t *out, void *stream);
int peer_gaussian(int H, int W, const float *in, float *out, void *stream);
int peer_laplacian(int M, int N, const unsigned char *src, short *layer, unsigned char *down, void *stream);
/* scratch: peer_sharpening_scratch(H, W) bytes of device memory */
int peer_sharpening(int H, int W, int strength, int overshoot, const unsigned char *src, unsigned char *dst,
                    void *scratch, void *stream);
long long peer_sharpening_scratch(int H, int W);
int peer_unsharp(int H, int W, const float *in, float *out, void *stream);

#ifdef __cplusplus
}
#endif

#endif
