/* The skeleton pipeline (see skel_pipeline.h): classes on the object grown
 * by the charge distance, the field where the caller says, then boundary
 * means, critical points, the core traces and the divergence seeds' traces
 * on the CPU, as in the paper. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "skel_connect.h"
#include "skel_critical.h"
#include "skel_divergence.h"
#include "skel_field_approx.h"
#include "skel_pipeline.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct work {
    int64_t W, H, D, N, P;     /* the framed volume and its frame */
    uint8_t *obj, *cls;
    float *t, *c, *F, *vol;
    int64_t *ti, *ci, nt, nc;
} work;

static void work_free(work *k)
{
    free(k->obj), free(k->cls), free(k->t), free(k->c), free(k->F), free(k->vol), free(k->ti), free(k->ci);
}

static parac_status field_cuda(const parac__skel_params *prm, work *k)
{
    parac_context *ctx = prm->ctx;
    const int dev = parac_context_cuda_device(ctx);
    void *stream = parac_context_stream(ctx);
    parac_image *th = NULL, *ch = NULL, *td = NULL, *cd = NULL, *fd = NULL, *fh = NULL;
    parac_status st = parac_image_wrap(&th, k->t, 3 * k->nt, 1, 1, 1, PARAC_F32, 4, 12 * k->nt, 12 * k->nt,
                                       PARAC_MEMORY_HOST, -1);
    if (st == PARAC_OK) st = parac_image_wrap(&ch, k->c, 3 * k->nc, 1, 1, 1, PARAC_F32, 4, 12 * k->nc, 12 * k->nc,
                                              PARAC_MEMORY_HOST, -1);
    if (st == PARAC_OK) st = parac_image_upload(&td, th, dev, stream);
    if (st == PARAC_OK) st = parac_image_upload(&cd, ch, dev, stream);
    if (st == PARAC_OK) st = parac_image_create(&fd, 3 * k->nt, 1, 1, 1, PARAC_F32, PARAC_MEMORY_CUDA, dev);
    if (st == PARAC_OK) st = parac__skel_field_cuda(prm->field, td->data, k->nt, cd->data, k->nc, prm->field_strength,
                                                    fd->data, stream);
    if (st == PARAC_OK) st = parac_image_download(&fh, fd, 0, stream);
    if (st == PARAC_OK) st = parac_context_synchronize(ctx);
    if (st == PARAC_OK) memcpy(k->F, fh->data, (size_t)k->nt * 3 * sizeof *k->F);
    parac_image_destroy(th), parac_image_destroy(ch), parac_image_destroy(td), parac_image_destroy(cd);
    parac_image_destroy(fd), parac_image_destroy(fh);
    return st;
}

/* The object into the framed volume; the number of object voxels. */
static int64_t place_object(const parac_image *in, double thr, work *k, int threads)
{
    int64_t n = 0;
    const int64_t P = k->P, W = k->W, H = k->H;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : n)
    for (int64_t z = 0; z < in->depth; z++)
        for (int64_t y = 0; y < in->height; y++) {
            const void *row = parac_image_at(in, 0, y, z);
            uint8_t *o = k->obj + ((z + P) * H + y + P) * W + P;
            for (int64_t x = 0; x < in->width; x++) {
                const double v = in->dtype == PARAC_U8 ? ((const uint8_t *)row)[x]
                                 : in->dtype == PARAC_U16 ? ((const uint16_t *)row)[x]
                                                          : ((const float *)row)[x];
                o[x] = (uint8_t)(thr != thr ? v != 0 : v >= thr);
                n += o[x];
            }
        }
    return n;
}

/* The object grown by `layers` layers through face neighbours, into out. */
static void grow(const work *k, int layers, uint8_t *out, uint8_t *tmp, int threads)
{
    const int64_t W = k->W, H = k->H, D = k->D, N = k->N;
    memcpy(out, k->obj, (size_t)N);
    for (int layer = 0; layer < layers; layer++) {
        memcpy(tmp, out, (size_t)N);
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int64_t i = 0; i < N; i++) {
            if (tmp[i]) continue;
            const int64_t x = i % W, y = (i / W) % H, z = i / (W * H);
            if ((x > 0 && tmp[i - 1]) || (x < W - 1 && tmp[i + 1]) || (y > 0 && tmp[i - W]) ||
                (y < H - 1 && tmp[i + W]) || (z > 0 && tmp[i - W * H]) || (z < D - 1 && tmp[i + W * H]))
                out[i] = 1;
        }
    }
}

