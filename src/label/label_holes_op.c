/* The registry operation "fill-label-holes": every label's holes filled
 * with that label (label_holes.h gives the rule). */
#include <stdio.h>

#include "../core/error_internal.h"
#include "../core/neighbourhood.h"
#include "parac/op.h"
#include "label_holes.h"

typedef struct label_holes_params {
    int connectivity; /* 0: faces (4 / 6), as binary_fill_holes */
} label_holes_params;

static parac_status label_holes_run(parac_op_call *call)
{
    const label_holes_params *p = call->params;
    const parac_image *in = call->inputs[0];
    const int is_3d = in->depth > 1;
    const parac__label_holes_spec s = {call->op->name, p->connectivity ? p->connectivity : is_3d ? 6 : 4,
                                       parac_context_threads(call->ctx)};
    if (in->dtype != PARAC_U8 && in->dtype != PARAC_U16 && in->dtype != PARAC_I32 && in->dtype != PARAC_I64)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: the labels are %s; u8, u16, i32 or i64 is needed", s.op,
                           parac_dtype_name(in->dtype));
    if (in->channels != 1)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: the labels have %d channels; one is needed", s.op,
                           in->channels);
    if (is_3d != parac__conn_is_3d(s.conn))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: connectivity %d is not valid for a %s (use %s)", s.op,
                           s.conn, is_3d ? "volume" : "2D image", is_3d ? "6, 18 or 26" : "4 or 8");
    if (in->width >= INT32_MAX || in->height >= INT32_MAX || in->depth >= INT32_MAX)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: a side of 2^31 pixels or more", s.op);
    int64_t filled = 0;
    if (call->method->backend == PARAC_BACKEND_CPU) {
        PARAC_TRY(parac_call_output(call, 0, in->width, in->height, in->depth, 1, in->dtype, PARAC_MEMORY_HOST, -1));
        PARAC_TRY(parac__label_holes_cpu(&s, in, call->outputs[0], &filled));
    } else {
        PARAC_TRY(parac_call_output(call, 0, in->width, in->height, in->depth, 1, in->dtype, PARAC_MEMORY_CUDA,
                                    parac_context_cuda_device(call->ctx)));
        PARAC_TRY(parac__label_holes_cuda(&s, in, call->outputs[0], &filled, parac_context_stream(call->ctx)));
    }
    call->results[0] = (double)filled;
    return PARAC_OK;
}

/* Cells with holes, touching cells with a gap between them, a cell inside
 * another's hole. */
static parac_status cells_demo(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    (void)ctx;
    (void)args;
    PARAC_TRY(parac_image_create(&inputs[0], 360, 240, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    parac_image *im = inputs[0];
    for (int64_t y = 0; y < im->height; y++)
        for (int64_t x = 0; x < im->width; x++) {
            uint8_t v = 0;
            for (int k = 0; k < 12; k++) {
                const double cx = 40 + (k % 4) * 90, cy = 50 + (k / 4) * 70, r = 28 + (k * 7) % 9;
                const double d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
                if (d2 <= r * r && d2 >= (k % 3 == 0 ? 0 : 80 + 40 * (k % 2))) v = (uint8_t)(10 + 20 * k);
                if (k == 5 && d2 <= 16) v = 250; /* a cell inside another's hole */
            }
            *(uint8_t *)parac_image_at(im, x, y, 0) = v;
        }
    return PARAC_OK;
}

static const parac_param_spec label_holes_params_table[] = {
    {"connectivity", PARAC_PARAM_INT, NULL, PARAC__CONNECTIVITIES, 4, 26,
     "of the holes: 4 or 8 (2D), 6, 18 or 26 (3D); default 4 / 6, as scipy's binary_fill_holes",
     PARAC_FIELD(label_holes_params, connectivity)},
};

static const parac_result_spec label_holes_results[] = {
    {"filled", "the pixels that took a label"},
};

static const parac_method label_holes_methods[] = {
    {"cavities", PARAC_BACKEND_CPU, label_holes_run,
     "the zero regions labelled; one with one label beside it is that label's hole, one with several is "
     "resolved by filling the labels' boxes", NULL},
    {"cavities", PARAC_BACKEND_CUDA, label_holes_run,
     "the CPU method's steps on the GPU (regions, the labels beside each cavity, the fill); cavities beside "
     "several labels, where labels nest, are settled by the CPU method's queues on a host copy", NULL},
};

const parac_op parac__op_fill_label_holes = {
    .name = "fill-label-holes",
    .summary = "fill every label's holes with that label",
    .description =
        "For every label v of a label image (u8, u16, i32 or i64; 0 is background), the background pixels in v's "
        "holes take v: a hole is a region of pixels other than v (--connectivity, default 4 / 6) that does not "
        "touch the image's border, as scipy.ndimage.binary_fill_holes(labels == v) finds it. Other labels "
        "inside a hole stay; where labels nest, the innermost fills. Output: the input's dtype; the count of "
        "filled pixels is printed. See docs/labels.md.",
    .usage_args = "IN OUT",
    .n_inputs = 1,
    .n_outputs = 1,
    .params = label_holes_params_table,
    .n_params = 1,
    .params_size = sizeof(label_holes_params),
    .methods = label_holes_methods,
    .n_methods = 2,
    .results = label_holes_results,
    .n_results = 1,
    .demo = cells_demo,
    .demo_view = PARAC_DEMO_LABELS,
};
