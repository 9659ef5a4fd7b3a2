/* Shared pieces of the image readers and writers.
 *
 * Every reader decodes from memory (a file is mapped or read first), so
 * parac_image_read_memory() and parac_image_read() share one code path.
 * Every writer streams to an open temporary file; io_write.c renames it over
 * the destination only when the writer succeeded. */
#ifndef PARAC_IO_INTERNAL_H
#define PARAC_IO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "parac/io.h"

/* Decoded output above this many bytes must be backed by enough input:
 * a compressed stream cannot expand beyond a format-specific ratio, so a
 * tiny file claiming a huge image is rejected before anything is allocated. */
#define PARAC_IO_SMALL_OUTPUT ((int64_t)256 << 20)

typedef struct parac_io_reader_args {
    const uint8_t *data;
    size_t size;
    const parac_read_options *options; /* never NULL */
} parac_io_reader_args;

typedef parac_status (*parac_io_read_fn)(const parac_io_reader_args *args, parac_image **out);
/* `image` is packed or not, always in host memory; `path` is the destination
 * (for extension-dependent choices), `fd`/`file` the temporary file. */
typedef parac_status (*parac_io_write_fn)(FILE *file, int fd, const char *path,
                                          const parac_image *image,
                                          const parac_write_options *options);

parac_status parac__read_png(const parac_io_reader_args *args, parac_image **out);
parac_status parac__read_jpeg(const parac_io_reader_args *args, parac_image **out);
parac_status parac__read_tiff(const parac_io_reader_args *args, parac_image **out);
parac_status parac__read_pnm(const parac_io_reader_args *args, parac_image **out);
parac_status parac__read_npy(const parac_io_reader_args *args, parac_image **out);
parac_status parac__read_nrrd(const parac_io_reader_args *args, parac_image **out);

parac_status parac__write_png(FILE *file, int fd, const char *path, const parac_image *image,
                              const parac_write_options *options);
parac_status parac__write_jpeg(FILE *file, int fd, const char *path, const parac_image *image,
                               const parac_write_options *options);
parac_status parac__write_tiff(FILE *file, int fd, const char *path, const parac_image *image,
                               const parac_write_options *options);
parac_status parac__write_pnm(FILE *file, int fd, const char *path, const parac_image *image,
                              const parac_write_options *options);
parac_status parac__write_npy(FILE *file, int fd, const char *path, const parac_image *image,
                              const parac_write_options *options);
parac_status parac__write_nrrd(FILE *file, int fd, const char *path, const parac_image *image,
                               const parac_write_options *options);

/* Write a file atomically: `write` streams its content to a temporary file
 * in the destination's directory (file and fd are the same file), which is
 * renamed over `path` (or the file a symbolic link there points to) only
 * when `write` succeeded; a failure leaves nothing behind. */
typedef parac_status (*parac_io_stream_fn)(FILE *file, int fd, const void *user);
parac_status parac__io_write_atomic(const char *path, parac_io_stream_fn write, const void *user);

/* The format whose magic bytes start `data`, or PARAC_FORMAT_AUTO. */
parac_format parac__format_from_magic(const uint8_t *data, size_t size);

/* Fail unless a decoded size of `output_bytes` in `rows` rows is plausible
 * for `input_bytes` of input expanding at most `max_ratio` times. Small
 * images pass whatever the input; "small" counts the memory the image will
 * take, each row padded to PARAC_ROW_ALIGNMENT, so that a short file cannot
 * claim a narrow, tall image whose padding alone takes gigabytes. */
parac_status parac__io_check_expansion(int64_t output_bytes, int64_t rows, size_t input_bytes,
                                       double max_ratio, const char *what);

/* fwrite that records an I/O error. */
parac_status parac__io_write_all(FILE *file, const void *data, size_t bytes);

/* Copy row (y, z) of `image` into `dst` as packed pixels. */
void parac__io_pack_row(const parac_image *image, int64_t y, int64_t z, void *dst);

/* Copy an n-axis array between a byte stream and an image. Axis i (0 is the
 * slowest in the stream) has count[i] elements, `image_stride[i]` bytes apart
 * in the image; the stream is dense. Elements are `elem` bytes; `swap`
 * reverses the bytes of each element. */
typedef struct parac_io_axes {
    int n;
    int64_t count[5];
    int64_t image_stride[5];
} parac_io_axes;
void parac__io_stream_to_image(const parac_io_axes *axes, const uint8_t *stream, char *image,
                               size_t elem, int swap);
void parac__io_image_to_stream(const parac_io_axes *axes, const char *image, uint8_t *stream,
                               size_t elem, int swap);
/* The number of elements a parac_io_axes describes (no overflow: the image exists). */
int64_t parac__io_axes_elements(const parac_io_axes *axes);

int parac__host_is_little_endian(void);

#endif
