// The "convert" operation on the GPU: the same per-element math as the CPU
// (core/pixel_math.h), one thread per pixel.
#include "core/convert_internal.h"
#include "core/pixel_math.h"
#include "cuda_check.h"
#include "launch.h"

__global__ void convert_kernel(char *dst, int dtype_out, int cout, int64_t dps, int64_t drp,
                               int64_t dsp, const char *src, int dtype_in, int cin, int64_t sps,
                               int64_t srp, int64_t ssp, int64_t width, int64_t height,
                               int64_t count, double a, double b, double opaque)
{
    const int isz = dtype_in == PARAC_U8 ? 1 : dtype_in == PARAC_U16 ? 2 : dtype_in == PARAC_F64 ? 8 : 4;
    const int osz = dtype_out == PARAC_U8 ? 1 : dtype_out == PARAC_U16 ? 2 : dtype_out == PARAC_F64 ? 8 : 4;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t x = i % width, r = i / width, y = r % height, z = r / height;
        const char *s = src + z * ssp + y * srp + x * sps;
        char *d = dst + z * dsp + y * drp + x * dps;
        double vin[4] = {0}, vout[4] = {0};
        for (int c = 0; c < cin; c++) vin[c] = parac__load_elem(s + c * isz, dtype_in);
        parac__map_channels(vin, cin, vout, cout, opaque);
        for (int c = 0; c < cout; c++) parac__store_elem(d + c * osz, dtype_out, a * vout[c] + b);
    }
}

extern "C" parac_status parac__convert_cuda(parac_image *out, const parac_image *in, double a,
                                            double b, void *stream)
{
    PARAC_CUDA_TRY(cudaSetDevice(in->device));
    const int64_t count = parac_image_pixel_count(in);
    const int threads = 256;
    convert_kernel<<<parac__grid_for(count, threads), threads, 0, (cudaStream_t)stream>>>(
        (char *)out->data, out->dtype, out->channels, out->pixel_stride, out->row_pitch,
        out->slice_pitch, (const char *)in->data, in->dtype, in->channels, in->pixel_stride,
        in->row_pitch, in->slice_pitch, in->width, in->height, count, a, b,
        parac__nominal_max(in->dtype));
    return PARAC_CUDA_LAUNCH_CHECK();
}
