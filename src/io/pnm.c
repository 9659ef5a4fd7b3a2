/* PGM/PPM (Netpbm P2, P3, P5, P6): maxval <= 255 gives u8, <= 65535 gives
 * u16 (big-endian in the binary forms). Values are kept as stored, not
 * rescaled to the dtype's range. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/alloc_internal.h"
#include "core/error_internal.h"
#include "core/image_internal.h"
#include "io_internal.h"

typedef struct cursor {
    const uint8_t *p, *end;
} cursor;

static int is_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

/* Skip white space and '#' comments (to the end of the line). */
static void skip_space(cursor *c)
{
    while (c->p < c->end) {
        if (is_space(*c->p)) c->p++;
        else if (*c->p == '#') {
            while (c->p < c->end && *c->p != '\n' && *c->p != '\r') c->p++;
        } else break;
    }
}

/* A decimal number; fails on no digits or a value above `max`. */
static parac_status read_number(cursor *c, uint64_t max, const char *what, uint64_t *value)
{
    skip_space(c);
    if (c->p >= c->end) return parac__fail(PARAC_ERR_FORMAT, "truncated PNM file (expected %s)", what);
    if (*c->p < '0' || *c->p > '9')
        return parac__fail(PARAC_ERR_FORMAT, "PNM %s is not a number (byte 0x%02x)", what, *c->p);
    uint64_t v = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        v = v * 10 + (uint64_t)(*c->p - '0');
        if (v > max)
            return parac__fail(PARAC_ERR_FORMAT, "PNM %s exceeds %" PRIu64, what, max);
        c->p++;
    }
    if (c->p < c->end && !is_space(*c->p) && *c->p != '#')
        return parac__fail(PARAC_ERR_FORMAT, "PNM %s is followed by 0x%02x, not white space", what,
                           *c->p);
    *value = v;
    return PARAC_OK;
}

parac_status parac__read_pnm(const parac_io_reader_args *args, parac_image **out)
{
    const uint8_t *d = args->data;
    if (args->size < 3 || d[0] != 'P')
        return parac__fail(PARAC_ERR_FORMAT, "not a PNM file (no 'P2', 'P3', 'P5' or 'P6' signature)");
    char kind = (char)d[1];
    if (kind == '1' || kind == '4' || kind == '7')
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "PNM variant P%c is not supported (P2, P3, P5 and P6 are)", kind);
    if (kind != '2' && kind != '3' && kind != '5' && kind != '6')
        return parac__fail(PARAC_ERR_FORMAT, "not a PNM file (signature 'P%c')", kind);
    int ascii = kind == '2' || kind == '3';
    int channels = kind == '3' || kind == '6' ? 3 : 1;
    cursor c = {d + 2, d + args->size};
    if (c.p < c.end && !is_space(*c.p) && *c.p != '#')
        return parac__fail(PARAC_ERR_FORMAT, "PNM signature is not followed by white space");
    uint64_t w, h, maxval;
    PARAC_TRY(read_number(&c, INT64_MAX / 16, "width", &w));
    PARAC_TRY(read_number(&c, INT64_MAX / 16, "height", &h));
    PARAC_TRY(read_number(&c, 65535, "maxval", &maxval));
    if (maxval == 0) return parac__fail(PARAC_ERR_FORMAT, "PNM maxval is 0");
    parac_dtype dtype = maxval <= 255 ? PARAC_U8 : PARAC_U16;
    if (w == 0 || h == 0)
        return parac__fail(PARAC_ERR_FORMAT, "PNM size %" PRIu64 "x%" PRIu64 " is empty", w, h);
    PARAC_TRY(parac__check_geometry((int64_t)w, (int64_t)h, 1, channels, dtype));
    int64_t values = 0;
    PARAC_TRY(parac__mul64((int64_t)w * channels, (int64_t)h, &values));
    size_t bps = dtype == PARAC_U8 ? 1 : 2;
    if (!ascii) {
        /* exactly one white-space byte separates maxval and the data */
        if (c.p >= c.end) return parac__fail(PARAC_ERR_FORMAT, "truncated PNM file (no pixel data)");
        c.p++;
        size_t left = (size_t)(c.end - c.p);
        if ((uint64_t)values > left / bps)
            return parac__fail(PARAC_ERR_FORMAT,
                               "truncated PNM file: %" PRIu64 "x%" PRIu64 "x%d needs %lld bytes of "
                               "pixels, %zu present", w, h, channels, (long long)(values * (int64_t)bps),
                               left);
    } else {
        /* every ASCII value takes at least one digit and one separator */
        size_t left = (size_t)(c.end - c.p);
        if ((uint64_t)values > left / 2 + 1)
            return parac__fail(PARAC_ERR_FORMAT,
                               "truncated PNM file: %lld values expected, at most %zu present",
                               (long long)values, left / 2 + 1);
    }
    parac_image *img = NULL;
    PARAC_TRY(parac_image_create(&img, (int64_t)w, (int64_t)h, 1, channels, dtype, PARAC_MEMORY_HOST, -1));
    parac_status st = PARAC_OK;
    for (int64_t y = 0; y < (int64_t)h && st == PARAC_OK; y++) {
        uint8_t *row = parac_image_at(img, 0, y, 0);
        int64_t n = (int64_t)w * channels;
        for (int64_t i = 0; i < n; i++) {
            uint64_t v;
            if (ascii) {
                st = read_number(&c, 65535, "pixel value", &v);
                if (st != PARAC_OK) break;
            } else if (bps == 1) {
                v = *c.p++;
            } else {
                v = (uint64_t)c.p[0] << 8 | c.p[1];
                c.p += 2;
            }
            if (v > maxval) {
                st = parac__fail(PARAC_ERR_FORMAT,
                                 "PNM value %" PRIu64 " at row %lld exceeds maxval %" PRIu64, v,
                                 (long long)y, maxval);
                break;
            }
            if (bps == 1) row[i] = (uint8_t)v;
            else ((uint16_t *)row)[i] = (uint16_t)v;
        }
    }
    if (st != PARAC_OK) {
        parac_image_destroy(img);
        return st;
    }
    *out = img;
    return PARAC_OK;
}

