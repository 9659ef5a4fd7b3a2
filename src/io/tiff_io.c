/* TIFF through libtiff: u8, u16, i32, f32, f64 and i64 samples, 1-4 per pixel,
 * contiguous or separate planes, strips or tiles; a multi-page file is a 3D
 * volume. Palette, bilevel/low bit depth and subsampled YCbCr files are
 * decoded through libtiff's RGBA interface (8-bit gray, RGB or RGBA).
 * libtiff's messages are captured per handle (TIFFOpenOptions), never
 * printed. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include <unistd.h>

#include "core/alloc_internal.h"
#include "core/error_internal.h"
#include "core/image_internal.h"
#include "io_internal.h"

typedef struct tiff_ctx {
    const uint8_t *data;
    size_t size;
    uint64_t pos;
    char message[512];
} tiff_ctx;

static int on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif;
    tiff_ctx *ctx = user;
    if (!ctx->message[0]) { /* the first error is the cause; later ones are consequences */
        int n = snprintf(ctx->message, sizeof ctx->message, "%s: ", module ? module : "libtiff");
        if (n < 0 || (size_t)n >= sizeof ctx->message) n = 0;
        vsnprintf(ctx->message + n, sizeof ctx->message - (size_t)n, fmt, ap);
    }
    return 1;
}

static int on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif, (void)user, (void)module, (void)fmt, (void)ap;
    return 1;
}

static tmsize_t mem_read(thandle_t h, void *buf, tmsize_t n)
{
    tiff_ctx *ctx = (tiff_ctx *)h;
    if (n <= 0 || ctx->pos >= ctx->size) return 0;
    size_t take = (size_t)n < ctx->size - ctx->pos ? (size_t)n : ctx->size - (size_t)ctx->pos;
    memcpy(buf, ctx->data + ctx->pos, take);
    ctx->pos += take;
    return (tmsize_t)take;
}

static tmsize_t mem_write(thandle_t h, void *buf, tmsize_t n) { (void)h, (void)buf, (void)n; return -1; }

static toff_t mem_seek(thandle_t h, toff_t off, int whence)
{
    tiff_ctx *ctx = (tiff_ctx *)h;
    uint64_t base = whence == SEEK_CUR ? ctx->pos : whence == SEEK_END ? ctx->size : 0;
    if (off > UINT64_MAX - base) return (toff_t)-1;
    ctx->pos = base + off;
    return ctx->pos;
}

static int mem_close(thandle_t h) { (void)h; return 0; }
static toff_t mem_size(thandle_t h) { return ((tiff_ctx *)h)->size; }

static int mem_map(thandle_t h, void **base, toff_t *size)
{
    tiff_ctx *ctx = (tiff_ctx *)h;
    *base = (void *)ctx->data;
    *size = ctx->size;
    return 1;
}

static void mem_unmap(thandle_t h, void *base, toff_t size) { (void)h, (void)base, (void)size; }

static TIFFOpenOptions *make_options(tiff_ctx *ctx)
{
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
    if (!opts) return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(opts, on_error, ctx);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, on_warning, ctx);
    return opts;
}

/* What one page holds and how it is decoded. */
typedef struct page_info {
    uint32_t w, h;
    uint16_t spp, bps, sf, planar, photometric, compression;
    int via_rgba;   /* decoded by TIFFReadRGBAImage */
    int channels;
    parac_dtype dtype;
} page_info;

static parac_status fail_tiff(tiff_ctx *ctx, const char *what)
{
    return parac__fail(PARAC_ERR_FORMAT, "%s: %s", what, ctx->message[0] ? ctx->message : "libtiff failed");
}