static parac_status classify(const parac_image *in, const parac__skel_params *prm, work *k, int threads)
{
    const int dc = prm->charge_distance;
    /* pfSkel: the object grown by dc layers carries the charges, so they sit
     * dc voxels outside the true surface; critical points and traces stay
     * inside the original object. A frame of dc + 1 voxels leaves room. */
    k->P = dc + 1;
    k->W = in->width + 2 * k->P, k->H = in->height + 2 * k->P, k->D = in->depth + 2 * k->P;
    k->N = k->W * k->H * k->D;
    k->obj = parac__calloc((size_t)k->N, 1);
    k->cls = parac__malloc((size_t)k->N);
    uint8_t *grown = parac__malloc((size_t)k->N);
    if (!k->obj || !k->cls || !grown) {
        free(grown);
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: %lld voxels", (long long)k->N);
    }
    const int64_t n_obj = place_object(in, prm->threshold, k, threads);
    parac_status st = PARAC_OK;
    if (n_obj == 0)
        st = parac__fail(PARAC_ERR_INVALID_ARGUMENT, "skeleton: the volume has no object voxels (%s)",
                         prm->threshold != prm->threshold ? "nonzero" : ">= --threshold");
    parac_image *gim = NULL;
    if (st == PARAC_OK) {
        grow(k, dc, grown, k->cls, threads);
        st = parac_image_wrap(&gim, grown, k->W, k->H, k->D, 1, PARAC_U8, 1, k->W, k->W * k->H, PARAC_MEMORY_HOST, -1);
    }
    if (st == PARAC_OK) st = parac__skel_classify(gim, 1, prm->rules, k->cls);
    parac_image_destroy(gim);
    free(grown);
    if (st == PARAC_OK) st = parac__skel_collect(k->cls, k->W, k->H, k->D, PARAC__SKEL_INTERIOR, &k->t, &k->ti, &k->nt);
    if (st == PARAC_OK) st = parac__skel_collect(k->cls, k->W, k->H, k->D, PARAC__SKEL_SURFACE, &k->c, &k->ci, &k->nc);
    if (st == PARAC_OK && k->nt == 0) {
        const int need = (prm->rules == PARAC__SKEL_RULES_PAPER ? 5 : 3) - 2 * dc;
        st = parac__fail(PARAC_ERR_INVALID_ARGUMENT, "skeleton: the object is too thin for a field: it has no "
                         "interior voxels (with --charge-distance %d it must be at least %d voxels thick)", dc,
                         need > 1 ? need : 1);
    }
    return st;
}

/* The field at the targets, in the spacing's units, then as voxel-space
 * directions of unit length, surface and boundary vectors as neighbour
 * means. */
static parac_status field(const parac__skel_params *prm, work *k, int threads)
{
    const double *sp = prm->spacing;
    const int aniso = sp[0] != 1 || sp[1] != 1 || sp[2] != 1;
    if (aniso) { /* positions in physical units: the distances the charges act over */
        for (int64_t i = 0; i < k->nt; i++)
            for (int a = 0; a < 3; a++) k->t[3 * i + a] = (float)(k->t[3 * i + a] * sp[a]);
        for (int64_t i = 0; i < k->nc; i++)
            for (int a = 0; a < 3; a++) k->c[3 * i + a] = (float)(k->c[3 * i + a] * sp[a]);
    }
    if (!(k->F = parac__malloc((size_t)k->nt * 3 * sizeof *k->F)) || !(k->vol = parac__calloc((size_t)k->N * 3, sizeof *k->vol)))
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: the field at %lld voxels", (long long)k->N);
    if (!strcmp(prm->field, "approx")) { /* cells of 4 voxels along the finest axis */
        parac__skel_tree tree;
        const float cell = (float)(4 * fmin(sp[0], fmin(sp[1], sp[2])));
        PARAC_TRY(parac__skel_tree_build(k->t, k->nt, k->c, k->nc, cell, PARAC__SKEL_THETA, &tree));
        const parac_status st = parac_context_backend(prm->ctx) == PARAC_BACKEND_CUDA
                                    ? parac__skel_field_approx_cuda(&tree, prm->field_strength, k->F,
                                                                    parac_context_stream(prm->ctx), NULL)
                                    : parac__skel_field_approx_cpu(&tree, prm->field_strength, k->F, threads);
        parac__skel_tree_free(&tree);
        PARAC_TRY(st);
    } else if (!strcmp(prm->field, "exact")) {
        PARAC_TRY(parac__skel_field_cpu(k->t, k->nt, k->c, k->nc, prm->field_strength, k->F, threads));
    } else {
        PARAC_TRY(field_cuda(prm, k));
    }
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t i = 0; i < k->nt; i++) /* a physical force moves a point F/spacing voxels */
        for (int a = 0; a < 3; a++) k->vol[3 * k->ti[i] + a] = aniso ? (float)(k->F[3 * i + a] / sp[a]) : k->F[3 * i + a];
    parac__skel_normalize(k->vol, k->cls, k->N);
    if (prm->rules == PARAC__SKEL_RULES_PAPER)
        parac__skel_neighbour_means(k->cls, k->W, k->H, k->D, PARAC__SKEL_BOUNDARY, 1 << PARAC__SKEL_INTERIOR, k->vol);
    parac__skel_neighbour_means(k->cls, k->W, k->H, k->D, PARAC__SKEL_SURFACE,
                                1 << PARAC__SKEL_INTERIOR | 1 << PARAC__SKEL_BOUNDARY, k->vol);
    parac__skel_normalize(k->vol, k->cls, k->N);
    return PARAC_OK;
}

