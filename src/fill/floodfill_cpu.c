/* Seeded flood fill on the CPU: a scanline fill per seed, as Heckbert's,
 * with a per-seed stamp so that regions of different seeds may overlap
 * (every seed is judged against the input, not against earlier fills).
 * The regions are written into a copy of the input, or into a zeroed mask. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "fill_stack.h"

static double pixel(const parac_image *im, int64_t x, int64_t y, int64_t z)
{
    const void *p = parac_image_at(im, x, y, z);
    switch (im->dtype) {
    case PARAC_U8: return *(const uint8_t *)p;
    case PARAC_U16: return *(const uint16_t *)p;
    default: return *(const float *)p;
    }
}

static void set_pixel(parac_image *im, int64_t x, int64_t y, int64_t z, double v)
{
    void *p = parac_image_at(im, x, y, z);
    switch (im->dtype) {
    case PARAC_U8: *(uint8_t *)p = (uint8_t)v; break;
    case PARAC_U16: *(uint16_t *)p = (uint16_t)v; break;
    default: *(float *)p = (float)v; break;
    }
}

typedef struct region {
    const parac_image *in;
    parac_image *out;
    const parac__fill_geom *g;
    uint16_t *stamp;
    uint16_t id;
    double lo, hi, value;
} region;

/* The pixel may join the region: within range and not yet taken by it. */
static inline int open_px(const region *r, int64_t x, int64_t y, int64_t z)
{
    if (r->stamp[(z * r->g->h + y) * r->g->w + x] == r->id) return 0;
    const double v = pixel(r->in, x, y, z);
    return v >= r->lo && v <= r->hi;
}

static parac_status fill_region(region *r, parac__fill_stack *stack, int64_t sx, int64_t sy, int64_t sz)
{
    const parac__fill_geom *g = r->g;
    PARAC_TRY(parac__fill_push(stack, (parac__fill_run){(int32_t)sy, (int32_t)sz, (int32_t)sx, (int32_t)sx}));
    parac__fill_run q;
    while (parac__fill_pop(stack, &q)) {
        uint16_t *st = r->stamp + ((int64_t)q.z * g->h + q.y) * g->w;
        for (int64_t x = q.x0; x <= q.x1; x++) {
            if (!open_px(r, x, q.y, q.z)) continue;
            int64_t l = x, e = x;
            while (l > 0 && open_px(r, l - 1, q.y, q.z)) l--;
            while (e < g->w - 1 && open_px(r, e + 1, q.y, q.z)) e++;
            for (int64_t i = l; i <= e; i++) {
                st[i] = r->id;
                set_pixel(r->out, i, q.y, q.z, r->value);
            }
            for (int k = 0; k < g->n_rows; k++) {
                const parac__fill_row *nb = &g->rows[k];
                const int64_t ny = q.y + nb->dy, nz = q.z + nb->dz;
                if (ny < 0 || ny >= g->h || nz < 0 || nz >= g->d) continue;
                int64_t a = l - nb->grow, b = e + nb->grow;
                if (a < 0) a = 0;
                if (b > g->w - 1) b = g->w - 1;
                for (int64_t i = a; i <= b; i++) {
                    if (!open_px(r, i, ny, nz)) continue;
                    const int64_t j = i;
                    while (i < b && open_px(r, i + 1, ny, nz)) i++;
                    PARAC_TRY(parac__fill_push(stack, (parac__fill_run){(int32_t)ny, (int32_t)nz,
                                                                         (int32_t)j, (int32_t)i}));
                }
            }
            x = e;
        }
    }
    return PARAC_OK;
}

parac_status parac__floodfill_cpu(const parac_image *in, parac_image *out, const int64_t *seeds,
                                  int n_seeds, double value, double tolerance, int conn, int mask)
{
    parac__fill_geom g;
    PARAC_TRY(parac__fill_conn_geometry("floodfill", conn, in, &g));
    if (n_seeds < 1 || n_seeds > 65535)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "floodfill: 1 to 65535 seeds, got %d", n_seeds);
    if (mask) {
        PARAC_TRY(parac_image_clear(out, NULL));
        value = 1;
    } else {
        PARAC_TRY(parac_image_copy(out, in, NULL));
    }
    const int64_t n = g.w * g.h * g.d;
    uint16_t *stamp = parac__calloc((size_t)n, sizeof *stamp);
    if (!stamp) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "floodfill: %lld pixels of marks", (long long)n);
    parac__fill_stack stack = {0};
    parac_status rc = PARAC_OK;
    for (int k = 0; rc == PARAC_OK && k < n_seeds; k++) {
        const int64_t *p = seeds + 3 * k;
        const double sv = pixel(in, p[0], p[1], p[2]);
        region r = {in, out, &g, stamp, (uint16_t)(k + 1), sv - tolerance, sv + tolerance, value};
        if (isnan(sv)) continue; /* NaN is within no range, not even its own */
        rc = fill_region(&r, &stack, p[0], p[1], p[2]);
    }
    parac__fill_stack_free(&stack);
    free(stamp);
    return rc;
}
