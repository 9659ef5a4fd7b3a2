/* The registry operation "label": connected components, numbered in
 * raster order, with their count as the operation's result. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/error_internal.h"
#include "../core/neighbourhood.h"
#include "../core/registry_internal.h"
#include "label.h"
#include "parac/label.h"
#include "parac/op.h"
#include "parac/stats.h"

typedef struct label_params {
    int connectivity;  /* 0: full (8 / 26) */
    int equal_values;
    double background;
    int dtype;         /* DTYPE_* */
} label_params;

enum { DTYPE_AUTO, DTYPE_I32, DTYPE_I64 };

parac_status parac__label_check(const parac__label_spec *s, const parac_image *in, const parac_image *out)
{
    if (in->dtype != PARAC_U8 && in->dtype != PARAC_U16 && in->dtype != PARAC_I32 && in->dtype != PARAC_I64 &&
        in->dtype != PARAC_F32)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: the input is %s; u8, u16, i32, i64 or f32 is needed (see "
                           "'parac convert')", s->op, parac_dtype_name(in->dtype));
    if (in->channels != 1)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: the input has %d channels; one is needed", s->op, in->channels);
    const int is_3d = in->depth > 1;
    if (is_3d != parac__conn_is_3d(s->conn))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: connectivity %d is not valid for a %s (use %s)", s->op,
                           s->conn, is_3d ? "volume" : "2D image", is_3d ? "6, 18 or 26" : "4 or 8");
    if (in->width >= INT32_MAX || in->height >= INT32_MAX || in->depth >= INT32_MAX)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: a side of 2^31 pixels or more", s->op);
    if (out && ((out->dtype != PARAC_I32 && out->dtype != PARAC_I64) || out->width != in->width ||
                out->height != in->height || out->depth != in->depth || out->channels != 1))
        return parac__fail(PARAC_ERR_INTERNAL, "%s: the output is not the input's size in i32 or i64", s->op);
    return PARAC_OK;
}

static int64_t i32_max = INT32_MAX;

int64_t parac__label_i32_max(void) { return i32_max; }

void parac__label_set_i32_max(int64_t max) { i32_max = max > 0 && max < INT32_MAX ? max : INT32_MAX; }

parac_status parac__label_widen(const parac__label_spec *s, int64_t count, parac_image **out)
{
    if (!s->widen)
        return parac__fail(PARAC_ERR_OVERFLOW, "%s: %lld components do not fit the int32 labels (at most %lld)",
                           s->op, (long long)count, (long long)i32_max);
    return s->widen(s->widen_arg, out);
}

/* The labeller found more components than an i32 holds: the output becomes
 * i64 (--dtype auto), or the count is an error (--dtype i32). */
static parac_status widen_output(void *arg, parac_image **out)
{
    parac_op_call *call = arg;
    parac_image *old = call->outputs[0];
    if (((const label_params *)call->params)->dtype == DTYPE_I32)
        return parac__fail(PARAC_ERR_OVERFLOW, "%s: more components than the i32 labels asked for hold (at most "
                           "%lld): --dtype auto or i64 numbers them", call->op->name, (long long)i32_max);
    call->outputs[0] = NULL;
    const parac_status st = parac_call_output(call, 0, old->width, old->height, old->depth, 1, PARAC_I64, old->memory,
                                              old->device);
    if (st != PARAC_OK) {
        call->outputs[0] = old; /* the registry's to free */
        return st;
    }
    if (!call->given || old != call->given[0]) parac_image_destroy(old);
    *out = call->outputs[0];
    return PARAC_OK;
}

/* NaN has no equal: regions of equal value are undefined where one is. (The
 * CPU method finds NaN as it scans; on the GPU, the statistics do.) */
static parac_status no_nan(parac_op_call *call, const parac__label_spec *s, const parac_image *in)
{
    if (!s->equal_values || in->dtype != PARAC_F32 || call->method->backend != PARAC_BACKEND_CUDA) return PARAC_OK;
    parac_image_stats st;
    PARAC_TRY(parac_image_compute_stats(call->ctx, in, &st));
    if (st.nan_count[0] > 0)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: the image has %lld NaN value(s); regions of equal value "
                           "are undefined there (replace them first)", s->op, (long long)st.nan_count[0]);
    return PARAC_OK;
}

static parac_status label_run(parac_op_call *call)
{
    const label_params *p = call->params;
    const parac_image *in = call->inputs[0];
    parac__label_spec s = {call->op->name, p->connectivity, p->equal_values, p->background,
                           parac_context_threads(call->ctx), widen_output, call};
    if (!s.conn) s.conn = in->depth > 1 ? 26 : 8;
    PARAC_TRY(parac__label_check(&s, in, NULL));
    PARAC_TRY(no_nan(call, &s, in));
    const int cuda = call->method->backend == PARAC_BACKEND_CUDA;
    /* auto into a caller's i64 image: i64 from the start */
    const parac_image *given = call->given ? call->given[0] : NULL;
    const int wide = p->dtype == DTYPE_I64 || (p->dtype == DTYPE_AUTO && given && given->dtype == PARAC_I64);
    PARAC_TRY(parac_call_output(call, 0, in->width, in->height, in->depth, 1, wide ? PARAC_I64 : PARAC_I32,
                                cuda ? PARAC_MEMORY_CUDA : PARAC_MEMORY_HOST,
                                cuda ? parac_context_cuda_device(call->ctx) : -1));
    int64_t n = 0;
    const parac_status st = cuda ? parac__label_cuda(&s, in, call->outputs[0], &n, parac_context_stream(call->ctx))
                                 : parac__label_cpu(&s, in, call->outputs[0], &n);
    call->results[0] = (double)n;
    return st;
}

