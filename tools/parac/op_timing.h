/* Timing one registry operation with its inputs resident on the device; used
 * by `parac demo` and `parac bench`. */
#ifndef PARAC_OP_TIMING_H
#define PARAC_OP_TIMING_H

#include "parac/parac.h"

typedef struct op_timing {
    double median_ms, min_ms; /* per run, synchronised, data on the device */
    double upload_ms;         /* moving the inputs to the device once */
    char method[512];         /* the --explain text */
    double results[PARAC_MAX_RESULTS]; /* the operation's numbers (label: the count) */
} op_timing;

/* Upload `inputs` (host), run once to warm up, then `runs` timed runs; the
 * outputs of the last run are returned in `outputs` (on the device). */
parac_status cli_time_op(parac_context *ctx, const parac_op *op, parac_image **inputs,
                         const parac_args *args, int runs, parac_image **outputs, op_timing *t);

#endif
