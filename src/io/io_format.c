/* Format names, magic bytes and extensions. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/error_internal.h"
#include "io_internal.h"

static const struct {
    parac_format format;
    const char *name;
} format_names[] = {
    {PARAC_FORMAT_PNG, "png"},   {PARAC_FORMAT_JPEG, "jpeg"}, {PARAC_FORMAT_TIFF, "tiff"},
    {PARAC_FORMAT_PNM, "pnm"},   {PARAC_FORMAT_NPY, "npy"},   {PARAC_FORMAT_NRRD, "nrrd"},
};

static const struct {
    const char *ext;
    parac_format format;
} extensions[] = {
    {"png", PARAC_FORMAT_PNG},  {"jpg", PARAC_FORMAT_JPEG},  {"jpeg", PARAC_FORMAT_JPEG},
    {"jpe", PARAC_FORMAT_JPEG}, {"jfif", PARAC_FORMAT_JPEG}, {"tif", PARAC_FORMAT_TIFF},
    {"tiff", PARAC_FORMAT_TIFF}, {"pgm", PARAC_FORMAT_PNM},  {"ppm", PARAC_FORMAT_PNM},
    {"pnm", PARAC_FORMAT_PNM},  {"npy", PARAC_FORMAT_NPY},   {"nrrd", PARAC_FORMAT_NRRD},
    {"nhdr", PARAC_FORMAT_NRRD},
};

#define SUPPORTED_EXTENSIONS ".png, .jpg/.jpeg, .tif/.tiff, .pgm/.ppm/.pnm, .npy, .nrrd"

const char *parac_format_name(parac_format format)
{
    for (size_t i = 0; i < sizeof format_names / sizeof format_names[0]; i++)
        if (format_names[i].format == format) return format_names[i].name;
    return format == PARAC_FORMAT_AUTO ? "auto" : "invalid";
}

parac_status parac_format_from_name(const char *name, parac_format *format)
{
    if (!name || !format) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "NULL argument");
    if (strcasecmp(name, "auto") == 0) {
        *format = PARAC_FORMAT_AUTO;
        return PARAC_OK;
    }
    for (size_t i = 0; i < sizeof format_names / sizeof format_names[0]; i++)
        if (strcasecmp(name, format_names[i].name) == 0) {
            *format = format_names[i].format;
            return PARAC_OK;
        }
    for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++)
        if (strcasecmp(name, extensions[i].ext) == 0) {
            *format = extensions[i].format;
            return PARAC_OK;
        }
    return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                       "unknown image format '%s' (known: png, jpeg, tiff, pnm, npy, nrrd)", name);
}

parac_format parac__format_from_magic(const uint8_t *d, size_t n)
{
    if (n >= 8 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0) return PARAC_FORMAT_PNG;
    if (n >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) return PARAC_FORMAT_JPEG;
    if (n >= 4 && ((d[0] == 'I' && d[1] == 'I' && (d[2] == 42 || d[2] == 43) && d[3] == 0) ||
                   (d[0] == 'M' && d[1] == 'M' && d[2] == 0 && (d[3] == 42 || d[3] == 43))))
        return PARAC_FORMAT_TIFF;
    if (n >= 6 && memcmp(d, "\x93NUMPY", 6) == 0) return PARAC_FORMAT_NPY;
    if (n >= 7 && memcmp(d, "NRRD000", 7) == 0) return PARAC_FORMAT_NRRD;
    /* P1..P7 followed by white space; the PNM reader says which it cannot read */
    if (n >= 3 && d[0] == 'P' && d[1] >= '1' && d[1] <= '7' &&
        (d[2] == ' ' || d[2] == '\t' || d[2] == '\n' || d[2] == '\r' || d[2] == '#'))
        return PARAC_FORMAT_PNM;
    return PARAC_FORMAT_AUTO;
}

static const char *extension_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? dot + 1 : NULL;
}

parac_status parac_format_from_extension(const char *path, parac_format *format)
{
    if (!path || !format) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "NULL argument");
    const char *ext = extension_of(path);
    if (ext)
        for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++)
            if (strcasecmp(ext, extensions[i].ext) == 0) {
                *format = extensions[i].format;
                return PARAC_OK;
            }
    if (!ext)
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "'%s' has no file extension to choose an image format by; use one of "
                           SUPPORTED_EXTENSIONS, path);
    return parac__fail(PARAC_ERR_UNSUPPORTED,
                       "unknown image file extension '.%s' in '%s'; supported: " SUPPORTED_EXTENSIONS,
                       ext, path);
}

parac_status parac_format_detect(const char *path, parac_format *format)
{
    if (!path || !format) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "NULL argument");
    FILE *f = fopen(path, "rb");
    if (!f) return parac__fail(PARAC_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    uint8_t head[16];
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    parac_format found = parac__format_from_magic(head, n);
    if (found != PARAC_FORMAT_AUTO) {
        *format = found;
        return PARAC_OK;
    }
    if (parac_format_from_extension(path, &found) == PARAC_OK) {
        *format = found;
        return PARAC_OK;
    }
    return parac__fail(PARAC_ERR_FORMAT,
                       "'%s' is not a recognised image file (no known magic bytes or extension; "
                       "supported: " SUPPORTED_EXTENSIONS ")", path);
}
