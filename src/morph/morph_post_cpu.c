/* CPU versions of the pixel-wise steps of morph_post.h. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "morph_post.h"

/* Pixel value as double (u8, u16, f32). */
static inline double px(const parac_image *im, int64_t x, int64_t y, int64_t z)
{
    const void *p = parac_image_at(im, x, y, z);
    switch (im->dtype) {
    case PARAC_U8: return *(const uint8_t *)p;
    case PARAC_U16: return *(const uint16_t *)p;
    default: return *(const float *)p;
    }
}

parac_status parac__morph_post_cpu(parac__post_kind kind, int minima, double h,
                                   const parac_image *f, const parac_image *R, parac_image *out,
                                   int threads)
{
    const int64_t W = f->width, H = f->height, D = f->depth;
    const size_t es = parac_dtype_size(f->dtype);
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads > 0 ? threads : 1)
    for (int64_t z = 0; z < D; z++)
        for (int64_t y = 0; y < H; y++) {
            uint8_t *o8 = parac_image_at(out, 0, y, z);
            for (int64_t x = 0; x < W; x++) {
                const double a = px(f, x, y, z);
                switch (kind) {
                case PARAC__POST_HEXT: {
                    double r = px(R, x, y, z);
                    o8[x] = (minima ? r - a : a - r) >= h ? 255 : 0;
                    break;
                }
                case PARAC__POST_REGIONAL: {
                    double r = px(R, x, y, z);
                    o8[x] = (minima ? a < r : a > r) ? 255 : 0;
                    break;
                }
                case PARAC__POST_NONZERO: o8[x] = a != 0 ? 255 : 0; break;
                case PARAC__POST_CLEAR: {
                    char *o = (char *)parac_image_at(out, x, y, z);
                    if (px(R, x, y, z) != 0) memset(o, 0, es);
                    else memcpy(o, parac_image_at(f, x, y, z), es);
                    break;
                }
                }
            }
        }
    return PARAC_OK;
}

/* Van Herk / Gil-Werman running minimum of window k = 2r+1 over line a of n
 * values (padded with the identity `id` r values each side, so the window is
 * clipped to the image): 3 comparisons per value whatever r. */
static void vhgw_line(float *a, int64_t n, int64_t r, int is_max, float *ext, float *g, float *hh)
{
    const int64_t k = 2 * r + 1, m = n + 2 * r;
    const float id = is_max ? -INFINITY : INFINITY;
#define PICK(u, v) (is_max ? ((u) > (v) ? (u) : (v)) : ((u) < (v) ? (u) : (v)))
    for (int64_t i = 0; i < m; i++) ext[i] = (i < r || i >= r + n) ? id : a[i - r];
    for (int64_t i = 0; i < m; i++) g[i] = (i % k == 0) ? ext[i] : PICK(g[i - 1], ext[i]);
    for (int64_t i = m - 1; i >= 0; i--)
        hh[i] = (i == m - 1 || (i + 1) % k == 0) ? ext[i] : PICK(hh[i + 1], ext[i]);
    for (int64_t i = 0; i < n; i++) a[i] = PICK(hh[i], g[i + k - 1]);
#undef PICK
}

static inline void put(parac_image *im, int64_t x, int64_t y, int64_t z, float v)
{
    void *p = parac_image_at(im, x, y, z);
    switch (im->dtype) {
    case PARAC_U8: *(uint8_t *)p = (uint8_t)v; break;
    case PARAC_U16: *(uint16_t *)p = (uint16_t)v; break;
    default: *(float *)p = v; break;
    }
}

parac_status parac__morph_minmax_cpu(const parac_image *in, parac_image *out, int64_t radius,
                                     int is_max, int threads)
{
    const int64_t W = in->width, H = in->height, D = in->depth;
    const int64_t len[3] = {W, H, D};
    int64_t longest = W > H ? W : H;
    if (D > longest) longest = D;
    const size_t per = (size_t)(longest + 2 * radius);
    parac_status st = PARAC_OK;
    const int nt = threads > 0 ? threads : 1;
    float *buf = parac__malloc(sizeof(float) * per * 4 * (size_t)nt);
    if (!buf) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "no memory for a filter line buffer");
    /* axis 0 reads `in`; later axes read and write `out` */
    for (int axis = 0; axis < 3; axis++) {
        if (len[axis] == 1 && axis > 0) continue;
        const parac_image *src = axis == 0 ? in : out;
        /* lines along `axis`, indexed by the other two coordinates */
        const int64_t na = axis == 0 ? H : W, nb = axis == 2 ? H : D;
#pragma omp parallel for collapse(2) schedule(static) num_threads(nt)
        for (int64_t b = 0; b < nb; b++)
            for (int64_t a = 0; a < na; a++) {
                float *line = buf + per * 4 * (size_t)omp_get_thread_num();
                const int64_t n = len[axis];
                for (int64_t i = 0; i < n; i++) {
                    int64_t x = axis == 0 ? i : a, y = axis == 1 ? i : (axis == 0 ? a : b),
                            z = axis == 2 ? i : b;
                    line[i] = (float)px(src, x, y, z);
                }
                if (radius > 0) vhgw_line(line, n, radius, is_max, line + per, line + 2 * per, line + 3 * per);
                for (int64_t i = 0; i < n; i++) {
                    int64_t x = axis == 0 ? i : a, y = axis == 1 ? i : (axis == 0 ? a : b),
                            z = axis == 2 ? i : b;
                    put(out, x, y, z, line[i]);
                }
            }
    }
    free(buf);
    return st;
}
