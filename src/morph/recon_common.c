/* Pieces every reconstruction engine shares: neighbourhoods, argument
 * checks, violation messages, the CPU grids and queues. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "../core/image_internal.h"
#include "core/neighbourhood.h"
#include "recon_grid.h"

int parac__recon_neighbours(int conn, int is_3d, int d[26][3])
{
    if (is_3d ? !parac__conn_is_3d(conn) : !(conn == 4 || conn == 8)) return 0;
    int n = 0;
    for (int dz = is_3d ? -1 : 0; dz <= (is_3d ? 1 : 0); dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                if (!parac__conn_reaches(conn, dx, dy, dz)) continue;
                d[n][0] = dx;
                d[n][1] = dy;
                d[n][2] = dz;
                n++;
            }
    return n;
}

parac_status parac__recon_check(const parac__recon_spec *s, const parac_image *marker,
                                const parac_image *mask)
{
    const char *op = s->op;
    if (mask->dtype != PARAC_U8 && mask->dtype != PARAC_U16 && mask->dtype != PARAC_F32)
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "%s: dtype %s is not supported (u8, u16 or f32; see 'parac convert')", op,
                           parac_dtype_name(mask->dtype));
    if (mask->channels != 1)
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "%s: the image has %d channels; reconstruction takes one (see 'parac "
                           "convert --channels 1')", op, mask->channels);
    if (marker) {
        if (marker->width != mask->width || marker->height != mask->height ||
            marker->depth != mask->depth)
            return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                               "%s: marker is %" PRId64 "x%" PRId64 "x%" PRId64 " but mask is %" PRId64
                               "x%" PRId64 "x%" PRId64 " (width x height x depth); they must be equal",
                               op, marker->width, marker->height, marker->depth, mask->width,
                               mask->height, mask->depth);
        if (marker->dtype != mask->dtype)
            return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                               "%s: marker is %s but mask is %s; they must have the same dtype", op,
                               parac_dtype_name(marker->dtype), parac_dtype_name(mask->dtype));
        if (marker->channels != 1)
            return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: the marker has %d channels; reconstruction takes one",
                               op, marker->channels);
    }
    int d[26][3];
    if (!parac__recon_neighbours(s->conn, mask->depth > 1, d))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                           "%s: connectivity %d is not valid for a %s (use %s)", op, s->conn,
                           mask->depth > 1 ? "3D volume" : "2D image",
                           mask->depth > 1 ? "6, 18 or 26" : "4 or 8");
    if (s->rule == PARAC__MARKER_SUB_H && !(s->h >= 0))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: h must be >= 0", op);
    if (s->rule == PARAC__MARKER_BORDER && s->border < 1)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: border width must be >= 1", op);
    return PARAC_OK;
}

parac_status parac__recon_violation_error(const parac__recon_spec *s,
                                          const parac__recon_violation *v)
{
    if (v->nan_in)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                           "%s: the %s has NaN at x=%" PRId64 " y=%" PRId64 " z=%" PRId64
                           " (NaN has no order; replace it first)",
                           s->op, v->nan_in == 1 ? "marker" : "mask", v->x, v->y, v->z);
    return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                       "%s: the marker is %s the mask at x=%" PRId64 " y=%" PRId64 " z=%" PRId64
                       " (marker %.9g, mask %.9g); reconstruction by %s needs marker %s mask "
                       "everywhere (--clip clips the marker to the mask first)",
                       s->op, s->erosion ? "below" : "above", v->x, v->y, v->z, v->marker, v->mask,
                       s->erosion ? "erosion" : "dilation", s->erosion ? ">=" : "<=");
}

/* ---- queues --------------------------------------------------------------- */
parac_status parac__queue_push_grow(parac__queue *q, int64_t v)
{
    int64_t cap = q->cap ? q->cap * 2 : 4096;
    int64_t *buf = parac__malloc(sizeof *buf * (size_t)cap);
    if (!buf)
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "reconstruction: no memory for a queue of %" PRId64
                           " pixels", cap);
    /* unwrap the ring into the new buffer */
    for (int64_t i = 0; i < q->count; i++) buf[i] = q->buf[(q->head + i) & (q->cap - 1)];
    free(q->buf);
    q->buf = buf;
    q->cap = cap;
    q->head = 0;
    q->buf[q->count++] = v;
    return PARAC_OK;
}

