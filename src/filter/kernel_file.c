/* Loading convolution kernels (formats: kernel_file.h, docs/gaussian.md). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "kernel_file.h"

enum { MAX_KERNEL_VALUES = 1 << 24, MAX_FILE_BYTES = 1 << 28 };

void parac__kernel_free(parac__kernel *k)
{
    free(k->v);
    k->v = NULL;
    k->w = k->h = 0;
}

static parac_status parse_text(const char *text, const char *what, parac__kernel *k)
{
    size_t cap = 64, n = 0;
    int w = -1, h = 0, in_row = 0;
    float *v = parac__malloc(cap * sizeof(float));
    if (!v) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "kernel %s: no memory", what);
    const char *p = text;
    int count = 0;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == ',' || *p == '\r') p++;
        if (*p == '#') {
            while (*p && *p != '\n') p++;
            continue;
        }
        if (*p == '\n' || *p == ';' || *p == '\0') {
            if (in_row) {
                if (w >= 0 && count != w) {
                    free(v);
                    return parac__fail(PARAC_ERR_FORMAT, "kernel %s: row %d has %d values, row 1 has %d",
                                       what, h + 1, count, w);
                }
                w = count;
                h++;
            }
            in_row = 0;
            count = 0;
            if (*p == '\0') break;
            p++;
            continue;
        }
        char *end = NULL;
        errno = 0;
        double x = strtod(p, &end);
        if (end == p || !isfinite(x) || errno == ERANGE || (*end && !strchr(" \t,;\r\n#", *end))) {
            free(v);
            return parac__fail(PARAC_ERR_FORMAT, "kernel %s: '%.20s' is not a finite number", what, p);
        }
        if (n == MAX_KERNEL_VALUES) {
            free(v);
            return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "kernel %s: more than %d values", what, MAX_KERNEL_VALUES);
        }
        if (n == cap) {
            float *nv = parac__realloc(v, (cap *= 2) * sizeof(float));
            if (!nv) {
                free(v);
                return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "kernel %s: no memory", what);
            }
            v = nv;
        }
        v[n++] = (float)x;
        count++;
        in_row = 1;
        p = end;
    }
    if (n == 0) {
        free(v);
        return parac__fail(PARAC_ERR_FORMAT, "kernel %s: no values", what);
    }
    k->w = w;
    k->h = h;
    k->v = v;
    return PARAC_OK;
}

/* Minimal .npy reader: version 1-3, little-endian numbers, C order, 1D/2D. */
static parac_status parse_npy(const unsigned char *b, size_t size, const char *what, parac__kernel *k)
{
    if (size < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
        return parac__fail(PARAC_ERR_FORMAT, "kernel %s: not a .npy file", what);
    size_t hlen, off;
    if (b[6] == 1) hlen = b[8] | (size_t)b[9] << 8, off = 10;
    else {
        if (size < 12) return parac__fail(PARAC_ERR_FORMAT, "kernel %s: truncated .npy header", what);
        hlen = b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24, off = 12;
    }
    if (off + hlen > size) return parac__fail(PARAC_ERR_FORMAT, "kernel %s: truncated .npy header", what);
    char header[1024];
    size_t hl = hlen < sizeof header - 1 ? hlen : sizeof header - 1;
    memcpy(header, b + off, hl);
    header[hl] = '\0';
    const char *d = strstr(header, "'descr'"), *f = strstr(header, "'fortran_order'"), *s = strstr(header, "'shape'");
    if (!d || !f || !s) return parac__fail(PARAC_ERR_FORMAT, "kernel %s: bad .npy header", what);
    char descr[16] = "";
    if (sscanf(strchr(d + 7, '\'') ? strchr(d + 7, '\'') + 1 : "", "%15[^']", descr) != 1)
        return parac__fail(PARAC_ERR_FORMAT, "kernel %s: bad .npy dtype", what);
    if (strstr(f, "True")) return parac__fail(PARAC_ERR_UNSUPPORTED, "kernel %s: Fortran-order .npy", what);
    const char *open = strchr(s, '(');
    if (!open) return parac__fail(PARAC_ERR_FORMAT, "kernel %s: bad .npy shape", what);
    long dims[3] = {0, 0, 0};
    int nd = 0;
    for (const char *q = open + 1; *q && *q != ')';) {
        if (isdigit((unsigned char)*q)) {
            if (nd == 3) return parac__fail(PARAC_ERR_UNSUPPORTED, "kernel %s: more than 2 dimensions", what);
            dims[nd++] = strtol(q, (char **)&q, 10);
        } else q++;
    }
    if (nd < 1 || nd > 2) return parac__fail(PARAC_ERR_UNSUPPORTED, "kernel %s: must be 1D or 2D", what);
    long h = nd == 2 ? dims[0] : 1, w = nd == 2 ? dims[1] : dims[0];
    if (w < 1 || h < 1 || w * h > MAX_KERNEL_VALUES)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "kernel %s: shape %ldx%ld not usable", what, h, w);
    char kind = descr[1];
    int bytes = atoi(descr + 2);
    int little = descr[0] == '<' || descr[0] == '|' || (descr[0] == '=');
    if (!little || !strchr("fiu", kind) || (kind == 'f' && bytes != 4 && bytes != 8) ||
        (kind != 'f' && bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8))
        return parac__fail(PARAC_ERR_UNSUPPORTED, "kernel %s: .npy dtype '%s' (use float32 or float64)", what, descr);
    size_t n = (size_t)(w * h), data = off + hlen;
    if (data + n * (size_t)bytes > size) return parac__fail(PARAC_ERR_FORMAT, "kernel %s: truncated .npy data", what);
    float *v = parac__malloc(n * sizeof(float));
    if (!v) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "kernel %s: no memory", what);
    for (size_t i = 0; i < n; i++) {
        const unsigned char *e = b + data + i * (size_t)bytes;
        uint64_t u = 0;
        for (int j = bytes - 1; j >= 0; j--) u = u << 8 | e[j];
        double x;
        if (kind == 'f' && bytes == 4) {
            float t;
            uint32_t u32 = (uint32_t)u;
            memcpy(&t, &u32, 4);
            x = t;
        } else if (kind == 'f') {
            memcpy(&x, &u, 8);
        } else if (kind == 'u') {
            x = (double)u;
        } else {
            int sh = 64 - 8 * bytes;
            x = (double)((int64_t)(u << sh) >> sh);
        }
        if (!isfinite(x)) {
            free(v);
            return parac__fail(PARAC_ERR_FORMAT, "kernel %s: value %zu is not finite", what, i);
        }
        v[i] = (float)x;
    }
    k->w = (int)w;
    k->h = (int)h;
    k->v = v;
    return PARAC_OK;
}

