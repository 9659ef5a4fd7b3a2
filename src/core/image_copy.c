/* Copies between images in any residency, and clearing. */
#include <stdatomic.h>
#include <string.h>

#include "device_internal.h"
#include "error_internal.h"
#include "image_internal.h"
#include "parac/image.h"

static int on_host(const parac_image *img) { return img->memory != PARAC_MEMORY_CUDA; }

/* Host <-> device image copies (parac_image_transfer_counts) */
static _Atomic uint64_t transfers_to_device, transfers_to_host, transfer_bytes;

void parac_image_transfer_counts(uint64_t *to_device, uint64_t *to_host, uint64_t *bytes)
{
    if (to_device) *to_device = atomic_load(&transfers_to_device);
    if (to_host) *to_host = atomic_load(&transfers_to_host);
    if (bytes) *bytes = atomic_load(&transfer_bytes);
}

static _Atomic int copy_threads; /* parac_set_copy_threads: 0 is the default */

void parac_set_copy_threads(int threads)
{
    atomic_store(&copy_threads, threads < 0 ? 0 : threads > 64 ? 64 : threads);
}

int parac_copy_threads(void) { return atomic_load(&copy_threads); }

void parac__count_transfer(int to_host, uint64_t bytes)
{
    atomic_fetch_add(to_host ? &transfers_to_host : &transfers_to_device, 1);
    atomic_fetch_add(&transfer_bytes, bytes);
}

static void count_transfer(const parac_image *dst, const parac_image *src)
{
    if (on_host(src) != on_host(dst))
        parac__count_transfer(on_host(dst), (uint64_t)parac_image_row_bytes(src) * (uint64_t)(src->height * src->depth));
}

static void host_copy(parac_image *dst, const parac_image *src)
{
    const int64_t rows = src->height * src->depth;
    const size_t row_bytes = parac_image_row_bytes(src);
    const size_t pixel_bytes = parac_image_pixel_bytes(src);
    const int packed = parac_image_is_packed(src) && parac_image_is_packed(dst);
#pragma omp parallel for schedule(static) if (rows * (int64_t)row_bytes > (1 << 20))
    for (int64_t r = 0; r < rows; r++) {
        int64_t z = r / src->height, y = r % src->height;
        char *d = parac_image_at(dst, 0, y, z);
        const char *s = parac_image_at(src, 0, y, z);
        if (packed) {
            memcpy(d, s, row_bytes);
            continue;
        }
        for (int64_t x = 0; x < src->width; x++)
            memcpy(d + x * dst->pixel_stride, s + x * src->pixel_stride, pixel_bytes);
    }
}

/* Both packed: rectangular row copies, one per slice unless the slices are
 * back to back on both sides. */
static parac_status packed_copy(parac_image *dst, const parac_image *src, void *stream)
{
    const size_t row_bytes = parac_image_row_bytes(src);
    if (parac__rows_contiguous(src) && parac__rows_contiguous(dst))
        return parac__cuda_copy_rows(dst->data, dst->row_pitch, src->data, src->row_pitch,
                                     row_bytes, (size_t)(src->height * src->depth), stream);
    for (int64_t z = 0; z < src->depth; z++)
        PARAC_TRY(parac__cuda_copy_rows(parac_image_at(dst, 0, 0, z), dst->row_pitch,
                                        parac_image_at(src, 0, 0, z), src->row_pitch, row_bytes,
                                        (size_t)src->height, stream));
    return PARAC_OK;
}