static parac_status describe_page(TIFF *tif, tiff_ctx *ctx, page_info *p)
{
    memset(p, 0, sizeof *p);
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &p->w) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &p->h))
        return parac__fail(PARAC_ERR_FORMAT, "TIFF page lacks its width or length");
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &p->spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &p->bps);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &p->sf);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &p->planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &p->compression);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &p->photometric))
        p->photometric = p->spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    if (p->w == 0 || p->h == 0) return parac__fail(PARAC_ERR_FORMAT, "TIFF page of size %ux%u", p->w, p->h);
    if (p->sf == SAMPLEFORMAT_VOID) p->sf = SAMPLEFORMAT_UINT;
    if (p->photometric == PHOTOMETRIC_YCBCR && p->compression == COMPRESSION_JPEG) {
        TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
        p->photometric = PHOTOMETRIC_RGB;
    }
    int plain = p->photometric == PHOTOMETRIC_MINISBLACK || p->photometric == PHOTOMETRIC_MINISWHITE ||
                p->photometric == PHOTOMETRIC_RGB || p->photometric == PHOTOMETRIC_SEPARATED;
    int dtype = -1;
    if (p->sf == SAMPLEFORMAT_UINT && p->bps == 8) dtype = PARAC_U8;
    else if (p->sf == SAMPLEFORMAT_UINT && p->bps == 16) dtype = PARAC_U16;
    else if (p->sf == SAMPLEFORMAT_INT && p->bps == 32) dtype = PARAC_I32;
    else if (p->sf == SAMPLEFORMAT_IEEEFP && p->bps == 32) dtype = PARAC_F32;
    else if (p->sf == SAMPLEFORMAT_IEEEFP && p->bps == 64) dtype = PARAC_F64;
    else if (p->sf == SAMPLEFORMAT_INT && p->bps == 64) dtype = PARAC_I64;
    if (plain && dtype >= 0 && p->spp >= 1 && p->spp <= 4) {
        p->dtype = (parac_dtype)dtype;
        p->channels = p->spp;
        return PARAC_OK;
    }
    /* palette, bilevel and the like: 8-bit through the RGBA interface */
    int lowbit = p->sf == SAMPLEFORMAT_UINT && p->bps < 8;
    if (p->photometric == PHOTOMETRIC_PALETTE || p->photometric == PHOTOMETRIC_YCBCR ||
        p->photometric == PHOTOMETRIC_CIELAB || (plain && lowbit)) {
        char emsg[1024] = "";
        if (!TIFFRGBAImageOK(tif, emsg))
            return parac__fail(PARAC_ERR_UNSUPPORTED, "TIFF variant not supported: %s", emsg);
        p->via_rgba = 1;
        p->dtype = PARAC_U8;
        uint16_t extra = 0, *types = NULL;
        TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &extra, &types);
        int gray = p->photometric == PHOTOMETRIC_MINISBLACK || p->photometric == PHOTOMETRIC_MINISWHITE;
        p->channels = (gray ? 1 : 3) + (extra > 0);
        return PARAC_OK;
    }
    if (p->spp < 1 || p->spp > 4)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "TIFF with %u samples per pixel (1-4 are supported)", p->spp);
    return parac__fail(PARAC_ERR_UNSUPPORTED,
                       "TIFF samples of %u bits, sample format %u, photometric %u are not supported "
                       "(8/16-bit unsigned, 32-bit signed, 32/64-bit float are)",
                       p->bps, p->sf, p->photometric);
}

static parac_status read_rgba_page(TIFF *tif, tiff_ctx *ctx, const page_info *p, parac_image *img, int64_t z)
{
    uint32_t *raster = parac__malloc((size_t)p->w * p->h * 4);
    if (!raster) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    if (!TIFFReadRGBAImageOriented(tif, p->w, p->h, raster, ORIENTATION_TOPLEFT, 1)) {
        free(raster);
        return fail_tiff(ctx, "corrupt TIFF data");
    }
    int gray = p->channels <= 2, alpha = p->channels == 2 || p->channels == 4;
    for (uint32_t y = 0; y < p->h; y++) {
        uint8_t *row = parac_image_at(img, 0, y, z);
        for (uint32_t x = 0; x < p->w; x++) {
            uint32_t v = raster[(size_t)y * p->w + x];
            uint8_t *px = row + (size_t)x * (size_t)p->channels;
            px[0] = (uint8_t)TIFFGetR(v);
            if (!gray) px[1] = (uint8_t)TIFFGetG(v), px[2] = (uint8_t)TIFFGetB(v);
            if (alpha) px[p->channels - 1] = (uint8_t)TIFFGetA(v);
        }
    }
    free(raster);
    return PARAC_OK;
}

