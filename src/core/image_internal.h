/* Internal helpers around parac_image. */
#ifndef PARAC_IMAGE_INTERNAL_H
#define PARAC_IMAGE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "parac/image.h"
#include "parac/status.h"

/* a * b into *out, failing with PARAC_ERR_OVERFLOW when it does not fit in
 * a non-negative int64_t. */
parac_status parac__mul64(int64_t a, int64_t b, int64_t *out);
/* Round `value` up to a multiple of `alignment` (a power of two), with overflow check. */
parac_status parac__align64(int64_t value, int64_t alignment, int64_t *out);
/* Check the dimensions and channel count of a would-be image. */
parac_status parac__check_geometry(int64_t width, int64_t height, int64_t depth, int channels,
                                   parac_dtype dtype);
/* The images have the same width, height, depth, channels and dtype. */
int parac__same_shape(const parac_image *a, const parac_image *b);
/* Rows and slices lie back to back: the image is one block of height*depth rows. */
int parac__rows_contiguous(const parac_image *image);
/* Host memory of `bytes` on 2 MiB boundaries with transparent huge pages
 * advised, for large buffers that are written whole at once: a fresh
 * mapping then costs one fault per 2 MiB instead of one per 4 KiB. Released
 * with free(); NULL when out of memory. */
void *parac__host_alloc_huge(size_t bytes);
/* parac__host_alloc_huge without the failure tests' countdown (for callers
 * that counted the request already). */
void *parac__host_map_huge(size_t bytes);
/* Host blocks of this size and more get huge pages and are kept between
 * calls (host images and scratch arrays alike); smaller ones come from the
 * heap, already mapped. */
#define PARAC__HUGE_MIN ((size_t)4 << 20)
/* Scratch arrays that many threads fill at once (runs, grids): huge pages
 * from PARAC__HUGE_MIN on (the faults of a fresh 75 MiB array serialise 16
 * threads in the kernel), parac__malloc below. Released with free(). */
void *parac__host_alloc_scratch(size_t bytes);
/* The same, kept between calls (host_cache.c; the pixels of host images of
 * PARAC__HUGE_MIN and more too): take a block of at least `bytes`, give it
 * back with the same `bytes` when done (NULL is ignored);
 * parac__kept_blocks_trim() frees the blocks kept. A block taken again holds
 * its last user's bytes (junk in debug builds). */
void *parac__kept_block_take(size_t bytes);
void parac__kept_block_give(void *p, size_t bytes);
void parac__kept_blocks_trim(void);

#endif
