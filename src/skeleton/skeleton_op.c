/* The registry operation "skeleton": the potential-field curve skeleton of
 * a volume. Stage 2 (the field) runs where the method says (CPU or CUDA);
 * classification, critical points and force following run on the CPU, as
 * in the paper. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error_internal.h"
#include "parac/op.h"
#include "skel.h"
#include "skel_critical.h"
#include "skel_graph_io.h"
#include "skel_trace.h"

typedef struct pipeline {
    uint8_t *cls;
    float *t, *c, *F, *vol;
    int64_t *ti, *ci, nt, nc;
    parac__skel_critical *cp;
    int64_t n_cp;
    parac__skel_graph g;
} pipeline;

static void pipeline_free(pipeline *p)
{
    free(p->cls), free(p->t), free(p->c), free(p->F), free(p->vol), free(p->ti), free(p->ci), free(p->cp);
    parac__skel_graph_free(&p->g);
}

static parac_status field_cuda(parac_op_call *call, pipeline *p, int M)
{
    const int dev = parac_context_cuda_device(call->ctx);
    void *stream = parac_context_stream(call->ctx);
    parac_image *th = NULL, *ch = NULL, *td = NULL, *cd = NULL, *fd = NULL, *fh = NULL;
    parac_status st = parac_image_wrap(&th, p->t, 3 * p->nt, 1, 1, 1, PARAC_F32, 4, 12 * p->nt, 12 * p->nt,
                                       PARAC_MEMORY_HOST, -1);
    if (st == PARAC_OK) st = parac_image_wrap(&ch, p->c, 3 * p->nc, 1, 1, 1, PARAC_F32, 4, 12 * p->nc, 12 * p->nc,
                                              PARAC_MEMORY_HOST, -1);
    if (st == PARAC_OK) st = parac_image_upload(&td, th, dev, stream);
    if (st == PARAC_OK) st = parac_image_upload(&cd, ch, dev, stream);
    if (st == PARAC_OK) st = parac_image_create(&fd, 3 * p->nt, 1, 1, 1, PARAC_F32, PARAC_MEMORY_CUDA, dev);
    if (st == PARAC_OK) st = parac__skel_field_cuda(call->method->name, td->data, p->nt, cd->data, p->nc, M, fd->data, stream);
    if (st == PARAC_OK) st = parac_image_download(&fh, fd, 0, stream);
    if (st == PARAC_OK) st = parac_context_synchronize(call->ctx);
    if (st == PARAC_OK) memcpy(p->F, fh->data, (size_t)p->nt * 3 * sizeof *p->F);
    parac_image_destroy(th), parac_image_destroy(ch), parac_image_destroy(td), parac_image_destroy(cd);
    parac_image_destroy(fd), parac_image_destroy(fh);
    return st;
}

static parac_status parse_spacing(const char *text, double sp[3])
{
    sp[0] = sp[1] = sp[2] = 1;
    if (!text) return PARAC_OK;
    if (sscanf(text, "%lf,%lf,%lf", &sp[0], &sp[1], &sp[2]) != 3 || !(sp[0] > 0) || !(sp[1] > 0) || !(sp[2] > 0))
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
    double spacing[3];
    PARAC_TRY(parse_spacing(parac_call_string(call, "spacing"), spacing));
    parac_image *host = NULL;
    if (in->memory == PARAC_MEMORY_CUDA) {
        PARAC_TRY(parac_image_clone(&host, in, PARAC_MEMORY_HOST, -1, parac_context_stream(call->ctx)));
        PARAC_TRY(parac_context_synchronize(call->ctx));
        in = host;
    }
    const int64_t w = in->width, h = in->height, d = in->depth;
    const int M = (int)parac_call_int(call, "field-strength");
    const int dc = (int)parac_call_int(call, "charge-distance");
    const int paper = strcmp(parac_call_string(call, "rules"), "paper") == 0;
    const double thr = parac_call_has(call, "threshold") ? parac_call_double(call, "threshold") : NAN;
    /* pfSkel: the object grown by dc layers through face neighbours carries
     * the charges, so they sit dc voxels outside the true surface; critical
     * points and traces stay inside the original object. A frame of dc + 1
     * voxels leaves room to grow. */
    const int64_t P = dc + 1, W = w + 2 * P, H = h + 2 * P, D = d + 2 * P, N = W * H * D;
    pipeline p = {0};
    parac_status st = PARAC_OK;
    uint8_t *obj = calloc((size_t)N, 1), *grown = calloc((size_t)N, 1);
    parac_image *gim = NULL;
    p.cls = malloc((size_t)N);
    p.vol = calloc((size_t)N * 3, sizeof *p.vol);
    if (!obj || !grown || !p.cls || !p.vol)
        st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: %lld voxels", (long long)N);
    int64_t n_obj = 0;
    for (int64_t z = 0; st == PARAC_OK && z < d; z++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                const void *q = parac_image_at(in, x, y, z);
                const double v = in->dtype == PARAC_U8 ? *(const uint8_t *)q : in->dtype == PARAC_U16 ? *(const uint16_t *)q
                                                                                                   : *(const float *)q;
                const int o = thr != thr ? v != 0 : v >= thr;
                obj[((z + P) * H + y + P) * W + x + P] = (uint8_t)o;
                n_obj += o;
            }
    if (st == PARAC_OK && n_obj == 0)
        st = parac__fail(PARAC_ERR_INVALID_ARGUMENT, "skeleton: the volume has no object voxels (%s)",
                         thr != thr ? "nonzero" : ">= --threshold");
    if (st == PARAC_OK) {
        memcpy(grown, obj, (size_t)N);
        for (int layer = 0; layer < dc; layer++) {
            memcpy(p.cls, grown, (size_t)N);
            for (int64_t i = 0; i < N; i++) {
                if (p.cls[i]) continue;
                const int64_t x = i % W, y = (i / W) % H, z = i / (W * H);
                if ((x > 0 && p.cls[i - 1]) || (x < W - 1 && p.cls[i + 1]) || (y > 0 && p.cls[i - W]) ||
                    (y < H - 1 && p.cls[i + W]) || (z > 0 && p.cls[i - W * H]) || (z < D - 1 && p.cls[i + W * H]))
                    grown[i] = 1;
            }
        }
        st = parac_image_wrap(&gim, grown, W, H, D, 1, PARAC_U8, 1, W, W * H, PARAC_MEMORY_HOST, -1);
    }
    if (st == PARAC_OK)
        st = parac__skel_classify(gim, 1, paper ? PARAC__SKEL_RULES_PAPER : PARAC__SKEL_RULES_PFSKEL, p.cls);
    if (st == PARAC_OK) st = parac__skel_collect(p.cls, W, H, D, PARAC__SKEL_INTERIOR, &p.t, &p.ti, &p.nt);
    if (st == PARAC_OK) st = parac__skel_collect(p.cls, W, H, D, PARAC__SKEL_SURFACE, &p.c, &p.ci, &p.nc);
    if (st == PARAC_OK && p.nt == 0)
        st = parac__fail(PARAC_ERR_INVALID_ARGUMENT, "skeleton: the object is too thin for a field: it has no "
                         "interior voxels (with --charge-distance %d it must be at least %d voxels thick)", dc,
                         (paper ? 5 : 3) - 2 * dc > 1 ? (paper ? 5 : 3) - 2 * dc : 1);
    if (st == PARAC_OK && !(p.F = malloc((size_t)p.nt * 3 * sizeof *p.F)))
        st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: the field at %lld voxels", (long long)p.nt);
    if (st == PARAC_OK) {
        if (call->method->backend == PARAC_BACKEND_CUDA) st = field_cuda(call, &p, M);
        else st = parac__skel_field_cpu(p.t, p.nt, p.c, p.nc, M, p.F, parac_context_threads(call->ctx));
    }
    if (st == PARAC_OK) {
        for (int64_t i = 0; i < p.nt; i++) memcpy(p.vol + 3 * p.ti[i], p.F + 3 * i, 3 * sizeof *p.F);
        parac__skel_normalize(p.vol, p.cls, N);
        if (paper) parac__skel_neighbour_means(p.cls, W, H, D, PARAC__SKEL_BOUNDARY, 1 << PARAC__SKEL_INTERIOR, p.vol);
        parac__skel_neighbour_means(p.cls, W, H, D, PARAC__SKEL_SURFACE,
                                    1 << PARAC__SKEL_INTERIOR | 1 << PARAC__SKEL_BOUNDARY, p.vol);
        parac__skel_normalize(p.vol, p.cls, N);
        /* the search and the traces: the original object only (its voxels keep
         * their classes: only exactly computed, interior, zeros are critical) */
        for (int64_t i = 0; i < N; i++)
            if (!obj[i]) p.cls[i] = PARAC__SKEL_EXTERIOR;
        const parac__skel_field f = {W, H, D, p.vol, p.cls};
        st = parac__skel_critical_points(&f, &p.cp, &p.n_cp);
        if (st == PARAC_OK) st = parac__skel_trace(&f, p.cp, p.n_cp, &p.g);
    }
    /* back to the input's coordinates */
    for (int64_t i = 0; st == PARAC_OK && i < p.n_cp; i++)
        for (int k = 0; k < 3; k++) p.cp[i].p[k] -= (double)P;
    for (int64_t s = 0; st == PARAC_OK && s < p.g.n_seg; s++)
        for (int64_t i = 0; i < 3 * p.g.seg[s].n; i++) p.g.seg[s].p[i] -= (double)P;
    parac_image_destroy(gim);
    free(obj);
    free(grown);
    parac_image *out = NULL;
    if (st == PARAC_OK) st = parac_image_create(&out, w, h, d, 1, PARAC_U8, PARAC_MEMORY_HOST, -1);
    if (st == PARAC_OK) { /* voxels into the (reused) class array, then row by row into the image */
        parac__skel_voxelize(&p.g, p.cp, p.n_cp, w, h, d, p.cls); /* N >= w*h*d */
        for (int64_t z = 0; z < d; z++)
            for (int64_t y = 0; y < h; y++) memcpy(parac_image_at(out, 0, y, z), p.cls + (z * h + y) * w, (size_t)w);
    }
    if (st == PARAC_OK && parac_call_has(call, "graph"))
        st = parac__skel_write_graph(parac_call_string(call, "graph"), &p.g, p.cp, p.n_cp, spacing);
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
    pipeline_free(&p);
    parac_image_destroy(host);
    return st;
}

