/* The region-filling operations of the registry: "fill" (seedless, the
 * inside of closed contours) and "floodfill" (seeded). fill_run places the
 * input where the chosen method needs it and runs the method. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "core/neighbourhood.h"
#include "core/registry_internal.h"
#include "../core/error_internal.h"
#include "fill.h"
#include "fill_seeds.h"
#include "parac/fill.h"
#include "parac/op.h"

typedef struct fill_params {
    int connectivity; /* 0: 4 in 2D, 6 in 3D */
    int threshold;
    int contour;      /* parac_fill_contour: the choices in its order */
    int inside_value, outside_value;
    int seeds;        /* 0: the method's default */
} fill_params;

typedef struct floodfill_params {
    const char *seed; /* "X,Y[,Z];..." */
    double value, tolerance;
    int connectivity; /* 0: 4 in 2D, 6 in 3D */
    /* the typed function's seeds (x, y, z triples), instead of the text */
    const int64_t *seed_xyz;
    int n_seed_xyz;
    int mask;         /* a u8 mask of the regions instead of the filled image */
} floodfill_params;

static parac_status spec_of(parac_op_call *call, const parac_image *in, parac__fill_spec *s)
{
    const fill_params *p = call->params;
    *s = (parac__fill_spec){0};
    s->op = call->op->name;
    s->conn = p->connectivity ? p->connectivity : (in->depth > 1 ? 6 : 4);
    s->threshold = (uint32_t)p->threshold;
    s->contour = (parac_fill_contour)p->contour;
    s->inside = (uint8_t)p->inside_value;
    s->outside = (uint8_t)p->outside_value;
    s->seeds = p->seeds;
    s->threads = parac_context_threads(call->ctx);
    parac__fill_geom g;
    return parac__fill_geometry(s, in, &g); /* checks the input before anything is allocated */
}

static parac_status fill_run(parac_op_call *call)
{
    const parac_image *in = call->inputs[0];
    parac__fill_spec s;
    PARAC_TRY(spec_of(call, in, &s));
    const char *m = call->method->name;
    const int cuda = call->method->backend == PARAC_BACKEND_CUDA;
    const int hybrid = strcmp(m, "hybrid") == 0;
    const int device = cuda ? parac_context_cuda_device(call->ctx) : -1;
    void *stream = parac_context_stream(call->ctx);
    /* the input where the method reads it: the device, or the host for the
     * CPU methods and the CPU half of hybrid */
    parac_image *placed = NULL;
    const int want_device = cuda && !hybrid;
    const int there = want_device ? in->memory == PARAC_MEMORY_CUDA && in->device == device
                                  : in->memory != PARAC_MEMORY_CUDA;
    if (!there) {
        PARAC_TRY(parac_image_clone(&placed, in, want_device ? PARAC_MEMORY_CUDA : PARAC_MEMORY_HOST,
                                    want_device ? device : -1, stream));
        if (!want_device) PARAC_TRY(parac_context_synchronize(call->ctx));
        in = placed;
    }
    const parac_dtype odt = s.contour == PARAC_FILL_CONTOUR_KEEP ? in->dtype : PARAC_U8;
    parac_status st = parac_image_create(&call->outputs[0], in->width, in->height, in->depth, 1, odt,
                                         cuda ? PARAC_MEMORY_CUDA : PARAC_MEMORY_HOST, device);
    if (st == PARAC_OK) {
        if (!cuda && strcmp(m, "serial") == 0) st = parac__fill_serial(&s, in, call->outputs[0]);
        else if (!cuda && strcmp(m, "seeds") == 0) st = parac__fill_seeds_cpu(&s, in, call->outputs[0]);
        else if (!cuda && strcmp(m, "ccl") == 0) st = parac__fill_ccl_cpu(&s, in, call->outputs[0]);
        else if (cuda && strcmp(m, "ccl") == 0) st = parac__fill_ccl_cuda(&s, in, call->outputs[0], stream);
        else if (cuda && strcmp(m, "seeds") == 0) st = parac__fill_seeds_cuda(&s, in, call->outputs[0], stream);
        else if (hybrid) st = parac__fill_hybrid(&s, in, call->outputs[0], stream);
        else st = parac__fail(PARAC_ERR_UNSUPPORTED, "%s: method '%s' is not in this build", s.op, m);
    }
    if (placed) {
        if (want_device) parac_context_synchronize(call->ctx);
        parac_image_destroy(placed);
    }
    return st;
}