/* Copy a block of `rows` x `cols` pixels from a decoded strip/tile into the
 * image at (x0, y0, z): all samples (contiguous) or sample `s` only. */
static void place_block(parac_image *img, int64_t z, const uint8_t *src, size_t src_row,
                        int64_t x0, int64_t y0, int64_t cols, int64_t rows, int separate, int s)
{
    size_t elem = parac_dtype_size(img->dtype);
    for (int64_t r = 0; r < rows; r++) {
        const uint8_t *in = src + (size_t)r * src_row;
        uint8_t *dst = parac_image_at(img, x0, y0 + r, z);
        if (!separate) {
            memcpy(dst, in, (size_t)cols * parac_image_pixel_bytes(img));
        } else {
            for (int64_t c = 0; c < cols; c++)
                memcpy(dst + c * img->pixel_stride + (size_t)s * elem, in + (size_t)c * elem, elem);
        }
    }
}

static parac_status read_plain_page(TIFF *tif, tiff_ctx *ctx, const page_info *p, parac_image *img, int64_t z)
{
    size_t elem = parac_dtype_size(p->dtype);
    int separate = p->planar == PLANARCONFIG_SEPARATE && p->spp > 1;
    int planes = separate ? p->spp : 1;
    size_t px_bytes = elem * (separate ? 1 : p->spp);
    parac_status st = PARAC_OK;
    if (TIFFIsTiled(tif)) {
        uint32_t tw = 0, th = 0;
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
        tmsize_t tile_size = TIFFTileSize(tif);
        if (tw == 0 || th == 0 || tile_size <= 0 || (uint64_t)tile_size < (uint64_t)tw * th * px_bytes)
            return fail_tiff(ctx, "bad TIFF tile geometry");
        uint8_t *buf = parac__malloc((size_t)tile_size);
        if (!buf) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
        for (int s = 0; s < planes && st == PARAC_OK; s++)
            for (uint32_t y = 0; y < p->h && st == PARAC_OK; y += th)
                for (uint32_t x = 0; x < p->w && st == PARAC_OK; x += tw) {
                    ttile_t t = TIFFComputeTile(tif, x, y, 0, (uint16_t)s);
                    if (TIFFReadEncodedTile(tif, t, buf, tile_size) < 0) {
                        st = fail_tiff(ctx, "corrupt TIFF tile");
                        break;
                    }
                    int64_t cols = p->w - x < tw ? p->w - x : tw, rows = p->h - y < th ? p->h - y : th;
                    place_block(img, z, buf, (size_t)tw * px_bytes, x, y, cols, rows, separate, s);
                }
        free(buf);
        return st;
    }
    uint32_t rps = 0;
    TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rps);
    if (rps == 0 || rps > p->h) rps = p->h;
    tmsize_t strip_size = TIFFStripSize(tif);
    size_t row_bytes = (size_t)p->w * px_bytes;
    if (strip_size <= 0) return fail_tiff(ctx, "bad TIFF strip geometry");
    uint32_t per_plane = (p->h + rps - 1) / rps;
    if ((uint64_t)per_plane * planes > TIFFNumberOfStrips(tif))
        return parac__fail(PARAC_ERR_FORMAT, "TIFF has %u strips, %llu needed", TIFFNumberOfStrips(tif),
                           (unsigned long long)per_plane * planes);
    uint8_t *buf = parac__malloc((size_t)strip_size);
    if (!buf) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    for (int s = 0; s < planes && st == PARAC_OK; s++)
        for (uint32_t k = 0; k < per_plane; k++) {
            uint32_t y = k * rps, rows = p->h - y < rps ? p->h - y : rps;
            tmsize_t got = TIFFReadEncodedStrip(tif, (uint32_t)s * per_plane + k, buf, strip_size);
            if (got < 0 || (uint64_t)got < (uint64_t)rows * row_bytes) {
                st = got < 0 ? fail_tiff(ctx, "corrupt TIFF strip")
                             : parac__fail(PARAC_ERR_FORMAT, "truncated TIFF strip %u", k);
                break;
            }
            place_block(img, z, buf, row_bytes, 0, y, p->w, rows, separate, s);
        }
    free(buf);
    return st;
}

