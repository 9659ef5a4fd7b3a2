/* The clocks of the ParaC benchmarks (bench_apps.c, suite/bench_suite.c):
 * the wall clock; the clock a call is timed by (the device runtime's kernel
 * time, PARAC_CU_PROFILE / PARAC_CL_PROFILE, or the wall clock for the C
 * target); and each kernel's mean time per call over a stretch of calls,
 * from the runtime's running totals (snapshot before, differences after).
 * The includer defines profile_ns and profile_kernel as the CUDA or OpenCL
 * runtime's (the OpenCL ones, unused, for the C target), and
 * PARAC_BENCH_TARGET_C for the C target. */
#ifndef PARAC_BENCH_TIMING_H
#define PARAC_BENCH_TIMING_H

#include <stdio.h>
#include <time.h>

static double wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Milliseconds on the clock calls are timed by: the sum of the device's
 * kernel times so far, or the wall clock for the C target. */
static double call_clock_ms(void)
{
#ifdef PARAC_BENCH_TARGET_C
    return wall_ms();
#else
    return (double)profile_ns() / 1e6;
#endif
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static unsigned long long kernel_ns_before[256];

static void snapshot_kernel_times(void)
{
    const char *name;
    unsigned long long ns;
    for (int i = 0; i < 256; i++) kernel_ns_before[i] = profile_kernel(i, &name, &ns) ? ns : 0;
}

static void print_kernel_times(int calls)
{
    const char *name;
    unsigned long long ns;
    for (int i = 0; i < 256 && profile_kernel(i, &name, &ns); i++)
        if (ns > kernel_ns_before[i])
            printf("      %-56s %8.4f ms\n", name, (double)(ns - kernel_ns_before[i]) / 1e6 / calls);
}

#endif