static int has_extension(const char *path, const char *ext)
{
    const char *dot = strrchr(path, '.');
    return dot && strcasecmp(dot + 1, ext) == 0;
}

parac_status parac__write_pnm(FILE *file, int fd, const char *path, const parac_image *image,
                              const parac_write_options *options)
{
    if (image->dtype != PARAC_U8 && image->dtype != PARAC_U16)
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "PGM/PPM stores u8 or u16, not %s (use .tif, .npy or .nrrd, or convert)",
                           parac_dtype_name(image->dtype));
    if (image->channels != 1 && image->channels != 3)
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "PGM/PPM stores 1 (PGM) or 3 (PPM) channels, not %d (use .png or .tif)",
                           image->channels);
    if (image->depth != 1)
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "PGM/PPM stores 2D images, not a volume of depth %lld (use .tif, .npy or .nrrd)",
                           (long long)image->depth);
    if (has_extension(path, "pgm") && image->channels != 1)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "a .pgm file holds 1 channel, not %d (use .ppm)",
                           image->channels);
    if (has_extension(path, "ppm") && image->channels != 3)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "a .ppm file holds 3 channels, not %d (use .pgm)",
                           image->channels);
    int ascii = options->pnm_ascii != 0;
    char kind = image->channels == 1 ? (ascii ? '2' : '5') : (ascii ? '3' : '6');
    unsigned maxval = image->dtype == PARAC_U8 ? 255 : 65535;
    if (fprintf(file, "P%c\n%lld %lld\n%u\n", kind, (long long)image->width,
                (long long)image->height, maxval) < 0)
        return parac__fail(PARAC_ERR_IO, "write failed");
    size_t n = (size_t)image->width * (size_t)image->channels;
    size_t bps = image->dtype == PARAC_U8 ? 1 : 2;
    uint8_t *row = parac__malloc(n * bps);
    uint8_t *bytes = parac__malloc(ascii ? n * 7 + 2 : n * bps);
    if (!row || !bytes) {
        free(row);
        free(bytes);
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    parac_status st = PARAC_OK;
    for (int64_t y = 0; y < image->height && st == PARAC_OK; y++) {
        parac__io_pack_row(image, y, 0, row);
        size_t len = 0;
        if (ascii) {
            int col = 0;
            for (size_t i = 0; i < n; i++) {
                unsigned v = bps == 1 ? row[i] : ((uint16_t *)row)[i];
                char num[8];
                int k = snprintf(num, sizeof num, "%u", v);
                if (col && col + 1 + k > 70) {
                    bytes[len++] = '\n';
                    col = 0;
                } else if (col) {
                    bytes[len++] = ' ';
                    col++;
                }
                memcpy(bytes + len, num, (size_t)k);
                len += (size_t)k;
                col += k;
            }
            bytes[len++] = '\n';
        } else if (bps == 1) {
            memcpy(bytes, row, n);
            len = n;
        } else {
            for (size_t i = 0; i < n; i++) {
                uint16_t v = ((uint16_t *)row)[i];
                bytes[2 * i] = (uint8_t)(v >> 8);
                bytes[2 * i + 1] = (uint8_t)v;
            }
            len = 2 * n;
        }
        st = parac__io_write_all(file, bytes, len);
    }
    free(row);
    free(bytes);
    return st;
}
