/* The registry operation "regionprops": a table of statistics of the
 * regions of a label image (regions.h gives the columns). */
#include <stdio.h>
#include <string.h>

#include "../core/error_internal.h"
#include "../core/registry_internal.h"
#include "label.h"
#include "parac/label.h"
#include "parac/op.h"
#include "parac/stats.h"
#include "regions.h"

static const char *const columns_2d[] = {"label",      "area",       "bbox-0",        "bbox-1",
                                         "bbox-2",     "bbox-3",     "centroid-0",    "centroid-1",
                                         "intensity_min", "intensity_max", "intensity_mean"};
static const char *const columns_3d[] = {"label",      "area",       "bbox-0",     "bbox-1",     "bbox-2",
                                         "bbox-3",     "bbox-4",     "bbox-5",     "centroid-0", "centroid-1",
                                         "centroid-2", "intensity_min", "intensity_max", "intensity_mean"};

int parac__regions_columns(int ndim, int with_intensity, const char **names, int max)
{
    const char *const *all = ndim == 3 ? columns_3d : columns_2d;
    const int n = (ndim == 3 ? 14 : 11) - (with_intensity ? 0 : 3);
    for (int i = 0; names && i < n && i < max; i++) names[i] = all[i];
    return n;
}

static int table_columns(int k, int ndim, int n_inputs, const char **names, int max)
{
    return k == 0 ? parac__regions_columns(ndim, n_inputs > 1, names, max) : 0;
}

parac_status parac__regions_check(const parac__regions_spec *s)
{
    const parac_image *l = s->labels, *in = s->intensity;
    if (l->dtype != PARAC_U8 && l->dtype != PARAC_U16 && l->dtype != PARAC_I32 && l->dtype != PARAC_I64)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: the labels are %s; u8, u16, i32 or i64 is needed",
                           s->op, parac_dtype_name(l->dtype));
    if (l->channels != 1)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: the labels have %d channels; one is needed", s->op, l->channels);
    if (!in) return PARAC_OK;
    if (in->dtype == PARAC_F64)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: the intensity image is f64; u8, u16, i32 or f32 is needed",
                           s->op);
    if (in->channels != 1)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: the intensity image has %d channels; one is needed", s->op,
                           in->channels);
    if (in->width != l->width || in->height != l->height || in->depth != l->depth)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: the intensity image is %lldx%lldx%lld, the labels "
                           "%lldx%lldx%lld; they must be the same size", s->op, (long long)in->width,
                           (long long)in->height, (long long)in->depth, (long long)l->width, (long long)l->height,
                           (long long)l->depth);
    /* exact integer sums: |value| < 2^31 over fewer than 2^32 pixels */
    if (in->dtype == PARAC_I32 && parac_image_pixel_count(in) >= ((int64_t)1 << 32))
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: an i32 intensity image of 2^32 pixels or more (convert it to "
                           "f32)", s->op);
    return PARAC_OK;
}

/* Minimum and maximum compare values: a NaN has no place among them. */
static parac_status no_nan(parac_op_call *call, const parac__regions_spec *s)
{
    if (!s->intensity || s->intensity->dtype != PARAC_F32) return PARAC_OK;
    parac_image_stats st;
    PARAC_TRY(parac_image_compute_stats(call->ctx, s->intensity, &st));
    if (st.nan_count[0] > 0)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: the intensity image has %lld NaN value(s); the "
                           "statistics are undefined there (replace them first)", s->op, (long long)st.nan_count[0]);
    return PARAC_OK;
}

static parac_status regions_run(parac_op_call *call)
{
    const parac__regions_spec s = {call->op->name, call->inputs[0], call->n_inputs > 1 ? call->inputs[1] : NULL,
                                   parac_context_threads(call->ctx)};
    PARAC_TRY(parac__regions_check(&s));
    PARAC_TRY(no_nan(call, &s));
    int64_t n = 0;
    const int cuda = call->method->backend == PARAC_BACKEND_CUDA;
    PARAC_TRY(cuda ? parac__regions_cuda(&s, &call->outputs[0], &n, parac_context_stream(call->ctx))
                   : parac__regions_cpu(&s, &call->outputs[0], &n));
    call->results[0] = (double)n;
    return PARAC_OK;
}

/* The cells of the label demo, labelled, and a gradient as intensity. */
static parac_status regions_demo(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    (void)args;
    int64_t n = 0;
    PARAC_TRY(parac__labelled_cells(ctx, &inputs[0], &n));
    const parac_image *lab = inputs[0];
    PARAC_TRY(parac_image_create(&inputs[1], lab->width, lab->height, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    for (int64_t y = 0; y < lab->height; y++)
        for (int64_t x = 0; x < lab->width; x++)
            *(uint8_t *)parac_image_at(inputs[1], x, y, 0) = (uint8_t)((x * 255) / (lab->width - 1));
    return PARAC_OK;
}

static parac_status regions_choose(parac_op_call *call, const char **method, char *why, size_t why_size)
{
    const int cuda = parac_context_backend(call->ctx) == PARAC_BACKEND_CUDA;
    *method = cuda ? "atomics" : "runs";
    if (why_size)
        snprintf(why, why_size, cuda ? "the GPU's one method: runs summed per thread, then per warp and block, "
                                       "then atomics per label"
                                     : "the CPU's one method: runs summed per strip of rows, the strips merged");
    return PARAC_OK;
}

static const parac_result_spec regions_results[] = {
    {"count", "the number of regions: the table's rows"},
};

static const parac_method regions_methods[] = {
    {"runs", PARAC_BACKEND_CPU, regions_run,
     "runs of equal labels summed at once, a strip of rows per thread into its own table, the tables merged", NULL},
    {"atomics", PARAC_BACKEND_CUDA, regions_run,
     "runs summed per thread, combined per warp and per block, then atomics into per-label sums; the table "
     "compacted by a scan", NULL},
};

const parac_op parac__op_regionprops = {
    .name = "regionprops",
    .summary = "statistics of labelled regions: area, bounding box, centroid, intensity",
    .description =
        "One row per label present in LABELS (u8, u16, i32 or i64; 0 is background), in increasing label order: "
        "label, area, bbox (the first coordinate on each axis, then the last + 1), centroid; with an INTENSITY "
        "image of the same size, its minimum, maximum and mean over the region. The columns are "
        "scikit-image's regionprops_table names (axis 0 first: z, y, x). TABLE is written as .csv, .json or "
        ".npy; the count of regions is printed. See docs/labels.md.",
    .usage_args = "LABELS [INTENSITY] TABLE",
    .n_inputs = 2,
    .n_optional_inputs = 1,
    .n_outputs = 1,
    .params_size = 0,
    .methods = regions_methods,
    .n_methods = sizeof regions_methods / sizeof regions_methods[0],
    .results = regions_results,
    .n_results = 1,
    .choose = regions_choose,
    .demo = regions_demo,
    .table_columns = table_columns,
};

/* ---- typed API ------------------------------------------------------------------ */
parac_status parac_regionprops(parac_context *ctx, const parac_image *labels, const parac_image *intensity,
                               parac_image **table, int64_t *count)
{
    if (!table) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "regionprops: table is NULL");
    *table = NULL;
    parac_image *ins[2] = {(parac_image *)labels, (parac_image *)intensity};
    double n = 0;
    PARAC_TRY(parac__op_run_typed(ctx, &parac__op_regionprops, ins, intensity ? 2 : 1, table, 1, NULL, 0, NULL, &n,
                                  1));
    if (count) *count = (int64_t)n;
    return PARAC_OK;
}
