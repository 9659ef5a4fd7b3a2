// The "convert" operation on the GPU: the same per-element math as the CPU
// (core/pixel_math.h). One block row per image row (no 64-bit division per
// element); dtypes are template parameters so loads and stores are typed.
#include "core/convert_internal.h"
#include "core/pixel_math.h"
#include "cuda_check.h"
#include "launch.h"

// Four consecutive elements as one aligned access (4, 8 or 16 bytes).
template <typename T> struct alignas(4 * sizeof(T) > 16 ? 16 : 4 * sizeof(T)) quad {
    T v[4];
};

template <typename TI, typename TO, int DO>
__device__ __forceinline__ void convert_flat_row(const TI *s, TO *d, int64_t n, double a, double b)
{
    const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    const bool vec = sizeof(TI) * 4 <= 16 && sizeof(TO) * 4 <= 16 &&
                     (uintptr_t)s % alignof(quad<TI>) == 0 && (uintptr_t)d % alignof(quad<TO>) == 0;
    int64_t done = 0;
    if (vec) { // 16-byte (or narrower) loads and stores: far fewer memory instructions for u8/u16
        const int64_t quads = n / 4;
        for (int64_t q = tid; q < quads; q += step) {
            quad<TI> in = ((const quad<TI> *)s)[q];
            quad<TO> out;
#pragma unroll
            for (int k = 0; k < 4; k++) parac__store_elem(&out.v[k], DO, parac__mul_add(a, (double)in.v[k], b));
            ((quad<TO> *)d)[q] = out;
        }
        done = quads * 4;
    }
    for (int64_t i = done + tid; i < n; i += step) parac__store_elem(d + i, DO, parac__mul_add(a, (double)s[i], b));
}

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
            convert_flat_row<TI, TO, DO>((const TI *)srow, (TO *)drow, width * cin, a, b);
            continue;
        }
        for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < width;
             x += (int64_t)gridDim.x * blockDim.x) {
            const TI *s = (const TI *)(srow + x * sps);
            TO *d = (TO *)(drow + x * dps);
            double vin[4] = {0, 0, 0, 0}, vout[4] = {0, 0, 0, 0};
            for (int c = 0; c < cin; c++) vin[c] = (double)s[c];
            parac__map_channels(vin, cin, vout, cout, opaque);
            for (int c = 0; c < cout; c++) parac__store_elem(d + c, DO, parac__mul_add(a, vout[c], b));
        }
    }
}

template <typename TI, int DI, typename TO, int DO>
static parac_status launch(parac_image *out, const parac_image *in, double a, double b,
                           cudaStream_t stream)
{
    const int threads = 256;
    const int64_t rows = in->height * in->depth;
    // Flat rows are handled four elements per thread.
    const int64_t per_row = in->channels == out->channels ? (in->width * in->channels + 3) / 4 : in->width;
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
    case PARAC_I64: return launch<TI, DI, int64_t, PARAC_I64>(out, in, a, b, s);
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
    case PARAC_I64: return launch_to<int64_t, PARAC_I64>(out, in, a, b, s);
    default: return launch_to<double, PARAC_F64>(out, in, a, b, s);
    }
}
