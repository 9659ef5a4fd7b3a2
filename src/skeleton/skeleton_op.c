/* The registry operation "skeleton": the potential-field curve skeleton of
 * a volume. Stage 2 (the field) runs where the method says (CPU or CUDA);
 * classification, critical points and force following run on the CPU, as
 * in the paper. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "../core/registry_internal.h"
#include "parac/op.h"
#include "parac/skeleton.h"
#include "skel_graph_io.h"
#include "skel_pipeline.h"

typedef struct skeleton_params {
    double threshold;   /* unset: every nonzero voxel */
    int field_strength;
    int charge_distance;
    int rules;          /* position in RULES */
    const char *graph;  /* NULL: none */
    const char *spacing; /* "SX,SY,SZ"; NULL: spacing_xyz, else 1, 1, 1 */
    double divergence;
    double spacing_xyz[3]; /* the typed function's spacing (zeros: none), instead of the text */
} skeleton_params;

#define RULES "paper|pfskel"

static parac_status parse_spacing(const char *text, double sp[3])
{
    sp[0] = sp[1] = sp[2] = 1;
    if (!text) return PARAC_OK;
    char tail;
    if (sscanf(text, "%lf,%lf,%lf%c", &sp[0], &sp[1], &sp[2], &tail) != 3 || !(sp[0] > 0) || !(sp[1] > 0) ||
        !(sp[2] > 0) || !isfinite(sp[0] + sp[1] + sp[2]))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "skeleton: --spacing is SX,SY,SZ, three positive numbers, "
                           "got '%s'", text);
    return PARAC_OK;
}

static parac_status skeleton_run(parac_op_call *call)
{
    const parac_image *in = call->inputs[0];
    if (in->depth < 2)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "skeleton: the input is a 2D image; a volume is needed "
                           "(NRRD, multi-page TIFF, or a 3-axis .npy with --layout dhw)");
    const skeleton_params *p = call->params;
    parac__skel_params prm = {
        .threshold = parac_call_has(call, "threshold") ? p->threshold : NAN,
        .field_strength = p->field_strength,
        .charge_distance = p->charge_distance,
        .rules = p->rules ? PARAC__SKEL_RULES_PFSKEL : PARAC__SKEL_RULES_PAPER,
        .divergence = p->divergence,
        .field = call->method->name,
        .ctx = call->ctx,
    };
    if (!p->spacing && (p->spacing_xyz[0] || p->spacing_xyz[1] || p->spacing_xyz[2])) {
        char t[200];
        snprintf(t, sizeof t, "%.17g,%.17g,%.17g", p->spacing_xyz[0], p->spacing_xyz[1], p->spacing_xyz[2]);
        PARAC_TRY(parse_spacing(t, prm.spacing)); /* the same checks as the text's */
    } else {
        PARAC_TRY(parse_spacing(p->spacing, prm.spacing));
    }
    if (!(prm.divergence >= 0 && prm.divergence <= 1))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "skeleton: --divergence is a fraction 0..1, got %g", prm.divergence);
    parac_image *host = NULL, *out = NULL;
    if (in->memory == PARAC_MEMORY_CUDA) {
        PARAC_TRY(parac_image_clone(&host, in, PARAC_MEMORY_HOST, -1, parac_context_stream(call->ctx)));
        parac_status st = parac_context_synchronize(call->ctx);
        if (st != PARAC_OK) {
            parac_image_destroy(host);
            return st;
        }
        in = host;
    }
    parac_status st = parac_image_create(&out, in->width, in->height, in->depth, 1, PARAC_U8, PARAC_MEMORY_HOST, -1);
    uint8_t *voxels = st == PARAC_OK ? parac__malloc((size_t)(in->width * in->height * in->depth)) : NULL;
    if (st == PARAC_OK && !voxels) st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: the output volume");
    parac__skel_graph g = {0};
    if (st == PARAC_OK) st = parac__skel_pipeline(in, &prm, &g, voxels, NULL);
    for (int64_t z = 0; st == PARAC_OK && z < in->depth; z++)
        for (int64_t y = 0; y < in->height; y++)
            memcpy(parac_image_at(out, 0, y, z), voxels + (z * in->height + y) * in->width, (size_t)in->width);
    if (st == PARAC_OK && p->graph) st = parac__skel_write_graph(p->graph, &g, prm.spacing);
    if (st == PARAC_OK && parac_context_backend(call->ctx) == PARAC_BACKEND_CUDA) {
        parac_image *dev = NULL;
        st = parac_image_clone(&dev, out, PARAC_MEMORY_CUDA, parac_context_cuda_device(call->ctx),
                               parac_context_stream(call->ctx));
        if (st == PARAC_OK) st = parac_context_synchronize(call->ctx);
        parac_image_destroy(out);
        out = st == PARAC_OK ? dev : NULL;
        if (st != PARAC_OK) parac_image_destroy(dev);
    }
    if (st == PARAC_OK) call->outputs[0] = out;
    else parac_image_destroy(out);
    parac__skel_graph_free(&g);
    free(voxels);
    parac_image_destroy(host);
    return st;
}