static parac_status fill_choose(parac_op_call *call, const char **method, char *why, size_t why_size)
{
    const parac_image *in = call->inputs[0];
    const int64_t n = parac_image_pixel_count(in);
    if (parac_context_backend(call->ctx) == PARAC_BACKEND_CUDA) {
        *method = "ccl";
        if (why_size)
            snprintf(why, why_size, "connected components of the background in a few passes: the fastest "
                     "GPU method on every measured input (docs/fill.md)");
        return PARAC_OK;
    }
    /* ccl is the fastest CPU method from about 2^16 pixels on, on one thread
     * as on sixteen (bench/fill, docs/fill.md); below, the plain scanline fill */
    if (n >= (1 << 16)) {
        *method = "ccl";
        if (why_size)
            snprintf(why, why_size, "%lld pixels on %d thread%s: connected components of background runs, "
                     "the fastest CPU method from about 2^16 pixels on", (long long)n,
                     parac_context_threads(call->ctx), parac_context_threads(call->ctx) == 1 ? "" : "s");
        return PARAC_OK;
    }
    *method = "serial";
    if (why_size) snprintf(why, why_size, "small image: the one-thread scanline fill");
    return PARAC_OK;
}

/* ---- demo: nested rings and a polygon ------------------------------------------ */
static parac_status rings_demo(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    (void)ctx;
    (void)args;
    PARAC_TRY(parac_image_create(&inputs[0], 512, 384, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    parac_image *im = inputs[0];
    for (int64_t y = 0; y < im->height; y++)
        for (int64_t x = 0; x < im->width; x++) {
            const double dx = x - 180.0, dy = y - 190.0, r2 = dx * dx + dy * dy;
            const int ring = (r2 > 140.0 * 140 && r2 < 143.0 * 143) || (r2 > 70.0 * 70 && r2 < 72.0 * 72);
            const int box = x >= 360 && x <= 480 && y >= 100 && y <= 300 &&
                            (x <= 362 || x >= 478 || y <= 102 || y >= 298);
            *(uint8_t *)parac_image_at(im, x, y, 0) = (ring || box) ? 255 : 0;
        }
    return PARAC_OK;
}

static const parac_param_spec fill_params_table[] = {
    {"connectivity", PARAC_PARAM_INT, NULL, PARAC__CONNECTIVITIES, 4, 26,
     "of the background: 4 or 8 (2D; on a volume, each slice on its own), 6, 18 or 26 (3D); "
     "default 4 / 6. An 8-connected contour closes only under 4-connected filling",
     PARAC_FIELD(fill_params, connectivity)},
    {"threshold", PARAC_PARAM_INT, "1", NULL, 1, 65535, "contour pixels are those >= T",
     PARAC_FIELD(fill_params, threshold)},
    {"contour", PARAC_PARAM_CHOICE, "inside", "inside|outside|keep", 0, 0,
     "contour pixels take the inside value (the filled object, as binary_fill_holes), the outside "
     "value (the holes only), or keep their input value", PARAC_FIELD(fill_params, contour)},
    {"inside-value", PARAC_PARAM_INT, "255", NULL, 0, 255, "value of inside pixels",
     PARAC_FIELD(fill_params, inside_value)},
    {"outside-value", PARAC_PARAM_INT, "0", NULL, 0, 255, "value of outside pixels",
     PARAC_FIELD(fill_params, outside_value)},
    {"seeds", PARAC_PARAM_INT, NULL, NULL, 1, PARAC__FILL_MAX_SEEDS,
     "seeds methods: inner seeds (default 96 on the CPU, 32768 on the GPU)", PARAC_FIELD(fill_params, seeds)},
};

static const parac_method fill_methods[] = {
    {"serial", PARAC_BACKEND_CPU, fill_run,
     "the paper's baseline: a scanline fill of the outside from the border, one thread", NULL},
    {"seeds", PARAC_BACKEND_CPU, fill_run,
     "the paper's method: border and inner seeds filled by all threads, label pairs joined by "
     "union-find", NULL},
    {"ccl", PARAC_BACKEND_CPU, fill_run,
     "beyond the paper: connected components of background runs by union-find, a strip of rows per "
     "thread", NULL},
    {"ccl", PARAC_BACKEND_CUDA, fill_run,
     "connected components of the background by block union-find; components touching the border "
     "are outside", NULL},
    {"seeds", PARAC_BACKEND_CUDA, fill_run,
     "the paper's GPU fill: one thread per seed (32768 by default), 16-bit labels, fixed stacks", NULL},
    {"hybrid", PARAC_BACKEND_CUDA, fill_run,
     "the paper's CPU+GPU: the seeds fill on the CPU, the labels turned into the output on the GPU", NULL},
};

const parac_op parac__op_fill = {
    .name = "fill",
    .summary = "fill the inside of closed contours, with no seed",
    .description =
        "Pixels >= threshold are the contour. Background pixels connected to the image border "
        "through background are outside; every other background pixel is inside (reverse filling: "
        "the outside is filled from the border and the rest inverted). The output is u8 "
        "(u16 for --contour keep on u16 input). With the defaults this is "
        "scipy.ndimage.binary_fill_holes times 255. Input u8 or u16, 2D or 3D. See docs/fill.md.",
    .usage_args = "IN OUT",
    .n_inputs = 1,
    .n_outputs = 1,
    .params = fill_params_table,
    .n_params = sizeof fill_params_table / sizeof fill_params_table[0],
    .params_size = sizeof(fill_params),
    .methods = fill_methods,
    .n_methods = sizeof fill_methods / sizeof fill_methods[0],
    .choose = fill_choose,
    .demo = rings_demo,
    .demo_view = PARAC_DEMO_MASK,
    .keeps_inputs = 1,
};

/* ---- floodfill ------------------------------------------------------------------- */
static parac_status seed_inside(const parac_image *in, const int64_t v[3])
{
    if (v[0] < 0 || v[0] >= in->width || v[1] < 0 || v[1] >= in->height || v[2] < 0 || v[2] >= in->depth)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "floodfill: seed (%lld, %lld, %lld) is outside the %lldx%lldx%lld image",
                           (long long)v[0], (long long)v[1], (long long)v[2], (long long)in->width,
                           (long long)in->height, (long long)in->depth);
    return PARAC_OK;
}

/* "X,Y[,Z]" items separated by ';' or spaces. */
static parac_status parse_seeds(const parac_image *in, const char *text, int64_t **out, int *count)
{
    int cap = 1;
    for (const char *p = text; *p; p++) cap += *p == ';' || *p == ' ';
    int64_t *s = parac__malloc((size_t)cap * 3 * sizeof *s);
    if (!s) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "floodfill: %d seeds", cap);
    int n = 0;
    const char *p = text;
    while (*p) {
        while (*p == ';' || *p == ' ') p++;
        if (!*p) break;
        int64_t v[3] = {0, 0, 0};
        int k = 0;
        char *end;
        for (;;) {
            long long x = strtoll(p, &end, 10);
            if (end == p || k == 3) break;
            v[k++] = x;
            p = end;
            if (*p != ',') break;
            p++;
        }
        if (k < 2 || (*p && *p != ';' && *p != ' ')) {
            free(s);
            return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "floodfill: a seed is X,Y or X,Y,Z (x = column, "
                               "y = row), got '%s'", text);
        }
        const parac_status e = seed_inside(in, v);
        if (e != PARAC_OK) {
            free(s);
            return e;
        }
        memcpy(s + 3 * n++, v, sizeof v);
    }
    if (n == 0) {
        free(s);
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "floodfill: --seed X,Y is required");
    }
    *out = s;
    *count = n;
    return PARAC_OK;
}

