/* parac_image_write: choose the writer, download device images, and write
 * atomically through a temporary file in the destination's directory. */
#define _DEFAULT_SOURCE /* realpath */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc_internal.h"
#include "core/error_internal.h"
#include "io_internal.h"

static parac_io_write_fn writer_for(parac_format format)
{
    switch (format) {
    case PARAC_FORMAT_PNG: return parac__write_png;
    case PARAC_FORMAT_JPEG: return parac__write_jpeg;
    case PARAC_FORMAT_TIFF: return parac__write_tiff;
    case PARAC_FORMAT_PNM: return parac__write_pnm;
    case PARAC_FORMAT_NPY: return parac__write_npy;
    case PARAC_FORMAT_NRRD: return parac__write_nrrd;
    default: return NULL;
    }
}

/* The process umask, read without changing it (umask() itself is racy). */
static mode_t current_umask(void)
{
    mode_t mask = 022;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return mask;
    char line[256];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "Umask:", 6) == 0) {
            mask = (mode_t)strtoul(line + 6, NULL, 8);
            break;
        }
    fclose(f);
    return mask;
}

static parac_status check_options(const parac_write_options *o)
{
    if (o->jpeg_quality < 0 || o->jpeg_quality > 100)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "JPEG quality must be 1..100 (0 = 95), got %d",
                           o->jpeg_quality);
    if (o->png_compression < -1 || o->png_compression > 9)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                           "PNG compression must be 0..9 (-1 = default), got %d", o->png_compression);
    return PARAC_OK;
}

static parac_status write_through_temporary(const char *path, parac_io_stream_fn write, const void *user)
{
    size_t len = strlen(path);
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dir_len;
    if (!*base) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "'%s' names a directory", path);
    char *tmp = parac__malloc(len + 16);
    if (!tmp) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    memcpy(tmp, path, dir_len);
    snprintf(tmp + dir_len, len + 16 - dir_len, ".%s.XXXXXX", base);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return parac__fail(PARAC_ERR_IO, "cannot create a file next to '%s': %s", path,
                           strerror(e));
    }
    FILE *file = fdopen(fd, "w+b");
    if (!file) {
        int e = errno;
        close(fd);
        unlink(tmp);
        free(tmp);
        return parac__fail(PARAC_ERR_IO, "cannot open a temporary file: %s", strerror(e));
    }
    parac_status st = write(file, fd, user);
    if (st == PARAC_OK && fflush(file) != 0)
        st = parac__fail(PARAC_ERR_IO, "write failed: %s", strerror(errno));
    if (st == PARAC_OK && fchmod(fd, 0666 & ~current_umask()) != 0)
        st = parac__fail(PARAC_ERR_IO, "cannot set permissions: %s", strerror(errno));
    if (fclose(file) != 0 && st == PARAC_OK)
        st = parac__fail(PARAC_ERR_IO, "write failed: %s", strerror(errno));
    if (st == PARAC_OK && rename(tmp, path) != 0)
        st = parac__fail(PARAC_ERR_IO, "cannot rename the finished file to '%s': %s", path,
                         strerror(errno));
    if (st != PARAC_OK) unlink(tmp);
    free(tmp);
    return st;
}

parac_status parac__io_write_atomic(const char *path, parac_io_stream_fn write, const void *user)
{
    /* through a symbolic link, replace the file it points to, not the link */
    struct stat lsb;
    char *resolved = NULL;
    if (lstat(path, &lsb) == 0 && S_ISLNK(lsb.st_mode)) resolved = realpath(path, NULL);
    const parac_status st = write_through_temporary(resolved ? resolved : path, write, user);
    free(resolved);
    return st;
}

typedef struct image_job {
    const char *path;
    const parac_image *image;
    const parac_write_options *options;
    parac_io_write_fn writer;
} image_job;

static parac_status write_image(FILE *file, int fd, const void *user)
{
    const image_job *j = user;
    return j->writer(file, fd, j->path, j->image, j->options);
}

parac_status parac_image_write(const char *path, const parac_image *image,
                               const parac_write_options *options)
{
    if (!path || !image) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "NULL path or image");
    parac_write_options defaults = {.png_compression = -1};
    if (!options) options = &defaults;
    parac_status st = check_options(options);
    parac_format format = options->format;
    if (st == PARAC_OK && format == PARAC_FORMAT_AUTO)
        st = parac_format_from_extension(path, &format);
    parac_io_write_fn writer = st == PARAC_OK ? writer_for(format) : NULL;
    if (st == PARAC_OK && !writer)
        st = parac__fail(PARAC_ERR_INVALID_ARGUMENT, "invalid format %d", (int)format);
    if (st != PARAC_OK) return parac__wrap(st, "writing '%s'", path);

    parac_image *host = NULL;
    if (image->memory == PARAC_MEMORY_CUDA) {
        st = parac_image_download(&host, image, 0, NULL);
        if (st != PARAC_OK) return parac__wrap(st, "writing '%s'", path);
        image = host;
    }
    const image_job job = {path, image, options, writer};
    st = parac__io_write_atomic(path, write_image, &job);
    parac_image_destroy(host);
    if (st != PARAC_OK) return parac__wrap(st, "writing '%s' as %s", path, parac_format_name(format));
    return PARAC_OK;
}
