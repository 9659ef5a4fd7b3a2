/* The GPU half of the harness in a build without CUDA. */
#include "bench_util.h"

int bench_time_cuda(bench_fn fn, void *user, void *stream, int warmup, int runs, bench_stats *out)
{
    return -1;
}
double bench_copy_bandwidth_gbs(int device) { return 0; }
int bench_rotation_count(int device, double bytes) { return 2; }
