/* What both peer benchmarks share: the example programs, their buffers,
 * inputs (as bench_apps.c draws them), the plain-C references and the
 * comparison with them. */
#ifndef PARAC_BENCH_PEERS_CHECK_H
#define PARAC_BENCH_PEERS_CHECK_H

#include <stddef.h>
#include <stdio.h>

enum { PEER_BLUR, PEER_GAUSSIAN, PEER_LAPLACIAN, PEER_SHARPENING, PEER_UNSHARP, PEER_APPS };
extern const char *const peer_names[PEER_APPS];
/* bytes per pixel the program moves as the ParaC source writes it (0: not a
 * plain stencil chain), and the least it must move (input once, outputs once) */
extern const double peer_as_written[PEER_APPS], peer_least[PEER_APPS];

/* Sizes in bytes of input, output and the second output (laplacian's down). */
void peer_sizes(int app, int H, int W, size_t *in, size_t *out, size_t *aux);
void peer_fill_random(int app, void *p, size_t bytes);
void peer_reference(int app, int H, int W, const void *in, void *out, void *aux);
/* 0 when `got` matches `want` (exact, or within 1e-5 relative for floats);
 * else prints the first difference. */
int peer_compare(int app, int H, int W, const void *got, const void *want, size_t bytes);

/* Calls fn(app, H, W, user) for every program at every size of a list
 * "HxW,HxW"; stops at the first non-zero return. */
int peer_each(const char *sizes, int (*fn)(int app, int H, int W, void *user), void *user);
/* peer_each over the sizes to check with *runs at 0 (check only), then over
 * the sizes to time with *runs as it was. */
int peer_check_then_time(const char *check, const char *sizes, int *runs,
                         int (*fn)(int app, int H, int W, void *user), void *user);

/* One result line, and its JSON line when json is not NULL. */
void peer_report(FILE *json, const char *backend, int app, int H, int W, double median_ms, double copy_gbs);

#endif