static int same_page(const page_info *a, const page_info *b)
{
    return a->w == b->w && a->h == b->h && a->channels == b->channels && a->dtype == b->dtype;
}

static parac_status read_all(TIFF *tif, tiff_ctx *ctx, size_t input, parac_image **out)
{
    ctx->message[0] = '\0';
    tdir_t pages = TIFFNumberOfDirectories(tif);
    if (pages == 0) return fail_tiff(ctx, "TIFF has no readable page");
    /* a directory chain that breaks off is a truncated or corrupt file */
    if (ctx->message[0]) return fail_tiff(ctx, "corrupt TIFF directory chain");
    if (!TIFFSetDirectory(tif, 0)) return fail_tiff(ctx, "corrupt TIFF directory");
    page_info first;
    PARAC_TRY(describe_page(tif, ctx, &first));
    PARAC_TRY(parac__check_geometry(first.w, first.h, pages, first.channels, first.dtype));
    int64_t bytes = (int64_t)first.w * first.h * pages * first.channels * (int64_t)parac_dtype_size(first.dtype);
    /* uncompressed samples are all in the file; codecs expand at most a few
     * thousand times (and the RGBA decoder turns bits into bytes) */
    double ratio = first.via_rgba ? 40000.0 : first.compression == COMPRESSION_NONE ? 1.0 : 5000.0;
    PARAC_TRY(parac__io_check_expansion(bytes, (int64_t)first.h * pages, input, ratio, "TIFF header"));
    parac_image *img = NULL;
    PARAC_TRY(parac_image_create(&img, first.w, first.h, pages, first.channels, first.dtype, PARAC_MEMORY_HOST, -1));
    parac_status st = PARAC_OK;
    for (tdir_t z = 0; z < pages && st == PARAC_OK; z++) {
        page_info p = first;
        if (z > 0) {
            if (!TIFFReadDirectory(tif)) { /* the next page, in order */
                st = fail_tiff(ctx, "corrupt TIFF directory");
                break;
            }
            st = describe_page(tif, ctx, &p);
            if (st != PARAC_OK) break;
            if (!same_page(&p, &first)) {
                st = parac__fail(PARAC_ERR_UNSUPPORTED,
                                 "TIFF page %u is %ux%u with %d %s channels, page 0 is %ux%u with %d %s "
                                 "channels: a multi-page TIFF is read as a volume, so all pages must agree",
                                 (unsigned)z, p.w, p.h, p.channels, parac_dtype_name(p.dtype), first.w,
                                 first.h, first.channels, parac_dtype_name(first.dtype));
                break;
            }
        }
        st = p.via_rgba ? read_rgba_page(tif, ctx, &p, img, z) : read_plain_page(tif, ctx, &p, img, z);
        if (st != PARAC_OK && pages > 1) st = parac__wrap(st, "page %u", (unsigned)z);
    }
    if (st != PARAC_OK) {
        parac_image_destroy(img);
        return st;
    }
    *out = img;
    return PARAC_OK;
}

parac_status parac__read_tiff(const parac_io_reader_args *args, parac_image **out)
{
    tiff_ctx ctx = {args->data, args->size, 0, ""};
    TIFFOpenOptions *opts = make_options(&ctx);
    if (!opts) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "cannot create a TIFF reader");
    TIFF *tif = TIFFClientOpenExt("memory", "r", (thandle_t)&ctx, mem_read, mem_write, mem_seek,
                                  mem_close, mem_size, mem_map, mem_unmap, opts);
    TIFFOpenOptionsFree(opts);
    if (!tif) return fail_tiff(&ctx, "not a valid TIFF");
    parac_status st = read_all(tif, &ctx, args->size, out);
    TIFFClose(tif);
    return st;
}

