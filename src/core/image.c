/* Image handles, reference-counted storage and views. */
#define _DEFAULT_SOURCE /* madvise */
#include "core/alloc_internal.h"
#include "parac/image.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "device_internal.h"
#include "error_internal.h"
#include "image_internal.h"

/* Sizes beyond this are rejected up front as absurd (2^50 bytes = 1 PiB). */
#define PARAC_MAX_IMAGE_BYTES ((int64_t)1 << 50)

struct parac_buffer {
    atomic_int refs;
    parac_memory memory;
    int device;
    void *ptr;
    size_t bytes;
};

static const struct {
    const char *name;
    size_t size;
} dtype_table[PARAC_DTYPE_COUNT] = {
    [PARAC_U8] = {"u8", 1},   [PARAC_U16] = {"u16", 2}, [PARAC_I32] = {"i32", 4},
    [PARAC_F32] = {"f32", 4}, [PARAC_F64] = {"f64", 8}, [PARAC_I64] = {"i64", 8},
};

size_t parac_dtype_size(parac_dtype dtype)
{
    return (unsigned)dtype < PARAC_DTYPE_COUNT ? dtype_table[dtype].size : 0;
}

const char *parac_dtype_name(parac_dtype dtype)
{
    return (unsigned)dtype < PARAC_DTYPE_COUNT ? dtype_table[dtype].name : "invalid";
}

int parac_dtype_is_float(parac_dtype dtype) { return dtype == PARAC_F32 || dtype == PARAC_F64; }

parac_status parac_dtype_from_name(const char *name, parac_dtype *dtype)
{
    static const struct {
        const char *alias;
        parac_dtype dtype;
    } aliases[] = {{"uint8", PARAC_U8},   {"uint16", PARAC_U16},  {"int32", PARAC_I32},
                   {"float32", PARAC_F32}, {"float", PARAC_F32},   {"float64", PARAC_F64},
                   {"double", PARAC_F64},  {"int64", PARAC_I64}};
    if (!name || !dtype) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "dtype name is NULL");
    for (int i = 0; i < PARAC_DTYPE_COUNT; i++)
        if (strcmp(name, dtype_table[i].name) == 0) {
            *dtype = (parac_dtype)i;
            return PARAC_OK;
        }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(name, aliases[i].alias) == 0) {
            *dtype = aliases[i].dtype;
            return PARAC_OK;
        }
    return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                       "unknown dtype '%s' (expected u8, u16, i32, f32, f64 or i64)", name);
}

const char *parac_memory_name(parac_memory memory)
{
    switch (memory) {
    case PARAC_MEMORY_HOST: return "host";
    case PARAC_MEMORY_PINNED: return "pinned";
    case PARAC_MEMORY_CUDA: return "cuda";
    }
    return "invalid";
}

parac_status parac__mul64(int64_t a, int64_t b, int64_t *out)
{
    if (a < 0 || b < 0) return parac__fail(PARAC_ERR_OVERFLOW, "negative size");
    if (a != 0 && b > INT64_MAX / a)
        return parac__fail(PARAC_ERR_OVERFLOW, "size %lld x %lld overflows 64 bits",
                           (long long)a, (long long)b);
    *out = a * b;
    return PARAC_OK;
}

parac_status parac__align64(int64_t value, int64_t alignment, int64_t *out)
{
    if (value > INT64_MAX - alignment) return parac__fail(PARAC_ERR_OVERFLOW, "size overflow");
    *out = (value + alignment - 1) & ~(alignment - 1);
    return PARAC_OK;
}

