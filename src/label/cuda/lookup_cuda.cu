// Table lookup on the GPU: a thread per pixel of a row reading its entry; an index out of range records the smallest such pixel's raster
// position (atomicMin), which the host then reads back to name it.
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "core/device_internal.h"
#include "cuda/cuda_check.h"
#include "cuda/launch.h"
#include "label/lookup.h"

namespace {

struct plane {
    const char *data;
    int64_t rp, sp;
};

struct out_plane {
    char *data;
    int64_t rp, sp;
};

// x from the grid's x, rows from its y and slices from its z (each strided
// past the grid's reach): a pixel's row and slice cost no division, which a
// flat grid-stride loop over the pixel count pays per pixel (64-bit
// division and remainder: 1.3-1.5x cupy.take's time at 8K).
template <typename IT, typename ET>
__global__ void lookup_kernel(plane in, const ET *table, uint64_t entries, out_plane out, int64_t w, int64_t h,
                              int64_t d, unsigned long long *first_miss)
{
    const int64_t x0 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, xs = (int64_t)gridDim.x * blockDim.x;
    for (int64_t z = blockIdx.z; z < d; z += gridDim.z)
        for (int64_t y = blockIdx.y; y < h; y += gridDim.y) {
            const IT *src = (const IT *)(in.data + z * in.sp + y * in.rp);
            ET *dst = (ET *)(out.data + z * out.sp + y * out.rp);
            for (int64_t x = x0; x < w; x += xs) {
                const uint64_t v = (uint64_t)(int64_t)src[x];
                if (v >= entries) atomicMin(first_miss, (unsigned long long)((z * h + y) * w + x));
                dst[x] = table[v < entries ? v : 0];
            }
        }
}

template <typename IT, typename ET>
void launch_entries(const parac_image *index, const parac_image *table, parac_image *out,
                    unsigned long long *first_miss, cudaStream_t st)
{
    const plane in{(const char *)index->data, index->row_pitch, index->slice_pitch};
    const out_plane to{(char *)out->data, out->row_pitch, out->slice_pitch};
    const int64_t w = index->width, h = index->height, d = index->depth;
    // blocks of 256 along x; a narrow image's blocks only as wide as it
    // (whole warps), so that its threads are not mostly idle
    const int threads = w >= 256 ? 256 : (int)((w + 31) / 32 * 32);
    const int64_t bx = (w + threads - 1) / threads;
    const dim3 grid((unsigned)(bx < 0x7fffffff ? bx : 0x7fffffff), (unsigned)(h < 65535 ? h : 65535),
                    (unsigned)(d < 65535 ? d : 65535));
    lookup_kernel<IT, ET><<<grid, threads, 0, st>>>(in, (const ET *)table->data, (uint64_t)table->width, to, w, h, d,
                                                    first_miss);
}

// entries by their size: a table's bits are copied, whatever its dtype
template <typename IT>
void launch(const parac_image *index, const parac_image *table, parac_image *out, unsigned long long *first_miss,
            cudaStream_t st)
{
    switch (parac_dtype_size(table->dtype)) {
    case 1: launch_entries<IT, uint8_t>(index, table, out, first_miss, st); break;
    case 2: launch_entries<IT, uint16_t>(index, table, out, first_miss, st); break;
    case 4: launch_entries<IT, uint32_t>(index, table, out, first_miss, st); break;
    default: launch_entries<IT, uint64_t>(index, table, out, first_miss, st); break;
    }
}

// The value of an index element read back from the device.
parac_status index_value(const parac_image *index, const char *p, int64_t *v)
{
    unsigned char b[8] = {0};
    PARAC_TRY(PARAC_CUDA_CHECK(cudaMemcpy(b, p, parac_dtype_size(index->dtype), cudaMemcpyDeviceToHost)));
    switch (index->dtype) {
    case PARAC_U8: *v = b[0]; break;
    case PARAC_U16: { uint16_t u; memcpy(&u, b, 2); *v = u; break; }
    case PARAC_I32: { int32_t u; memcpy(&u, b, 4); *v = u; break; }
    default: memcpy(v, b, 8); break;
    }
    return PARAC_OK;
}

} // namespace

extern "C" parac_status parac__lookup_cuda(const parac__lookup_spec *s, const parac_image *index,
                                           const parac_image *table, parac_image *out, parac__lookup_miss *miss,
                                           void *stream)
{
    (void)s;
    cudaStream_t st = (cudaStream_t)stream;
    const int device = index->device;
    void *flag = nullptr;
    PARAC_TRY(parac__cuda_alloc(device, sizeof(unsigned long long), &flag));
    unsigned long long *first_miss = (unsigned long long *)flag;
    parac_status rc = PARAC_CUDA_CHECK(cudaMemsetAsync(first_miss, 0xFF, sizeof *first_miss, st));
    if (rc == PARAC_OK) {
        switch (index->dtype) {
        case PARAC_U8: launch<uint8_t>(index, table, out, first_miss, st); break;
        case PARAC_U16: launch<uint16_t>(index, table, out, first_miss, st); break;
        case PARAC_I32: launch<int32_t>(index, table, out, first_miss, st); break;
        default: launch<int64_t>(index, table, out, first_miss, st); break;
        }
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    unsigned long long at = ~0ull;
    if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaMemcpyAsync(&at, first_miss, sizeof at, cudaMemcpyDeviceToHost, st));
    // the flag goes back to the pool: let the kernel and the copy finish first
    const parac_status sync = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    parac__cuda_release(device, flag, sizeof(unsigned long long));
    if (rc != PARAC_OK) return rc;
    if (sync != PARAC_OK) return sync;
    miss->found = 0;
    if (at == ~0ull) return PARAC_OK;
    const int64_t i = (int64_t)at, x = i % index->width, r = i / index->width;
    const int64_t y = r % index->height, z = r / index->height;
    const char *p = (const char *)index->data + z * index->slice_pitch + y * index->row_pitch +
                    x * (int64_t)parac_dtype_size(index->dtype);
    int64_t v = 0;
    PARAC_TRY(index_value(index, p, &v));
    *miss = parac__lookup_miss{1, x, y, z, v};
    return PARAC_OK;
}
