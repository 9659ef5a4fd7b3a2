/* NumPy .npy files (format versions 1, 2 and 3).
 *
 * Axis rule: (H,W) gray; (H,W,C) when the last of 3 axes is 1..4, else
 * (D,H,W); (D,H,W,C). parac_read_options.layout overrides the 3-axis case.
 * Writing uses (H,W), (H,W,C), (D,H,W) or (D,H,W,C); a volume whose width is
 * 1..4 is written as (D,H,W,1) so that reading it back needs no override. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "core/error_internal.h"
#include "core/image_internal.h"
#include "io_internal.h"

typedef struct npy_header {
    char descr[16];
    int fortran;
    int ndim;
    int64_t shape[8];
    int have_descr, have_fortran, have_shape;
} npy_header;

typedef struct cursor {
    const char *p, *end;
} cursor;

static void skip_ws(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static int accept(cursor *c, char ch)
{
    skip_ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* A quoted Python string into buf (no escapes are needed in a valid header). */
static parac_status parse_string(cursor *c, char *buf, size_t cap)
{
    skip_ws(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return parac__fail(PARAC_ERR_FORMAT, "NPY header: expected a quoted string");
    char q = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != q) {
        if (n + 1 >= cap) return parac__fail(PARAC_ERR_FORMAT, "NPY header: string too long");
        buf[n++] = *c->p++;
    }
    if (c->p >= c->end) return parac__fail(PARAC_ERR_FORMAT, "NPY header: unterminated string");
    c->p++;
    buf[n] = '\0';
    return PARAC_OK;
}

static parac_status parse_shape(cursor *c, npy_header *h)
{
    if (!accept(c, '('))
        return parac__fail(PARAC_ERR_FORMAT, "NPY header: 'shape' is not a tuple");
    h->ndim = 0;
    for (;;) {
        if (accept(c, ')')) break;
        skip_ws(c);
        if (c->p >= c->end || *c->p < '0' || *c->p > '9')
            return parac__fail(PARAC_ERR_FORMAT, "NPY header: bad 'shape' entry");
        int64_t v = 0;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
            if (v > (INT64_MAX - 9) / 10)
                return parac__fail(PARAC_ERR_FORMAT, "NPY header: 'shape' entry too large");
            v = v * 10 + (*c->p++ - '0');
        }
        if (c->p < c->end && *c->p == 'L') c->p++; /* Python 2 long */
        if (h->ndim == 8) return parac__fail(PARAC_ERR_UNSUPPORTED, "NPY arrays of more than 4 axes are not images");
        h->shape[h->ndim++] = v;
        if (accept(c, ')')) break;
        if (!accept(c, ',')) return parac__fail(PARAC_ERR_FORMAT, "NPY header: bad 'shape' tuple");
    }
    h->have_shape = 1;
    return PARAC_OK;
}

static parac_status parse_header(const char *text, size_t len, npy_header *h)
{
    cursor c = {text, text + len};
    memset(h, 0, sizeof *h);
    if (!accept(&c, '{')) return parac__fail(PARAC_ERR_FORMAT, "NPY header is not a dictionary");
    for (;;) {
        if (accept(&c, '}')) break;
        char key[32];
        PARAC_TRY(parse_string(&c, key, sizeof key));
        if (!accept(&c, ':')) return parac__fail(PARAC_ERR_FORMAT, "NPY header: expected ':'");
        skip_ws(&c);
        if (strcmp(key, "descr") == 0) {
            if (c.p < c.end && *c.p == '[')
                return parac__fail(PARAC_ERR_UNSUPPORTED, "NPY structured dtypes are not images");
            PARAC_TRY(parse_string(&c, h->descr, sizeof h->descr));
            h->have_descr = 1;
        } else if (strcmp(key, "fortran_order") == 0) {
            if ((size_t)(c.end - c.p) >= 4 && memcmp(c.p, "True", 4) == 0) {
                h->fortran = 1;
                c.p += 4;
            } else if ((size_t)(c.end - c.p) >= 5 && memcmp(c.p, "False", 5) == 0) {
                h->fortran = 0;
                c.p += 5;
            } else {
                return parac__fail(PARAC_ERR_FORMAT, "NPY header: 'fortran_order' is not True/False");
            }
            h->have_fortran = 1;
        } else if (strcmp(key, "shape") == 0) {
            PARAC_TRY(parse_shape(&c, h));
        } else {
            return parac__fail(PARAC_ERR_FORMAT, "NPY header: unknown key '%s'", key);
        }
        if (accept(&c, '}')) break;
        if (!accept(&c, ',')) return parac__fail(PARAC_ERR_FORMAT, "NPY header: expected ',' or '}'");
    }
    if (!h->have_descr || !h->have_fortran || !h->have_shape)
        return parac__fail(PARAC_ERR_FORMAT, "NPY header lacks 'descr', 'fortran_order' or 'shape'");
    return PARAC_OK;
}

