/* The reconstruction operations of the registry: "reconstruct" and the
 * operators built on it. One run function serves them all: it forms the
 * marker, runs the chosen engine on the context's backend, and applies the
 * operator's pixel-wise step (morph_post.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/error_internal.h"
#include "../core/neighbourhood.h"
#include "../core/registry_internal.h"
#include "../core/tuning.h"
#include "morph_demo.h"
#include "morph_post.h"
#include "parac/morph.h"
#include "parac/op.h"
#include "parac/stats.h"
#include "recon.h"
#include "recon_devices.h"
#include "recon_grid.h"

/* The parameters of every operation of this file (each table names the
 * fields it uses). */
typedef struct morph_params {
    int mode;           /* parac_recon_mode: the choices in its order */
    int connectivity;   /* 0: the operation's default */
    int clip;
    int heaps;          /* 0: the engine's default */
    int node_size;      /* 0: the engine's default */
    int heap_updates;   /* PARAC__HEAP_*: the choices in their order */
    double h;
    int64_t radius;
    int64_t buffer;
} morph_params;

typedef enum morph_kind {
    K_RECONSTRUCT,
    K_FILL_HOLES,
    K_H_MAXIMA,
    K_H_MINIMA,
    K_REGIONAL_MAXIMA,
    K_REGIONAL_MINIMA,
    K_OPENING,
    K_CLOSING,
    K_CLEAR_BORDER
} morph_kind;

static const struct {
    const char *name;
    morph_kind kind;
} kinds[] = {
    {"reconstruct", K_RECONSTRUCT},
    {"fill-holes", K_FILL_HOLES},
    {"h-maxima", K_H_MAXIMA},
    {"h-minima", K_H_MINIMA},
    {"regional-maxima", K_REGIONAL_MAXIMA},
    {"regional-minima", K_REGIONAL_MINIMA},
    {"opening-by-reconstruction", K_OPENING},
    {"closing-by-reconstruction", K_CLOSING},
    {"clear-border", K_CLEAR_BORDER},
};

/* Work that runs where the context computes. */
typedef struct morph_exec {
    parac_op_call *call;
    int cuda;          /* images and pixel-wise steps on the device */
    int threads;
    void *stream;
    int layout;        /* CUDA: a parac__cuda_layout (0: whole on the context's device) */
    int64_t strips;    /* HOST_STRIPS: how many */
    int workers[16], n_workers;
} morph_exec;

static parac_status new_image(const morph_exec *x, parac_image **out, const parac_image *like,
                              parac_dtype dtype)
{
    return parac_image_create(out, like->width, like->height, like->depth, 1, dtype,
                              x->cuda ? PARAC_MEMORY_CUDA : PARAC_MEMORY_HOST,
                              x->cuda ? parac_context_cuda_device(x->call->ctx) : -1);
}

static parac_status recon(const morph_exec *x, const parac__recon_spec *s, const parac_image *marker,
                          const parac_image *mask, parac_image *out)
{
    const char *m = x->call->method->name;
    if (x->layout != PARAC__CUDA_WHOLE) {
        if (strcmp(m, "wavefront") != 0)
            return parac__fail(PARAC_ERR_UNSUPPORTED,
                               "%s: method '%s' runs on one device with the whole image; in strips "
                               "(%s) only 'wavefront' runs",
                               s->op, m, x->n_workers > 1 ? "several devices" : "larger than the device's memory");
        if (x->layout == PARAC__CUDA_SPLIT)
            return parac__recon_split(s, marker, mask, out, x->workers, x->n_workers, x->stream);
        return parac__recon_tiled(s, marker, mask, out, x->workers, x->n_workers, x->strips);
    }
    if (x->cuda) return parac__recon_cuda(m, s, marker, mask, out, x->stream);
    return parac__recon_cpu(m, s, marker, mask, out, x->threads);
}

static parac_status post(const morph_exec *x, parac__post_kind kind, int minima, double h,
                         const parac_image *f, const parac_image *R, parac_image *out)
{
    if (x->cuda) return parac__morph_post_cuda(kind, minima, h, f, R, out, x->stream);
    return parac__morph_post_cpu(kind, minima, h, f, R, out, x->threads);
}