static parac_status label_choose(parac_op_call *call, const char **method, char *why, size_t why_size)
{
    const int cuda = parac_context_backend(call->ctx) == PARAC_BACKEND_CUDA;
    *method = cuda ? "union-find" : "runs";
    if (why_size)
        snprintf(why, why_size, cuda ? "the GPU's one method: tiles in shared memory, union-find across their faces"
                                     : "the CPU's one method: runs joined by union-find, a strip of rows per thread");
    return PARAC_OK;
}

/* Cells: blobs of several sizes and values, some touching, on a dark field. */
static parac_status cells_demo(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    (void)ctx;
    (void)args;
    PARAC_TRY(parac_image_create(&inputs[0], 480, 320, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    parac_image *im = inputs[0];
    for (int64_t y = 0; y < im->height; y++)
        for (int64_t x = 0; x < im->width; x++) {
            uint8_t v = 0;
            for (int k = 0; k < 40; k++) {
                const double cx = 20 + (k * 97) % 440, cy = 20 + (k * 53) % 280, r = 6 + (k * 7) % 17;
                if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r) v = 255;
            }
            *(uint8_t *)parac_image_at(im, x, y, 0) = v;
        }
    return PARAC_OK;
}

static const parac_param_spec label_params_table[] = {
    {"connectivity", PARAC_PARAM_INT, NULL, PARAC__CONNECTIVITIES, 4, 26,
     "neighbours: 4 or 8 (2D), 6, 18 or 26 (3D); default full (8 / 26), as scikit-image and OpenCV "
     "(scipy's default is 4 / 6)", PARAC_FIELD(label_params, connectivity)},
    {"equal-values", PARAC_PARAM_BOOL, "false", NULL, 0, 0,
     "label regions of equal value (scikit-image's measure.label) instead of the nonzero pixels (scipy's "
     "ndimage.label)", PARAC_FIELD(label_params, equal_values)},
    {"background", PARAC_PARAM_DOUBLE, "0", NULL, 0, 0,
     "with --equal-values: pixels of this value are background (label 0)", PARAC_FIELD(label_params, background)},
    {"dtype", PARAC_PARAM_CHOICE, "auto", "auto|i32|i64", 0, 0,
     "the labels' dtype: auto is i32, or i64 where more than 2^31 - 1 components need it; i32 makes that "
     "many an error", PARAC_FIELD(label_params, dtype)},
};

static const parac_result_spec label_results[] = {
    {"count", "the number of components: the labels are 1..count"},
};

parac_status parac__labelled_cells(parac_context *ctx, parac_image **labels, int64_t *count)
{
    parac_image *cells = NULL;
    *labels = NULL;
    PARAC_TRY(cells_demo(ctx, &cells, NULL));
    parac_status st = parac_label(ctx, cells, labels, count, NULL);
    parac_image_destroy(cells);
    PARAC_TRY(st);
    if ((*labels)->memory != PARAC_MEMORY_CUDA) return PARAC_OK;
    parac_image *host = NULL;
    st = parac_image_download(&host, *labels, 0, NULL);
    parac_image_destroy(*labels);
    *labels = host;
    return st;
}

static const parac_method label_methods[] = {
    {"runs", PARAC_BACKEND_CPU, label_run,
     "runs of each row joined with their neighbours' by union-find, a strip of rows per thread", NULL},
    {"union-find", PARAC_BACKEND_CUDA, label_run,
     "tiles labelled in shared memory, their faces joined by a global union-find (atomicMin), roots numbered "
     "in raster order by a scan", NULL},
};

const parac_op parac__op_label = {
    .name = "label",
    .summary = "connected components, numbered in raster order",
    .description =
        "Every connected component of the nonzero pixels gets a label 1..n, in the raster order of its first "
        "pixel, as scipy.ndimage.label numbers them; with --equal-values, of the regions of equal value that "
        "differ from --background, as skimage.measure.label. Background pixels are 0. Input u8, u16, i32 or "
        "f32, 2D or 3D; output i32, or i64 past 2^31 - 1 components (--dtype). The count n is printed. See "
        "docs/labels.md.",
    .usage_args = "IN OUT",
    .n_inputs = 1,
    .n_outputs = 1,
    .params = label_params_table,
    .n_params = sizeof label_params_table / sizeof label_params_table[0],
    .params_size = sizeof(label_params),
    .methods = label_methods,
    .n_methods = sizeof label_methods / sizeof label_methods[0],
    .results = label_results,
    .n_results = 1,
    .choose = label_choose,
    .demo = cells_demo,
    .demo_view = PARAC_DEMO_LABELS,
};

/* ---- typed API ------------------------------------------------------------------ */
parac_status parac_label(parac_context *ctx, const parac_image *in, parac_image **out, int64_t *count,
                         const parac_label_options *options)
{
    if (!out) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "label: out is NULL");
    *out = NULL;
    const parac_op *op = &parac__op_label;
    const parac_label_options o = options ? *options : (parac_label_options){0, 0, 0.0, NULL, 0};
    label_params p = {.connectivity = o.connectivity, .equal_values = o.equal_values != 0, .background = o.background,
                      .dtype = o.wide > 0 ? DTYPE_I64 : o.wide < 0 ? DTYPE_I32 : DTYPE_AUTO};
    uint64_t set = parac__param_bit(op, "equal-values") | parac__param_bit(op, "background") |
                   parac__param_bit(op, "dtype");
    if (o.connectivity) set |= parac__param_bit(op, "connectivity");
    double n = 0;
    parac_image *ins[1] = {(parac_image *)in};
    PARAC_TRY(parac__op_run_typed(ctx, op, ins, 1, out, 1, &p, set, o.method, &n, 1));
    if (count) *count = (int64_t)n;
    return PARAC_OK;
}
