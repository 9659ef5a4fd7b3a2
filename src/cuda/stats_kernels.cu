// Per-channel min / max / sum / NaN count: one partial result per block,
// combined on the host (a few thousand partials).
#include <math.h>
#include <stdlib.h>

#include "core/alloc_internal.h"
#include "core/pixel_math.h"
#include "core/device_internal.h"
#include "core/stats_internal.h"
#include "cuda_check.h"

struct partial {
    double lo, hi, sum;
    long long nans;
};

template <typename T>
__global__ void stats_kernel(const char *data, int64_t width, int64_t height, int64_t rows,
                             int64_t pixel_stride, int64_t row_pitch, int64_t slice_pitch,
                             int channel, partial *out)
{
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    long long nans = 0;
    // Rows across blockIdx.y, pixels across blockIdx.x: no 64-bit division per element.
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const char *row = data + (r / height) * slice_pitch + (r % height) * row_pitch;
        double row_sum = 0;
        for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < width;
             x += (int64_t)gridDim.x * blockDim.x) {
            double v = (double)((const T *)(row + x * pixel_stride))[channel];
            if (v != v) {
                nans++;
                continue;
            }
            lo = fmin(lo, v);
            hi = fmax(hi, v);
            row_sum += v;
        }
        sum += row_sum;
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
    if (threadIdx.x == 0) out[blockIdx.y * gridDim.x + blockIdx.x] = sh[0];
}

extern "C" parac_status parac__stats_cuda(const parac_image *img, parac_image_stats *s,
                                          void *stream)
{
    PARAC_CUDA_TRY(cudaSetDevice(img->device));
    const int threads = 256;
    const int64_t count = parac_image_pixel_count(img);
    const int64_t rows = img->height * img->depth;
    const unsigned gx = img->width > 4 * threads ? 8 : 1;
    const unsigned gy = (unsigned)(rows < 1024 / gx ? rows : 1024 / gx);
    const int blocks = (int)(gx * gy);
    partial *dev = NULL;
    const size_t dev_bytes = sizeof(partial) * blocks * img->channels;
    PARAC_TRY(parac__cuda_alloc(img->device, dev_bytes, (void **)&dev)); /* pooled */
    partial *host = (partial *)parac__malloc(sizeof(partial) * blocks * img->channels);
    parac_status st = host ? PARAC_OK : parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    cudaStream_t cs = (cudaStream_t)stream;
    for (int c = 0; st == PARAC_OK && c < img->channels; c++) {
        partial *part = dev + (size_t)c * blocks;
        const char *base = (const char *)img->data;
        dim3 grid(gx, gy);
#define PARAC_STATS(T)                                                                        \
    stats_kernel<T><<<grid, threads, 0, cs>>>(base, img->width, img->height, rows,           \
                                              img->pixel_stride, img->row_pitch,              \
                                              img->slice_pitch, c, part)
        switch (img->dtype) {
        case PARAC_U8: PARAC_STATS(uint8_t); break;
        case PARAC_U16: PARAC_STATS(uint16_t); break;
        case PARAC_I32: PARAC_STATS(int32_t); break;
        case PARAC_F32: PARAC_STATS(float); break;
        case PARAC_I64: PARAC_STATS(int64_t); break;
        default: PARAC_STATS(double); break;
        }
#undef PARAC_STATS
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
    parac__cuda_release(img->device, dev, dev_bytes);
    return st;
}
