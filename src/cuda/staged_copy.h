/* Copies between pageable host memory and a GPU through pinned staging
 * buffers (staged_copy.c). */
#ifndef PARAC_STAGED_COPY_H
#define PARAC_STAGED_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "parac/status.h"

/* Whether a copy of `bytes` between dst and src goes through staging: one
 * side pageable host memory, the other a device, and at least
 * PARAC_STAGED_COPY_MIN bytes (default 16 MiB; 0 turns staging off). */
int parac__staged_copy_wanted(const void *dst, const void *src, size_t bytes);

/* The copy of parac__cuda_copy_rows through staging, synchronous; *done = 0
 * (and PARAC_OK) when it did not copy (both staging sets in use, a row
 * larger than a buffer): the caller then copies directly. */
parac_status parac__staged_copy_rows(void *dst, int64_t dst_pitch, const void *src, int64_t src_pitch,
                                     size_t row_bytes, size_t rows, void *stream, int *done);

#endif
