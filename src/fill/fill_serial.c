/* The paper's baseline: reverse (conversely) filling on one thread. Every
 * background run on the border seeds a scanline fill of the outside; what
 * the fill never reaches is inside.
 *
 * States per pixel: 0 background not reached (inside), 1 reached (outside),
 * 2 contour, which are also the output classes. The stack holds runs of
 * unreached pixels seen in a neighbour row, each processed pixel by pixel. */
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "fill_pixels.h"
#include "fill_stack.h"

static void mark_contour(const parac__fill_spec *s, const parac_image *in, uint8_t *st)
{
    const int64_t w = in->width;
    for (int64_t z = 0; z < in->depth; z++)
        for (int64_t y = 0; y < in->height; y++) {
            const void *row = parac__fill_row_in(in, y, z);
            uint8_t *o = st + (z * in->height + y) * w;
            if (in->dtype == PARAC_U8)
                for (int64_t x = 0; x < w; x++) o[x] = ((const uint8_t *)row)[x] >= s->threshold ? 2 : 0;
            else
                for (int64_t x = 0; x < w; x++) o[x] = ((const uint16_t *)row)[x] >= s->threshold ? 2 : 0;
        }
}

/* Fill from the unreached pixels of run r, and from everything they reach. */
static parac_status fill_from(const parac__fill_geom *g, uint8_t *st, parac__fill_stack *stack,
                              parac__fill_run first)
{
    PARAC_TRY(parac__fill_push(stack, first));
    parac__fill_run r;
    while (parac__fill_pop(stack, &r)) {
        uint8_t *row = st + ((int64_t)r.z * g->h + r.y) * g->w;
        for (int64_t x = r.x0; x <= r.x1; x++) {
            if (row[x] != 0) continue;
            int64_t l = x, e = x;
            while (l > 0 && row[l - 1] == 0) l--;
            while (e < g->w - 1 && row[e + 1] == 0) e++;
            memset(row + l, 1, (size_t)(e - l + 1));
            for (int k = 0; k < g->n_rows; k++) {
                const parac__fill_row *nb = &g->rows[k];
                const int64_t ny = r.y + nb->dy, nz = r.z + nb->dz;
                if (ny < 0 || ny >= g->h || nz < 0 || nz >= g->d) continue;
                const uint8_t *n = st + (nz * g->h + ny) * g->w;
                int64_t a = l - nb->grow, b = e + nb->grow;
                if (a < 0) a = 0;
                if (b > g->w - 1) b = g->w - 1;
                for (int64_t i = a; i <= b; i++) {
                    if (n[i] != 0) continue;
                    const int64_t j = i;
                    while (i < b && n[i + 1] == 0) i++;
                    PARAC_TRY(parac__fill_push(stack, (parac__fill_run){(int32_t)ny, (int32_t)nz,
                                                                         (int32_t)j, (int32_t)i}));
                }
            }
            x = e;
        }
    }
    return PARAC_OK;
}

parac_status parac__fill_serial(const parac__fill_spec *s, const parac_image *in, parac_image *out)
{
    parac__fill_geom g;
    PARAC_TRY(parac__fill_geometry(s, in, &g));
    const int64_t n = g.w * g.h * g.d;
    uint8_t *st = parac__malloc((size_t)n);
    if (!st) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: %lld bytes of pixel states", s->op, (long long)n);
    mark_contour(s, in, st);
    parac__fill_run *border = NULL;
    int64_t nb = 0;
    parac__fill_stack stack = {0};
    parac_status rc = parac__fill_border_runs(&g, &border, &nb);
    for (int64_t i = 0; rc == PARAC_OK && i < nb; i++) rc = fill_from(&g, st, &stack, border[i]);
    for (int64_t z = 0; rc == PARAC_OK && z < g.d; z++)
        for (int64_t y = 0; y < g.h; y++) parac__fill_write_row(s, in, out, y, z, st + (z * g.h + y) * g.w);
    free(border);
    parac__fill_stack_free(&stack);
    free(st);
    return rc;
}