static parac_status tube_demo(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    (void)ctx;
    (void)args;
    PARAC_TRY(parac_image_create_zeroed(&inputs[0], 48, 40, 40, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    parac_image *im = inputs[0];
    for (int64_t z = 0; z < 40; z++) /* an L-shaped tube */
        for (int64_t y = 0; y < 40; y++)
            for (int64_t x = 0; x < 48; x++) {
                const int a = x >= 6 && x <= 41 && (y - 12) * (y - 12) + (z - 20) * (z - 20) <= 25;
                const int b = y >= 12 && y <= 34 && (x - 37) * (x - 37) + (z - 20) * (z - 20) <= 25;
                if (a || b) *(uint8_t *)parac_image_at(im, x, y, z) = 255;
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
    {"spacing", PARAC_PARAM_STRING, NULL, NULL, 0, 0, "SX,SY,SZ: voxel size for the graph's coordinates (default 1,1,1)"},
};

static const parac_method skeleton_methods[] = {
    {"exact", PARAC_BACKEND_CPU, skeleton_run, "the field summed exactly over every charge, in double, on every core"},
    {"tiled", PARAC_BACKEND_CUDA, skeleton_run,
     "the field on the GPU, fp32, charges staged through shared memory (the N-body technique)"},
    {"global", PARAC_BACKEND_CUDA, skeleton_run, "the paper's plain GPU kernel: one thread per voxel, charges read from global memory"},
    {"constant", PARAC_BACKEND_CUDA, skeleton_run,
     "the paper's improved GPU kernel: charges in constant memory, 4096 per launch"},
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
    .keeps_inputs = 1,
};
