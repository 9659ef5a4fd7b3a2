/* Small helpers shared by the readers and writers. */
#include <errno.h>
#include <string.h>

#include "core/error_internal.h"
#include "io_internal.h"

int parac__host_is_little_endian(void)
{
    const uint16_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    return first == 1;
}

parac_status parac__io_check_expansion(int64_t output_bytes, int64_t rows, size_t input_bytes, double max_ratio,
                                       const char *what)
{
    const double stored = (double)output_bytes + (double)rows * PARAC_ROW_ALIGNMENT;
    if (stored <= (double)PARAC_IO_SMALL_OUTPUT) return PARAC_OK;
    if ((double)output_bytes <= (double)input_bytes * max_ratio + 65536.0) return PARAC_OK;
    return parac__fail(PARAC_ERR_FORMAT,
                       "%s claims %lld bytes of pixels, more than %zu bytes of input can hold "
                       "(corrupt or truncated header)",
                       what, (long long)output_bytes, input_bytes);
}

parac_status parac__io_write_all(FILE *file, const void *data, size_t bytes)
{
    if (bytes && fwrite(data, 1, bytes, file) != bytes)
        return parac__fail(PARAC_ERR_IO, "write failed: %s", strerror(errno));
    return PARAC_OK;
}

void parac__io_pack_row(const parac_image *image, int64_t y, int64_t z, void *dst)
{
    size_t pixel = parac_image_pixel_bytes(image);
    const char *src = parac_image_at(image, 0, y, z);
    if (image->pixel_stride == (int64_t)pixel) {
        memcpy(dst, src, pixel * (size_t)image->width);
        return;
    }
    char *d = dst;
    for (int64_t x = 0; x < image->width; x++)
        memcpy(d + (size_t)x * pixel, src + x * image->pixel_stride, pixel);
}

int64_t parac__io_axes_elements(const parac_io_axes *axes)
{
    int64_t n = 1;
    for (int i = 0; i < axes->n; i++) n *= axes->count[i];
    return n;
}

static void copy_elem(char *dst, const char *src, size_t elem, int swap)
{
    if (!swap) {
        memcpy(dst, src, elem);
        return;
    }
    for (size_t b = 0; b < elem; b++) dst[b] = src[elem - 1 - b];
}

/* Merge neighbouring axes that are contiguous in the image (pixels and
 * channels of a packed row), so that whole rows move with one memcpy. */
static parac_io_axes coalesce(const parac_io_axes *a)
{
    parac_io_axes r = {.n = 0};
    for (int i = 0; i < a->n; i++) {
        if (r.n > 0 && r.image_stride[r.n - 1] == a->count[i] * a->image_stride[i]) {
            r.count[r.n - 1] *= a->count[i];
            r.image_stride[r.n - 1] = a->image_stride[i];
        } else {
            r.count[r.n] = a->count[i];
            r.image_stride[r.n] = a->image_stride[i];
            r.n++;
        }
    }
    return r;
}

/* Walk the axes odometer-style; the innermost axis is a tight loop. */
static void walk(const parac_io_axes *original, char *image, uint8_t *stream, size_t elem,
                 int swap, int to_image)
{
    parac_io_axes merged = coalesce(original);
    const parac_io_axes *axes = &merged;
    int n = axes->n;
    int64_t idx[5] = {0};
    int64_t inner = axes->count[n - 1], step = axes->image_stride[n - 1];
    int contiguous = !swap && step == (int64_t)elem;
    size_t pos = 0;
    for (;;) {
        int64_t off = 0;
        for (int i = 0; i < n - 1; i++) off += idx[i] * axes->image_stride[i];
        char *img = image + off;
        if (contiguous) {
            if (to_image) memcpy(img, stream + pos, (size_t)inner * elem);
            else memcpy(stream + pos, img, (size_t)inner * elem);
            pos += (size_t)inner * elem;
        } else {
            for (int64_t k = 0; k < inner; k++, pos += elem) {
                if (to_image) copy_elem(img + k * step, (const char *)stream + pos, elem, swap);
                else copy_elem((char *)stream + pos, img + k * step, elem, swap);
            }
        }
        int i = n - 2;
        for (; i >= 0; i--) {
            if (++idx[i] < axes->count[i]) break;
            idx[i] = 0;
        }
        if (i < 0) break;
    }
}

void parac__io_stream_to_image(const parac_io_axes *axes, const uint8_t *stream, char *image,
                               size_t elem, int swap)
{
    walk(axes, image, (uint8_t *)stream, elem, swap, 1);
}

void parac__io_image_to_stream(const parac_io_axes *axes, const char *image, uint8_t *stream,
                               size_t elem, int swap)
{
    walk(axes, (char *)image, stream, elem, swap, 0);
}
