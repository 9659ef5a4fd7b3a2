/* Timing harness shared by the benchmarks.
 *
 * GPU timings use CUDA events around each call on the given stream, after
 * warm-up calls; the median of `runs` calls is reported. The callback gets
 * the iteration number so it can rotate between several input buffers whose
 * total size exceeds the L2 cache (otherwise the cache, not memory, is what
 * gets measured). CPU timings use CLOCK_MONOTONIC. */
#ifndef PARAC_BENCH_UTIL_H
#define PARAC_BENCH_UTIL_H

#include <stddef.h>
#include <stdio.h>

typedef struct bench_stats {
    double median_ms, min_ms, mean_ms, stddev_ms;
    int runs;
} bench_stats;

/* Returns 0 on success; non-zero aborts the measurement. */
typedef int (*bench_fn)(void *user, int iteration);

/* 0 on success; -1 when fn failed or CUDA is not available. */
int bench_time_cuda(bench_fn fn, void *user, void *stream, int warmup, int runs, bench_stats *out);
int bench_time_cpu(bench_fn fn, void *user, int warmup, int runs, bench_stats *out);

/* Measured device-to-device copy rate of a large buffer, counting bytes read
 * plus bytes written, in GB/s (1e9 bytes); 0 when no GPU. Cached per device. */
double bench_copy_bandwidth_gbs(int device);

/* Bytes per L2-defeating rotation: how many buffers of `bytes` to rotate
 * through so their total exceeds 2x the device's L2 (at least 2). */
int bench_rotation_count(int device, double bytes);

/* One JSON line: {"bench":..,"case":..,"method":..,"device":..,"median_ms":..,
 * "bytes":..,"gbs":..,"extra":..}. */
void bench_emit(FILE *jsonl, const char *bench, const char *case_name, const char *method,
                const char *device, double median_ms, double bytes_moved, double extra_metric);

/* The ParaC benchmarks' inputs: a linear congruential sequence from a fixed
 * seed, as bytes, or as floats in [0.05, 1.05) when as_float. */
void bench_fill_lcg(void *p, size_t bytes, int as_float);

/* Fill `stats` from `n` samples in milliseconds (sorted in place). */
void bench_summarize(double *samples_ms, int n, bench_stats *stats);

#endif