static parac_status value_fits(const parac_image *in, double v)
{
    const double hi = in->dtype == PARAC_U8 ? 255 : in->dtype == PARAC_U16 ? 65535 : 0;
    if (in->dtype == PARAC_F32 || (v >= 0 && v <= hi && v == (double)(int64_t)v)) return PARAC_OK;
    return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "floodfill: value %g does not fit a %s image (0..%g, whole)",
                       v, parac_dtype_name(in->dtype), hi);
}

static parac_status floodfill_run(parac_op_call *call)
{
    const parac_image *in = call->inputs[0];
    if (in->dtype != PARAC_U8 && in->dtype != PARAC_U16 && in->dtype != PARAC_F32)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "floodfill: the input is %s; u8, u16 or f32 is needed",
                           parac_dtype_name(in->dtype));
    const floodfill_params *p = call->params;
    if (!p->seed && !p->n_seed_xyz)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "floodfill: --seed X,Y is required");
    const double value = p->value;
    if (!p->mask && !parac_call_has(call, "value"))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "floodfill: --value is required (or --mask)");
    if (!p->mask) PARAC_TRY(value_fits(in, value));
    const int conn = p->connectivity ? p->connectivity : (in->depth > 1 ? 6 : 4);
    int64_t *seeds = NULL;
    int n = 0;
    if (p->seed) {
        PARAC_TRY(parse_seeds(in, p->seed, &seeds, &n));
    } else {
        for (int i = 0; i < p->n_seed_xyz; i++) PARAC_TRY(seed_inside(in, p->seed_xyz + 3 * i));
        n = p->n_seed_xyz;
    }
    const int64_t *xyz = p->seed ? seeds : p->seed_xyz;
    const int cuda = call->method->backend == PARAC_BACKEND_CUDA;
    parac_status st = parac_image_create(&call->outputs[0], in->width, in->height, in->depth, 1,
                                         p->mask ? PARAC_U8 : in->dtype,
                                         cuda ? PARAC_MEMORY_CUDA : PARAC_MEMORY_HOST,
                                         cuda ? parac_context_cuda_device(call->ctx) : -1);
    const double tol = p->tolerance;
    if (st == PARAC_OK && !cuda) st = parac__floodfill_cpu(in, call->outputs[0], xyz, n, value, tol, conn, p->mask);
    else if (st == PARAC_OK)
        st = parac__floodfill_cuda(in, call->outputs[0], xyz, n, value, tol, conn, p->mask,
                                   parac_context_stream(call->ctx));
    free(seeds);
    return st;
}