static parac_status minmax(const morph_exec *x, const parac_image *in, parac_image *out,
                           int64_t radius, int is_max)
{
    if (x->cuda) return parac__morph_minmax_cuda(in, out, radius, is_max, x->stream);
    return parac__morph_minmax_cpu(in, out, radius, is_max, x->threads);
}

/* NaN has no order: an image with one is refused before the shortcuts
 * below (a range too small for h, a flat image) could answer without the
 * reconstruction, whose own check names the pixel. */
static parac_status no_nan(const parac__recon_spec *s, const parac_image_stats *stats)
{
    if (stats->nan_count[0] > 0)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: the image has %lld NaN value(s) (NaN has no order; "
                           "replace them first)", s->op, (long long)stats->nan_count[0]);
    return PARAC_OK;
}

static int default_conn(morph_kind k, const parac_image *im)
{
    const int is_3d = im->depth > 1;
    if (k == K_FILL_HOLES) return is_3d ? 6 : 4; /* holes in the background, as scipy and MATLAB */
    return is_3d ? 26 : 8;
}

static parac_status run_kind(parac_op_call *call, morph_kind k, morph_exec *xp,
                             const parac_image *const *in);

/* Where a call runs: on the CPU; on the context's device (whole there, or
 * the reconstruction split over several devices); or (CUDA, an image beyond
 * the devices' memory budget) in strips from host memory. Copies the inputs
 * there when they are elsewhere. */
static parac_status place_inputs(parac_op_call *call, morph_exec *x, parac_image *placed[2])
{
    parac_memory want = PARAC_MEMORY_HOST;
    int device = -1;
    if (x->cuda) {
        x->n_workers = parac_context_cuda_workers(call->ctx, x->workers, 16);
        /* device memory still to take: the inputs not there yet, the output
         * and a temporary of the operators (free memory counts the rest) */
        int images = 2;
        for (int i = 0; i < call->n_inputs; i++)
            images += !(call->inputs[i]->memory == PARAC_MEMORY_CUDA &&
                        call->inputs[i]->device == parac_context_cuda_device(call->ctx));
        parac__cuda_layout layout;
        PARAC_TRY(parac__recon_cuda_plan(call->inputs[call->n_inputs - 1], images, x->workers,
                                         x->n_workers, parac__context_tuning(call->ctx), &layout, &x->strips));
        x->layout = (int)layout;
        if (layout != PARAC__CUDA_HOST_STRIPS) {
            want = PARAC_MEMORY_CUDA;
            device = parac_context_cuda_device(call->ctx);
        } else {
            x->cuda = 0; /* the pixel-wise steps run on the host */
        }
    }
    for (int i = 0; i < call->n_inputs; i++) {
        const parac_image *im = call->inputs[i];
        const int there = want == PARAC_MEMORY_CUDA ? im->memory == PARAC_MEMORY_CUDA && im->device == device
                                                    : im->memory != PARAC_MEMORY_CUDA;
        if (!there) PARAC_TRY(parac_image_clone(&placed[i], im, want, device, x->stream));
    }
    return PARAC_OK;
}

static parac_status morph_run(parac_op_call *call)
{
    morph_kind k = K_RECONSTRUCT;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(call->op->name, kinds[i].name) == 0) k = kinds[i].kind;
    morph_exec x = {call, parac_context_backend(call->ctx) == PARAC_BACKEND_CUDA,
                    parac_context_threads(call->ctx), parac_context_stream(call->ctx), 0, 0, {0}, 0};
    /* the inputs come where they are (keeps_inputs): place them */
    parac_image *placed[2] = {NULL, NULL};
    parac_status st = place_inputs(call, &x, placed); /* on failure, what it placed is released below */
    const parac_image *in[2] = {placed[0] ? placed[0] : call->inputs[0],
                                call->n_inputs > 1 ? (placed[1] ? placed[1] : call->inputs[1]) : NULL};
    if (st == PARAC_OK) st = run_kind(call, k, &x, in);
    if (placed[0] || placed[1]) parac_context_synchronize(call->ctx);
    parac_image_destroy(placed[0]);
    parac_image_destroy(placed[1]);
    return st;
}

