/* NRRD (attached header, raw or gzip encoding).
 *
 * NRRD lists the fastest axis first: "sizes: W H [D]" or, with a channel
 * axis, "sizes: C W H [D]". A 3-axis file is told apart by "kinds" when
 * present (a non-spatial first kind means channels); otherwise by the same
 * rule as .npy: a first axis of 1..4 is channels, unless
 * parac_read_options.layout says otherwise. Spacing and orientation fields
 * are accepted and ignored. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "core/alloc_internal.h"
#include "core/error_internal.h"
#include "core/image_internal.h"
#include "io_internal.h"

enum { MAX_AXES = 4, LINE_MAX_BYTES = 4096 };

typedef struct nrrd_header {
    int have_type, have_dim, have_sizes, have_encoding, have_endian, have_kinds;
    parac_dtype dtype;
    int dimension;
    int64_t sizes[MAX_AXES];
    int gzip;
    int big_endian;
    int first_kind_spatial;
    int first_direction_none; /* "space directions" starts with none */
    int64_t line_skip, byte_skip;
} nrrd_header;

static const struct {
    const char *name;
    parac_dtype dtype;
} nrrd_types[] = {
    {"uchar", PARAC_U8},           {"unsigned char", PARAC_U8},   {"uint8", PARAC_U8},
    {"uint8_t", PARAC_U8},         {"ushort", PARAC_U16},         {"unsigned short", PARAC_U16},
    {"unsigned short int", PARAC_U16}, {"uint16", PARAC_U16},     {"uint16_t", PARAC_U16},
    {"int", PARAC_I32},            {"signed int", PARAC_I32},     {"int32", PARAC_I32},
    {"int32_t", PARAC_I32},        {"float", PARAC_F32},          {"double", PARAC_F64},
    {"longlong", PARAC_I64},       {"long long", PARAC_I64},      {"long long int", PARAC_I64},
    {"signed long long", PARAC_I64}, {"signed long long int", PARAC_I64}, {"int64", PARAC_I64},
    {"int64_t", PARAC_I64},
};

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = '\0';
    return s;
}

static parac_status parse_int(const char *s, int64_t *v, const char *field)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || errno) return parac__fail(PARAC_ERR_FORMAT, "NRRD field '%s': bad number '%s'", field, s);
    *v = x;
    return PARAC_OK;
}

static int kind_is_spatial(const char *k)
{
    return strcasecmp(k, "domain") == 0 || strcasecmp(k, "space") == 0 ||
           strcasecmp(k, "time") == 0;
}

