// The "convert" operation on the GPU: the same per-element math as the CPU
// (core/pixel_math.h). One block row per image row (no 64-bit division per
// element); dtypes are template parameters so loads and stores are typed.
#include "core/convert_internal.h"
#include "core/pixel_math.h"
#include "cuda_check.h"
#include "launch.h"

template <typename TI, typename TO, int DI, int DO>
__global__ void convert_kernel(char *dst, int cout, int64_t dps, int64_t drp, int64_t dsp,
                               const char *src, int cin, int64_t sps, int64_t srp, int64_t ssp,
                               int64_t width, int64_t height, int64_t rows, double a, double b,
                               double opaque)
{
    const bool flat = cin == cout && sps == (int64_t)sizeof(TI) * cin && dps == (int64_t)sizeof(TO) * cout;
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const int64_t y = r % height, z = r / height;
        const char *srow = src + z * ssp + y * srp;
        char *drow = dst + z * dsp + y * drp;
        if (flat) {
            const TI *s = (const TI *)srow;
            TO *d = (TO *)drow;
            for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < width * cin;
                 i += (int64_t)gridDim.x * blockDim.x)
                parac__store_elem(d + i, DO, a * (double)s[i] + b);
            continue;
        }
        for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < width;
             x += (int64_t)gridDim.x * blockDim.x) {
            const TI *s = (const TI *)(srow + x * sps);
            TO *d = (TO *)(drow + x * dps);
            double vin[4] = {0, 0, 0, 0}, vout[4] = {0, 0, 0, 0};
            for (int c = 0; c < cin; c++) vin[c] = (double)s[c];
            parac__map_channels(vin, cin, vout, cout, opaque);
            for (int c = 0; c < cout; c++) parac__store_elem(d + c, DO, a * vout[c] + b);
        }
    }
}

template <typename TI, int DI, typename TO, int DO>
static parac_status launch(parac_image *out, const parac_image *in, double a, double b,
                           cudaStream_t stream)
{
    const int threads = 256;
    const int64_t rows = in->height * in->depth;
    const int64_t per_row = in->width * (in->channels == out->channels ? in->channels : 1);
    int64_t bx = (per_row + threads - 1) / threads;
    dim3 grid((unsigned)(bx > 1024 ? 1024 : bx), (unsigned)(rows > 65535 ? 65535 : rows));
    convert_kernel<TI, TO, DI, DO><<<grid, threads, 0, stream>>>(
        (char *)out->data, out->channels, out->pixel_stride, out->row_pitch, out->slice_pitch,
        (const char *)in->data, in->channels, in->pixel_stride, in->row_pitch, in->slice_pitch,
        in->width, in->height, rows, a, b, parac__nominal_max(in->dtype));
    return PARAC_CUDA_LAUNCH_CHECK();
}

template <typename TI, int DI>
static parac_status launch_to(parac_image *out, const parac_image *in, double a, double b,
                              cudaStream_t s)
{
    switch (out->dtype) {
    case PARAC_U8: return launch<TI, DI, uint8_t, PARAC_U8>(out, in, a, b, s);
    case PARAC_U16: return launch<TI, DI, uint16_t, PARAC_U16>(out, in, a, b, s);
    case PARAC_I32: return launch<TI, DI, int32_t, PARAC_I32>(out, in, a, b, s);
    case PARAC_F32: return launch<TI, DI, float, PARAC_F32>(out, in, a, b, s);
    default: return launch<TI, DI, double, PARAC_F64>(out, in, a, b, s);
    }
}

extern "C" parac_status parac__convert_cuda(parac_image *out, const parac_image *in, double a,
                                            double b, void *stream)
{
    PARAC_CUDA_TRY(cudaSetDevice(in->device));
    cudaStream_t s = (cudaStream_t)stream;
    switch (in->dtype) {
    case PARAC_U8: return launch_to<uint8_t, PARAC_U8>(out, in, a, b, s);
    case PARAC_U16: return launch_to<uint16_t, PARAC_U16>(out, in, a, b, s);
    case PARAC_I32: return launch_to<int32_t, PARAC_I32>(out, in, a, b, s);
    case PARAC_F32: return launch_to<float, PARAC_F32>(out, in, a, b, s);
    default: return launch_to<double, PARAC_F64>(out, in, a, b, s);
    }
}
