/* Table lookup (the operation "lookup"): out = table[index] per pixel. What
 * the operation (lookup_op.c) and its methods on the CPU (lookup_cpu.c) and
 * CUDA (cuda/lookup_cuda.cu) share. The relabelling step of the chunked
 * labelling, marking and numbering: a block's labels through the table the
 * merge of the chunks decided. */
#ifndef PARAC_LABEL_LOOKUP_H
#define PARAC_LABEL_LOOKUP_H

#include <stdint.h>

#include "parac/image.h"
#include "parac/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct parac__lookup_spec {
    const char *op; /* for messages */
    int threads;    /* CPU threads */
} parac__lookup_spec;

/* Where an index fell outside the table: the first such pixel in raster
 * order (found = 1) and its value. */
typedef struct parac__lookup_miss {
    int found;
    int64_t x, y, z;
    int64_t value;
} parac__lookup_miss;

/* out (index's size, table's dtype) = table[index]; index u8, u16, i32 or
 * i64, one channel; table one row of one channel, its entries in x. An index
 * below 0 or at or past the table's width fills *miss and the call fails
 * (out's pixels are then unspecified). */
parac_status parac__lookup_cpu(const parac__lookup_spec *s, const parac_image *index, const parac_image *table,
                               parac_image *out, parac__lookup_miss *miss);
parac_status parac__lookup_cuda(const parac__lookup_spec *s, const parac_image *index, const parac_image *table,
                                parac_image *out, parac__lookup_miss *miss, void *stream);

#ifdef __cplusplus
}
#endif

#endif
