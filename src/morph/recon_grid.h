/* The CPU engines' working form of a reconstruction problem: marker (I, the
 * result in the end) and mask (J) in the dilation domain, in buffers with a
 * one-pixel frame on every side (and above and below in 3D). Frame pixels
 * hold the dtype's minimum in both buffers, so they never change and never
 * raise anything, and the engines' loops need no bounds tests.
 *
 * A grid may hold a strip of an image's rows (the parallel method): its
 * first and last frame rows are then halo rows that hold the neighbouring
 * strips' values, with J = I so that the engines read them as sources but
 * never raise them. */
#ifndef PARAC_MORPH_RECON_GRID_H
#define PARAC_MORPH_RECON_GRID_H

#include <stdint.h>

#include "recon.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct parac__grid {
    parac_dtype dtype;
    void *I, *J;
    int64_t w, h, d;  /* interior size: x in 1..w, y in 1..h, z in z0..z0+d-1 */
    int64_t sy, sz;   /* element strides of rows and slices */
    int64_t z0;       /* 1 for volumes (framed in z), 0 for 2D images */
    int64_t total;    /* elements per buffer */
    int n;            /* neighbours */
    int64_t off[26];  /* their linear offsets, raster order: the first n/2 are negative */
    int dy[26];       /* their row step, for seeding from halo rows */
    void *row;        /* scratch for the scans: w + 2 elements, then w + 2 flag bytes */
} parac__grid;

/* A FIFO of element indices (a growable ring). */
typedef struct parac__queue {
    int64_t *buf;
    int64_t cap, head, count; /* cap is a power of two */
} parac__queue;

parac_status parac__queue_push_grow(parac__queue *q, int64_t v);
void parac__queue_free(parac__queue *q);

static inline parac_status parac__queue_push(parac__queue *q, int64_t v)
{
    if (q->count == q->cap) return parac__queue_push_grow(q, v);
    q->buf[(q->head + q->count) & (q->cap - 1)] = v;
    q->count++;
    return PARAC_OK;
}

static inline int64_t parac__queue_pop(parac__queue *q)
{
    int64_t v = q->buf[q->head];
    q->head = (q->head + 1) & (q->cap - 1);
    q->count--;
    return v;
}

/* Allocate a grid for image rows [y0, y0 + h) of a w x H x d image. */
parac_status parac__grid_alloc(parac__grid *g, parac_dtype dtype, int conn, int64_t w, int64_t h,
                               int64_t d);
void parac__grid_free(parac__grid *g);

/* Per-dtype engines (recon_engine.inc). */
typedef struct parac__engine {
    /* Fill the grid from image rows [y0, y0 + g->h) and the halo rows around
     * them; records the first violation of marker <= mask (or a NaN) in *v. */
    void (*load)(parac__grid *g, const parac__recon_spec *s, const parac_image *marker,
                 const parac_image *mask, int64_t y0, parac__recon_violation *v);
    /* Write the interior back to image rows [y0, y0 + g->h) of `out`. */
    void (*store)(const parac__grid *g, int erosion, parac_image *out, int64_t y0);
    /* One raster (backward = 0) or anti-raster pass; returns how many pixels changed. */
    int64_t (*scan)(parac__grid *g, int backward);
    /* The anti-raster pass that also queues every pixel that can still raise
     * a later neighbour (Vincent's condition); returns how many pixels changed. */
    int64_t (*scan_queue)(parac__grid *g, parac__queue *q, parac_status *st);
    /* One raster or anti-raster pass over interior rows y_first .. y_last
     * (in the pass's order) of a 2D grid, columns x0 .. x1 only, with the
     * scratch row a (x1 - x0 + 3 elements); returns how many pixels changed. */
    int64_t (*scan_block)(parac__grid *g, int backward, int64_t y_first, int64_t y_last, int64_t x0, int64_t x1,
                          void *a);
    /* Vincent's fast hybrid: a raster and an anti-raster pass that queues
     * pixels that can still raise a neighbour, then FIFO propagation. */
    parac_status (*hybrid)(parac__grid *g, parac__queue *q);
    /* FIFO propagation from the pixels in q. */
    void (*propagate)(parac__grid *g, parac__queue *q, parac_status *st);
    /* Robinson & Whelan: pixels by decreasing value (buckets for u8/u16, a radix heap for f32). */
    parac_status (*downhill)(parac__grid *g);
    /* Raise the first/last interior rows from the halo rows, queueing what
     * changed; returns the number of raised pixels. */
    int64_t (*seed_from_halo)(parac__grid *g, parac__queue *q, parac_status *st);
} parac__engine;

const parac__engine *parac__engine_for(parac_dtype dtype);

/* Copy grid `src`'s interior row `sy` into grid `dst`'s halo row `dy`, in
 * both buffers (J = I marks a halo pixel as a fixed source). Returns
 * whether the halo changed. */
int parac__grid_copy_halo(parac__grid *dst, int64_t dy, const parac__grid *src, int64_t sy);
/* The same for columns x0 .. x1 of the row only. */
int parac__grid_copy_halo_cols(parac__grid *dst, int64_t dy, const parac__grid *src, int64_t sy, int64_t x0,
                               int64_t x1);
/* Whether violation a comes before b in raster order (z, then y, then x). */
int parac__violation_earlier(const parac__recon_violation *a, const parac__recon_violation *b);

/* The parallel method: strips of rows; rounds of scans with halo exchange
 * while they change many pixels, then the fast hybrid's FIFO in every strip
 * and halo exchange rounds until nothing changes. */
parac_status parac__recon_parallel(const parac__recon_spec *s, const parac_image *marker,
                                   const parac_image *mask, parac_image *out, int threads);

#ifdef __cplusplus
}
#endif

#endif