parac_status parac_image_copy(parac_image *dst, const parac_image *src, void *stream)
{
    if (!dst || !src) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "NULL image in copy");
    if (!parac__same_shape(dst, src))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                           "copy between different shapes: %lldx%lldx%lld %dch %s -> "
                           "%lldx%lldx%lld %dch %s",
                           (long long)src->width, (long long)src->height, (long long)src->depth,
                           src->channels, parac_dtype_name(src->dtype), (long long)dst->width,
                           (long long)dst->height, (long long)dst->depth, dst->channels,
                           parac_dtype_name(dst->dtype));
    if (on_host(src) && on_host(dst)) {
        host_copy(dst, src);
        return PARAC_OK;
    }
    count_transfer(dst, src);
    const int src_packed = parac_image_is_packed(src), dst_packed = parac_image_is_packed(dst);
    if (src_packed && dst_packed) return packed_copy(dst, src, stream);
    if (!on_host(src) && !on_host(dst) && src->device == dst->device)
        return parac__cuda_copy_strided(dst, src, stream);

    /* Crossing residencies with a strided side: the transfer itself moves
     * packed rows, so pack the source on its side and/or stage the data in a
     * packed image on the destination's side. */
    parac_image *packed_src = NULL, *staged = NULL;
    parac_status st = PARAC_OK;
    const parac_image *from = src;
    if (!src_packed) {
        st = parac_image_clone(&packed_src, src, src->memory, src->device, stream);
        from = packed_src;
    }
    if (st == PARAC_OK && dst_packed) {
        st = packed_copy(dst, from, stream);
    } else if (st == PARAC_OK) {
        st = parac_image_create_like(&staged, dst, -1, dst->memory, dst->device);
        if (st == PARAC_OK) st = packed_copy(staged, from, stream);
        if (st == PARAC_OK) {
            if (on_host(dst)) {
                if (stream) st = parac__cuda_stream_sync(stream); /* staged must have arrived */
                if (st == PARAC_OK) host_copy(dst, staged);
            } else {
                st = parac__cuda_copy_strided(dst, staged, stream);
            }
        }
    }
    /* The pool may hand the temporary to someone else once released. */
    if ((packed_src || staged) && stream) {
        parac_status sync = parac__cuda_stream_sync(stream);
        if (st == PARAC_OK) st = sync;
    }
    parac_image_destroy(packed_src);
    parac_image_destroy(staged);
    return st;
}

parac_status parac_image_clone(parac_image **out, const parac_image *src, parac_memory memory,
                               int device, void *stream)
{
    if (!out) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "output pointer is NULL");
    PARAC_TRY(parac_image_create_like(out, src, -1, memory, device));
    parac_status st = parac_image_copy(*out, src, stream);
    if (st != PARAC_OK) {
        parac_image_destroy(*out);
        *out = NULL;
    }
    return st;
}

parac_status parac_image_upload(parac_image **out, const parac_image *host, int device,
                                void *stream)
{
    return parac_image_clone(out, host, PARAC_MEMORY_CUDA, device, stream);
}

parac_status parac_image_download(parac_image **out, const parac_image *dev, int pinned,
                                  void *stream)
{
    return parac_image_clone(out, dev, pinned ? PARAC_MEMORY_PINNED : PARAC_MEMORY_HOST, -1,
                             stream);
}

parac_status parac_image_clear(parac_image *image, void *stream)
{
    if (!image) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "NULL image");
    const size_t row_bytes = parac_image_row_bytes(image);
    if (!parac_image_is_packed(image)) {
        /* A channel view: clear element by element. */
        if (!on_host(image))
            return parac__fail(PARAC_ERR_UNSUPPORTED, "clearing a strided CUDA view");
        const size_t elem = parac_dtype_size(image->dtype);
        for (int64_t z = 0; z < image->depth; z++)
            for (int64_t y = 0; y < image->height; y++)
                for (int64_t x = 0; x < image->width; x++)
                    memset(parac_image_at(image, x, y, z), 0, elem);
        return PARAC_OK;
    }
    if (!on_host(image)) {
        if (parac__rows_contiguous(image))
            return parac__cuda_zero_rows(image->data, image->row_pitch, row_bytes,
                                         (size_t)(image->height * image->depth), stream);
        for (int64_t z = 0; z < image->depth; z++)
            PARAC_TRY(parac__cuda_zero_rows(parac_image_at(image, 0, 0, z), image->row_pitch,
                                            row_bytes, (size_t)image->height, stream));
        return PARAC_OK;
    }
    for (int64_t z = 0; z < image->depth; z++)
        for (int64_t y = 0; y < image->height; y++)
            memset(parac_image_at(image, 0, y, z), 0, row_bytes);
    return PARAC_OK;
}

void parac_cuda_pool_trim(void)
{
    parac__cuda_fft_cache_clear();
    parac__cuda_pool_trim();
}