/* dtype and byte order from a descr such as '<f4'. */
static parac_status parse_descr(const char *descr, parac_dtype *dtype, int *big_endian)
{
    char order = descr[0];
    const char *t = descr;
    if (order == '<' || order == '>' || order == '|' || order == '=') t++;
    else order = '=';
    *big_endian = order == '>' || (order == '=' && !parac__host_is_little_endian());
    if (strcmp(t, "u1") == 0 || strcmp(t, "B") == 0) *dtype = PARAC_U8;
    else if (strcmp(t, "u2") == 0) *dtype = PARAC_U16;
    else if (strcmp(t, "i4") == 0) *dtype = PARAC_I32;
    else if (strcmp(t, "f4") == 0) *dtype = PARAC_F32;
    else if (strcmp(t, "f8") == 0) *dtype = PARAC_F64;
    else if (strcmp(t, "i8") == 0) *dtype = PARAC_I64;
    else
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "NPY dtype '%s' is not supported (use uint8, uint16, int32, float32, "
                           "float64 or int64: |u1 <u2 <i4 <f4 <f8 <i8, either byte order)", descr);
    return PARAC_OK;
}

parac_status parac__read_npy(const parac_io_reader_args *args, parac_image **out)
{
    const uint8_t *d = args->data;
    size_t size = args->size;
    if (size < 10 || memcmp(d, "\x93NUMPY", 6) != 0)
        return parac__fail(PARAC_ERR_FORMAT, "not a NPY file (truncated or no \\x93NUMPY signature)");
    int major = d[6];
    size_t hlen, start;
    if (major == 1) {
        hlen = (size_t)d[8] | (size_t)d[9] << 8;
        start = 10;
    } else if (major == 2 || major == 3) {
        if (size < 12) return parac__fail(PARAC_ERR_FORMAT, "truncated NPY header");
        hlen = (size_t)d[8] | (size_t)d[9] << 8 | (size_t)d[10] << 16 | (size_t)d[11] << 24;
        start = 12;
    } else {
        return parac__fail(PARAC_ERR_UNSUPPORTED, "NPY format version %d.%d is not supported (1-3 are)",
                           major, d[7]);
    }
    if (hlen > size - start)
        return parac__fail(PARAC_ERR_FORMAT, "truncated NPY file: header of %zu bytes, %zu present",
                           hlen, size - start);
    npy_header h;
    PARAC_TRY(parse_header((const char *)d + start, hlen, &h));
    parac_dtype dtype = PARAC_U8;
    int big = 0;
    PARAC_TRY(parse_descr(h.descr, &dtype, &big));

    /* map the numpy axes onto (z, y, x, c) */
    int64_t D = 1, H, W, C = 1;
    int64_t *s = h.shape;
    int axis_of[4]; /* for each numpy axis: 0 z, 1 y, 2 x, 3 c */
    parac_layout layout = args->options->layout;
    switch (h.ndim) {
    case 1:
        if (!args->options->row)
            return parac__fail(PARAC_ERR_UNSUPPORTED, "NPY array of 1 axis is not an image (2-4 axes: (H,W), (H,W,C), "
                               "(D,H,W), (D,H,W,C))");
        H = 1, W = s[0];
        axis_of[0] = 2;
        break;
    case 2:
        H = s[0], W = s[1];
        axis_of[0] = 1, axis_of[1] = 2;
        break;
    case 3:
        if (layout == PARAC_LAYOUT_HWC || (layout == PARAC_LAYOUT_AUTO && s[2] >= 1 && s[2] <= 4)) {
            if (s[2] < 1 || s[2] > 4)
                return parac__fail(PARAC_ERR_FORMAT,
                                   "NPY shape (%lld, %lld, %lld) read as (H, W, C) has %lld channels; "
                                   "1-4 are possible", (long long)s[0], (long long)s[1],
                                   (long long)s[2], (long long)s[2]);
            H = s[0], W = s[1], C = s[2];
            axis_of[0] = 1, axis_of[1] = 2, axis_of[2] = 3;
        } else {
            D = s[0], H = s[1], W = s[2];
            axis_of[0] = 0, axis_of[1] = 1, axis_of[2] = 2;
        }
        break;
    case 4:
        if (s[3] < 1 || s[3] > 4)
            return parac__fail(PARAC_ERR_FORMAT,
                               "NPY shape (D, H, W, C) with %lld channels; 1-4 are possible",
                               (long long)s[3]);
        D = s[0], H = s[1], W = s[2], C = s[3];
        axis_of[0] = 0, axis_of[1] = 1, axis_of[2] = 2, axis_of[3] = 3;
        break;
    default:
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "NPY array of %d axes is not an image (2-4 axes: (H,W), (H,W,C), (D,H,W), "
                           "(D,H,W,C))", h.ndim);
    }
    if (D < 1 || H < 1 || W < 1)
        return parac__fail(PARAC_ERR_FORMAT, "NPY array is empty (a zero-length axis)");
    PARAC_TRY(parac__check_geometry(W, H, D, (int)C, dtype));
    size_t elem = parac_dtype_size(dtype);
    int64_t bytes = 0;
    PARAC_TRY(parac__mul64(W * H * D * C, (int64_t)elem, &bytes));
    size_t data_start = start + hlen;
    if ((uint64_t)bytes > size - data_start)
        return parac__fail(PARAC_ERR_FORMAT, "truncated NPY file: %lld bytes of data expected, %zu present",
                           (long long)bytes, size - data_start);
    parac_image *img = NULL;
    PARAC_TRY(parac_image_create(&img, W, H, D, (int)C, dtype, PARAC_MEMORY_HOST, -1));
    int64_t img_stride[4] = {img->slice_pitch, img->row_pitch, img->pixel_stride, (int64_t)elem};
    parac_io_axes axes = {.n = h.ndim};
    for (int i = 0; i < h.ndim; i++) {
        int src = h.fortran ? h.ndim - 1 - i : i; /* stream order: slowest first */
        axes.count[i] = s[src];
        axes.image_stride[i] = img_stride[axis_of[src]];
    }
    int swap = elem > 1 && big == parac__host_is_little_endian();
    parac__io_stream_to_image(&axes, d + data_start, img->data, elem, swap);
    *out = img;
    return PARAC_OK;
}