/* Exact sums cost targets x charges, about V^(5/3) for V voxels; the cell
 * tree about V log V, within 0.003 degrees on average (docs/skeleton.md).
 * The exact field is kept while it takes about a second or less: measured
 * on the paper's sequence (bench/skeleton), 64x64x487 (2^21 voxels) takes
 * 3.5 s on 16 CPU threads, and 256x256x487 (2^25) 0.57 s on the GPU. */
#define EXACT_CPU_VOXELS (1 << 20)
#define EXACT_GPU_VOXELS (1 << 25)

static parac_status skeleton_choose(parac_op_call *call, const char **method, char *why, size_t why_size)
{
    const parac_image *in = call->inputs[0];
    const int64_t v = in->width * in->height * in->depth;
    const int cuda = parac_context_backend(call->ctx) == PARAC_BACKEND_CUDA;
    const int64_t limit = cuda ? EXACT_GPU_VOXELS : EXACT_CPU_VOXELS;
    *method = v <= limit ? (cuda ? "tiled" : "exact") : "approx";
    if (why_size)
        snprintf(why, why_size, "%lld voxels %s %lld on the %s: %s", (long long)v, v <= limit ? "<=" : ">",
                 (long long)limit, cuda ? "GPU" : "CPU",
                 v <= limit ? "the exact field (all-pairs sums) takes about a second or less"
                            : "the cell-tree field (exact near, expansions far) instead of all-pairs sums");
    return PARAC_OK;
}