static int looks_inline(const char *s)
{
    for (; *s; s++)
        if (!strchr("0123456789+-.eE,; \t", *s)) return 0;
    return 1;
}

parac_status parac__kernel_load(const char *spec, parac__kernel *k)
{
    k->w = k->h = 0;
    k->v = NULL;
    FILE *fp = fopen(spec, "rb");
    if (!fp) {
        if (looks_inline(spec)) return parac__wrap(parse_text(spec, "(inline)", k), "kernel '%s'", spec);
        return parac__fail(PARAC_ERR_IO, "kernel file '%s': %s", spec, strerror(errno));
    }
    unsigned char *buf = NULL;
    size_t size = 0, cap = 0;
    for (;;) {
        if (size == cap) {
            cap = cap ? cap * 2 : 4096;
            if (cap > MAX_FILE_BYTES) {
                free(buf);
                fclose(fp);
                return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "kernel file '%s' is too large", spec);
            }
            unsigned char *nb = parac__realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                fclose(fp);
                return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "kernel file '%s': no memory", spec);
            }
            buf = nb;
        }
        size_t got = fread(buf + size, 1, cap - size, fp);
        size += got;
        if (got == 0) break;
    }
    int err = ferror(fp);
    fclose(fp);
    if (err) {
        free(buf);
        return parac__fail(PARAC_ERR_IO, "kernel file '%s': read error", spec);
    }
    parac_status st;
    if (size >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0) {
        st = parse_npy(buf, size, spec, k);
    } else {
        buf[size] = '\0';
        if (memchr(buf, '\0', size)) st = parac__fail(PARAC_ERR_FORMAT, "kernel file '%s': binary data, not text or .npy", spec);
        else st = parse_text((const char *)buf, spec, k);
    }
    free(buf);
    return st;
}
