/* Which calls on images in host memory run through a GPU in bands streamed in
 * and out (src/cuda/stream_rows.c), and in bands of how many rows. */
#include <string.h>

#include "context_internal.h"
#include "error_internal.h"
#include "registry_internal.h"

/* Streamed from this many bytes of input (3 bands of the smallest size)... */
#define STREAM_MIN_BYTES ((int64_t)48 << 20)
/* ...in bands of an eighth of the input, within these bounds: below 16 MiB a
 * band's copy is too small for the staged copies (src/cuda/staged_copy.c);
 * above 64 MiB the first band's copy in and the last one's out, which
 * nothing overlaps, grow. */
#define BAND_MIN_BYTES ((int64_t)16 << 20)
#define BAND_MAX_BYTES ((int64_t)64 << 20)

int64_t parac__stream_band_count(int64_t extent, int64_t rows)
{
    return rows >= extent ? 1 : extent / rows;
}

static int same_shape(const parac_image *a, const parac_image *b)
{
    return a->width == b->width && a->height == b->height && a->depth == b->depth;
}

parac_status parac__stream_plan_make(parac_op_call *call, parac__stream_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    const parac_context *ctx = call->ctx;
    const parac__tuning *t = &ctx->tuning;
    if (t->stream == PARAC__STREAM_MALFORMED)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "PARAC_STREAM is '%s': always, never or auto",
                           t->stream_text);
    if (ctx->backend != PARAC_BACKEND_CUDA || !call->method->row_reach || t->stream == PARAC__STREAM_NEVER ||
        call->op->n_results > 0 || call->n_inputs < 1)
        return PARAC_OK;
    const parac_image *first = call->inputs[0];
    int64_t row_bytes = 0; /* the inputs' bytes per row (slice) of the streamed axis */
    const int volume = first->depth > 1;
    for (int i = 0; i < call->n_inputs; i++) {
        const parac_image *in = call->inputs[i];
        if (in->memory == PARAC_MEMORY_CUDA || !parac_image_is_packed(in) || !same_shape(in, first)) return PARAC_OK;
        row_bytes += (int64_t)parac_image_row_bytes(in) * (volume ? in->height : 1);
    }
    const int64_t extent = volume ? first->depth : first->height;
    const int64_t total = row_bytes * extent;
    const int forced = t->stream == PARAC__STREAM_ALWAYS || t->stream_rows > 0;
    if (!forced && total < STREAM_MIN_BYTES) return PARAC_OK;
    int64_t reach = -1;
    PARAC_TRY(call->method->row_reach(call, &reach));
    if (reach < 0) return PARAC_OK;
    int64_t rows = t->stream_rows;
    if (rows <= 0) {
        int64_t band = total / 8;
        band = band < BAND_MIN_BYTES ? BAND_MIN_BYTES : band > BAND_MAX_BYTES ? BAND_MAX_BYTES : band;
        rows = band / (row_bytes > 0 ? row_bytes : 1);
        if (rows < 8 * reach) rows = 8 * reach; /* the rows computed twice stay few */
    }
    /* a volume's band of one slice would be an image, which the methods
     * filter as one (no third axis) */
    if (rows < (volume ? 2 : 1)) rows = volume ? 2 : 1;
    const int64_t bands = parac__stream_band_count(extent, rows);
    if (bands < 2 && !forced) return PARAC_OK; /* nothing to overlap */
    plan->reach = reach;
    plan->rows = rows;
    plan->bands = bands;
    return PARAC_OK;
}