static parac_status tube_demo(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    (void)ctx;
    (void)args;
    PARAC_TRY(parac_image_create_zeroed(&inputs[0], 48, 40, 40, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    parac_image *im = inputs[0];
    for (int64_t z = 0; z < 40; z++) /* an L-shaped tube with a branch: a junction */
        for (int64_t y = 0; y < 40; y++)
            for (int64_t x = 0; x < 48; x++) {
                const int a = x >= 6 && x <= 41 && (y - 12) * (y - 12) + (z - 20) * (z - 20) <= 25;
                const int b = y >= 12 && y <= 34 && (x - 37) * (x - 37) + (z - 20) * (z - 20) <= 25;
                const int c = z >= 20 && z <= 36 && (x - 18) * (x - 18) + (y - 12) * (y - 12) <= 16;
                if (a || b || c) *(uint8_t *)parac_image_at(im, x, y, z) = 255;
            }
    return PARAC_OK;
}

static const parac_param_spec skeleton_params_table[] = {
    {"threshold", PARAC_PARAM_DOUBLE, NULL, NULL, 0, 0, "the object is the voxels >= T (default: nonzero)",
     PARAC_FIELD(skeleton_params, threshold)},
    {"field-strength", PARAC_PARAM_INT, "6", NULL, 1, 10,
     "M: each surface charge pushes with 1/r^M (pfSkel: 6; recommended 4..9)",
     PARAC_FIELD(skeleton_params, field_strength)},
    {"charge-distance", PARAC_PARAM_INT, "1", NULL, 0, 8,
     "the charges sit this many voxels outside the object's surface (pfSkel's -dc; the paper: 0)",
     PARAC_FIELD(skeleton_params, charge_distance)},
    {"rules", PARAC_PARAM_CHOICE, "paper", RULES, 0, 0,
     "voxel classes: the paper's (26-neighbour surface, a boundary layer of neighbour means) or pfSkel's "
     "(6-neighbour surface, no boundary layer)", PARAC_FIELD(skeleton_params, rules)},
    {"graph", PARAC_PARAM_PATH, NULL, NULL, 0, 0,
     "also write the skeleton as a graph: FILE.json (critical points and segments), .obj (lines) or .swc",
     PARAC_FIELD(skeleton_params, graph)},
    {"spacing", PARAC_PARAM_STRING, NULL, NULL, 0, 0,
     "SX,SY,SZ: voxel size; the field acts over physical distances and the graph is in these units (default 1,1,1)",
     PARAC_FIELD(skeleton_params, spacing)},
    {"divergence", PARAC_PARAM_DOUBLE, "0.5", NULL, 0, 1,
     "pfSkel's level 2: traces from the voxels whose divergence lies within F of the lowest (a fraction of "
     "the range), joined to the core skeleton; they reach out to free ends. 0: the paper's core skeleton only",
     PARAC_FIELD(skeleton_params, divergence)},
};

static const parac_method skeleton_methods[] = {
    {"exact", PARAC_BACKEND_CPU, skeleton_run, "the field summed exactly over every charge, in double, on every core", NULL},
    {"approx", PARAC_BACKEND_CPU, skeleton_run,
     "the field from a two-level cell tree: near charges exactly, far cells by monopole and quadrupole "
     "(docs/skeleton.md gives its error); for volumes too large for exact sums", NULL},
    {"tiled", PARAC_BACKEND_CUDA, skeleton_run,
     "the field on the GPU, fp32, charges staged through shared memory (the N-body technique)", NULL},
    {"global", PARAC_BACKEND_CUDA, skeleton_run, "the paper's plain GPU kernel: one thread per voxel, charges read from global memory", NULL},
    {"constant", PARAC_BACKEND_CUDA, skeleton_run,
     "the paper's improved GPU kernel: charges in constant memory, 4096 per launch", NULL},
    {"approx", PARAC_BACKEND_CUDA, skeleton_run,
     "the cell-tree field on the GPU (fp32): near charges exactly, far cells by monopole and quadrupole", NULL},
};

const parac_op parac__op_skeleton = {
    .name = "skeleton",
    .summary = "3D curve skeleton by the potential-field method",
    .description =
        "The object's surface voxels repel every inner voxel with force 1/r^M; the skeleton joins the "
        "critical points of that field (where it vanishes) by following the force from every saddle "
        "(Cornea et al., pfSkel's constants). OUT is a u8 volume, 255 on the skeleton. The field "
        "runs on the context's device; the rest on the CPU. Input: a volume, u8, u16 or f32. "
        "See docs/skeleton.md.",
    .usage_args = "IN OUT",
    .n_inputs = 1,
    .n_outputs = 1,
    .params = skeleton_params_table,
    .n_params = sizeof skeleton_params_table / sizeof skeleton_params_table[0],
    .params_size = sizeof(skeleton_params),
    .methods = skeleton_methods,
    .n_methods = sizeof skeleton_methods / sizeof skeleton_methods[0],
    .demo = tube_demo,
    .demo_view = PARAC_DEMO_MASK,
    .choose = skeleton_choose,
    .keeps_inputs = 1,
};

/* ---- typed API ------------------------------------------------------------------ */
parac_skeleton_options parac_skeleton_defaults(void)
{
    return (parac_skeleton_options){.field_strength = 6, .charge_distance = 1, .divergence = 0.5,
                                    .spacing = {1, 1, 1}};
}

parac_status parac_skeleton(parac_context *ctx, const parac_image *in, parac_image **out,
                            const parac_skeleton_options *options)
{
    if (!out) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "skeleton: out is NULL");
    *out = NULL;
    const parac_op *op = &parac__op_skeleton;
    const parac_skeleton_options o = options ? *options : parac_skeleton_defaults();
    skeleton_params p = {.threshold = o.threshold, .field_strength = o.field_strength,
                         .charge_distance = o.charge_distance, .divergence = o.divergence, .graph = o.graph,
                         .spacing_xyz = {o.spacing[0], o.spacing[1], o.spacing[2]}};
    uint64_t set = 0;
    if (o.has_threshold) set |= parac__param_bit(op, "threshold");
    if (o.field_strength) set |= parac__param_bit(op, "field-strength");
    if (o.charge_distance >= 0) set |= parac__param_bit(op, "charge-distance");
    if (o.divergence >= 0) set |= parac__param_bit(op, "divergence");
    if (o.graph) set |= parac__param_bit(op, "graph");
    if (o.rules) {
        p.rules = parac__choice_index(RULES, o.rules);
        if (p.rules < 0)
            return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "skeleton: rules '%s' is not one of %s", o.rules, RULES);
        set |= parac__param_bit(op, "rules");
    }
    parac_image *ins[1] = {(parac_image *)in};
    return parac__op_run_typed(ctx, op, ins, 1, out, 1, &p, set, o.method, NULL, 0);
}