static parac_status run_kind(parac_op_call *call, morph_kind k, morph_exec *xp, const parac_image *const *in)
{
    morph_exec x = *xp;
    const morph_params *p = call->params;
    const parac_image *f = in[k == K_RECONSTRUCT ? 1 : 0]; /* the mask */
    parac__recon_spec s = {0};
    s.op = call->op->name;
    s.tuning = parac__context_tuning(call->ctx);
    s.conn = p->connectivity ? p->connectivity : default_conn(k, f);
    PARAC_TRY(parac__recon_check(&s, k == K_RECONSTRUCT ? in[0] : NULL, f));
    parac_image *tmp = NULL, *tmp2 = NULL;
    parac_status st = PARAC_OK;
    parac_image **out = &call->outputs[0];
    switch (k) {
    case K_RECONSTRUCT:
        s.erosion = p->mode == PARAC_RECON_EROSION;
        s.clip = p->clip;
        s.heaps = p->heaps;
        s.node_size = p->node_size;
        s.heap_updates = p->heap_updates;
        st = new_image(&x, out, f, f->dtype);
        if (st == PARAC_OK) st = recon(&x, &s, in[0], f, *out);
        break;
    case K_FILL_HOLES:
        s.erosion = 1;
        s.rule = PARAC__MARKER_BORDER;
        s.border = 1;
        st = new_image(&x, out, f, f->dtype);
        if (st == PARAC_OK) st = recon(&x, &s, NULL, f, *out);
        break;
    case K_H_MAXIMA:
    case K_H_MINIMA: {
        double h = p->h;
        if (!(h > 0))
            return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                               "%s: h must be > 0 (h = 0 gives every regional extremum: use "
                               "regional-%s)", s.op, k == K_H_MAXIMA ? "maxima" : "minima");
        if (f->dtype != PARAC_F32) h = ceil(h); /* integer images: whole steps, as scikit-image */
        parac_image_stats stats;
        PARAC_TRY(parac_image_compute_stats(call->ctx, f, &stats));
        PARAC_TRY(no_nan(&s, &stats));
        s.erosion = k == K_H_MINIMA;
        s.rule = PARAC__MARKER_SUB_H;
        s.h = h;
        st = new_image(&x, out, f, PARAC_U8);
        if (st != PARAC_OK) break;
        if (h > stats.max[0] - stats.min[0]) { /* no extremum that deep: all false, as scikit-image */
            st = parac_image_clear(*out, x.stream);
            break;
        }
        st = new_image(&x, &tmp, f, f->dtype);
        if (st == PARAC_OK) st = recon(&x, &s, NULL, f, tmp);
        if (st == PARAC_OK) st = post(&x, PARAC__POST_HEXT, s.erosion, h, f, tmp, *out);
        break;
    }
    case K_REGIONAL_MAXIMA:
    case K_REGIONAL_MINIMA: {
        parac_image_stats stats;
        PARAC_TRY(parac_image_compute_stats(call->ctx, f, &stats));
        PARAC_TRY(no_nan(&s, &stats));
        s.erosion = k == K_REGIONAL_MINIMA;
        s.rule = PARAC__MARKER_PRED;
        st = new_image(&x, out, f, PARAC_U8);
        if (st != PARAC_OK) break;
        if (stats.min[0] == stats.max[0]) { /* a flat image has none, as scikit-image */
            st = parac_image_clear(*out, x.stream);
            break;
        }
        st = new_image(&x, &tmp, f, f->dtype);
        if (st == PARAC_OK) st = recon(&x, &s, NULL, f, tmp);
        if (st == PARAC_OK) st = post(&x, PARAC__POST_REGIONAL, s.erosion, 0, f, tmp, *out);
        break;
    }
    case K_OPENING:
    case K_CLOSING: {
        const int64_t r = p->radius;
        s.erosion = k == K_CLOSING;
        st = new_image(&x, &tmp, f, f->dtype);
        if (st == PARAC_OK) st = minmax(&x, f, tmp, r, k == K_CLOSING);
        if (st == PARAC_OK) st = new_image(&x, out, f, f->dtype);
        if (st == PARAC_OK) st = recon(&x, &s, tmp, f, *out);
        break;
    }
    case K_CLEAR_BORDER: {
        s.rule = PARAC__MARKER_BORDER;
        s.border = p->buffer + 1;
        st = new_image(&x, &tmp, f, PARAC_U8);
        if (st == PARAC_OK) st = post(&x, PARAC__POST_NONZERO, 0, 0, f, f, tmp);
        if (st == PARAC_OK) st = new_image(&x, &tmp2, f, PARAC_U8);
        if (st == PARAC_OK) st = recon(&x, &s, NULL, tmp, tmp2);
        if (st == PARAC_OK) st = new_image(&x, out, f, f->dtype);
        if (st == PARAC_OK) st = post(&x, PARAC__POST_CLEAR, 0, 0, f, tmp2, *out);
        break;
    }
    }
    /* temporaries may still be in use by queued device work */
    if ((tmp || tmp2) && x.cuda) parac_context_synchronize(call->ctx);
    parac_image_destroy(tmp);
    parac_image_destroy(tmp2);
    return st;
}