static parac_status floodfill_demo(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    PARAC_TRY(rings_demo(ctx, inputs, args));
    PARAC_TRY(parac_args_set(args, "seed", "180,190"));
    return parac_args_set(args, "value", "128");
}

static const parac_param_spec floodfill_params_table[] = {
    {"seed", PARAC_PARAM_LIST, NULL, NULL, 0, 0,
     "X,Y or X,Y,Z (x = column, y = row, as OpenCV's Point); give it several times for several seeds",
     PARAC_FIELD(floodfill_params, seed)},
    {"value", PARAC_PARAM_DOUBLE, NULL, NULL, 0, 0, "the new value of the filled region; required unless --mask",
     PARAC_FIELD(floodfill_params, value)},
    {"tolerance", PARAC_PARAM_DOUBLE, "0", NULL, 0, 1e300,
     "pixels within T of the seed's value join (0: equal values), as skimage's tolerance",
     PARAC_FIELD(floodfill_params, tolerance)},
    {"connectivity", PARAC_PARAM_INT, NULL, PARAC__CONNECTIVITIES, 4, 26,
     "4 or 8 (2D; on a volume, within the seed's slice), 6, 18 or 26 (3D); default 4 / 6, as OpenCV",
     PARAC_FIELD(floodfill_params, connectivity)},
    {"mask", PARAC_PARAM_BOOL, "false", NULL, 0, 0,
     "write a u8 mask instead: 1 in the regions, 0 elsewhere (skimage.segmentation.flood)",
     PARAC_FIELD(floodfill_params, mask)},
};