static parac_status parse_field(nrrd_header *h, const char *field, char *value)
{
    if (strcmp(field, "type") == 0) {
        for (size_t i = 0; i < sizeof nrrd_types / sizeof nrrd_types[0]; i++)
            if (strcasecmp(value, nrrd_types[i].name) == 0) {
                h->dtype = nrrd_types[i].dtype;
                h->have_type = 1;
                return PARAC_OK;
            }
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "NRRD type '%s' is not supported (uchar, ushort, int, float, double are)",
                           value);
    }
    if (strcmp(field, "dimension") == 0) {
        int64_t v = 0;
        PARAC_TRY(parse_int(value, &v, field));
        if (v < 2 || v > MAX_AXES)
            return parac__fail(PARAC_ERR_UNSUPPORTED,
                               "NRRD dimension %lld is not supported (2-4: 2D or 3D, with an "
                               "optional leading channel axis)", (long long)v);
        h->dimension = (int)v;
        h->have_dim = 1;
        return PARAC_OK;
    }
    if (strcmp(field, "sizes") == 0) {
        if (!h->have_dim) return parac__fail(PARAC_ERR_FORMAT, "NRRD 'sizes' comes before 'dimension'");
        char *p = value;
        for (int i = 0; i < h->dimension; i++) {
            char *end;
            errno = 0;
            long long v = strtoll(p, &end, 10);
            if (end == p || errno || v < 1)
                return parac__fail(PARAC_ERR_FORMAT, "NRRD 'sizes' entry %d is not a positive number", i);
            h->sizes[i] = v;
            p = end;
        }
        if (*trim(p)) return parac__fail(PARAC_ERR_FORMAT, "NRRD 'sizes' has more entries than 'dimension'");
        h->have_sizes = 1;
        return PARAC_OK;
    }
    if (strcmp(field, "encoding") == 0) {
        if (strcasecmp(value, "raw") == 0) h->gzip = 0;
        else if (strcasecmp(value, "gzip") == 0 || strcasecmp(value, "gz") == 0) h->gzip = 1;
        else
            return parac__fail(PARAC_ERR_UNSUPPORTED,
                               "NRRD encoding '%s' is not supported (raw and gzip are)", value);
        h->have_encoding = 1;
        return PARAC_OK;
    }
    if (strcmp(field, "endian") == 0) {
        if (strcasecmp(value, "little") == 0) h->big_endian = 0;
        else if (strcasecmp(value, "big") == 0) h->big_endian = 1;
        else return parac__fail(PARAC_ERR_FORMAT, "NRRD endian '%s' is neither little nor big", value);
        h->have_endian = 1;
        return PARAC_OK;
    }
    if (strcmp(field, "kinds") == 0) {
        char *first = strtok(value, " \t");
        if (first) {
            h->first_kind_spatial = kind_is_spatial(first);
            h->have_kinds = 1;
        }
        return PARAC_OK;
    }
    if (strcmp(field, "space directions") == 0) {
        h->first_direction_none = strncmp(value, "none", 4) == 0;
        return PARAC_OK;
    }
    if (strcmp(field, "line skip") == 0 || strcmp(field, "lineskip") == 0) {
        PARAC_TRY(parse_int(value, &h->line_skip, field));
        if (h->line_skip < 0) return parac__fail(PARAC_ERR_FORMAT, "NRRD line skip is negative");
        return PARAC_OK;
    }
    if (strcmp(field, "byte skip") == 0 || strcmp(field, "byteskip") == 0) {
        PARAC_TRY(parse_int(value, &h->byte_skip, field));
        if (h->byte_skip < -1) return parac__fail(PARAC_ERR_FORMAT, "NRRD byte skip is below -1");
        return PARAC_OK;
    }
    if (strcmp(field, "data file") == 0 || strcmp(field, "datafile") == 0)
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "NRRD detached data ('data file: %s') is not supported; attach it "
                           "(a single .nrrd file)", value);
    return PARAC_OK; /* spacings, space directions, origin, labels, ...: ignored */
}

/* Inflate a gzip or zlib stream into exactly `need` bytes after `skip`. */
static parac_status inflate_exact(const uint8_t *src, size_t n, uint8_t *dst, size_t need, size_t skip)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 15 + 32) != Z_OK)
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "cannot initialise zlib");
    parac_status st = PARAC_OK;
    uint8_t scratch[4096];
    size_t produced = 0;
    zs.next_in = (Bytef *)src;
    size_t in_left = n;
    while (produced < skip + need) {
        if (zs.avail_in == 0) {
            zs.avail_in = in_left > 1u << 30 ? 1u << 30 : (uInt)in_left;
            in_left -= zs.avail_in;
        }
        uint8_t *target;
        size_t room;
        if (produced < skip) {
            target = scratch;
            room = skip - produced < sizeof scratch ? skip - produced : sizeof scratch;
        } else {
            target = dst + (produced - skip);
            room = skip + need - produced;
        }
        zs.next_out = target;
        zs.avail_out = room > 1u << 30 ? 1u << 30 : (uInt)room;
        uInt before = zs.avail_out;
        int r = inflate(&zs, Z_NO_FLUSH);
        produced += before - zs.avail_out;
        if (r == Z_STREAM_END && produced >= skip + need) {
            inflateEnd(&zs);
            return PARAC_OK;
        }
        if (r == Z_STREAM_END && produced < skip + need) {
            st = parac__fail(PARAC_ERR_FORMAT,
                             "NRRD gzip data ends after %zu of %zu bytes", produced, skip + need);
            break;
        }
        if (r == Z_BUF_ERROR && zs.avail_in == 0 && in_left == 0) {
            st = parac__fail(PARAC_ERR_FORMAT, "truncated NRRD gzip data (%zu of %zu bytes)",
                             produced, skip + need);
            break;
        }
        if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR) {
            st = parac__fail(PARAC_ERR_FORMAT, "corrupt NRRD gzip data: %s",
                             zs.msg ? zs.msg : "inflate failed");
            break;
        }
    }
    /* the gzip trailer (CRC and length) must follow: a stream cut there is truncated */
    int r = Z_OK;
    while (st == PARAC_OK && r != Z_STREAM_END) {
        if (zs.avail_in == 0) {
            zs.avail_in = in_left > 1u << 30 ? 1u << 30 : (uInt)in_left;
            in_left -= zs.avail_in;
        }
        zs.next_out = scratch;
        zs.avail_out = sizeof scratch;
        r = inflate(&zs, Z_NO_FLUSH);
        if (r == Z_BUF_ERROR && zs.avail_in == 0 && in_left == 0)
            st = parac__fail(PARAC_ERR_FORMAT, "truncated NRRD gzip data (the stream does not end)");
        else if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR)
            st = parac__fail(PARAC_ERR_FORMAT, "corrupt NRRD gzip data: %s",
                             zs.msg ? zs.msg : "inflate failed");
    }
    inflateEnd(&zs);
    return st;
}

