// CUDA versions of the pixel-wise steps of morph_post.h.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "cuda/cuda_check.h"
#include "morph/morph_post.h"

namespace {

struct view {
    char *data;
    int64_t ps, rp, sp, w, h, d;
    parac_dtype dtype;
};

view make_view(const parac_image *im)
{
    return view{(char *)im->data, im->pixel_stride, im->row_pitch, im->slice_pitch,
                im->width, im->height, im->depth, im->dtype};
}

__device__ double get(const view &v, int64_t x, int64_t y, int64_t z)
{
    const char *p = v.data + z * v.sp + y * v.rp + x * v.ps;
    switch (v.dtype) {
    case PARAC_U8: return *(const uint8_t *)p;
    case PARAC_U16: return *(const uint16_t *)p;
    default: return *(const float *)p;
    }
}

__device__ void put(const view &v, int64_t x, int64_t y, int64_t z, double a)
{
    char *p = v.data + z * v.sp + y * v.rp + x * v.ps;
    switch (v.dtype) {
    case PARAC_U8: *(uint8_t *)p = (uint8_t)a; break;
    case PARAC_U16: *(uint16_t *)p = (uint16_t)a; break;
    default: *(float *)p = (float)a; break;
    }
}

__global__ void post_kernel(int kind, int minima, double h, view f, view R, view out)
{
    const int64_t rows = f.h * f.d;
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const int64_t z = r / f.h, y = r % f.h;
        for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < f.w;
             x += (int64_t)gridDim.x * blockDim.x) {
            const double a = get(f, x, y, z);
            double o = 0;
            switch (kind) {
            case PARAC__POST_HEXT: {
                const double b = get(R, x, y, z);
                o = (minima ? b - a : a - b) >= h ? 255 : 0;
                break;
            }
            case PARAC__POST_REGIONAL: {
                const double b = get(R, x, y, z);
                o = (minima ? a < b : a > b) ? 255 : 0;
                break;
            }
            case PARAC__POST_CLEAR: o = get(R, x, y, z) != 0 ? 0 : a; break;
            default: o = a != 0 ? 255 : 0; break;
            }
            put(out, x, y, z, o);
        }
    }
}

// Minimum or maximum over a window of 2r+1 along one axis, clipped to the image.
__global__ void minmax_kernel(view in, view out, int axis, int64_t r, int is_max)
{
    const int64_t rows = in.h * in.d;
    const int64_t n = axis == 0 ? in.w : axis == 1 ? in.h : in.d;
    for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
        const int64_t z = row / in.h, y = row % in.h;
        for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < in.w;
             x += (int64_t)gridDim.x * blockDim.x) {
            const int64_t c = axis == 0 ? x : axis == 1 ? y : z;
            const int64_t lo = c - r < 0 ? 0 : c - r, hi = c + r >= n ? n - 1 : c + r;
            double v = is_max ? -INFINITY : INFINITY;
            for (int64_t i = lo; i <= hi; i++) {
                const double u = get(in, axis == 0 ? i : x, axis == 1 ? i : y, axis == 2 ? i : z);
                v = is_max ? fmax(v, u) : fmin(v, u);
            }
            put(out, x, y, z, v);
        }
    }
}

dim3 grid_for(const parac_image *im)
{
    const int64_t rows = im->height * im->depth;
    return dim3((unsigned)((im->width + 255) / 256), (unsigned)(rows < 65535 ? rows : 65535));
}

} // namespace

extern "C" parac_status parac__morph_post_cuda(parac__post_kind kind, int minima, double h,
                                               const parac_image *f, const parac_image *R,
                                               parac_image *out, void *stream)
{
    PARAC_CUDA_TRY(cudaSetDevice(f->device));
    post_kernel<<<grid_for(f), 256, 0, (cudaStream_t)stream>>>((int)kind, minima, h, make_view(f),
                                                               make_view(R), make_view(out));
    return PARAC_CUDA_LAUNCH_CHECK();
}

extern "C" parac_status parac__morph_minmax_cuda(const parac_image *in, parac_image *out,
                                                 int64_t radius, int is_max, void *stream)
{
    PARAC_CUDA_TRY(cudaSetDevice(in->device));
    cudaStream_t st = (cudaStream_t)stream;
    parac_image *tmp = NULL;
    PARAC_TRY(parac_image_create(&tmp, in->width, in->height, in->depth, 1, in->dtype,
                                 PARAC_MEMORY_CUDA, in->device));
    // x: in -> out, y: out -> tmp, z: tmp -> out (2D: tmp copied back)
    const int axes = in->depth > 1 ? 3 : 2;
    const parac_image *src[3] = {in, out, tmp};
    parac_image *dst[3] = {out, tmp, out};
    parac_status s = PARAC_OK;
    for (int a = 0; a < axes && s == PARAC_OK; a++) {
        minmax_kernel<<<grid_for(in), 256, 0, st>>>(make_view(src[a]), make_view(dst[a]), a, radius, is_max);
        s = PARAC_CUDA_LAUNCH_CHECK();
    }
    if (s == PARAC_OK && axes == 2) s = parac_image_copy(out, tmp, stream);
    if (s == PARAC_OK) s = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    parac_image_destroy(tmp);
    return s;
}