parac_status parac__check_geometry(int64_t width, int64_t height, int64_t depth, int channels,
                                   parac_dtype dtype)
{
    if ((unsigned)dtype >= PARAC_DTYPE_COUNT)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "invalid dtype %d", (int)dtype);
    if (channels < 1 || channels > PARAC_MAX_CHANNELS)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "channels must be 1..4, got %d", channels);
    if (width < 1 || height < 1 || depth < 1)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                           "image size must be positive, got %lldx%lldx%lld", (long long)width,
                           (long long)height, (long long)depth);
    int64_t bytes = 0;
    PARAC_TRY(parac__mul64(width, (int64_t)(channels * parac_dtype_size(dtype)), &bytes));
    PARAC_TRY(parac__mul64(bytes, height, &bytes));
    PARAC_TRY(parac__mul64(bytes, depth, &bytes));
    if (bytes > PARAC_MAX_IMAGE_BYTES)
        return parac__fail(PARAC_ERR_OVERFLOW, "image of %lldx%lldx%lld x %d %s is too large",
                           (long long)width, (long long)height, (long long)depth, channels,
                           parac_dtype_name(dtype));
    return PARAC_OK;
}

int64_t parac_image_pixel_count(const parac_image *image)
{
    return image->width * image->height * image->depth;
}

size_t parac_image_pixel_bytes(const parac_image *image)
{
    return (size_t)image->channels * parac_dtype_size(image->dtype);
}

size_t parac_image_row_bytes(const parac_image *image)
{
    return (size_t)image->width * parac_image_pixel_bytes(image);
}

int parac_image_is_packed(const parac_image *image)
{
    return image->pixel_stride == (int64_t)parac_image_pixel_bytes(image);
}

int parac__same_shape(const parac_image *a, const parac_image *b)
{
    return a->width == b->width && a->height == b->height && a->depth == b->depth &&
           a->channels == b->channels && a->dtype == b->dtype;
}

int parac__rows_contiguous(const parac_image *image)
{
    return image->depth == 1 || image->slice_pitch == image->row_pitch * image->height;
}

/* Host storage, rows aligned. Blocks from 4 MiB on get 2 MiB alignment and
 * ask the kernel for huge pages (as numpy does): glibc maps blocks that large
 * afresh on most allocations, and a new 64 MiB output costs 16384 page
 * faults, more time than a filter's arithmetic. Smaller blocks come back
 * from the heap already mapped, and huge pages would only slow their first
 * touch. */
enum { HUGE_PAGE = 2 << 20 };
void *parac__host_map_huge(size_t bytes)
{
    /* aligned_alloc needs a size that is a multiple of the alignment */
    const size_t size = (bytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
    if (size < bytes) return NULL;
    void *p = aligned_alloc(HUGE_PAGE, size);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* advice only: where huge pages are off, the memory works the same */
    if (p) (void)madvise(p, size, MADV_HUGEPAGE);
#endif
    return p;
}

void *parac__host_alloc_huge(size_t bytes) { return parac__alloc_injected() ? NULL : parac__host_map_huge(bytes); }

void *parac__host_alloc_scratch(size_t bytes)
{
    return bytes >= PARAC__HUGE_MIN ? parac__host_alloc_huge(bytes) : parac__malloc(bytes);
}

/* Images of PARAC__HUGE_MIN and more come from the blocks kept between calls
 * (host_cache.c) and go back there when destroyed: a call repeated on images
 * of one size (a stack, a batch, a benchmark, the blocks of a Dask array)
 * then writes its output into pages already touched, where a fresh block
 * costs the kernel's zeroing of every page (36 % of a single-threaded 8K
 * spiral's labelling on the build machine). glibc reuses heap blocks below
 * 32 MiB only once as large a block has been freed; a Dask worker holding its
 * blocks' results got new pages for each 16 MiB block (the relabelling of a
 * 2048² block 13 ms there, 2.5 ms alone). */
static void *host_alloc(size_t bytes)
{
    if (bytes >= PARAC__HUGE_MIN) return parac__kept_block_take(bytes);
    return parac__aligned_alloc(PARAC_ROW_ALIGNMENT, (bytes + PARAC_ROW_ALIGNMENT - 1) & ~(size_t)(PARAC_ROW_ALIGNMENT - 1));
}

static parac_status buffer_create(struct parac_buffer **out, size_t bytes, parac_memory memory,
                                  int device)
{
    struct parac_buffer *buf = parac__calloc(1, sizeof *buf);
    if (!buf) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    atomic_init(&buf->refs, 1);
    buf->memory = memory;
    buf->device = memory == PARAC_MEMORY_CUDA ? device : -1;
    buf->bytes = bytes;
    parac_status st = PARAC_OK;
    switch (memory) {
    case PARAC_MEMORY_HOST:
        buf->ptr = host_alloc(bytes);
        if (!buf->ptr)
            st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes of host memory",
                             bytes);
        break;
    case PARAC_MEMORY_PINNED: st = parac__pinned_alloc(bytes, &buf->ptr); break;
    case PARAC_MEMORY_CUDA: st = parac__cuda_alloc(device, bytes, &buf->ptr); break;
    default: st = parac__fail(PARAC_ERR_INVALID_ARGUMENT, "invalid memory kind %d", (int)memory);
    }
    if (st != PARAC_OK) {
        free(buf);
        return st;
    }
    *out = buf;
    return PARAC_OK;
}