/* ---- auto -------------------------------------------------------------------- */
static parac_status morph_choose(parac_op_call *call, const char **method, char *why,
                                 size_t why_size)
{
    const parac_image *f = call->inputs[call->n_inputs - 1];
    const int64_t n = parac_image_pixel_count(f);
    if (parac_context_backend(call->ctx) == PARAC_BACKEND_CUDA) {
        *method = "wavefront";
        if (why_size) {
            int workers[16], nw = parac_context_cuda_workers(call->ctx, workers, 16);
            int64_t strips = 0;
            parac__cuda_layout layout = PARAC__CUDA_WHOLE;
            if (parac__recon_cuda_plan(f, call->n_inputs + 2, workers, nw, parac__context_tuning(call->ctx), &layout,
                                       &strips) != PARAC_OK)
                layout = PARAC__CUDA_WHOLE;
            if (layout == PARAC__CUDA_SPLIT)
                snprintf(why, why_size, "faster than heap on every measured input; one strip of rows on each "
                         "of %d workers, resident there, exchanging boundary rows until stable", nw);
            else if (layout == PARAC__CUDA_HOST_STRIPS)
                snprintf(why, why_size, "faster than heap on every measured input; in %lld strips of rows "
                         "from host memory over %d worker%s (the image exceeds the devices' memory "
                         "budget)", (long long)strips, nw, nw == 1 ? "" : "s");
            else if (nw > 1)
                snprintf(why, why_size, "faster than heap on every measured input; whole on the first of %d "
                         "workers (below 2^26 pixels splitting over devices costs more than it saves; "
                         "PARAC_CUDA_SPLIT=always splits)", nw);
            else
                snprintf(why, why_size, "faster than heap on every measured input (docs/morphology.md)");
        }
        return PARAC_OK;
    }
    const int threads = parac_context_threads(call->ctx);
    /* parallel pays for its strips and rounds from 2^16 pixels on the
     * h-maxima class and fill-holes (16-core Xeon, 256²: 1.6-3x hybrid); a
     * single front (one seed, a spiral) favours hybrid up to 512², which no
     * size rule can see (bench/morph/results/cpu-parallel-2026-11-25.txt) */
    if (threads > 1 && n >= (1 << 16) && f->height >= 64) {
        *method = "parallel";
        if (why_size)
            snprintf(why, why_size, "%lld pixels on %d threads: strips of rows, rounds of scans, then the fast hybrid's FIFO",
                     (long long)n, threads);
        return PARAC_OK;
    }
    *method = "hybrid";
    if (why_size)
        snprintf(why, why_size, "%s: one thread, the fast hybrid method (the fastest single-thread "
                 "method on every measured input)", threads > 1 ? "small image" : "one thread");
    return PARAC_OK;
}

/* ---- the table ------------------------------------------------------------------ */
#define CONN_PARAM(dflt)                                                                   \
    {"connectivity", PARAC_PARAM_INT, NULL, PARAC__CONNECTIVITIES, 4, 26,                  \
     "neighbours: 4 or 8 (2D), 6, 18 or 26 (3D); default " dflt, PARAC_FIELD(morph_params, connectivity)}