parac_status parac__read_nrrd(const parac_io_reader_args *args, parac_image **out)
{
    const uint8_t *d = args->data;
    size_t size = args->size;
    if (size < 8 || memcmp(d, "NRRD000", 7) != 0 || d[7] < '1' || d[7] > '9')
        return parac__fail(PARAC_ERR_FORMAT, "not a NRRD file (no 'NRRD000x' signature)");
    nrrd_header h;
    memset(&h, 0, sizeof h);
    size_t pos = 0;
    char line[LINE_MAX_BYTES];
    int first = 1, ended = 0;
    while (pos < size) {
        size_t start = pos;
        while (pos < size && d[pos] != '\n') pos++;
        if (pos >= size) break; /* the header must end with an empty line */
        size_t len = pos - start;
        pos++;
        if (len >= sizeof line) return parac__fail(PARAC_ERR_FORMAT, "NRRD header line too long");
        memcpy(line, d + start, len);
        line[len] = '\0';
        if (len && line[len - 1] == '\r') line[--len] = '\0';
        if (first) {
            first = 0;
            continue;
        }
        if (len == 0) {
            ended = 1;
            break;
        }
        if (memchr(line, '\0', len))
            return parac__fail(PARAC_ERR_FORMAT, "NRRD header contains a NUL byte");
        if (line[0] == '#') continue;
        if (strstr(line, ":=")) continue; /* key/value pairs */
        char *colon = strstr(line, ": ");
        if (!colon) return parac__fail(PARAC_ERR_FORMAT, "NRRD header line '%.60s' is not 'field: value'", line);
        *colon = '\0';
        char *field = trim(line);
        for (char *c = field; *c; c++) *c = (char)tolower((unsigned char)*c);
        PARAC_TRY(parse_field(&h, field, trim(colon + 2)));
    }
    if (!ended) return parac__fail(PARAC_ERR_FORMAT, "truncated NRRD header (no blank line before the data)");
    if (!h.have_type || !h.have_dim || !h.have_sizes || !h.have_encoding)
        return parac__fail(PARAC_ERR_FORMAT, "NRRD header lacks 'type', 'dimension', 'sizes' or 'encoding'");
    size_t elem = parac_dtype_size(h.dtype);
    if (elem > 1 && !h.have_endian)
        return parac__fail(PARAC_ERR_FORMAT, "NRRD header lacks 'endian' for a %zu-byte type", elem);

    /* the channel axis, if any, is the first (fastest) */
    int channel_axis;
    if (h.dimension == 2) channel_axis = 0;
    else if (h.dimension == 4) channel_axis = 1;
    else if (h.have_kinds) channel_axis = !h.first_kind_spatial;
    else if (h.first_direction_none) channel_axis = 1;
    else if (args->options->layout == PARAC_LAYOUT_HWC) channel_axis = 1;
    else if (args->options->layout == PARAC_LAYOUT_DHW) channel_axis = 0;
    else channel_axis = h.sizes[0] <= 4;
    int64_t C = channel_axis ? h.sizes[0] : 1;
    if (C > 4)
        return parac__fail(PARAC_ERR_FORMAT, "NRRD channel axis has %lld entries; 1-4 are possible", (long long)C);
    int a = channel_axis;
    int64_t W = h.sizes[a], H = h.sizes[a + 1], D = a + 2 < h.dimension ? h.sizes[a + 2] : 1;
    PARAC_TRY(parac__check_geometry(W, H, D, (int)C, h.dtype));
    int64_t bytes = W * H * D * C * (int64_t)elem;

    /* skip lines, then bytes */
    for (int64_t i = 0; i < h.line_skip; i++) {
        while (pos < size && d[pos] != '\n') pos++;
        if (pos >= size) return parac__fail(PARAC_ERR_FORMAT, "NRRD line skip runs past the end");
        pos++;
    }
    const uint8_t *payload;
    size_t payload_size, skip = 0;
    if (!h.gzip) {
        if (h.byte_skip == -1) {
            if ((uint64_t)bytes > size - pos)
                return parac__fail(PARAC_ERR_FORMAT, "truncated NRRD file: %lld bytes of data expected",
                                   (long long)bytes);
            pos = size - (size_t)bytes;
        } else {
            if ((uint64_t)h.byte_skip > size - pos)
                return parac__fail(PARAC_ERR_FORMAT, "NRRD byte skip runs past the end");
            pos += (size_t)h.byte_skip;
        }
        if ((uint64_t)bytes > size - pos)
            return parac__fail(PARAC_ERR_FORMAT,
                               "truncated NRRD file: %lld bytes of data expected, %zu present",
                               (long long)bytes, size - pos);
    } else {
        if (h.byte_skip < 0)
            return parac__fail(PARAC_ERR_FORMAT, "NRRD byte skip -1 needs raw encoding");
        skip = (size_t)h.byte_skip;
        PARAC_TRY(parac__io_check_expansion(bytes, H * D, size - pos, 1100.0, "NRRD gzip data"));
    }
    payload = d + pos;
    payload_size = size - pos;

    parac_image *img = NULL;
    PARAC_TRY(parac_image_create(&img, W, H, D, (int)C, h.dtype, PARAC_MEMORY_HOST, -1));
    uint8_t *raw = NULL;
    const uint8_t *stream = payload;
    if (h.gzip) {
        raw = parac__malloc((size_t)bytes);
        parac_status st = raw ? inflate_exact(payload, payload_size, raw, (size_t)bytes, skip)
                              : parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
        if (st != PARAC_OK) {
            free(raw);
            parac_image_destroy(img);
            return st;
        }
        stream = raw;
    }
    parac_io_axes axes = {.n = 0};
    axes.count[axes.n] = D, axes.image_stride[axes.n++] = img->slice_pitch;
    axes.count[axes.n] = H, axes.image_stride[axes.n++] = img->row_pitch;
    axes.count[axes.n] = W, axes.image_stride[axes.n++] = img->pixel_stride;
    axes.count[axes.n] = C, axes.image_stride[axes.n++] = (int64_t)elem;
    int swap = elem > 1 && h.big_endian == parac__host_is_little_endian();
    parac__io_stream_to_image(&axes, stream, img->data, elem, swap);
    free(raw);
    *out = img;
    return PARAC_OK;
}

