/* JPEG through libjpeg(-turbo): 8-bit gray or RGB. CMYK/YCCK files are
 * converted to RGB (Adobe's inverted CMYK convention when the Adobe marker
 * says so). libjpeg reports errors by longjmp; a truncated stream, which
 * libjpeg only warns about, is an error here. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "core/alloc_internal.h"
#include "core/error_internal.h"
#include "core/image_internal.h"
#include "io_internal.h"

enum { MAX_SCANS = 1000 }; /* a progressive file with more scans is hostile */

typedef struct jpeg_ctx {
    struct jpeg_error_mgr pub;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int truncated;
} jpeg_ctx;

static void on_error_exit(j_common_ptr cinfo)
{
    jpeg_ctx *ctx = (jpeg_ctx *)cinfo->err;
    cinfo->err->format_message(cinfo, ctx->message);
    longjmp(ctx->jump, 1);
}

static void on_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void on_emit_message(j_common_ptr cinfo, int level)
{
    jpeg_ctx *ctx = (jpeg_ctx *)cinfo->err;
    if (level < 0) {
        if (cinfo->err->msg_code == JWRN_JPEG_EOF) {
            ctx->truncated = 1;
            cinfo->err->format_message(cinfo, ctx->message);
        }
        cinfo->err->num_warnings++;
    }
}

static void on_progress(j_common_ptr cinfo)
{
    if (cinfo->is_decompressor) {
        j_decompress_ptr d = (j_decompress_ptr)cinfo;
        if (d->input_scan_number > MAX_SCANS) {
            jpeg_ctx *ctx = (jpeg_ctx *)cinfo->err;
            snprintf(ctx->message, sizeof ctx->message, "more than %d progressive scans", MAX_SCANS);
            longjmp(ctx->jump, 1);
        }
    }
}

static void init_ctx(jpeg_ctx *ctx, j_common_ptr cinfo)
{
    memset(ctx, 0, sizeof *ctx);
    cinfo->err = jpeg_std_error(&ctx->pub);
    ctx->pub.error_exit = on_error_exit;
    ctx->pub.output_message = on_output_message;
    ctx->pub.emit_message = on_emit_message;
}

/* Adobe CMYK JPEGs store inverted inks: R = C * K / 255 on the decoded values. */
static void cmyk_to_rgb(const uint8_t *cmyk, uint8_t *rgb, int64_t n, int inverted)
{
    for (int64_t i = 0; i < n; i++) {
        unsigned c = cmyk[4 * i], m = cmyk[4 * i + 1], y = cmyk[4 * i + 2], k = cmyk[4 * i + 3];
        if (!inverted) c = 255 - c, m = 255 - m, y = 255 - y, k = 255 - k;
        rgb[3 * i] = (uint8_t)((c * k + 127) / 255);
        rgb[3 * i + 1] = (uint8_t)((m * k + 127) / 255);
        rgb[3 * i + 2] = (uint8_t)((y * k + 127) / 255);
    }
}