static void buffer_release(struct parac_buffer *buf)
{
    if (!buf || atomic_fetch_sub(&buf->refs, 1) != 1) return;
    switch (buf->memory) {
    case PARAC_MEMORY_HOST:
        if (buf->bytes >= PARAC__HUGE_MIN) parac__kept_block_give(buf->ptr, buf->bytes);
        else free(buf->ptr);
        break;
    case PARAC_MEMORY_PINNED: parac__pinned_free(buf->ptr); break;
    case PARAC_MEMORY_CUDA: parac__cuda_release(buf->device, buf->ptr, buf->bytes); break;
    }
    free(buf);
}

parac_status parac_image_create(parac_image **out, int64_t width, int64_t height, int64_t depth,
                                int channels, parac_dtype dtype, parac_memory memory, int device)
{
    if (!out) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = NULL;
    if (depth == 0) depth = 1;
    PARAC_TRY(parac__check_geometry(width, height, depth, channels, dtype));
    if (memory == PARAC_MEMORY_CUDA && device < 0)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "CUDA image needs a device ordinal >= 0");
    int64_t pixel_bytes = channels * (int64_t)parac_dtype_size(dtype);
    int64_t row_pitch = 0, slice_pitch = 0, total = 0;
    PARAC_TRY(parac__align64(width * pixel_bytes, PARAC_ROW_ALIGNMENT, &row_pitch));
    PARAC_TRY(parac__mul64(row_pitch, height, &slice_pitch));
    PARAC_TRY(parac__mul64(slice_pitch, depth, &total));
    if ((uint64_t)total > SIZE_MAX) return parac__fail(PARAC_ERR_OVERFLOW, "image too large");

    parac_image *img = parac__calloc(1, sizeof *img);
    if (!img) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    parac_status st = buffer_create(&img->buffer, (size_t)total, memory, device);
    if (st != PARAC_OK) {
        free(img);
        return parac__wrap(st, "creating a %lldx%lldx%lld %d-channel %s image",
                           (long long)width, (long long)height, (long long)depth, channels,
                           parac_dtype_name(dtype));
    }
    img->data = img->buffer->ptr;
    img->width = width;
    img->height = height;
    img->depth = depth;
    img->channels = channels;
    img->dtype = dtype;
    img->pixel_stride = pixel_bytes;
    img->row_pitch = row_pitch;
    img->slice_pitch = slice_pitch;
    img->memory = memory;
    img->device = memory == PARAC_MEMORY_CUDA ? device : -1;
    *out = img;
    return PARAC_OK;
}

parac_status parac_image_create_zeroed(parac_image **out, int64_t width, int64_t height,
                                       int64_t depth, int channels, parac_dtype dtype,
                                       parac_memory memory, int device)
{
    PARAC_TRY(parac_image_create(out, width, height, depth, channels, dtype, memory, device));
    parac_status st = parac_image_clear(*out, NULL);
    if (st != PARAC_OK) {
        parac_image_destroy(*out);
        *out = NULL;
    }
    return st;
}

parac_status parac_image_create_like(parac_image **out, const parac_image *like, int dtype,
                                     parac_memory memory, int device)
{
    if (!like) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "template image is NULL");
    return parac_image_create(out, like->width, like->height, like->depth, like->channels,
                              dtype < 0 ? like->dtype : (parac_dtype)dtype, memory, device);
}

