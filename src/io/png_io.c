/* PNG through libpng. Reading expands palettes, low bit depths and tRNS
 * transparency (to an alpha channel); 16-bit samples come out in host byte
 * order. libpng reports errors by longjmp: everything that must be released
 * after one is reachable from volatile locals. */
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "core/error_internal.h"
#include "core/image_internal.h"
#include "io_internal.h"

typedef struct png_ctx {
    const uint8_t *p;
    size_t left;
    char message[256];
} png_ctx;

static void on_error(png_structp png, png_const_charp msg)
{
    png_ctx *ctx = png_get_error_ptr(png);
    snprintf(ctx->message, sizeof ctx->message, "%s", msg ? msg : "libpng error");
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg) { (void)png, (void)msg; }

static void read_memory(png_structp png, png_bytep out, size_t n)
{
    png_ctx *ctx = png_get_io_ptr(png);
    if (n > ctx->left) png_error(png, "truncated PNG data");
    memcpy(out, ctx->p, n);
    ctx->p += n;
    ctx->left -= n;
}

parac_status parac__read_png(const parac_io_reader_args *args, parac_image **out)
{
    png_ctx ctx = {args->data, args->size, ""};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error, on_warning);
    if (!png) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "cannot create a PNG reader");
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "cannot create a PNG reader");
    }
    parac_image *volatile img = NULL;
    png_bytep *volatile rows = NULL;
    volatile parac_status failure = PARAC_OK; /* set when we fail on our own, not libpng */
    if (setjmp(png_jmpbuf(png))) {
        parac_image_destroy(img);
        free(rows);
        png_destroy_read_struct(&png, &info, NULL);
        if (failure != PARAC_OK) return failure;
        return parac__fail(PARAC_ERR_FORMAT, "corrupt PNG: %s", ctx.message);
    }
    png_set_read_fn(png, &ctx, read_memory);
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    int bit_depth = png_get_bit_depth(png, info), color = png_get_color_type(png, info);
    /* the inflated stream holds a filter byte and the packed samples of each row */
    int64_t raw = 0;
    size_t file_row = png_get_rowbytes(png, info);
    if (parac__mul64((int64_t)file_row + 1, (int64_t)h, &raw) != PARAC_OK ||
        parac__io_check_expansion(raw, (int64_t)h, args->size, 1040.0, "PNG header") != PARAC_OK) {
        failure = PARAC_ERR_FORMAT;
        if (raw == 0) parac__fail(PARAC_ERR_FORMAT, "PNG header claims %ux%u pixels", w, h);
        png_longjmp(png, 1);
    }
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (bit_depth == 16 && parac__host_is_little_endian()) png_set_swap(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    int channels = png_get_channels(png, info);
    parac_dtype dtype = png_get_bit_depth(png, info) == 16 ? PARAC_U16 : PARAC_U8;
    parac_image *created = NULL;
    parac_status st = parac_image_create(&created, w, h, 1, channels, dtype, PARAC_MEMORY_HOST, -1);
    if (st == PARAC_OK && png_get_rowbytes(png, info) != parac_image_row_bytes(created))
        st = parac__fail(PARAC_ERR_INTERNAL, "unexpected PNG row size");
    img = created;
    if (st == PARAC_OK) {
        rows = parac__malloc(sizeof(png_bytep) * h);
        if (!rows) st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    if (st != PARAC_OK) {
        failure = st;
        png_longjmp(png, 1);
    }
    for (png_uint_32 y = 0; y < h; y++) rows[y] = parac_image_at(img, 0, y, 0);
    png_read_image(png, rows);
    png_read_end(png, NULL);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    *out = img;
    return PARAC_OK;
}

parac_status parac__write_png(FILE *file, int fd, const char *path, const parac_image *image,
                              const parac_write_options *options)
{
    if (image->dtype != PARAC_U8 && image->dtype != PARAC_U16)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "PNG stores u8 or u16, not %s (use .tif, .npy or .nrrd, or convert)",
                           parac_dtype_name(image->dtype));
    if (image->depth != 1)
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "PNG stores 2D images, not a volume of depth %lld (use .tif, .npy or .nrrd)",
                           (long long)image->depth);
    if (image->width > 0x7fffffff || image->height > 0x7fffffff)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "PNG cannot store images wider or taller than 2^31-1");
    static const int color_types[] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                      PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    png_ctx ctx = {NULL, 0, ""};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error, on_warning);
    if (!png) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "cannot create a PNG writer");
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "cannot create a PNG writer");
    }
    uint8_t *volatile row = parac__malloc(parac_image_row_bytes(image));
    if (!row) {
        png_destroy_write_struct(&png, &info);
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    if (setjmp(png_jmpbuf(png))) {
        free(row);
        png_destroy_write_struct(&png, &info);
        return parac__fail(PARAC_ERR_IO, "PNG writing failed: %s", ctx.message);
    }
    png_init_io(png, file);
    png_set_compression_level(png, options->png_compression < 0 ? 6 : options->png_compression);
    png_set_IHDR(png, info, (png_uint_32)image->width, (png_uint_32)image->height,
                 image->dtype == PARAC_U16 ? 16 : 8, color_types[image->channels],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    if (image->dtype == PARAC_U16 && parac__host_is_little_endian()) png_set_swap(png);
    for (int64_t y = 0; y < image->height; y++) {
        parac__io_pack_row(image, y, 0, row);
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    free(row);
    png_destroy_write_struct(&png, &info);
    if (ferror(file)) return parac__fail(PARAC_ERR_IO, "PNG writing failed: write error");
    return PARAC_OK;
}