static const parac_param_spec reconstruct_params[] = {
    {"mode", PARAC_PARAM_CHOICE, "dilation", "dilation|erosion", 0, 0,
     "dilation: the marker (<= mask) spreads upwards under the mask; erosion: the dual (marker >= mask)",
     PARAC_FIELD(morph_params, mode)},
    CONN_PARAM("full (8 / 26), as scikit-image"),
    {"clip", PARAC_PARAM_BOOL, "false", NULL, 0, 0,
     "clip the marker to the mask first (as MATLAB) instead of failing where it crosses",
     PARAC_FIELD(morph_params, clip)},
    {"heaps", PARAC_PARAM_INT, NULL, NULL, 1, 1 << 20,
     "heap method: heaps in the cluster (default 32 per SM)", PARAC_FIELD(morph_params, heaps)},
    {"node-size", PARAC_PARAM_INT, NULL, NULL, 32, 512,
     "heap method: pixels per heap node r, a power of two (default 64)", PARAC_FIELD(morph_params, node_size)},
    {"heap-updates", PARAC_PARAM_CHOICE, "auto", "auto|pipelined|serial", 0, 0,
     "heap method: updates pipelined level by level with a thread group per level (the paper), or "
     "one update through all levels after another; auto: pipelined for clusters of fewer than 3 heaps "
     "per SM, where it measures faster", PARAC_FIELD(morph_params, heap_updates)},
};
static const parac_param_spec conn_params[] = {CONN_PARAM("full (8 / 26)")};
static const parac_param_spec fill_params[] = {
    CONN_PARAM("4 / 6 (the background's connectivity, as scipy and MATLAB)")};
static const parac_param_spec h_params[] = {
    {"h", PARAC_PARAM_DOUBLE, NULL, NULL, 0, 1e300,
     "minimum height (depth) of an extremum to keep; integer images round it up; required",
     PARAC_REQUIRED_FIELD(morph_params, h)},
    CONN_PARAM("full (8 / 26)"),
};
static const parac_param_spec radius_params[] = {
    {"radius", PARAC_PARAM_INT, "1", NULL, 0, 1 << 20,
     "half side of the square (cube in 3D) structuring element: side 2r+1", PARAC_FIELD(morph_params, radius)},
    CONN_PARAM("full (8 / 26)"),
};
static const parac_param_spec clear_params[] = {
    {"buffer", PARAC_PARAM_INT, "0", NULL, 0, INT32_MAX,
     "also remove objects within this many pixels of the border, as scikit-image's buffer_size",
     PARAC_FIELD(morph_params, buffer)},
    CONN_PARAM("full (8 / 26), as scikit-image's label"),
};

static const parac_method morph_methods[] = {
    {"hybrid", PARAC_BACKEND_CPU, morph_run,
     "Vincent's fast hybrid: raster and anti-raster scans, then a FIFO queue (one thread)", NULL},
    {"sequential", PARAC_BACKEND_CPU, morph_run,
     "Vincent's sequential: raster and anti-raster scans until a pass changes nothing (one thread)", NULL},
    {"downhill", PARAC_BACKEND_CPU, morph_run,
     "Robinson & Whelan: pixels by decreasing value; bucket queue for u8/u16, radix heap for f32 (one thread)", NULL},
    {"parallel", PARAC_BACKEND_CPU, morph_run,
     "every core: strips of rows, rounds of raster/anti-raster scans with halo exchange, then FIFO rounds until stable", NULL},
    {"wavefront", PARAC_BACKEND_CUDA, morph_run,
     "tiles propagated to convergence in shared memory, only tiles whose halo changed run again", NULL},
    {"heap", PARAC_BACKEND_CUDA, morph_run,
     "the paper's MR_GPU: seeds sorted into a cluster of parallel max-heaps (nodes of r pixels), "
     "one thread block per heap", NULL},
};

#define MORPH_OP(var, nm, summ, desc, use, nin, prm, dem, view)                                 \
    const parac_op var = {                                                                     \
        .name = nm, .summary = summ, .description = desc, .usage_args = use, .n_inputs = nin,   \
        .n_outputs = 1, .params = prm, .n_params = sizeof prm / sizeof prm[0],                  \
        .params_size = sizeof(morph_params),                                                   \
        .methods = morph_methods, .n_methods = sizeof morph_methods / sizeof morph_methods[0],   \
        .choose = morph_choose, .demo = dem, .demo_view = view, .keeps_inputs = 1}

MORPH_OP(parac__op_reconstruct, "reconstruct",
         "morphological reconstruction of a marker under a mask, by dilation or erosion",
         "Reconstruction by dilation repeats 'dilate the marker, take the minimum with the mask' "
         "until nothing changes (Vincent 1993); by erosion is the dual. MARKER and MASK: same size "
         "and dtype (u8, u16, f32), one channel, 2D or 3D; the output has their dtype. Every method "
         "gives the same bits, as scikit-image's reconstruction (which returns float). "
         "See docs/morphology.md.",
         "MARKER MASK OUT", 2, reconstruct_params, parac__morph_demo_serpentine, PARAC_DEMO_PLAIN);
