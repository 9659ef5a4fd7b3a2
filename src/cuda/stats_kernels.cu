// Per-channel min / max / sum / NaN count: one partial result per block,
// combined on the host (a few thousand partials).
#include <math.h>
#include <stdlib.h>

#include "core/pixel_math.h"
#include "core/stats_internal.h"
#include "cuda_check.h"

struct partial {
    double lo, hi, sum;
    long long nans;
};

__global__ void stats_kernel(const char *data, int dtype, int64_t width, int64_t height,
                             int64_t count, int64_t pixel_stride, int64_t row_pitch,
                             int64_t slice_pitch, int channel, int elem_size, partial *out)
{
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    long long nans = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t x = i % width, r = i / width;
        const char *p = data + (r / height) * slice_pitch + (r % height) * row_pitch +
                        x * pixel_stride + channel * elem_size;
        double v = parac__load_elem(p, dtype);
        if (v != v) {
            nans++;
            continue;
        }
        lo = fmin(lo, v);
        hi = fmax(hi, v);
        sum += v;
    }
    __shared__ partial sh[256];
    sh[threadIdx.x] = partial{lo, hi, sum, nans};
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) {
            partial a = sh[threadIdx.x], b = sh[threadIdx.x + s];
            sh[threadIdx.x] = partial{fmin(a.lo, b.lo), fmax(a.hi, b.hi), a.sum + b.sum,
                                      a.nans + b.nans};
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = sh[0];
}

extern "C" parac_status parac__stats_cuda(const parac_image *img, parac_image_stats *s,
                                          void *stream)
{
    PARAC_CUDA_TRY(cudaSetDevice(img->device));
    const int threads = 256, blocks = 1024;
    const int64_t count = parac_image_pixel_count(img);
    partial *dev = NULL;
    PARAC_CUDA_TRY(cudaMalloc(&dev, sizeof(partial) * blocks * img->channels));
    partial *host = (partial *)malloc(sizeof(partial) * blocks * img->channels);
    parac_status st = host ? PARAC_OK : parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    cudaStream_t cs = (cudaStream_t)stream;
    for (int c = 0; st == PARAC_OK && c < img->channels; c++) {
        stats_kernel<<<blocks, threads, 0, cs>>>((const char *)img->data, img->dtype, img->width,
                                                 img->height, count, img->pixel_stride,
                                                 img->row_pitch, img->slice_pitch, c,
                                                 (int)parac_dtype_size(img->dtype),
                                                 dev + (size_t)c * blocks);
        st = PARAC_CUDA_LAUNCH_CHECK();
    }
    if (st == PARAC_OK)
        st = PARAC_CUDA_CHECK(cudaMemcpyAsync(host, dev, sizeof(partial) * blocks * img->channels,
                                              cudaMemcpyDeviceToHost, cs));
    if (st == PARAC_OK) st = PARAC_CUDA_CHECK(cudaStreamSynchronize(cs));
    for (int c = 0; st == PARAC_OK && c < img->channels; c++) {
        double lo = INFINITY, hi = -INFINITY, sum = 0;
        long long nans = 0;
        for (int b = 0; b < blocks; b++) {
            const partial &p = host[(size_t)c * blocks + b];
            lo = fmin(lo, p.lo);
            hi = fmax(hi, p.hi);
            sum += p.sum;
            nans += p.nans;
        }
        int64_t n = count - nans;
        s->min[c] = n ? lo : NAN;
        s->max[c] = n ? hi : NAN;
        s->mean[c] = n ? sum / (double)n : NAN;
        s->nan_count[c] = nans;
    }
    free(host);
    cudaFree(dev);
    return st;
}