parac_status parac__read_jpeg(const parac_io_reader_args *args, parac_image **out)
{
    struct jpeg_decompress_struct cinfo;
    jpeg_ctx ctx;
    init_ctx(&ctx, (j_common_ptr)&cinfo);
    parac_image *volatile img = NULL;
    uint8_t *volatile cmyk = NULL;
    volatile parac_status failure = PARAC_OK;
    if (setjmp(ctx.jump)) {
        jpeg_destroy_decompress(&cinfo);
        parac_image_destroy(img);
        free(cmyk);
        if (failure != PARAC_OK) return failure;
        return parac__fail(PARAC_ERR_FORMAT, "corrupt JPEG: %s", ctx.message);
    }
    jpeg_create_decompress(&cinfo);
    ctx.progress.progress_monitor = on_progress;
    cinfo.progress = &ctx.progress;
    jpeg_mem_src(&cinfo, args->data, (unsigned long)args->size);
    if (jpeg_read_header(&cinfo, TRUE) != JPEG_HEADER_OK) {
        failure = parac__fail(PARAC_ERR_FORMAT, "JPEG stream holds no image");
        longjmp(ctx.jump, 1);
    }
    int channels, convert_cmyk = 0;
    switch (cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE: cinfo.out_color_space = JCS_GRAYSCALE, channels = 1; break;
    case JCS_YCbCr:
    case JCS_RGB: cinfo.out_color_space = JCS_RGB, channels = 3; break;
    case JCS_CMYK:
    case JCS_YCCK: cinfo.out_color_space = JCS_CMYK, channels = 3, convert_cmyk = 1; break;
    default:
        failure = parac__fail(PARAC_ERR_UNSUPPORTED, "JPEG colour space %d is not supported (gray, "
                              "YCbCr/RGB and CMYK are)", (int)cinfo.jpeg_color_space);
        longjmp(ctx.jump, 1);
    }
    jpeg_calc_output_dimensions(&cinfo);
    int64_t w = cinfo.output_width, h = cinfo.output_height;
    parac_status st = parac__check_geometry(w, h, 1, channels, PARAC_U8);
    if (st == PARAC_OK)
        st = parac__io_check_expansion(w * h * cinfo.output_components, h, args->size, 16384.0, "JPEG header");
    parac_image *created = NULL;
    if (st == PARAC_OK) st = parac_image_create(&created, w, h, 1, channels, PARAC_U8, PARAC_MEMORY_HOST, -1);
    img = created;
    if (st == PARAC_OK && convert_cmyk) {
        cmyk = parac__malloc((size_t)w * 4);
        if (!cmyk) st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    if (st != PARAC_OK) {
        failure = st;
        longjmp(ctx.jump, 1);
    }
    jpeg_start_decompress(&cinfo);
    while (cinfo.output_scanline < cinfo.output_height) {
        uint8_t *row = parac_image_at(img, 0, cinfo.output_scanline, 0);
        JSAMPROW target = convert_cmyk ? cmyk : row;
        if (jpeg_read_scanlines(&cinfo, &target, 1) != 1) break;
        if (convert_cmyk) cmyk_to_rgb(cmyk, row, w, cinfo.saw_Adobe_marker);
        if (ctx.truncated) break;
    }
    if (ctx.truncated || cinfo.output_scanline < cinfo.output_height) {
        failure = parac__fail(PARAC_ERR_FORMAT, "truncated JPEG data (%u of %u rows decoded)",
                              cinfo.output_scanline, cinfo.output_height);
        longjmp(ctx.jump, 1);
    }
    jpeg_finish_decompress(&cinfo);
    if (ctx.truncated) {
        failure = parac__fail(PARAC_ERR_FORMAT, "truncated JPEG data");
        longjmp(ctx.jump, 1);
    }
    jpeg_destroy_decompress(&cinfo);
    free(cmyk);
    *out = img;
    return PARAC_OK;
}

parac_status parac__write_jpeg(FILE *file, int fd, const char *path, const parac_image *image,
                               const parac_write_options *options)
{
    if (image->dtype != PARAC_U8)
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "JPEG stores u8, not %s (convert, or use .png, .tif, .npy or .nrrd)",
                           parac_dtype_name(image->dtype));
    if (image->channels != 1 && image->channels != 3)
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "JPEG stores 1 (gray) or 3 (RGB) channels, not %d (use .png or .tif)",
                           image->channels);
    if (image->depth != 1)
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "JPEG stores 2D images, not a volume of depth %lld (use .tif, .npy or .nrrd)",
                           (long long)image->depth);
    if (image->width > JPEG_MAX_DIMENSION || image->height > JPEG_MAX_DIMENSION)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "JPEG cannot store images beyond %d pixels a side",
                           (int)JPEG_MAX_DIMENSION);
    struct jpeg_compress_struct cinfo;
    jpeg_ctx ctx;
    init_ctx(&ctx, (j_common_ptr)&cinfo);
    uint8_t *volatile row = parac__malloc(parac_image_row_bytes(image));
    if (!row) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    if (setjmp(ctx.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(row);
        return parac__fail(PARAC_ERR_IO, "JPEG writing failed: %s", ctx.message);
    }
    jpeg_create_compress(&cinfo);
    jpeg_stdio_dest(&cinfo, file);
    cinfo.image_width = (JDIMENSION)image->width;
    cinfo.image_height = (JDIMENSION)image->height;
    cinfo.input_components = image->channels;
    cinfo.in_color_space = image->channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, options->jpeg_quality ? options->jpeg_quality : 95, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    for (int64_t y = 0; y < image->height; y++) {
        parac__io_pack_row(image, y, 0, row);
        JSAMPROW r = row;
        jpeg_write_scanlines(&cinfo, &r, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    free(row);
    if (ferror(file)) return parac__fail(PARAC_ERR_IO, "JPEG writing failed: write error");
    return PARAC_OK;
}
