/* The engines' tuning knobs from the environment (tuning.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context_internal.h"
#include "tuning.h"

static double bytes_of(const char *text)
{
    char *end;
    double v = strtod(text, &end);
    if (*end == 'K' || *end == 'k') v *= 1024.0;
    else if (*end == 'M' || *end == 'm') v *= 1048576.0;
    else if (*end == 'G' || *end == 'g') v *= 1073741824.0;
    return v > 0 ? v : 0;
}

/* An auto / always / never rule (0, 1, 2; unset: auto), 3 for anything else,
 * whose text is kept for the message where it is used. */
static int rule_of(const char *v, char *text, size_t size)
{
    if (!v || !*v) return 0;
    snprintf(text, size, "%s", v);
    return strcmp(v, "auto") == 0 ? 0 : strcmp(v, "always") == 0 ? 1 : strcmp(v, "never") == 0 ? 2 : 3;
}

void parac__tuning_read(parac__tuning *t)
{
    memset(t, 0, sizeof *t);
    const char *v = getenv("PARAC_CUDA_SPLIT");
    t->cuda_split = (parac__split_rule)rule_of(v, t->cuda_split_text, sizeof t->cuda_split_text);
    v = getenv("PARAC_PARALLEL_ROUNDS");
    t->parallel_rounds = v && strcmp(v, "strips") == 0 ? 0 : v && strcmp(v, "pipelined") == 0 ? 2 : 1;
    v = getenv("PARAC_SPLIT_LINK");
    t->split_link_copy = v && strcmp(v, "copy") == 0;
    v = getenv("PARAC_SPLIT_SHARE");
    if (v && atof(v) > 0.0 && atof(v) <= 4.0) t->split_share = atof(v);
    v = getenv("PARAC_CUDA_MEMORY_CAP");
    if (v && *v) t->cuda_memory_cap = bytes_of(v);
    v = getenv("PARAC_WAVEFRONT_BATCH");
    if (v && atoi(v) > 0) t->wavefront_batch = atoi(v);
    v = getenv("PARAC_STREAM");
    t->stream = (parac__stream_rule)rule_of(v, t->stream_text, sizeof t->stream_text);
    v = getenv("PARAC_STREAM_ROWS");
    if (v && atoll(v) > 0) t->stream_rows = atoll(v);
}

const parac__tuning *parac__context_tuning(const parac_context *ctx)
{
    static const parac__tuning defaults = {PARAC__SPLIT_AUTO, "", 1, 0, 0.0, 0.0, 0, PARAC__STREAM_AUTO, "", 0};
    return ctx ? &ctx->tuning : &defaults;
}
