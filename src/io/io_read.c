/* parac_image_read / parac_image_read_memory: find the format, hand the
 * bytes to its reader, and name the source in any failure. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc_internal.h"
#include "core/error_internal.h"
#include "io_internal.h"

static parac_io_read_fn reader_for(parac_format format)
{
    switch (format) {
    case PARAC_FORMAT_PNG: return parac__read_png;
    case PARAC_FORMAT_JPEG: return parac__read_jpeg;
    case PARAC_FORMAT_TIFF: return parac__read_tiff;
    case PARAC_FORMAT_PNM: return parac__read_pnm;
    case PARAC_FORMAT_NPY: return parac__read_npy;
    case PARAC_FORMAT_NRRD: return parac__read_nrrd;
    default: return NULL;
    }
}

/* Decode `size` bytes; `path` (or NULL for memory) only chooses by extension. */
static parac_status decode(const uint8_t *data, size_t size, const char *path,
                           const parac_read_options *options, parac_image **out)
{
    parac_read_options defaults = {0};
    if (!options) options = &defaults;
    if (options->layout < PARAC_LAYOUT_AUTO || options->layout > PARAC_LAYOUT_DHW)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "invalid layout %d", (int)options->layout);
    parac_format format = options->format;
    if (format == PARAC_FORMAT_AUTO) format = parac__format_from_magic(data, size);
    if (format == PARAC_FORMAT_AUTO && path && parac_format_from_extension(path, &format) != PARAC_OK)
        format = PARAC_FORMAT_AUTO;
    if (size == 0) return parac__fail(PARAC_ERR_FORMAT, "the input is empty");
    parac_io_read_fn reader = reader_for(format);
    if (!reader)
        return parac__fail(PARAC_ERR_FORMAT,
                           "not a recognised image (no PNG, JPEG, TIFF, PNM, NPY or NRRD "
                           "signature%s)", path ? " and no known extension" : "");
    parac_io_reader_args args = {data, size, options};
    return reader(&args, out);
}

parac_status parac_image_read_memory(const void *data, size_t size,
                                     const parac_read_options *options, parac_image **out)
{
    if (!out) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = NULL;
    if (!data && size) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "data is NULL");
    parac_status st = decode(data ? data : (const void *)"", size, NULL, options, out);
    if (st != PARAC_OK) return parac__wrap(st, "reading an image from memory");
    return PARAC_OK;
}

/* The whole of a non-regular file (a pipe): read until the end. */
static parac_status slurp(int fd, uint8_t **data, size_t *size)
{
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = parac__malloc(cap);
    if (!buf) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    for (;;) {
        if (n == cap) {
            uint8_t *bigger = cap > SIZE_MAX / 2 ? NULL : parac__realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
            }
            buf = bigger;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            return parac__fail(PARAC_ERR_IO, "read failed: %s", strerror(e));
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    *data = buf;
    *size = n;
    return PARAC_OK;
}

parac_status parac_image_read(const char *path, const parac_read_options *options,
                              parac_image **out)
{
    if (!out) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = NULL;
    if (!path) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "path is NULL");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return parac__fail(PARAC_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return parac__fail(PARAC_ERR_IO, "cannot stat '%s': %s", path, strerror(e));
    }
    if (S_ISDIR(sb.st_mode)) {
        close(fd);
        return parac__fail(PARAC_ERR_IO, "'%s' is a directory, not an image file", path);
    }
    const uint8_t *data = NULL;
    uint8_t *owned = NULL;
    size_t size = 0, mapped = 0;
    parac_status st = PARAC_OK;
    if (S_ISREG(sb.st_mode) && sb.st_size > 0 && (uint64_t)sb.st_size <= SIZE_MAX) {
        void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            data = p;
            size = mapped = (size_t)sb.st_size;
        }
    }
    if (!data && !(S_ISREG(sb.st_mode) && sb.st_size == 0)) {
        st = slurp(fd, &owned, &size);
        data = owned;
    }
    close(fd);
    if (st == PARAC_OK) st = decode(data ? data : (const uint8_t *)"", size, path, options, out);
    if (mapped) munmap((void *)data, mapped);
    free(owned);
    if (st != PARAC_OK) return parac__wrap(st, "reading '%s'", path);
    return PARAC_OK;
}
