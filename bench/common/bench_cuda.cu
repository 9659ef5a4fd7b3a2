// GPU timing with CUDA events and the measured copy-bandwidth ceiling.
#include <stdlib.h>

#include <cuda_runtime.h>

extern "C" {
#include "bench_util.h"
}

extern "C" int bench_time_cuda(bench_fn fn, void *user, void *stream, int warmup, int runs,
                               bench_stats *out)
{
    cudaStream_t s = (cudaStream_t)stream;
    int it = 0;
    for (int i = 0; i < warmup; i++)
        if (fn(user, it++)) return -1;
    if (cudaStreamSynchronize(s) != cudaSuccess) return -1;
    cudaEvent_t *ev = (cudaEvent_t *)malloc(sizeof(cudaEvent_t) * (size_t)(runs + 1));
    double *samples = (double *)malloc(sizeof(double) * (size_t)(runs > 0 ? runs : 1));
    if (!ev || !samples) {
        free(ev);
        free(samples);
        return -1;
    }
    int ok = 0;
    int created = 0;
    for (; created <= runs; created++)
        if (cudaEventCreate(&ev[created]) != cudaSuccess) break;
    if (created == runs + 1) {
        ok = 1;
        // Back-to-back launches bracketed by events: host overhead between
        // calls is hidden as long as the GPU queue stays full.
        cudaEventRecord(ev[0], s);
        for (int i = 0; i < runs && ok; i++) {
            if (fn(user, it++)) ok = 0;
            cudaEventRecord(ev[i + 1], s);
        }
        if (ok && cudaEventSynchronize(ev[runs]) == cudaSuccess) {
            for (int i = 0; i < runs; i++) {
                float ms = 0;
                cudaEventElapsedTime(&ms, ev[i], ev[i + 1]);
                samples[i] = ms;
            }
            bench_summarize(samples, runs, out);
        } else {
            ok = 0;
        }
    }
    for (int i = 0; i < created; i++) cudaEventDestroy(ev[i]);
    free(ev);
    free(samples);
    return ok ? 0 : -1;
}

extern "C" double bench_copy_bandwidth_gbs(int device)
{
    static double cached[64];
    if (device < 0 || device >= 64) return 0;
    if (cached[device] > 0) return cached[device];
    if (cudaSetDevice(device) != cudaSuccess) return 0;
    const size_t bytes = (size_t)1 << 30; // 1 GiB: far beyond any L2
    void *a = NULL, *b = NULL;
    if (cudaMalloc(&a, bytes) != cudaSuccess) return 0;
    if (cudaMalloc(&b, bytes) != cudaSuccess) {
        cudaFree(a);
        return 0;
    }
    cudaMemset(a, 1, bytes);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    float best = 1e30f;
    for (int i = 0; i < 12; i++) {
        cudaEventRecord(e0, 0);
        cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0);
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (i >= 2 && ms < best) best = ms;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(a);
    cudaFree(b);
    cached[device] = 2.0 * bytes / (best * 1e-3) / 1e9;
    return cached[device];
}

extern "C" int bench_rotation_count(int device, double bytes)
{
    int l2 = 0;
    if (cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device) != cudaSuccess) l2 = 64 << 20;
    int n = (int)(2.0 * l2 / (bytes > 1 ? bytes : 1)) + 1;
    return n < 2 ? 2 : (n > 64 ? 64 : n);
}