parac_status parac__write_tiff(FILE *file, int fd, const char *path, const parac_image *image,
                               const parac_write_options *options)
{
    static const uint16_t formats[PARAC_DTYPE_COUNT] = {
        [PARAC_U8] = SAMPLEFORMAT_UINT,   [PARAC_U16] = SAMPLEFORMAT_UINT,   [PARAC_I32] = SAMPLEFORMAT_INT,
        [PARAC_F32] = SAMPLEFORMAT_IEEEFP, [PARAC_F64] = SAMPLEFORMAT_IEEEFP, [PARAC_I64] = SAMPLEFORMAT_INT};
    if (image->width > UINT32_MAX || image->height > UINT32_MAX || image->depth > 65535)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "TIFF cannot store %lldx%lldx%lld",
                           (long long)image->width, (long long)image->height, (long long)image->depth);
    tiff_ctx ctx = {NULL, 0, 0, ""};
    TIFFOpenOptions *opts = make_options(&ctx);
    if (!opts) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "cannot create a TIFF writer");
    size_t row_bytes = parac_image_row_bytes(image);
    /* classic TIFF addresses 4 GiB; leave room for the directories */
    double total = (double)row_bytes * (double)image->height * (double)image->depth;
    int dup_fd = dup(fd);
    TIFF *tif = dup_fd < 0 ? NULL : TIFFFdOpenExt(dup_fd, path, total > 3.5e9 ? "w8" : "w", opts);
    TIFFOpenOptionsFree(opts);
    if (!tif) {
        if (dup_fd >= 0) close(dup_fd);
        return parac__fail(PARAC_ERR_IO, "cannot start a TIFF file: %s", ctx.message);
    }
    uint8_t *row = parac__malloc(row_bytes);
    if (!row) {
        TIFFClose(tif);
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    parac_status st = PARAC_OK;
    int floating = parac_dtype_is_float(image->dtype);
    for (int64_t z = 0; z < image->depth && st == PARAC_OK; z++) {
        TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)image->width);
        TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)image->height);
        TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)(8 * parac_dtype_size(image->dtype)));
        TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)image->channels);
        TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, formats[image->dtype]);
        TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, image->channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
        if (image->channels == 2 || image->channels == 4) {
            uint16_t extra = EXTRASAMPLE_UNASSALPHA;
            TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &extra);
        }
        if (options->tiff_compress) {
            TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
            /* the floating-point predictor would shrink floats further, but many
             * readers lack it; horizontal differencing is universal for integers */
            if (!floating) TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
        } else {
            TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
        }
        /* strips of about 256 KiB */
        uint32_t rps = (uint32_t)(row_bytes >= (256u << 10) ? 1 : (256u << 10) / row_bytes);
        if (rps > image->height) rps = (uint32_t)image->height;
        TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rps);
        if (image->depth > 1) {
            TIFFSetField(tif, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
            TIFFSetField(tif, TIFFTAG_PAGENUMBER, (uint16_t)z, (uint16_t)image->depth);
        }
        for (int64_t y = 0; y < image->height; y++) {
            parac__io_pack_row(image, y, z, row);
            if (TIFFWriteScanline(tif, row, (uint32_t)y, 0) < 0) {
                st = parac__fail(PARAC_ERR_IO, "TIFF writing failed: %s", ctx.message);
                break;
            }
        }
        if (st == PARAC_OK && !TIFFWriteDirectory(tif))
            st = parac__fail(PARAC_ERR_IO, "TIFF writing failed: %s", ctx.message);
    }
    free(row);
    TIFFClose(tif);
    if (st == PARAC_OK && ctx.message[0])
        st = parac__fail(PARAC_ERR_IO, "TIFF writing failed: %s", ctx.message);
    return st;
}