MORPH_OP(parac__op_fill_holes, "fill-holes", "fill holes: regional minima not connected to the border",
         "Grayscale hole filling (Soille): reconstruction by erosion of the image from a marker "
         "equal to the image on the border and to the maximum inside. On a binary image it fills "
         "the background regions that do not touch the border, as scipy's binary_fill_holes.",
         "IN OUT", 1, fill_params, parac__morph_demo_cells, PARAC_DEMO_CHANGES);
MORPH_OP(parac__op_h_maxima, "h-maxima", "maxima of height at least h, as a mask",
         "255 where f - R(f - h) >= h, R being reconstruction by dilation under f: the maxima "
         "whose height above their surroundings is at least h, as scikit-image's h_maxima "
         "(which returns 1). Output u8.",
         "IN OUT", 1, h_params, parac__morph_demo_terrain_h, PARAC_DEMO_MASK);
MORPH_OP(parac__op_h_minima, "h-minima", "minima of depth at least h, as a mask",
         "255 where R(f + h) - f >= h, R being reconstruction by erosion above f, as scikit-image's "
         "h_minima. Output u8.",
         "IN OUT", 1, h_params, parac__morph_demo_terrain_h, PARAC_DEMO_MASK);
MORPH_OP(parac__op_regional_maxima, "regional-maxima",
         "plateaus whose neighbours are all strictly lower, as a mask",
         "255 on every connected plateau with no higher neighbour (pixels on the image border "
         "count), as scikit-image's local_maxima: f > R(f'), f' the next lower value of f. Output u8.",
         "IN OUT", 1, conn_params, parac__morph_demo_terrain, PARAC_DEMO_MASK);
MORPH_OP(parac__op_regional_minima, "regional-minima",
         "plateaus whose neighbours are all strictly higher, as a mask",
         "The dual of regional-maxima, as scikit-image's local_minima. Output u8.", "IN OUT", 1,
         conn_params, parac__morph_demo_terrain, PARAC_DEMO_MASK);
MORPH_OP(parac__op_opening_by_reconstruction, "opening-by-reconstruction",
         "erosion by a square, then reconstruction by dilation under the image",
         "Removes bright details smaller than the structuring element (a flat square of side "
         "2r+1, a cube in 3D) while keeping the exact shape of everything larger: "
         "reconstruction(erosion(f), f), as scikit-image.",
         "IN OUT", 1, radius_params, parac__morph_demo_specks, PARAC_DEMO_CHANGES);
MORPH_OP(parac__op_closing_by_reconstruction, "closing-by-reconstruction",
         "dilation by a square, then reconstruction by erosion above the image",
         "The dual of opening-by-reconstruction: reconstruction(dilation(f), f, 'erosion').",
         "IN OUT", 1, radius_params, parac__morph_demo_pits, PARAC_DEMO_CHANGES);
MORPH_OP(parac__op_clear_border, "clear-border", "remove objects that touch the image border",
         "Objects are connected components of nonzero pixels; those with a pixel within buffer+1 "
         "pixels of the border become 0, the rest keep their values, as scikit-image's "
         "clear_border. The output has the input's dtype.",
         "IN OUT", 1, clear_params, parac__morph_demo_objects, PARAC_DEMO_CHANGES);

/* ---- typed API ------------------------------------------------------------------ */
parac_status parac_reconstruct(parac_context *ctx, const parac_image *marker,
                               const parac_image *mask, parac_image **out,
                               const parac_reconstruct_options *options)
{
    if (!out) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "reconstruct: out is NULL");
    *out = NULL;
    const parac_op *op = &parac__op_reconstruct;
    parac_reconstruct_options o = {PARAC_RECON_DILATION, 0, 0, NULL};
    if (options) o = *options;
    morph_params p = {.mode = (int)o.mode, .connectivity = o.connectivity, .clip = o.clip != 0};
    uint64_t set = parac__param_bit(op, "mode") | parac__param_bit(op, "clip");
    if (o.connectivity) set |= parac__param_bit(op, "connectivity");
    parac_image *in[2] = {(parac_image *)marker, (parac_image *)mask};
    return parac__op_run_typed(ctx, op, in, 2, out, 1, &p, set, o.method, NULL, 0);
}
