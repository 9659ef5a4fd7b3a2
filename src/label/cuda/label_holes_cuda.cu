// Filling every label's holes on a CUDA device (the operation
// "fill-label-holes", label_holes.h), the CPU method's steps on the GPU:
//   1. the regions of equal value are labelled (parac__label_cuda, no
//      background); the zero ones are the cavities;
//   2. a thread per zero pixel marks its cavity as one and whether it
//      touches the image's border, and lowers / raises the smallest and
//      largest label beside it (atomics only where a read shows a change);
//   3. a thread per region: a cavity off the border with one label beside it
//      is that label's hole; one with several labels beside it is listed;
//   4. only when the list is not empty: the boxes of those cavities and of
//      every label on the GPU, then the CPU method's queues over the boxes
//      that may enclose them (label_holes_cpu.c) on a host copy of the
//      labels, their fills back to the device;
//   5. a thread per pixel writes the labels, zeros of holes taking their fill.
#include <cuda_runtime.h>
#include <stdlib.h>

#include "core/device_internal.h"
#include "cuda/cuda_check.h"
#include "cuda/launch.h"
#include "label/label.h"
#include "label/label_holes.h"
#include "label/regions.h"

namespace holesk {
namespace {

constexpr uint32_t ZERO = 1, BORDER = 2; // region flags

struct labels {
    const char *data;
    int64_t rp, sp;
    int dtype;
    int w, h, d;
    __device__ uint32_t at(int x, int y, int z) const
    {
        const char *row = data + z * sp + y * rp;
        // not negative and below 2^31 - 1: checked (parac__largest_label_cuda)
        return dtype == PARAC_U8 ? ((const uint8_t *)row)[x]
               : dtype == PARAC_U16 ? ((const uint16_t *)row)[x]
               : dtype == PARAC_I32 ? (uint32_t)((const int32_t *)row)[x]
                                    : (uint32_t)((const int64_t *)row)[x];
    }
};

struct regions {
    const char *data;
    int64_t rp, sp;
    __device__ int32_t at(int x, int y, int z) const { return ((const int32_t *)(data + z * sp + y * rp))[x]; }
};

struct steps {
    int n;
    int8_t d[26][3];
};

steps steps_for(int conn, int is_3d)
{
    int d[26][3];
    steps s{};
    s.n = parac__holes_steps(conn, is_3d, d);
    for (int k = 0; k < s.n; k++)
        for (int a = 0; a < 3; a++) s.d[k][a] = (int8_t)d[k][a];
    return s;
}

__device__ inline void coords(const labels &L, int64_t p, int &x, int &y, int &z)
{
    x = (int)(p % L.w);
    const int64_t r = p / L.w;
    y = (int)(r % L.h);
    z = (int)(r / L.h);
}

// Step 2.
__global__ void stats_kernel(labels L, regions R, steps s, int64_t n, uint32_t *flags, uint32_t *nb_min,
                             uint32_t *nb_max)
{
    for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < n; p += (int64_t)gridDim.x * blockDim.x) {
        int x, y, z;
        coords(L, p, x, y, z);
        if (L.at(x, y, z) != 0) continue;
        const int32_t r = R.at(x, y, z);
        const bool border = x == 0 || y == 0 || x == L.w - 1 || y == L.h - 1 || (L.d > 1 && (z == 0 || z == L.d - 1));
        const uint32_t want = ZERO | (border ? BORDER : 0u);
        if ((flags[r] & want) != want) atomicOr(&flags[r], want);
        for (int k = 0; k < s.n; k++) {
            const int nx = x + s.d[k][0], ny = y + s.d[k][1], nz = z + s.d[k][2];
            if (nx < 0 || ny < 0 || nz < 0 || nx >= L.w || ny >= L.h || nz >= L.d) continue;
            const uint32_t u = L.at(nx, ny, nz);
            if (u == 0) continue;
            if (u < nb_min[r]) atomicMin(&nb_min[r], u);
            if (u > nb_max[r]) atomicMax(&nb_max[r], u);
        }
    }
}

// Step 3: fills of cavities beside one label; the others listed.
__global__ void decide_kernel(int64_t regions_n, const uint32_t *flags, const uint32_t *nb_min, const uint32_t *nb_max,
                              uint32_t *fill, int32_t *list_index, uint32_t *list, uint32_t *listed)
{
    for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r <= regions_n; r += (int64_t)gridDim.x * blockDim.x) {
        fill[r] = 0;
        list_index[r] = -1;
        if (flags[r] != ZERO || nb_max[r] == 0) continue; // labels, or zeros reaching the border
        if (nb_min[r] == nb_max[r]) {
            fill[r] = nb_min[r];
            continue;
        }
        const uint32_t i = atomicAdd(listed, 1u);
        list[i] = (uint32_t)r;
        list_index[r] = (int32_t)i;
    }
}

