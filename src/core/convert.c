/* The "convert" operation: dtype and channel-count conversion with a
 * documented scaling rule (docs/convert.md). */
#include <string.h>

#include "convert_internal.h"
#include "error_internal.h"
#include "parac/op.h"
#include "parac/stats.h"
#include "pixel_math.h"

typedef struct convert_params {
    int dtype;    /* position in DTYPES; unset: the input's */
    int channels; /* 0: the input's */
    int scale;    /* SCALE_* */
} convert_params;

#define DTYPES "u8|u16|i32|f32|f64|i64"
static const parac_dtype dtypes[] = {PARAC_U8, PARAC_U16, PARAC_I32, PARAC_F32, PARAC_F64, PARAC_I64};
enum { SCALE_AUTO, SCALE_NONE, SCALE_FULL, SCALE_MINMAX };

static void output_type(const parac_op_call *call, parac_dtype *dtype, int *channels)
{
    const convert_params *p = call->params;
    const parac_image *in = call->inputs[0];
    *dtype = parac_call_has(call, "dtype") ? dtypes[p->dtype] : in->dtype;
    *channels = p->channels ? p->channels : in->channels;
}

/* scale/offset from the "scale" rule. */
static parac_status scaling(parac_op_call *call, parac_dtype to, double *a, double *b)
{
    const parac_image *in = call->inputs[0];
    int rule = ((const convert_params *)call->params)->scale;
    *a = 1.0;
    *b = 0.0;
    /* i64 holds labels and counts, which have no nominal range: kept as they are */
    const int counts = in->dtype == PARAC_I64 || to == PARAC_I64;
    if ((counts && rule == SCALE_FULL) || (to == PARAC_I64 && rule == SCALE_MINMAX))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "convert: --scale %s %s i64, which has no nominal range "
                           "(i64 values are kept: --scale none)", rule == SCALE_FULL ? "full" : "minmax",
                           to == PARAC_I64 ? "to" : "from");
    if (rule == SCALE_AUTO)
        rule = !counts && !parac_dtype_is_float(in->dtype) && !parac_dtype_is_float(to) && in->dtype != to
                   ? SCALE_FULL : SCALE_NONE;
    if (rule == SCALE_FULL) {
        *a = parac__nominal_max(to) / parac__nominal_max(in->dtype);
    } else if (rule == SCALE_MINMAX) {
        parac_image_stats s;
        PARAC_TRY(parac_image_compute_stats(call->ctx, in, &s));
        double lo = s.min[0], hi = s.max[0];
        for (int c = 1; c < s.channels; c++) {
            lo = s.min[c] < lo ? s.min[c] : lo;
            hi = s.max[c] > hi ? s.max[c] : hi;
        }
        *a = hi > lo ? parac__nominal_max(to) / (hi - lo) : 0.0;
        *b = -lo * *a;
    }
    return PARAC_OK;
}

/* Values kept in their own dtype and channels: a copy, exact for i64 values
 * past 2^53 too, which the float64 arithmetic below would round. */
static int is_copy(const parac_image *in, parac_dtype to, int cout, double a, double b)
{
    return to == in->dtype && cout == in->channels && a == 1.0 && b == 0.0;
}

/* One row, with the dtypes as compile-time constants once inlined into the
 * specialised wrappers below, so the loads and stores become plain typed
 * accesses the compiler can vectorise. */
