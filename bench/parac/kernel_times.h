/* Each kernel's mean time per call over a stretch of calls, from the device
 * runtime's running totals (PARAC_CU_PROFILE / PARAC_CL_PROFILE): snapshot
 * before the calls, print the differences after. The includer defines
 * profile_kernel as parac_cu_profile_kernel or parac_cl_profile_kernel. */
#ifndef PARAC_BENCH_KERNEL_TIMES_H
#define PARAC_BENCH_KERNEL_TIMES_H

#include <stdio.h>

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
