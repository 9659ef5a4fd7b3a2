/* Tuning knobs of the engines, read from the environment once, when a
 * context is created (measurements and tests set them; docs/architecture.md
 * lists them). Engines get them from the context through their specs, and
 * never read the environment themselves. */
#ifndef PARAC_TUNING_H
#define PARAC_TUNING_H

#include <stdint.h>

#include "parac/context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The auto / always / never rules share their values (tuning.c's rule_of). */
typedef enum parac__split_rule {
    PARAC__SPLIT_AUTO = 0, /* split an image over several devices from 2^26 pixels */
    PARAC__SPLIT_ALWAYS,
    PARAC__SPLIT_NEVER,
    PARAC__SPLIT_MALFORMED /* PARAC_CUDA_SPLIT holds something else: an error where it is used */
} parac__split_rule;

typedef enum parac__stream_rule {
    PARAC__STREAM_AUTO = 0, /* host images of 48 MiB and more, in bands of 16-64 MiB */
    PARAC__STREAM_ALWAYS,
    PARAC__STREAM_NEVER,
    PARAC__STREAM_MALFORMED /* PARAC_STREAM holds something else: an error where it is used */
} parac__stream_rule;

typedef struct parac__tuning {
    parac__split_rule cuda_split;   /* PARAC_CUDA_SPLIT: auto, always, never */
    char cuda_split_text[32];       /* its text, for the message when malformed */
    int parallel_rounds;            /* PARAC_PARALLEL_ROUNDS: 0 "strips", 2 "pipelined", 1 the rule */
    int split_link_copy;            /* PARAC_SPLIT_LINK=copy: strips on a peer device staged by copies */
    double split_share;             /* PARAC_SPLIT_SHARE in (0, 4]: a peer worker's share of rows; 0: measured */
    double cuda_memory_cap;         /* PARAC_CUDA_MEMORY_CAP in bytes (K, M, G suffixes); 0: none */
    int wavefront_batch;            /* PARAC_WAVEFRONT_BATCH: rounds queued per look from the host; 0: adaptive */
    parac__stream_rule stream;      /* PARAC_STREAM: host images through a GPU in bands: auto, always, never */
    char stream_text[32];           /* its text, for the message when malformed */
    int64_t stream_rows;            /* PARAC_STREAM_ROWS: a band's rows (implies always); 0: chosen */
} parac__tuning;

/* The knobs as the environment sets them now. */
void parac__tuning_read(parac__tuning *t);
/* The context's knobs (the defaults when ctx is NULL). */
const parac__tuning *parac__context_tuning(const parac_context *ctx);

#ifdef __cplusplus
}
#endif

#endif