static parac_status write_gzip(FILE *file, const parac_io_axes *axes, const parac_image *image,
                               size_t elem, int level)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "cannot initialise zlib");
    size_t slice_bytes = (size_t)(axes->count[1] * axes->count[2] * axes->count[3]) * elem;
    uint8_t *in = parac__malloc(slice_bytes);
    uint8_t *outbuf = parac__malloc(1 << 16);
    parac_status st = in && outbuf ? PARAC_OK : parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    for (int64_t z = 0; z < axes->count[0] && st == PARAC_OK; z++) {
        parac_io_axes slice = *axes;
        slice.count[0] = 1;
        parac__io_image_to_stream(&slice, (const char *)image->data + z * image->slice_pitch, in,
                                  elem, !parac__host_is_little_endian() && elem > 1);
        int flush = z + 1 == axes->count[0] ? Z_FINISH : Z_NO_FLUSH;
        size_t left = slice_bytes;
        const uint8_t *p = in;
        do { /* zlib counts in uInt: feed at most 1 GiB at a time */
            uInt take = left > (1u << 30) ? (1u << 30) : (uInt)left;
            zs.next_in = (Bytef *)p;
            zs.avail_in = take;
            int f = take == left ? flush : Z_NO_FLUSH;
            do {
                zs.next_out = outbuf;
                zs.avail_out = 1 << 16;
                int r = deflate(&zs, f);
                if (r == Z_STREAM_ERROR) {
                    st = parac__fail(PARAC_ERR_INTERNAL, "deflate failed");
                    break;
                }
                st = parac__io_write_all(file, outbuf, (1 << 16) - zs.avail_out);
            } while (st == PARAC_OK && zs.avail_out == 0);
            p += take;
            left -= take;
        } while (st == PARAC_OK && left > 0);
    }
    deflateEnd(&zs);
    free(in);
    free(outbuf);
    return st;
}

