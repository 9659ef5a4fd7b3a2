/* The registry operations "remove-small-objects" and "remove-small-holes"
 * (scikit-image's morphology functions of those names). */
#include <stdio.h>
#include <string.h>

#include "../core/error_internal.h"
#include "../core/neighbourhood.h"
#include "../core/registry_internal.h"
#include "parac/label.h"
#include "parac/op.h"
#include "small.h"

typedef struct small_params {
    int64_t min_size;
    int connectivity; /* 0: faces (4 / 6), scikit-image's default */
    int labels;
    int foreground;   /* holes: the output's value on objects and filled holes */
} small_params;

static parac_status small_run(parac_op_call *call, int holes)
{
    const small_params *p = call->params;
    const parac_image *in = call->inputs[0];
    const int is_3d = in->depth > 1;
    parac__small_spec s = {call->op->name, holes ? PARAC__SMALL_HOLES : p->labels ? PARAC__SMALL_LABELS
                                                                                  : PARAC__SMALL_OBJECTS,
                           p->connectivity ? p->connectivity : is_3d ? 6 : 4, p->min_size,
                           parac_context_threads(call->ctx), holes ? p->foreground : 0};
    if (in->dtype != PARAC_U8 && in->dtype != PARAC_U16 && in->dtype != PARAC_I32 && in->dtype != PARAC_I64)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: the input is %s; u8, u16, i32 or i64 is needed (a mask or a "
                           "label image)", s.op, parac_dtype_name(in->dtype));
    if (in->channels != 1)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: the input has %d channels; one is needed", s.op, in->channels);
    if (is_3d != parac__conn_is_3d(s.conn))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: connectivity %d is not valid for a %s (use %s)", s.op,
                           s.conn, is_3d ? "volume" : "2D image", is_3d ? "6, 18 or 26" : "4 or 8");
    if (in->width >= INT32_MAX || in->height >= INT32_MAX || in->depth >= INT32_MAX)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: a side of 2^31 pixels or more", s.op);
    const int cuda = call->method->backend == PARAC_BACKEND_CUDA;
    PARAC_TRY(parac_call_output(call, 0, in->width, in->height, in->depth, 1, holes ? PARAC_U8 : in->dtype,
                                cuda ? PARAC_MEMORY_CUDA : PARAC_MEMORY_HOST,
                                cuda ? parac_context_cuda_device(call->ctx) : -1));
    return cuda ? parac__small_cuda(&s, in, call->outputs[0], parac_context_stream(call->ctx))
                : parac__small_cpu(&s, in, call->outputs[0]);
}

static parac_status objects_run(parac_op_call *call) { return small_run(call, 0); }
static parac_status holes_run(parac_op_call *call) { return small_run(call, 1); }

static parac_status small_choose(parac_op_call *call, const char **method, char *why, size_t why_size)
{
    const int cuda = parac_context_backend(call->ctx) == PARAC_BACKEND_CUDA;
    *method = "label-count";
    if (why_size)
        snprintf(why, why_size, "the %s's one method: label, count each component's pixels, decide per pixel",
                 cuda ? "GPU" : "CPU");
    return PARAC_OK;
}

