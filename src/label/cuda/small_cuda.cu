// Small objects and holes on the GPU: the components labelled
// (label_cuda.cu), their pixels counted (regions_cuda.cu), then every pixel
// decided by its component's count in one kernel.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/device_internal.h"
#include "cuda/cuda_check.h"
#include "cuda/launch.h"
#include "label/label.h"
#include "label/regions.h"
#include "label/small.h"

namespace {

struct plane {
    char *data;
    int64_t rp, sp;
    int dtype;
};

__device__ inline int64_t read_int(const plane &m, int64_t x, int64_t y, int64_t z)
{
    const char *p = m.data + z * m.sp + y * m.rp;
    switch (m.dtype) {
    case PARAC_U8: return ((const uint8_t *)p)[x];
    case PARAC_U16: return ((const uint16_t *)p)[x];
    case PARAC_I32: return ((const int32_t *)p)[x];
    default: return ((const int64_t *)p)[x];
    }
}

__device__ inline void write_int(const plane &m, int64_t x, int64_t y, int64_t z, int64_t v)
{
    char *p = m.data + z * m.sp + y * m.rp;
    switch (m.dtype) {
    case PARAC_U8: ((uint8_t *)p)[x] = (uint8_t)v; break;
    case PARAC_U16: ((uint16_t *)p)[x] = (uint16_t)v; break;
    case PARAC_I32: ((int32_t *)p)[x] = (int32_t)v; break;
    default: ((int64_t *)p)[x] = v; break;
    }
}

__global__ void select_kernel(plane in, plane labels, plane out, int w, int h, int64_t n, const uint64_t *areas,
                              uint64_t min_size, bool holes, int foreground)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t x = i % w, r = i / w, y = r % h, z = r / h;
        const int64_t l = read_int(labels, x, y, z);
        const int64_t v = read_int(in, x, y, z);
        const bool small = l > 0 && areas[l] < min_size; // label 0: the background of objects
        if (holes) write_int(out, x, y, z, v != 0 || small ? foreground : 0);
        else write_int(out, x, y, z, small ? 0 : v);
    }
}

plane plane_of(const parac_image *m)
{
    return plane{(char *)m->data, m->row_pitch, m->slice_pitch, (int)m->dtype};
}

} // namespace

extern "C" parac_status parac__small_cuda(const parac__small_spec *s, const parac_image *in, parac_image *out,
                                          void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    const int device = in->device;
    parac_image *labels = NULL;
    int64_t n = 0;
    parac_status rc = PARAC_OK;
    if (s->mode == PARAC__SMALL_LABELS) {
        rc = parac__largest_label_cuda(s->op, in, &n, stream);
    } else {
        // holes: the regions of equal value, with no background, of which the zero ones are the holes
        const parac__label_spec ls = {s->op, s->conn, s->mode == PARAC__SMALL_HOLES, 1e300, s->threads, NULL, NULL};
        rc = parac_image_create(&labels, in->width, in->height, in->depth, 1, PARAC_I32, PARAC_MEMORY_CUDA, device);
        if (rc == PARAC_OK) rc = parac__label_cuda(&ls, in, labels, &n, stream);
    }
    const parac_image *lab = labels ? labels : in;
    void *areas = nullptr;
    const size_t area_bytes = ((size_t)n + 1) * sizeof(uint64_t);
    if (rc == PARAC_OK) rc = parac__cuda_alloc(device, area_bytes, &areas);
    if (rc == PARAC_OK) rc = parac__region_areas_cuda(lab, n, (uint64_t *)areas, stream);
    if (rc == PARAC_OK) {
        const int64_t pixels = parac_image_pixel_count(in);
        select_kernel<<<parac__grid_for(pixels, 256), 256, 0, st>>>(
            plane_of(in), plane_of(lab), plane_of(out), (int)in->width, (int)in->height, pixels,
            (const uint64_t *)areas, (uint64_t)s->min_size, s->mode == PARAC__SMALL_HOLES, s->foreground);
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    // the buffers go back to the pool: let the kernel finish first
    const parac_status sync = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    if (areas) parac__cuda_release(device, areas, area_bytes);
    parac_image_destroy(labels);
    return rc != PARAC_OK ? rc : sync;
}