parac_status parac__write_nrrd(FILE *file, int fd, const char *path, const parac_image *image,
                               const parac_write_options *options)
{
    static const char *type_names[PARAC_DTYPE_COUNT] = {[PARAC_U8] = "uint8",  [PARAC_U16] = "uint16",
                                                        [PARAC_I32] = "int32",  [PARAC_F32] = "float",
                                                        [PARAC_F64] = "double", [PARAC_I64] = "int64"};
    int has_channel = image->channels > 1;
    int dim = 2 + (image->depth > 1) + has_channel;
    char head[512];
    int n = snprintf(head, sizeof head, "NRRD0004\n# Complete NRRD file format specification at:\n"
                     "# http://teem.sourceforge.net/nrrd/format.html\ntype: %s\ndimension: %d\nsizes:",
                     type_names[image->dtype], dim);
    if (has_channel) n += snprintf(head + n, sizeof head - (size_t)n, " %d", image->channels);
    n += snprintf(head + n, sizeof head - (size_t)n, " %lld %lld", (long long)image->width,
                  (long long)image->height);
    if (image->depth > 1) n += snprintf(head + n, sizeof head - (size_t)n, " %lld", (long long)image->depth);
    n += snprintf(head + n, sizeof head - (size_t)n, "\nkinds:");
    if (has_channel) {
        const char *k = image->channels == 3 ? "RGB-color" : image->channels == 4 ? "RGBA-color" : "vector";
        n += snprintf(head + n, sizeof head - (size_t)n, " %s", k);
    }
    for (int i = 0; i < 2 + (image->depth > 1); i++) n += snprintf(head + n, sizeof head - (size_t)n, " domain");
    n += snprintf(head + n, sizeof head - (size_t)n, "\n%sencoding: %s\n\n",
                  parac_dtype_size(image->dtype) > 1 ? "endian: little\n" : "",
                  options->nrrd_gzip ? "gzip" : "raw");
    PARAC_TRY(parac__io_write_all(file, head, (size_t)n));

    size_t elem = parac_dtype_size(image->dtype);
    parac_io_axes axes = {.n = 4,
                          .count = {image->depth, image->height, image->width, image->channels},
                          .image_stride = {image->slice_pitch, image->row_pitch, image->pixel_stride,
                                           (int64_t)elem}};
    int swap = !parac__host_is_little_endian() && elem > 1;
    if (options->nrrd_gzip) return write_gzip(file, &axes, image, elem, Z_DEFAULT_COMPRESSION);
    size_t row_bytes = parac_image_row_bytes(image);
    uint8_t *row = parac__malloc(row_bytes);
    if (!row) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    parac_status st = PARAC_OK;
    parac_io_axes one = {.n = 2, .count = {image->width, image->channels},
                         .image_stride = {image->pixel_stride, (int64_t)elem}};
    for (int64_t z = 0; z < image->depth && st == PARAC_OK; z++)
        for (int64_t y = 0; y < image->height && st == PARAC_OK; y++) {
            parac__io_image_to_stream(&one, parac_image_at(image, 0, y, z), row, elem, swap);
            st = parac__io_write_all(file, row, row_bytes);
        }
    free(row);
    return st;
}