/* Specks and blobs of many sizes, some with holes of many sizes. */
static parac_status specks(parac_image **inputs)
{
    PARAC_TRY(parac_image_create(&inputs[0], 400, 260, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    parac_image *im = inputs[0];
    for (int64_t y = 0; y < im->height; y++)
        for (int64_t x = 0; x < im->width; x++) {
            uint8_t v = 0;
            for (int k = 0; k < 60; k++) {
                const double cx = 10 + (k * 131) % 380, cy = 10 + (k * 71) % 240, r = 1 + (k * 5) % 23;
                const double d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
                if (d2 <= r * r) v = 255;
                if (r > 10 && d2 <= (k % 7) * (k % 7)) v = 0; /* a hole of 0..6 pixels' radius */
            }
            *(uint8_t *)parac_image_at(im, x, y, 0) = v;
        }
    return PARAC_OK;
}

static parac_status objects_demo(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    (void)ctx;
    PARAC_TRY(specks(inputs));
    return parac_args_set(args, "min-size", "60");
}

static parac_status holes_demo(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    (void)ctx;
    PARAC_TRY(specks(inputs));
    return parac_args_set(args, "area-threshold", "60");
}

static const parac_param_spec objects_params[] = {
    {"min-size", PARAC_PARAM_INT, "64", NULL, 0, 9.2e18,
     "objects of fewer pixels are removed (scikit-image's min_size; its max_size m is min-size m + 1)",
     PARAC_FIELD(small_params, min_size)},
    {"connectivity", PARAC_PARAM_INT, NULL, PARAC__CONNECTIVITIES, 4, 26,
     "neighbours of an object's pixels: 4 or 8 (2D), 6, 18 or 26 (3D); default 4 / 6, as scikit-image's "
     "connectivity=1", PARAC_FIELD(small_params, connectivity)},
    {"labels", PARAC_PARAM_BOOL, "false", NULL, 0, 0,
     "the input is a label image: an object is every pixel of one label, as scikit-image takes integer "
     "arrays (else an object is a connected component of the nonzero pixels, as it takes bool arrays)",
     PARAC_FIELD(small_params, labels)},
};

static const parac_param_spec holes_params[] = {
    {"area-threshold", PARAC_PARAM_INT, "64", NULL, 0, 9.2e18,
     "holes of fewer pixels are filled (scikit-image's area_threshold)", PARAC_FIELD(small_params, min_size)},
    {"foreground", PARAC_PARAM_INT, "255", NULL, 1, 255,
     "the output's value on the objects and the filled holes (1 gives a bool mask's bytes)",
     PARAC_FIELD(small_params, foreground)},
    {"connectivity", PARAC_PARAM_INT, NULL, PARAC__CONNECTIVITIES, 4, 26,
     "neighbours of a hole's pixels: 4 or 8 (2D), 6, 18 or 26 (3D); default 4 / 6, as scikit-image's "
     "connectivity=1", PARAC_FIELD(small_params, connectivity)},
};

static const parac_method objects_methods[] = {
    {"label-count", PARAC_BACKEND_CPU, objects_run,
     "label the components (or take the labels), count their pixels, clear the small ones", NULL},
    {"label-count", PARAC_BACKEND_CUDA, objects_run,
     "label the components on the GPU (or take the labels), count their pixels, clear the small ones", NULL},
};

static const parac_method holes_methods[] = {
    {"label-count", PARAC_BACKEND_CPU, holes_run,
     "label the zero regions, count their pixels, fill the small ones", NULL},
    {"label-count", PARAC_BACKEND_CUDA, holes_run,
     "label the zero regions on the GPU, count their pixels, fill the small ones", NULL},
};

const parac_op parac__op_remove_small_objects = {
    .name = "remove-small-objects",
    .summary = "remove objects smaller than a size",
    .description =
        "Every connected component of the nonzero pixels (--connectivity, default 4 / 6) with fewer than "
        "--min-size pixels becomes 0; the other pixels keep their values. With --labels the input is a label "
        "image and an object is every pixel of one label. scikit-image's morphology.remove_small_objects. Input "
        "u8, u16, i32 or i64, 2D or 3D; output the input's dtype. See docs/labels.md.",
    .usage_args = "IN OUT",
    .n_inputs = 1,
    .n_outputs = 1,
    .params = objects_params,
    .n_params = sizeof objects_params / sizeof objects_params[0],
    .params_size = sizeof(small_params),
    .methods = objects_methods,
    .n_methods = sizeof objects_methods / sizeof objects_methods[0],
    .choose = small_choose,
    .demo = objects_demo,
    .demo_view = PARAC_DEMO_CHANGES,
};

const parac_op parac__op_remove_small_holes = {
    .name = "remove-small-holes",
    .summary = "fill holes smaller than a size",
    .description =
        "Every connected component of the zero pixels (--connectivity, default 4 / 6) with fewer than "
        "--area-threshold pixels is filled, whether it touches the border or not (scikit-image's "
        "morphology.remove_small_holes). Output u8: --foreground (255) on the nonzero pixels of the input and "
        "the filled holes, 0 elsewhere. Input u8, u16, i32 or i64, 2D or 3D. See docs/labels.md.",
    .usage_args = "IN OUT",
    .n_inputs = 1,
    .n_outputs = 1,
    .params = holes_params,
    .n_params = sizeof holes_params / sizeof holes_params[0],
    .params_size = sizeof(small_params),
    .methods = holes_methods,
    .n_methods = sizeof holes_methods / sizeof holes_methods[0],
    .choose = small_choose,
    .demo = holes_demo,
    .demo_view = PARAC_DEMO_CHANGES,
};