parac_status parac__write_npy(FILE *file, int fd, const char *path, const parac_image *image,
                              const parac_write_options *options)
{
    static const char *descr[PARAC_DTYPE_COUNT] = {[PARAC_U8] = "|u1",  [PARAC_U16] = "<u2", [PARAC_I32] = "<i4",
                                                   [PARAC_F32] = "<f4", [PARAC_F64] = "<f8", [PARAC_I64] = "<i8"};
    int64_t shape[4];
    int64_t stride[4];
    int n = 0;
    size_t elem = parac_dtype_size(image->dtype);
    if (image->depth > 1) {
        shape[n] = image->depth, stride[n++] = image->slice_pitch;
    }
    shape[n] = image->height, stride[n++] = image->row_pitch;
    shape[n] = image->width, stride[n++] = image->pixel_stride;
    /* a trailing channel axis also keeps a narrow volume from reading as (H,W,C) */
    if (image->channels > 1 || (image->depth > 1 && image->width <= 4))
        shape[n] = image->channels, stride[n++] = (int64_t)elem;
    char dict[256];
    int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': %s, 'shape': (",
                       descr[image->dtype], options->npy_fortran_order ? "True" : "False");
    for (int i = 0; i < n; i++)
        len += snprintf(dict + len, sizeof dict - (size_t)len, "%lld,%s", (long long)shape[i],
                        i + 1 < n ? " " : "");
    len += snprintf(dict + len, sizeof dict - (size_t)len, "), }");
    /* pad with spaces so that the data starts at a multiple of 64 */
    size_t total = 10 + (size_t)len + 1;
    size_t padded = (total + 63) / 64 * 64;
    uint8_t head[320];
    memcpy(head, "\x93NUMPY\x01\x00", 8);
    size_t hlen = padded - 10;
    head[8] = (uint8_t)(hlen & 0xFF);
    head[9] = (uint8_t)(hlen >> 8);
    memcpy(head + 10, dict, (size_t)len);
    memset(head + 10 + len, ' ', padded - 10 - (size_t)len - 1);
    head[padded - 1] = '\n';
    PARAC_TRY(parac__io_write_all(file, head, padded));

    parac_io_axes axes = {.n = n};
    for (int i = 0; i < n; i++) {
        int src = options->npy_fortran_order ? n - 1 - i : i;
        axes.count[i] = shape[src];
        axes.image_stride[i] = stride[src];
    }
    int swap = !parac__host_is_little_endian() && elem > 1;
    /* stream in chunks of whole slowest-axis entries to bound the buffer */
    int64_t per_outer = parac__io_axes_elements(&axes) / axes.count[0] * (int64_t)elem;
    int64_t chunk = per_outer > ((int64_t)4 << 20) ? 1 : ((int64_t)4 << 20) / per_outer;
    if (chunk > axes.count[0]) chunk = axes.count[0];
    uint8_t *buf = parac__malloc((size_t)(chunk * per_outer));
    if (!buf) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    parac_status st = PARAC_OK;
    for (int64_t i0 = 0; i0 < axes.count[0] && st == PARAC_OK; i0 += chunk) {
        parac_io_axes part = axes;
        part.count[0] = axes.count[0] - i0 < chunk ? axes.count[0] - i0 : chunk;
        parac__io_image_to_stream(&part, (const char *)image->data + i0 * axes.image_stride[0], buf,
                                  elem, swap);
        st = parac__io_write_all(file, buf, (size_t)(part.count[0] * per_outer));
    }
    free(buf);
    return st;
}