parac_status parac_image_wrap(parac_image **out, void *data, int64_t width, int64_t height,
                              int64_t depth, int channels, parac_dtype dtype,
                              int64_t pixel_stride, int64_t row_pitch, int64_t slice_pitch,
                              parac_memory memory, int device)
{
    if (!out) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = NULL;
    if (!data) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "wrapped data pointer is NULL");
    if (depth == 0) depth = 1;
    PARAC_TRY(parac__check_geometry(width, height, depth, channels, dtype));
    int64_t pixel_bytes = channels * (int64_t)parac_dtype_size(dtype);
    if (pixel_stride == 0) pixel_stride = pixel_bytes;
    if (row_pitch == 0) row_pitch = width * pixel_stride;
    if (slice_pitch == 0) slice_pitch = row_pitch * height;
    if (pixel_stride < pixel_bytes || row_pitch < width * pixel_stride ||
        slice_pitch < row_pitch * height)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                           "strides overlap: pixel %lld, row %lld, slice %lld bytes for %lldx%lld",
                           (long long)pixel_stride, (long long)row_pitch, (long long)slice_pitch,
                           (long long)width, (long long)height);
    /* elements are read as their type: an address or a stride off their size is not an image */
    const int64_t elem = (int64_t)parac_dtype_size(dtype);
    if ((uintptr_t)data % (uintptr_t)elem || pixel_stride % elem || row_pitch % elem || slice_pitch % elem)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                           "wrapped %s data at %p with strides %lld, %lld, %lld bytes is not aligned to its "
                           "%lld-byte elements", parac_dtype_name(dtype), data, (long long)pixel_stride,
                           (long long)row_pitch, (long long)slice_pitch, (long long)elem);
    parac_image *img = parac__calloc(1, sizeof *img);
    if (!img) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    *img = (parac_image){data,      width,        height,    depth,       channels,
                         dtype,     pixel_stride, row_pitch, slice_pitch, memory,
                         memory == PARAC_MEMORY_CUDA ? device : -1, NULL};
    *out = img;
    return PARAC_OK;
}

void parac_image_destroy(parac_image *image)
{
    if (!image) return;
    buffer_release(image->buffer);
    free(image);
}

static parac_status make_view(parac_image **out, const parac_image *src)
{
    if (!out || !src) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "NULL image");
    parac_image *view = parac__malloc(sizeof *view);
    if (!view) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    *view = *src;
    if (view->buffer) atomic_fetch_add(&view->buffer->refs, 1);
    *out = view;
    return PARAC_OK;
}

parac_status parac_image_view_roi(parac_image **out, const parac_image *src, int64_t x, int64_t y,
                                  int64_t z, int64_t width, int64_t height, int64_t depth)
{
    if (!src) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "NULL image");
    if (depth == 0) depth = 1;
    if (x < 0 || y < 0 || z < 0 || width < 1 || height < 1 || depth < 1 ||
        x > src->width - width || y > src->height - height || z > src->depth - depth)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                           "ROI %lld,%lld,%lld size %lldx%lldx%lld is outside the %lldx%lldx%lld image",
                           (long long)x, (long long)y, (long long)z, (long long)width,
                           (long long)height, (long long)depth, (long long)src->width,
                           (long long)src->height, (long long)src->depth);
    PARAC_TRY(make_view(out, src));
    (*out)->data = parac_image_at(src, x, y, z);
    (*out)->width = width;
    (*out)->height = height;
    (*out)->depth = depth;
    return PARAC_OK;
}

parac_status parac_image_view_channel(parac_image **out, const parac_image *src, int channel)
{
    if (!src) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "NULL image");
    if (channel < 0 || channel >= src->channels)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "channel %d of a %d-channel image",
                           channel, src->channels);
    PARAC_TRY(make_view(out, src));
    (*out)->data = (char *)src->data + channel * parac_dtype_size(src->dtype);
    (*out)->channels = 1;
    return PARAC_OK;
}

parac_status parac_image_view_slice(parac_image **out, const parac_image *src, int64_t z)
{
    if (!src) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "NULL image");
    return parac_image_view_roi(out, src, 0, 0, z, src->width, src->height, 1);
}
