/* Reading and writing images.
 *
 * Formats: PNG (8/16-bit gray, gray+alpha, RGB, RGBA), JPEG (8-bit gray/RGB),
 * TIFF (8/16-bit integer and 32-bit float, 1-4 samples; a multi-page TIFF is
 * a 3D volume), PGM/PPM (P2, P3, P5, P6, 8 and 16 bit), NumPy .npy (2D-4D,
 * every parac dtype, C and Fortran order, either byte order) and NRRD (raw
 * or gzip, 2D/3D with an optional channel axis). The format is found from the
 * file's magic bytes, then from its extension.
 *
 * .npy axis rule: (H,W) is a 2D gray image; (H,W,C) and (D,H,W) are told
 * apart by the last axis: a last axis of 1..4 means channels (H,W,C),
 * anything else means a volume (D,H,W); (D,H,W,C) is a volume with channels.
 * parac_read_options.layout overrides the rule.
 *
 * Writing is atomic: the data goes to a temporary file in the destination's
 * directory, which is renamed over the destination only when complete. A
 * failed read or write leaves no output file behind. */
#ifndef PARAC_IO_H
#define PARAC_IO_H

#include <stddef.h>

#include "parac/export.h"
#include "parac/image.h"
#include "parac/status.h"

PARAC_BEGIN_DECLS

typedef enum parac_format {
    PARAC_FORMAT_AUTO = 0,
    PARAC_FORMAT_PNG,
    PARAC_FORMAT_JPEG,
    PARAC_FORMAT_TIFF,
    PARAC_FORMAT_PNM,
    PARAC_FORMAT_NPY,
    PARAC_FORMAT_NRRD
} parac_format;

typedef enum parac_layout {
    PARAC_LAYOUT_AUTO = 0, /* the documented rule above */
    PARAC_LAYOUT_HWC,      /* a 3-axis array is (H, W, C) */
    PARAC_LAYOUT_DHW       /* a 3-axis array is (D, H, W) */
} parac_layout;

typedef struct parac_read_options {
    parac_format format;   /* AUTO: magic bytes, then extension */
    parac_layout layout;   /* .npy / NRRD axis interpretation */
    int row;               /* a 1-axis .npy array reads as one row (1 x N): a table of entries */
} parac_read_options;

typedef struct parac_write_options {
    parac_format format;   /* AUTO: from the extension */
    int jpeg_quality;      /* 1..100, 0 = 95 */
    int png_compression;   /* 0..9, -1 = default (6) */
    int pnm_ascii;         /* write P2/P3 instead of P5/P6 */
    int nrrd_gzip;         /* gzip the NRRD data */
    int npy_fortran_order; /* write a Fortran-order .npy */
    int tiff_compress;     /* deflate-compress TIFF strips */
} parac_write_options;

PARAC_API const char *parac_format_name(parac_format format); /* "png", ... */
PARAC_API parac_status parac_format_from_name(const char *name, parac_format *format);
/* Which format a file is, by magic bytes, then extension. */
PARAC_API parac_status parac_format_detect(const char *path, parac_format *format);
/* Which format a file name asks for, by extension only (for writing). */
PARAC_API parac_status parac_format_from_extension(const char *path, parac_format *format);

/* Read a file into a new host image. `options` may be NULL. */
PARAC_API parac_status parac_image_read(const char *path, const parac_read_options *options,
                                        parac_image **out);
/* Read from memory (format must be detectable from the bytes, or given). */
PARAC_API parac_status parac_image_read_memory(const void *data, size_t size,
                                               const parac_read_options *options,
                                               parac_image **out);
/* Write an image (any residency: device images are downloaded first).
 * `options` may be NULL. A dtype, channel count or depth the format cannot
 * store is an error that names what would work. */
PARAC_API parac_status parac_image_write(const char *path, const parac_image *image,
                                         const parac_write_options *options);

/* Write the first `rows` rows of a table (an f64 image of one channel, one
 * row per record, one column per field, as operations with table outputs
 * return it: parac/op.h) under its column names, by the extension: .csv (a
 * header line, then a line per row), .json (an object of columns, {"name":
 * [values], ...}) or .npy (a rows x columns float64 array; the names are the
 * operation's documented order). Numbers are written so that they read back
 * exactly. Atomic, as images are. */
PARAC_API parac_status parac_table_write(const char *path, const parac_image *table, int64_t rows,
                                         const char *const *columns, int n_columns);

PARAC_END_DECLS

#endif