static const parac_method floodfill_methods[] = {
    {"scanline", PARAC_BACKEND_CPU, floodfill_run,
     "a scanline (span) fill from each seed, as Heckbert's and OpenCV's", NULL},
    {"ccl", PARAC_BACKEND_CUDA, floodfill_run,
     "per seed: connected components of the pixels within range (the fill's GPU ccl passes), the "
     "seed's component takes the value", NULL},
};

const parac_op parac__op_floodfill = {
    .name = "floodfill",
    .summary = "seeded flood fill: the region connected to a seed takes a value",
    .description =
        "Every pixel connected to a seed through pixels whose values lie within --tolerance of "
        "the seed's value takes --value; all other pixels keep theirs, as "
        "skimage.segmentation.flood_fill and cv2.floodFill with FLOODFILL_FIXED_RANGE. Several "
        "seeds are each judged against the input, so their order does not matter. Input u8, u16 or "
        "f32, 2D or 3D; the output has its dtype, or with --mask is a u8 mask of the regions. A seed "
        "outside the image is an error.",
    .usage_args = "IN OUT",
    .n_inputs = 1,
    .n_outputs = 1,
    .params = floodfill_params_table,
    .n_params = sizeof floodfill_params_table / sizeof floodfill_params_table[0],
    .params_size = sizeof(floodfill_params),
    .methods = floodfill_methods,
    .n_methods = sizeof floodfill_methods / sizeof floodfill_methods[0],
    .demo = floodfill_demo,
    .demo_view = PARAC_DEMO_CHANGES,
};

/* ---- typed API ------------------------------------------------------------------ */
parac_status parac_fill(parac_context *ctx, const parac_image *in, parac_image **out,
                        const parac_fill_options *options)
{
    if (!out) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "fill: out is NULL");
    *out = NULL;
    const parac_op *op = &parac__op_fill;
    parac_fill_options o = {0, 1, PARAC_FILL_CONTOUR_INSIDE, -1, -1, NULL};
    if (options) o = *options;
    if (!(o.threshold <= 65535))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "fill: threshold %g is outside 0..65535", o.threshold);
    fill_params p = {.connectivity = o.connectivity, .threshold = o.threshold >= 1 ? (int)o.threshold : 1,
                     .contour = (int)o.contour, .inside_value = o.inside_value, .outside_value = o.outside_value};
    uint64_t set = parac__param_bit(op, "threshold") | parac__param_bit(op, "contour");
    if (o.connectivity) set |= parac__param_bit(op, "connectivity");
    if (o.inside_value >= 0) set |= parac__param_bit(op, "inside-value");
    if (o.outside_value >= 0) set |= parac__param_bit(op, "outside-value");
    parac_image *ins[1] = {(parac_image *)in};
    return parac__op_run_typed(ctx, op, ins, 1, out, 1, &p, set, o.method, NULL, 0);
}

parac_status parac_floodfill(parac_context *ctx, const parac_image *in, parac_image **out,
                             const int64_t *seeds, int n_seeds, double value, double tolerance,
                             int connectivity)
{
    if (!out) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "floodfill: out is NULL");
    *out = NULL;
    if (!seeds || n_seeds < 1) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "floodfill: no seed");
    const parac_op *op = &parac__op_floodfill;
    floodfill_params p = {.value = value, .tolerance = tolerance, .connectivity = connectivity,
                          .seed_xyz = seeds, .n_seed_xyz = n_seeds};
    uint64_t set = parac__param_bit(op, "value") | parac__param_bit(op, "tolerance");
    if (connectivity) set |= parac__param_bit(op, "connectivity");
    parac_image *ins[1] = {(parac_image *)in};
    return parac__op_run_typed(ctx, op, ins, 1, out, 1, &p, set, NULL, NULL, 0);
}
