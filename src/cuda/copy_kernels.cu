// Element-wise copy between two device images of any strides (channel views).
#include "core/device_internal.h"
#include "cuda_check.h"
#include "launch.h"

template <typename T>
__global__ void copy_strided_kernel(char *dst, const char *src, int64_t width, int64_t height,
                                    int64_t count, int channels, int64_t dps, int64_t drp,
                                    int64_t dsp, int64_t sps, int64_t srp, int64_t ssp)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t c = i % channels, p = i / channels;
        int64_t x = p % width, r = p / width, y = r % height, z = r / height;
        const T *s = (const T *)(src + z * ssp + y * srp + x * sps) + c;
        T *d = (T *)(dst + z * dsp + y * drp + x * dps) + c;
        *d = *s;
    }
}

extern "C" parac_status parac__cuda_copy_strided(const parac_image *dst, const parac_image *src,
                                                 void *stream)
{
    PARAC_TRY(parac__cuda_set_device(src->device));
    int64_t count = parac_image_pixel_count(src) * src->channels;
    const int threads = 256;
    unsigned blocks = parac__grid_for(count, threads);
    cudaStream_t s = (cudaStream_t)stream;
#define PARAC_LAUNCH_COPY(T)                                                                   \
    copy_strided_kernel<T><<<blocks, threads, 0, s>>>(                                         \
        (char *)dst->data, (const char *)src->data, src->width, src->height, count,            \
        src->channels, dst->pixel_stride, dst->row_pitch, dst->slice_pitch, src->pixel_stride, \
        src->row_pitch, src->slice_pitch)
    switch (parac_dtype_size(src->dtype)) {
    case 1: PARAC_LAUNCH_COPY(uint8_t); break;
    case 2: PARAC_LAUNCH_COPY(uint16_t); break;
    case 4: PARAC_LAUNCH_COPY(uint32_t); break;
    default: PARAC_LAUNCH_COPY(uint64_t); break;
    }
#undef PARAC_LAUNCH_COPY
    PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    if (!stream) PARAC_CUDA_TRY(cudaStreamSynchronize(0));
    return PARAC_OK;
}