// Step 4 on the GPU: boxes (x y z) of the listed cavities, their first
// pixels, and the boxes of every label.
__global__ void boxes_kernel(labels L, regions R, int64_t n, const int32_t *list_index, int32_t *cav_lo, int32_t *cav_hi,
                             uint32_t *cav_first, int listed, int32_t *lab_lo, int32_t *lab_hi, int64_t labels_n)
{
    for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < n; p += (int64_t)gridDim.x * blockDim.x) {
        int c[3];
        coords(L, p, c[0], c[1], c[2]);
        const uint32_t v = L.at(c[0], c[1], c[2]);
        int32_t *lo, *hi;
        int64_t stride;
        if (v != 0) {
            lo = lab_lo + v, hi = lab_hi + v, stride = labels_n + 1;
        } else {
            const int32_t i = list_index[R.at(c[0], c[1], c[2])];
            if (i < 0) continue;
            atomicMin(&cav_first[i], (uint32_t)p);
            lo = cav_lo + i, hi = cav_hi + i, stride = listed;
        }
        for (int k = 0; k < 3; k++) {
            if (c[k] < lo[k * stride]) atomicMin(&lo[k * stride], c[k]);
            if (c[k] > hi[k * stride]) atomicMax(&hi[k * stride], c[k]);
        }
    }
}

__global__ void gather_kernel(const uint32_t *list, const uint32_t *nb_min, const uint32_t *nb_max, int listed,
                              uint32_t *min_out, uint32_t *max_out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < listed) min_out[i] = nb_min[list[i]], max_out[i] = nb_max[list[i]];
}

__global__ void set_fills_kernel(const uint32_t *list, const uint32_t *fills, int listed, uint32_t *fill)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < listed) fill[list[i]] = fills[i];
}

// Step 5, with the count of filled pixels.
__global__ void output_kernel(labels L, regions R, int64_t n, const uint32_t *fill, char *out, int64_t orp, int64_t osp,
                              unsigned long long *filled)
{
    __shared__ unsigned long long block_count;
    if (threadIdx.x == 0) block_count = 0;
    __syncthreads();
    unsigned long long mine = 0;
    for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < n; p += (int64_t)gridDim.x * blockDim.x) {
        int x, y, z;
        coords(L, p, x, y, z);
        uint32_t v = L.at(x, y, z);
        if (v == 0) {
            v = fill[R.at(x, y, z)];
            mine += v != 0;
        }
        char *row = out + z * osp + y * orp;
        if (L.dtype == PARAC_U8) ((uint8_t *)row)[x] = (uint8_t)v;
        else if (L.dtype == PARAC_U16) ((uint16_t *)row)[x] = (uint16_t)v;
        else if (L.dtype == PARAC_I32) ((int32_t *)row)[x] = (int32_t)v;
        else ((int64_t *)row)[x] = (int64_t)v;
    }
    if (mine) atomicAdd(&block_count, mine);
    __syncthreads();
    if (threadIdx.x == 0 && block_count) atomicAdd(filled, block_count);
}

// Device memory of the passes, released in one place.
struct buffers {
    int device;
    void *ptr[8] = {};
    size_t bytes[8] = {};
    parac_status get(int k, size_t n, void **out)
    {
        bytes[k] = n ? n : 1;
        PARAC_TRY(parac__cuda_alloc(device, bytes[k], &ptr[k]));
        *out = ptr[k];
        return PARAC_OK;
    }
    ~buffers()
    {
        for (int k = 0; k < 8; k++)
            if (ptr[k]) parac__cuda_release(device, ptr[k], bytes[k]);
    }
};

