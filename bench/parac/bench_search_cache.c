/* What the search costs a later run of a program: the first launch of each
 * tuned kernel at a new work size reads that kernel's choice (shape and
 * candidate kernel) from the disk cache, one small search-KEY.txt file;
 * nothing else is added (later launches find it in the session). Times those
 * reads on this host and prints the cost for a program of N tuned kernels.
 *
 *   bench_search_cache [--kernels N]   (N: tuned launches per work size, 9 for the sharpening) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dirent.h>
#include <unistd.h>

#include "runtime/common/device_runtime.h"

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

int main(int argc, char **argv)
{
    int kernels = 9;
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "--kernels")) kernels = atoi(argv[i + 1]);
    char dir[] = "/tmp/parac-search-bench-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("bench_search_cache: mkdtemp");
        return 1;
    }
    setenv("PARAC_CACHE_DIR", dir, 1);
    enum { KEYS = 64, READS = 20000 };
    const unsigned shape[3] = {32, 8, 1};
    for (int k = 0; k < KEYS; k++)
        parac__search_cache_store(0x9e3779b97f4a7c15ull * (uint64_t)(k + 1), shape, (unsigned)(k % 5),
                                  "kernel 2:1025x2048x1 on a device: 10.0 us");
    unsigned got[3], v;
    int found = 0;
    const double t0 = now_us();
    for (int r = 0; r < READS; r++) found += parac__search_cache_load(0x9e3779b97f4a7c15ull * (uint64_t)(r % KEYS + 1), got, &v);
    const double us = (now_us() - t0) / READS;
    printf("search choices read from the disk cache: %.1f us each (%d of %d found); a program of %d tuned kernels "
           "pays %.3f ms per new size\n", us, found, (int)READS, kernels, us * kernels / 1e3);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.') unlink(path);
    }
    if (d) closedir(d);
    rmdir(dir);
    return found == READS ? 0 : 1;
}
