/* Statistics of labelled regions (the operation "regionprops"): what the
 * operation (regions_op.c) and its methods on the CPU (regions_cpu.c) and
 * CUDA (cuda/regions_cuda.cu) share.
 *
 * A region is the set of pixels that carry one label l > 0 (connected or
 * not, as scikit-image's regionprops takes them). Its row of the table holds,
 * in this order (axis 0 is the slowest: z then y then x in a volume, y then x
 * in an image):
 *   label, area,
 *   bbox-0 .. bbox-(ndim-1)          the first coordinate on each axis,
 *   bbox-ndim .. bbox-(2 ndim - 1)   the last coordinate + 1,
 *   centroid-0 .. centroid-(ndim-1)  the mean coordinate,
 * and with an intensity image, intensity_min, intensity_max, intensity_mean:
 * scikit-image's regionprops_table names. Rows are in increasing label
 * order; labels that no pixel carries have none. Coordinate sums are exact
 * integers, so centroids equal scikit-image's bit for bit; so do the means
 * of integer intensities (exact sums). */
#ifndef PARAC_LABEL_REGIONS_H
#define PARAC_LABEL_REGIONS_H

#include <stdint.h>

#include "parac/image.h"
#include "parac/status.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { PARAC__REGION_MAX_COLUMNS = 17 };

typedef struct parac__regions_spec {
    const char *op;              /* for messages */
    const parac_image *labels;   /* u8, u16, i32 or i64, one channel; no negative labels */
    const parac_image *intensity; /* NULL, or the labels' size: u8, u16, i32 or f32, no NaN */
    int threads;                 /* CPU threads */
} parac__regions_spec;

/* The table's column count and names for `ndim` dimensions, with or
 * without intensity columns; names may be NULL. */
int parac__regions_columns(int ndim, int with_intensity, const char **names, int max);

/* Check the inputs (dtypes, sizes, channels). */
parac_status parac__regions_check(const parac__regions_spec *s);

/* CPU: images in host memory. *table: a new f64 host image of
 * max(*count, 1) rows; *count: the regions. */
parac_status parac__regions_cpu(const parac__regions_spec *s, parac_image **table, int64_t *count);

/* CUDA: images on one device; *table: a new device image of max(*count, 1)
 * rows (builds without CUDA: label_nocuda.c). */
parac_status parac__regions_cuda(const parac__regions_spec *s, parac_image **table, int64_t *count, void *stream);

/* The pixels of every label 0..n of `labels` (u8, u16, i32 or i64; n at least
 * its largest label, which callers know from labelling or from
 * parac__largest_label_*): areas[l] for l = 1..n, areas[0] = 0. CPU: a host
 * array; CUDA: a device array of n + 1 counts on the labels' device. */
parac_status parac__region_areas_cpu(const parac_image *labels, int threads, int64_t n, uint64_t *areas);
parac_status parac__region_areas_cuda(const parac_image *labels, int64_t n, uint64_t *areas, void *stream);

/* The largest label; a negative label is an error naming `op`, and so is
 * one too large for tables indexed by label (CPU: past 2^31 - 1 and the
 * pixel count; CUDA: past 2^31 - 2, its 32-bit index). */
parac_status parac__largest_label_cpu(const char *op, const parac_image *labels, int threads, int64_t *n);
parac_status parac__largest_label_cuda(const char *op, const parac_image *labels, int64_t *n, void *stream);

#ifdef __cplusplus
}
#endif

#endif