// Step 4 (see the top): the listed cavities' fills, into `fill`.
parac_status settle_on_host(const parac__label_holes_spec *s, const parac_image *in, const labels &L, const regions &R,
                            int64_t n, int64_t labels_n, const int32_t *list_index, const uint32_t *list, int listed,
                            const uint32_t *nb_min, const uint32_t *nb_max, uint32_t *fill, cudaStream_t st)
{
    buffers b{in->device};
    int32_t *cav_lo, *cav_hi, *lab_lo, *lab_hi;
    uint32_t *cav_first, *fills;
    const size_t lab_bytes = (size_t)(labels_n + 1) * 3 * sizeof(int32_t), cav_bytes = (size_t)listed * 3 * 4;
    PARAC_TRY(b.get(0, cav_bytes, (void **)&cav_lo));
    PARAC_TRY(b.get(1, cav_bytes, (void **)&cav_hi));
    PARAC_TRY(b.get(2, (size_t)listed * 4, (void **)&cav_first));
    PARAC_TRY(b.get(3, lab_bytes, (void **)&lab_lo));
    PARAC_TRY(b.get(4, lab_bytes, (void **)&lab_hi));
    PARAC_TRY(b.get(5, (size_t)listed * 4, (void **)&fills));
    uint32_t *listed_min, *listed_max;
    PARAC_TRY(b.get(6, (size_t)listed * 4, (void **)&listed_min));
    PARAC_TRY(b.get(7, (size_t)listed * 4, (void **)&listed_max));
    gather_kernel<<<(unsigned)((listed + 255) / 256), 256, 0, st>>>(list, nb_min, nb_max, listed, listed_min,
                                                                     listed_max);
    PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    PARAC_CUDA_TRY(cudaMemsetAsync(cav_lo, 0x7f, cav_bytes, st));
    PARAC_CUDA_TRY(cudaMemsetAsync(cav_hi, 0, cav_bytes, st));
    PARAC_CUDA_TRY(cudaMemsetAsync(cav_first, 0xff, (size_t)listed * 4, st));
    PARAC_CUDA_TRY(cudaMemsetAsync(lab_lo, 0x7f, lab_bytes, st));
    PARAC_CUDA_TRY(cudaMemsetAsync(lab_hi, 0, lab_bytes, st));
    boxes_kernel<<<parac__grid_for(n, 256), 256, 0, st>>>(L, R, n, list_index, cav_lo, cav_hi, cav_first, listed,
                                                            lab_lo, lab_hi, labels_n);
    PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    // the host's copies
    const size_t host_bytes = 2 * cav_bytes + 2 * lab_bytes + 4 * (size_t)listed * 4;
    char *h = (char *)malloc(host_bytes);
    parac__cavity *cav = (parac__cavity *)calloc((size_t)listed, sizeof *cav);
    parac__holes_box *boxes = (parac__holes_box *)calloc((size_t)labels_n + 1, sizeof *boxes);
    int64_t *order = (int64_t *)malloc((size_t)listed * sizeof *order);
    parac_image *host_in = NULL;
    parac_status rc = h && cav && boxes && order ? PARAC_OK
                                                 : parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: out of host memory for "
                                                               "%d cavities beside several labels", s->op, listed);
    int32_t *hcl = (int32_t *)h, *hch = hcl + 3 * listed, *hll = hch + 3 * listed, *hlh = hll + 3 * (labels_n + 1);
    uint32_t *hfirst = (uint32_t *)(hlh + 3 * (labels_n + 1)), *hlist = hfirst + listed, *hmin = hlist + listed,
             *hmax = hmin + listed;
    const struct { void *dst; const void *src; size_t bytes; } copies[] = {
        {hcl, cav_lo, cav_bytes}, {hch, cav_hi, cav_bytes}, {hll, lab_lo, lab_bytes}, {hlh, lab_hi, lab_bytes},
        {hfirst, cav_first, (size_t)listed * 4}, {hlist, list, (size_t)listed * 4},
        {hmin, listed_min, (size_t)listed * 4}, {hmax, listed_max, (size_t)listed * 4}};
    for (size_t k = 0; rc == PARAC_OK && k < sizeof copies / sizeof copies[0]; k++)
        rc = PARAC_CUDA_CHECK(cudaMemcpyAsync(copies[k].dst, copies[k].src, copies[k].bytes, cudaMemcpyDeviceToHost, st));
    if (rc == PARAC_OK) rc = parac_image_download(&host_in, in, 0, st);
    if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    if (rc == PARAC_OK) {
        for (int i = 0; i < listed; i++) {
            for (int k = 0; k < 3; k++) cav[i].lo[k] = hcl[k * listed + i], cav[i].hi[k] = hch[k * listed + i];
            cav[i].first = hfirst[i], cav[i].nb_min = hmin[i], cav[i].nb_max = hmax[i];
            order[i] = i;
        }
        for (int64_t v = 0; v <= labels_n; v++)
            for (int k = 0; k < 3; k++) {
                boxes[v].lo[k] = hll[k * (labels_n + 1) + v];
                boxes[v].hi[k] = hlh[k * (labels_n + 1) + v];
            }
        rc = parac__label_holes_enclose(s->op, host_in, s->conn, labels_n, boxes, cav, order, listed);
    }
    for (int i = 0; rc == PARAC_OK && i < listed; i++) hfirst[i] = (uint32_t)cav[i].fill; // reused: the fills
    if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaMemcpyAsync(fills, hfirst, (size_t)listed * 4, cudaMemcpyHostToDevice, st));
    if (rc == PARAC_OK) {
        set_fills_kernel<<<(unsigned)((listed + 255) / 256), 256, 0, st>>>(list, fills, listed, fill);
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    // the host buffer is read by the copy: wait before it is freed
    const parac_status sync = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    parac_image_destroy(host_in);
    free(h);
    free(cav);
    free(boxes);
    free(order);
    return rc != PARAC_OK ? rc : sync;
}

} // namespace
} // namespace holesk

