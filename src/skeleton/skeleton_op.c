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
#include "parac/op.h"
#include "skel_graph_io.h"
#include "skel_pipeline.h"

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
    parac__skel_params prm = {
        .threshold = parac_call_has(call, "threshold") ? parac_call_double(call, "threshold") : NAN,
        .field_strength = (int)parac_call_int(call, "field-strength"),
        .charge_distance = (int)parac_call_int(call, "charge-distance"),
        .rules = strcmp(parac_call_string(call, "rules"), "paper") ? PARAC__SKEL_RULES_PFSKEL : PARAC__SKEL_RULES_PAPER,
        .divergence = parac_call_double(call, "divergence"),
        .field = call->method->name,
        .ctx = call->ctx,
    };
    PARAC_TRY(parse_spacing(parac_call_string(call, "spacing"), prm.spacing));
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
    if (st == PARAC_OK && parac_call_has(call, "graph"))
        st = parac__skel_write_graph(parac_call_string(call, "graph"), &g, prm.spacing);
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

static const parac_param_spec skeleton_params[] = {
    {"threshold", PARAC_PARAM_DOUBLE, NULL, NULL, 0, 0, "the object is the voxels >= T (default: nonzero)"},
    {"field-strength", PARAC_PARAM_INT, "6", NULL, 1, 10,
     "M: each surface charge pushes with 1/r^M (pfSkel: 6; recommended 4..9)"},
    {"charge-distance", PARAC_PARAM_INT, "1", NULL, 0, 8,
     "the charges sit this many voxels outside the object's surface (pfSkel's -dc; the paper: 0)"},
    {"rules", PARAC_PARAM_CHOICE, "paper", "paper|pfskel", 0, 0,
     "voxel classes: the paper's (26-neighbour surface, a boundary layer of neighbour means) or pfSkel's "
     "(6-neighbour surface, no boundary layer)"},
    {"graph", PARAC_PARAM_PATH, NULL, NULL, 0, 0,
     "also write the skeleton as a graph: FILE.json (critical points and segments), .obj (lines) or .swc"},
    {"spacing", PARAC_PARAM_STRING, NULL, NULL, 0, 0,
     "SX,SY,SZ: voxel size; the field acts over physical distances and the graph is in these units (default 1,1,1)"},
    {"divergence", PARAC_PARAM_DOUBLE, "0.5", NULL, 0, 1,
     "pfSkel's level 2: traces from the voxels whose divergence lies within F of the lowest (a fraction of "
     "the range), joined to the core skeleton; they reach out to free ends. 0: the paper's core skeleton only"},
};

static const parac_method skeleton_methods[] = {
    {"exact", PARAC_BACKEND_CPU, skeleton_run, "the field summed exactly over every charge, in double, on every core"},
    {"approx", PARAC_BACKEND_CPU, skeleton_run,
     "the field from a two-level cell tree: near charges exactly, far cells by monopole and quadrupole "
     "(docs/skeleton.md gives its error); for volumes too large for exact sums"},
    {"tiled", PARAC_BACKEND_CUDA, skeleton_run,
     "the field on the GPU, fp32, charges staged through shared memory (the N-body technique)"},
    {"global", PARAC_BACKEND_CUDA, skeleton_run, "the paper's plain GPU kernel: one thread per voxel, charges read from global memory"},
    {"constant", PARAC_BACKEND_CUDA, skeleton_run,
     "the paper's improved GPU kernel: charges in constant memory, 4096 per launch"},
    {"approx", PARAC_BACKEND_CUDA, skeleton_run,
     "the cell-tree field on the GPU (fp32): near charges exactly, far cells by monopole and quadrupole"},
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
    .params = skeleton_params,
    .n_params = sizeof skeleton_params / sizeof skeleton_params[0],
    .methods = skeleton_methods,
    .n_methods = sizeof skeleton_methods / sizeof skeleton_methods[0],
    .demo = tube_demo,
    .demo_view = PARAC_DEMO_MASK,
    .choose = skeleton_choose,
    .keeps_inputs = 1,
};
