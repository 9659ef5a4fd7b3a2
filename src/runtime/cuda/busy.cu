// A kernel that keeps a stream busy for a while. The runtime's kernel timing
// (PARAC_CU_PROFILE, the search) queues it in front of the start event, the
// timed kernel and the end event: the host has queued all three before it
// ends, so the start event fires on a running GPU and the kernel follows it
// at once, as in a stream of back-to-back launches. An idle stream would
// take the start event before the host has launched the kernel, and one
// woken by a host callback starts the kernel several microseconds late
// (measured on an H200: a 12 us kernel timed as 17.6 us).
#include <cuda_runtime.h>

__global__ void parac_busy_kernel(long long ns)
{
    long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

extern "C" int parac__cu_busy(void *stream, long long ns)
{
    parac_busy_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(ns);
    return cudaGetLastError() == cudaSuccess;
}