static inline __attribute__((always_inline)) void
convert_row(const char *s, int64_t sps, char *d, int64_t dps, int64_t width, int cin, int cout,
            double a, double b, double opaque, const int din, const int dout)
{
    const size_t isz = din == PARAC_U8 ? 1 : din == PARAC_U16 ? 2 : din == PARAC_F64 || din == PARAC_I64 ? 8 : 4;
    const size_t osz = dout == PARAC_U8 ? 1 : dout == PARAC_U16 ? 2 : dout == PARAC_F64 || dout == PARAC_I64 ? 8 : 4;
    if (cin == cout && sps == (int64_t)(cin * isz) && dps == (int64_t)(cout * osz)) {
        const int64_t n = width * cin; /* packed rows: one flat loop */
        for (int64_t i = 0; i < n; i++)
            parac__store_elem(d + i * osz, dout, parac__mul_add(a, parac__load_elem(s + i * isz, din), b));
        return;
    }
    for (int64_t x = 0; x < width; x++) {
        double vin[4] = {0}, vout[4] = {0};
        for (int c = 0; c < cin; c++) vin[c] = parac__load_elem(s + x * sps + c * isz, din);
        parac__map_channels(vin, cin, vout, cout, opaque);
        for (int c = 0; c < cout; c++) parac__store_elem(d + x * dps + c * osz, dout, parac__mul_add(a, vout[c], b));
    }
}

typedef void (*convert_row_fn)(const char *, int64_t, char *, int64_t, int64_t, int, int, double,
                               double, double);

#define PARAC_ROW(DI, DO)                                                                     \
    static void row_##DI##_##DO(const char *s, int64_t sps, char *d, int64_t dps, int64_t w,  \
                                int cin, int cout, double a, double b, double opaque)         \
    {                                                                                         \
        convert_row(s, sps, d, dps, w, cin, cout, a, b, opaque, DI, DO);                      \
    }
#define PARAC_ROWS(DI)                                                                        \
    PARAC_ROW(DI, PARAC_U8) PARAC_ROW(DI, PARAC_U16) PARAC_ROW(DI, PARAC_I32)                 \
    PARAC_ROW(DI, PARAC_F32) PARAC_ROW(DI, PARAC_F64) PARAC_ROW(DI, PARAC_I64)
