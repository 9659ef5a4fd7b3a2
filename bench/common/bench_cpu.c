/* CPU timing, statistics, JSON output and the ParaC benchmarks' inputs. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_summarize(double *s, int n, bench_stats *st)
{
    qsort(s, (size_t)n, sizeof *s, compare_double);
    double sum = 0, sq = 0;
    for (int i = 0; i < n; i++) sum += s[i];
    double mean = n ? sum / n : 0;
    for (int i = 0; i < n; i++) sq += (s[i] - mean) * (s[i] - mean);
    st->runs = n;
    st->min_ms = n ? s[0] : 0;
    st->median_ms = n ? (n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2])) : 0;
    st->mean_ms = mean;
    st->stddev_ms = n > 1 ? sqrt(sq / (n - 1)) : 0;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

int bench_time_cpu(bench_fn fn, void *user, int warmup, int runs, bench_stats *out)
{
    int it = 0;
    for (int i = 0; i < warmup; i++)
        if (fn(user, it++)) return -1;
    double *s = malloc(sizeof *s * (size_t)(runs > 0 ? runs : 1));
    if (!s) return -1;
    for (int i = 0; i < runs; i++) {
        double t0 = now_ms();
        if (fn(user, it++)) {
            free(s);
            return -1;
        }
        s[i] = now_ms() - t0;
    }
    bench_summarize(s, runs, out);
    free(s);
    return 0;
}

void bench_emit(FILE *f, const char *bench, const char *case_name, const char *method,
                const char *device, double median_ms, double bytes, double extra)
{
    if (!f) return;
    double gbs = median_ms > 0 ? bytes / (median_ms * 1e-3) / 1e9 : 0;
    fprintf(f,
            "{\"bench\":\"%s\",\"case\":\"%s\",\"method\":\"%s\",\"device\":\"%s\","
            "\"median_ms\":%.6f,\"bytes\":%.0f,\"gbs\":%.3f,\"extra\":%.6g}\n",
            bench, case_name, method, device, median_ms, bytes, gbs, extra);
    fflush(f);
}

void bench_fill_lcg(void *p, size_t bytes, int as_float)
{
    uint32_t s = 12345;
    if (as_float) {
        float *f = p;
        for (size_t i = 0; i < bytes / 4; i++) {
            s = s * 1664525u + 1013904223u;
            f[i] = 0.05f + (float)(s >> 8) / 16777216.0f;
        }
        return;
    }
    unsigned char *c = p;
    for (size_t i = 0; i < bytes; i++) {
        s = s * 1664525u + 1013904223u;
        c[i] = (unsigned char)(s >> 24);
    }
}
