/* Geometry, border runs and seeds shared by every fill method. */
#include <stdlib.h>

#include "core/alloc_internal.h"
#include "core/neighbourhood.h"
#include "../core/error_internal.h"
#include "fill.h"

static void add_row(parac__fill_geom *g, int dy, int dz, int grow)
{
    g->rows[g->n_rows++] = (parac__fill_row){dy, dz, grow};
}

parac_status parac__fill_geometry(const parac__fill_spec *s, const parac_image *in, parac__fill_geom *g)
{
    if (in->dtype != PARAC_U8 && in->dtype != PARAC_U16)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: the input is %s; u8 or u16 is needed", s->op,
                           parac_dtype_name(in->dtype));
    return parac__fill_conn_geometry(s->op, s->conn, in, g);
}

parac_status parac__fill_conn_geometry(const char *op, int conn, const parac_image *in, parac__fill_geom *g)
{
    if (in->channels != 1)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: the input has %d channels; one is needed "
                           "(convert it to grey first)", op, in->channels);
    const int is3d = in->depth > 1;
    if (conn != 4 && conn != 8 && conn != 6 && conn != 18 && conn != 26)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: connectivity must be 4 or 8 (2D, or each "
                           "slice of a volume) or 6, 18 or 26 (3D), got %d", op, conn);
    if (!is3d && conn != 4 && conn != 8)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: connectivity %d needs a volume; a 2D "
                           "image takes 4 or 8", op, conn);
    if (in->width > INT32_MAX || in->height > INT32_MAX || in->depth > INT32_MAX)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: sides up to %d pixels", op, INT32_MAX);
    *g = (parac__fill_geom){in->width, in->height, in->depth, 0, 0, {{0, 0, 0}}};
    /* the neighbouring rows (dy, dz) conn reaches, each with whether it
     * reaches their diagonal neighbours (dx = +-1) too; rows of other planes
     * only for a volume's connectivity */
    static const int rows[8][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {-1, -1}, {1, -1}, {-1, 1}, {1, 1}};
    g->z_border = parac__conn_is_3d(conn);
    for (int i = 0; i < 8; i++) {
        const int dy = rows[i][0], dz = rows[i][1];
        if ((dz && !g->z_border) || !parac__conn_reaches(conn, 0, dy, dz)) continue;
        add_row(g, dy, dz, parac__conn_reaches(conn, 1, dy, dz));
    }
    return PARAC_OK;
}

parac_status parac__fill_border_runs(const parac__fill_geom *g, parac__fill_run **out, int64_t *count)
{
    const int64_t per_slice = g->h <= 2 ? g->h : 2 + 2 * (g->h - 2);
    int64_t cap = 0;
    for (int64_t z = 0; z < g->d; z++)
        cap += (g->z_border && (z == 0 || z == g->d - 1)) ? g->h : per_slice;
    parac__fill_run *r = parac__malloc((size_t)(cap ? cap : 1) * sizeof *r);
    if (!r) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "fill: %lld border runs", (long long)cap);
    int64_t n = 0;
    const int32_t last = (int32_t)(g->w - 1);
    for (int32_t z = 0; z < g->d; z++) {
        const int whole = g->z_border && (z == 0 || z == g->d - 1);
        for (int32_t y = 0; y < g->h; y++) {
            if (whole || y == 0 || y == g->h - 1) {
                r[n++] = (parac__fill_run){y, z, 0, last};
            } else {
                r[n++] = (parac__fill_run){y, z, 0, 0};
                r[n++] = (parac__fill_run){y, z, last, last};
            }
        }
    }
    *out = r;
    *count = n;
    return PARAC_OK;
}

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void parac__fill_inner_seed(const parac__fill_geom *g, int64_t j, int64_t n, int64_t *x, int64_t *y,
                            int64_t *z)
{
    const int64_t rows = g->h * g->d;
    /* the middle of the j-th of n equal bands of rows */
    int64_t row = (int64_t)((2.0 * (double)j + 1.0) * (double)rows / (2.0 * (double)n));
    if (row >= rows) row = rows - 1;
    *z = row / g->h;
    *y = row % g->h;
    *x = (int64_t)(splitmix64((uint64_t)j) % (uint64_t)g->w);
}