PARAC_ROWS(PARAC_U8)
PARAC_ROWS(PARAC_U16)
PARAC_ROWS(PARAC_I32)
PARAC_ROWS(PARAC_F32)
PARAC_ROWS(PARAC_F64)
PARAC_ROWS(PARAC_I64)
#define PARAC_ROW_NAMES(DI)                                                                   \
    {row_##DI##_PARAC_U8, row_##DI##_PARAC_U16, row_##DI##_PARAC_I32, row_##DI##_PARAC_F32,  \
     row_##DI##_PARAC_F64, row_##DI##_PARAC_I64}
static const convert_row_fn row_table[PARAC_DTYPE_COUNT][PARAC_DTYPE_COUNT] = {
    PARAC_ROW_NAMES(PARAC_U8),  PARAC_ROW_NAMES(PARAC_U16), PARAC_ROW_NAMES(PARAC_I32),
    PARAC_ROW_NAMES(PARAC_F32), PARAC_ROW_NAMES(PARAC_F64), PARAC_ROW_NAMES(PARAC_I64)};

static parac_status convert_cpu(parac_op_call *call)
{
    const parac_image *in = call->inputs[0];
    parac_dtype to;
    int cout;
    double a, b;
    output_type(call, &to, &cout);
    PARAC_TRY(scaling(call, to, &a, &b));
    PARAC_TRY(parac_image_create(&call->outputs[0], in->width, in->height, in->depth, cout, to,
                                 PARAC_MEMORY_HOST, -1));
    parac_image *out = call->outputs[0];
    if (is_copy(in, to, cout, a, b)) return parac_image_copy(out, in, NULL);
    const convert_row_fn row = row_table[in->dtype][to];
    const double opaque = parac__nominal_max(in->dtype);
    const int64_t rows = in->height * in->depth;
#pragma omp parallel for schedule(static) num_threads(parac_context_threads(call->ctx))
    for (int64_t r = 0; r < rows; r++) {
        int64_t z = r / in->height, y = r % in->height;
        row(parac_image_at(in, 0, y, z), in->pixel_stride, parac_image_at(out, 0, y, z),
            out->pixel_stride, in->width, in->channels, cout, a, b, opaque);
    }
    return PARAC_OK;
}

static parac_status convert_gpu(parac_op_call *call)
{
    const parac_image *in = call->inputs[0];
    parac_dtype to;
    int cout;
    double a, b;
    output_type(call, &to, &cout);
    PARAC_TRY(scaling(call, to, &a, &b));
    PARAC_TRY(parac_image_create(&call->outputs[0], in->width, in->height, in->depth, cout, to,
                                 PARAC_MEMORY_CUDA, parac_context_cuda_device(call->ctx)));
    if (is_copy(in, to, cout, a, b)) return parac_image_copy(call->outputs[0], in, parac_context_stream(call->ctx));
    return parac__convert_cuda(call->outputs[0], in, a, b, parac_context_stream(call->ctx));
}

static parac_status convert_demo(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    (void)ctx;
    PARAC_TRY(parac_image_create(&inputs[0], 640, 480, 1, 3, PARAC_U8, PARAC_MEMORY_HOST, -1));
    parac_image *img = inputs[0];
    for (int64_t y = 0; y < img->height; y++)
        for (int64_t x = 0; x < img->width; x++) {
            uint8_t *p = parac_image_at(img, x, y, 0);
            p[0] = (uint8_t)(x * 255 / img->width);
            p[1] = (uint8_t)(y * 255 / img->height);
            p[2] = (uint8_t)(((x / 40) + (y / 40)) % 2 ? 220 : 30);
        }
    PARAC_TRY(parac_args_set(args, "channels", "1"));
    return parac_args_set(args, "dtype", "u8");
}

static const parac_param_spec convert_params_table[] = {
    {"dtype", PARAC_PARAM_CHOICE, NULL, DTYPES, 0, 0, "output dtype (default: the input's)",
     PARAC_FIELD(convert_params, dtype)},
    {"channels", PARAC_PARAM_INT, NULL, NULL, 1, 4,
     "output channels: 1 gray (BT.601 luma from colour), 2 gray+alpha, 3 RGB, 4 RGBA "
     "(default: the input's)", PARAC_FIELD(convert_params, channels)},
    {"scale", PARAC_PARAM_CHOICE, "auto", "auto|none|full|minmax", 0, 0,
     "value mapping: none keeps values; full maps nominal range to nominal range "
     "(u8 0..255, u16 0..65535, i32 0..2^31-1, float 0..1); minmax stretches the data's "
     "min..max to the output's nominal range; auto = full between two integer dtypes, "
     "else none (i64, labels and counts, has no nominal range: always none)", PARAC_FIELD(convert_params, scale)},
};

/* Each pixel alone, unless the mapping stretches the whole image's range. */
static parac_status convert_row_reach(parac_op_call *call, int64_t *reach)
{
    *reach = ((const convert_params *)call->params)->scale == SCALE_MINMAX ? -1 : 0;
    return PARAC_OK;
}

static const parac_method convert_methods[] = {
    {"elementwise", PARAC_BACKEND_CPU, convert_cpu, "OpenMP loop over rows", NULL},
    {"elementwise", PARAC_BACKEND_CUDA, convert_gpu, "one thread per pixel", convert_row_reach},
};

const parac_op parac__op_convert = {
    .name = "convert",
    .summary = "convert dtype and channel count (and file format)",
    .description =
        "Converts pixel values to another dtype and/or channel count. Integer results are "
        "rounded to nearest (ties to even) and saturated. From the command line the output "
        "file's format follows its extension, so 'convert' also converts between formats.",
    .usage_args = "IN OUT",
    .n_inputs = 1,
    .n_outputs = 1,
    .params = convert_params_table,
    .n_params = sizeof convert_params_table / sizeof convert_params_table[0],
    .params_size = sizeof(convert_params),
    .methods = convert_methods,
    .n_methods = sizeof convert_methods / sizeof convert_methods[0],
    .demo = convert_demo,
};