parac_status parac__skel_pipeline(const parac_image *in, const parac__skel_params *prm, parac__skel_graph *g,
                                  uint8_t *voxels, parac__skel_stats *stats)
{
    *g = (parac__skel_graph){0};
    parac__skel_stats s = {0};
    const int threads = parac_context_threads(prm->ctx) > 0 ? parac_context_threads(prm->ctx) : 1;
    work k = {0};
    double t0 = now(), t1;
    parac_status st = classify(in, prm, &k, threads);
    t1 = now(), s.seconds_classify = t1 - t0, t0 = t1;
    s.targets = k.nt, s.charges = k.nc;
    if (st == PARAC_OK) st = field(prm, &k, threads);
    t1 = now(), s.seconds_field = t1 - t0, t0 = t1;
    const parac__skel_field f = {k.W, k.H, k.D, k.vol, k.cls};
    parac__skel_critical *cp = NULL;
    int64_t n_cp = 0;
    if (st == PARAC_OK) {
        /* the search and the traces: the original object only (its voxels keep
         * their classes: only exactly computed, interior, zeros are critical) */
        for (int64_t i = 0; i < k.N; i++)
            if (!k.obj[i]) k.cls[i] = PARAC__SKEL_EXTERIOR;
        st = parac__skel_critical_points(&f, &cp, &n_cp, threads);
    }
    t1 = now(), s.seconds_critical = t1 - t0, t0 = t1;
    s.critical = n_cp;
    if (st == PARAC_OK) st = parac__skel_trace(&f, cp, n_cp, threads, g);
    else free(cp);
    t1 = now(), s.seconds_trace = t1 - t0, t0 = t1;
    if (st == PARAC_OK && prm->divergence > 0) {
        double *seeds = NULL;
        st = parac__skel_divergence_seeds(&f, prm->divergence, threads, &seeds, &s.seeds);
        if (st == PARAC_OK) st = parac__skel_trace_seeds(&f, seeds, s.seeds, threads, g);
        free(seeds);
    }
    if (st == PARAC_OK) st = parac__skel_connect(&f, g, &s.joins);
    t1 = now(), s.seconds_seeds = t1 - t0;
    if (st == PARAC_OK) { /* back to the input's coordinates */
        const double P = (double)k.P;
        for (int64_t i = 0; i < g->n_node; i++)
            for (int a = 0; a < 3; a++) g->node[i].p[a] -= P;
        for (int64_t j = 0; j < g->n_seg; j++)
            for (int64_t i = 0; i < 3 * g->seg[j].n; i++) g->seg[j].p[i] -= P;
        parac__skel_voxelize(g, in->width, in->height, in->depth, voxels);
        s.segments = g->n_seg;
    } else {
        parac__skel_graph_free(g);
    }
    work_free(&k);
    s.seconds_total = s.seconds_classify + s.seconds_field + s.seconds_critical + s.seconds_trace + s.seconds_seeds;
    if (stats) *stats = s;
    return st;
}