using namespace holesk;

extern "C" parac_status parac__label_holes_cuda(const parac__label_holes_spec *s, const parac_image *in,
                                                parac_image *out, int64_t *filled, void *stream)
{
    *filled = 0;
    cudaStream_t st = (cudaStream_t)stream;
    int64_t labels_n = 0;
    PARAC_TRY(parac__largest_label_cuda(s->op, in, &labels_n, stream));
    const int64_t n = parac_image_pixel_count(in);
    parac_image *reg = NULL;
    PARAC_TRY(parac_image_create(&reg, in->width, in->height, in->depth, 1, PARAC_I32, PARAC_MEMORY_CUDA, in->device));
    int64_t regions_n = 0;
    const parac__label_spec ls = {s->op, s->conn, 1, 0.5, s->threads, NULL, NULL}; // no background: 0.5 is no label's value
    parac_status rc = parac__label_cuda(&ls, in, reg, &regions_n, stream);
    const labels L{(const char *)in->data, in->row_pitch, in->slice_pitch, (int)in->dtype,
                   (int)in->width, (int)in->height, (int)in->depth};
    const regions R{(const char *)reg->data, reg->row_pitch, reg->slice_pitch};
    {
        buffers b{in->device};
        uint32_t *flags = nullptr, *nb_min = nullptr, *nb_max = nullptr, *fill = nullptr, *list = nullptr,
                 *counts = nullptr;
        int32_t *list_index = nullptr;
        const size_t per_region = (size_t)(regions_n + 1) * 4;
        if (rc == PARAC_OK) rc = b.get(0, per_region, (void **)&flags);
        if (rc == PARAC_OK) rc = b.get(1, per_region, (void **)&nb_min);
        if (rc == PARAC_OK) rc = b.get(2, per_region, (void **)&nb_max);
        if (rc == PARAC_OK) rc = b.get(3, per_region, (void **)&fill);
        if (rc == PARAC_OK) rc = b.get(4, per_region, (void **)&list_index);
        if (rc == PARAC_OK) rc = b.get(5, per_region, (void **)&list);
        if (rc == PARAC_OK) rc = b.get(6, 16, (void **)&counts); // the listed cavities; the filled pixels (u64)
        if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaMemsetAsync(flags, 0, per_region, st));
        if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaMemsetAsync(nb_min, 0xff, per_region, st));
        if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaMemsetAsync(nb_max, 0, per_region, st));
        if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaMemsetAsync(counts, 0, 16, st));
        if (rc == PARAC_OK) {
            const int is_3d = in->depth > 1;
            stats_kernel<<<parac__grid_for(n, 256), 256, 0, st>>>(L, R, steps_for(s->conn, is_3d), n, flags, nb_min,
                                                                  nb_max);
            rc = PARAC_CUDA_LAUNCH_CHECK();
        }
        if (rc == PARAC_OK) {
            decide_kernel<<<parac__grid_for(regions_n + 1, 256), 256, 0, st>>>(regions_n, flags, nb_min, nb_max, fill,
                                                                              list_index, list, counts);
            rc = PARAC_CUDA_LAUNCH_CHECK();
        }
        uint32_t listed = 0;
        if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaMemcpyAsync(&listed, counts, 4, cudaMemcpyDeviceToHost, st));
        if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
        if (rc == PARAC_OK && listed > 0)
            rc = settle_on_host(s, in, L, R, n, labels_n, list_index, list, (int)listed, nb_min, nb_max, fill, st);
        unsigned long long *filled_dev = (unsigned long long *)(counts + 2);
        if (rc == PARAC_OK) {
            output_kernel<<<parac__grid_for(n, 256), 256, 0, st>>>(L, R, n, fill, (char *)out->data, out->row_pitch,
                                                                   out->slice_pitch, filled_dev);
            rc = PARAC_CUDA_LAUNCH_CHECK();
        }
        unsigned long long count = 0;
        if (rc == PARAC_OK) rc = PARAC_CUDA_CHECK(cudaMemcpyAsync(&count, filled_dev, 8, cudaMemcpyDeviceToHost, st));
        const parac_status sync = PARAC_CUDA_CHECK(cudaStreamSynchronize(st)); // before the buffers go back
        if (rc == PARAC_OK) rc = sync;
        if (rc == PARAC_OK) *filled = (int64_t)count;
    }
    parac_image_destroy(reg);
    return rc;
}
