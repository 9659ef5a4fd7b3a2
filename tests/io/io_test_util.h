/* Helpers shared by the I/O unit tests. */
#ifndef PARAC_IO_TEST_UTIL_H
#define PARAC_IO_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "parac/parac.h"

/* Every element of a and b is equal (shape included). */
int io_images_equal(const parac_image *a, const parac_image *b);
/* The largest absolute difference over all elements (shapes must match). */
double io_max_abs_diff(const parac_image *a, const parac_image *b);
/* A new host image filled with random values. */
parac_image *io_random_image(int64_t w, int64_t h, int64_t d, int c, parac_dtype t, uint64_t seed);
/* The whole content of a file (malloc'd), or NULL. */
uint8_t *io_slurp(const char *path, size_t *size);
/* Write bytes to a file. */
void io_spit(const char *path, const void *data, size_t size);
/* Files of this extension cannot be tested in this build (TIFF without libtiff). */
int io_skip_ext(const char *ext);
/* The number of entries of the scratch folder whose name starts with `prefix`. */
int io_count_files(const char *prefix);

#endif