void parac__queue_free(parac__queue *q)
{
    free(q->buf);
    memset(q, 0, sizeof *q);
}

/* ---- grids ------------------------------------------------------------------ */
parac_status parac__grid_alloc(parac__grid *g, parac_dtype dtype, int conn, int64_t w, int64_t h,
                               int64_t d)
{
    memset(g, 0, sizeof *g);
    g->dtype = dtype;
    g->w = w;
    g->h = h;
    g->d = d;
    g->sy = w + 2;
    g->sz = (w + 2) * (h + 2);
    g->z0 = d > 1 ? 1 : 0;
    int64_t slices = d > 1 ? d + 2 : 1;
    size_t es = parac_dtype_size(dtype);
    if (w > INT64_MAX / 4 || h > INT64_MAX / 4 || g->sz > INT64_MAX / (int64_t)es / slices / 2)
        return parac__fail(PARAC_ERR_OVERFLOW, "reconstruction: image too large");
    g->total = g->sz * slices;
    int dd[26][3];
    g->n = parac__recon_neighbours(conn, d > 1, dd);
    if (!g->n) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "reconstruction: bad connectivity %d", conn);
    for (int k = 0; k < g->n; k++) {
        g->off[k] = dd[k][2] * g->sz + dd[k][1] * g->sy + dd[k][0];
        g->dy[k] = dd[k][1];
    }
    /* working images of a few MiB or more: huge pages, since the engines
     * write them whole right away */
    const size_t bytes = es * (size_t)g->total;
    g->I = parac__host_alloc_scratch(bytes);
    g->J = parac__host_alloc_scratch(bytes);
    g->row = parac__malloc((es + 1) * (size_t)(w + 2));
    if (!g->I || !g->J || !g->row) {
        parac__grid_free(g);
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY,
                           "reconstruction: no memory for two %" PRId64 "x%" PRId64 "x%" PRId64
                           " working images", w, h, d);
    }
    return PARAC_OK;
}

void parac__grid_free(parac__grid *g)
{
    free(g->I);
    free(g->J);
    free(g->row);
    g->I = g->J = g->row = NULL;
}

/* ---- strips ----------------------------------------------------------------- */
int parac__grid_copy_halo_cols(parac__grid *dst, int64_t dy, const parac__grid *src, int64_t sy, int64_t x0,
                               int64_t x1)
{
    const size_t es = parac_dtype_size(dst->dtype), bytes = es * (size_t)(x1 - x0 + 1);
    int changed = 0;
    for (int64_t z = dst->z0; z < dst->z0 + dst->d; z++) {
        const char *from = (const char *)src->I + es * (size_t)(z * src->sz + sy * src->sy + x0);
        char *toI = (char *)dst->I + es * (size_t)(z * dst->sz + dy * dst->sy + x0);
        char *toJ = (char *)dst->J + es * (size_t)(z * dst->sz + dy * dst->sy + x0);
        if (!changed && memcmp(toI, from, bytes) != 0) changed = 1;
        memcpy(toI, from, bytes);
        memcpy(toJ, from, bytes);
    }
    return changed;
}

int parac__grid_copy_halo(parac__grid *dst, int64_t dy, const parac__grid *src, int64_t sy)
{
    return parac__grid_copy_halo_cols(dst, dy, src, sy, 1, dst->w);
}

int parac__violation_earlier(const parac__recon_violation *a, const parac__recon_violation *b)
{
    if (!b->found) return 1;
    if (a->z != b->z) return a->z < b->z;
    if (a->y != b->y) return a->y < b->y;
    return a->x < b->x;
}
