/* Stage 1: voxel classes and compact point lists. */
#include <stdlib.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "skel.h"

static double value(const parac_image *in, int64_t x, int64_t y, int64_t z)
{
    const void *p = parac_image_at(in, x, y, z);
    switch (in->dtype) {
    case PARAC_U8: return *(const uint8_t *)p;
    case PARAC_U16: return *(const uint16_t *)p;
    default: return *(const float *)p;
    }
}

/* Has voxel (x,y,z) a neighbour of class c (26- or 6-neighbourhood)?
 * Voxels beyond the volume are exterior. */
static int has_neighbour(const uint8_t *cls, int64_t w, int64_t h, int64_t d, int64_t x, int64_t y, int64_t z,
                         int c, int full)
{
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                const int k = abs(dx) + abs(dy) + abs(dz);
                if (k == 0 || (!full && k > 1)) continue;
                const int64_t nx = x + dx, ny = y + dy, nz = z + dz;
                const int out = nx < 0 || ny < 0 || nz < 0 || nx >= w || ny >= h || nz >= d;
                const int nc = out ? PARAC__SKEL_EXTERIOR : cls[(nz * h + ny) * w + nx];
                if (nc == c) return 1;
            }
    return 0;
}

parac_status parac__skel_classify(const parac_image *in, double threshold, parac__skel_rules rules, uint8_t *cls)
{
    if (in->channels != 1)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "skeleton: the volume has %d channels; one is needed",
                           in->channels);
    if (in->dtype != PARAC_U8 && in->dtype != PARAC_U16 && in->dtype != PARAC_F32)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "skeleton: the volume is %s; u8, u16 or f32 is needed",
                           parac_dtype_name(in->dtype));
    const int64_t w = in->width, h = in->height, d = in->depth;
#pragma omp parallel for schedule(static)
    for (int64_t z = 0; z < d; z++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++)
                {
                    const double v = value(in, x, y, z);
                    const int object = threshold != threshold ? v != 0 : v >= threshold; /* NaN: nonzero */
                    cls[(z * h + y) * w + x] = object ? PARAC__SKEL_INTERIOR : PARAC__SKEL_EXTERIOR;
                }
    const int full = rules == PARAC__SKEL_RULES_PAPER;
    /* surface: decided on the object/exterior picture alone, so mark in a second array pass */
    uint8_t *mark = parac__malloc((size_t)(w * h * d));
    if (!mark) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: classes of %lld voxels", (long long)(w * h * d));
#pragma omp parallel for schedule(static)
    for (int64_t z = 0; z < d; z++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                const int64_t i = (z * h + y) * w + x;
                mark[i] = cls[i] != PARAC__SKEL_EXTERIOR &&
                          has_neighbour(cls, w, h, d, x, y, z, PARAC__SKEL_EXTERIOR, full);
            }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < w * h * d; i++)
        if (mark[i]) cls[i] = PARAC__SKEL_SURFACE;
    if (rules == PARAC__SKEL_RULES_PAPER) {
#pragma omp parallel for schedule(static)
        for (int64_t z = 0; z < d; z++)
            for (int64_t y = 0; y < h; y++)
                for (int64_t x = 0; x < w; x++) {
                    const int64_t i = (z * h + y) * w + x;
                    mark[i] = cls[i] == PARAC__SKEL_INTERIOR &&
                              has_neighbour(cls, w, h, d, x, y, z, PARAC__SKEL_SURFACE, 1);
                }
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < w * h * d; i++)
            if (mark[i]) cls[i] = PARAC__SKEL_BOUNDARY;
    }
    free(mark);
    return PARAC_OK;
}

parac_status parac__skel_collect(const uint8_t *cls, int64_t w, int64_t h, int64_t d, int which, float **xyz,
                                 int64_t **index, int64_t *count)
{
    /* per plane counts, their prefix sums, then every plane fills its part:
     * the list is in raster order whatever the thread count */
    int64_t *first = parac__calloc((size_t)d + 1, sizeof *first);
    if (!first) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: %lld planes", (long long)d);
#pragma omp parallel for schedule(static)
    for (int64_t z = 0; z < d; z++) {
        int64_t c = 0;
        for (int64_t i = z * w * h; i < (z + 1) * w * h; i++) c += cls[i] == which;
        first[z + 1] = c;
    }
    for (int64_t z = 0; z < d; z++) first[z + 1] += first[z];
    const int64_t n = first[d];
    float *p = parac__malloc((size_t)(n ? n : 1) * 3 * sizeof *p);
    int64_t *ix = parac__malloc((size_t)(n ? n : 1) * sizeof *ix);
    if (!p || !ix) {
        free(p), free(ix), free(first);
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: a list of %lld points", (long long)n);
    }
#pragma omp parallel for schedule(static)
    for (int64_t z = 0; z < d; z++) {
        int64_t k = first[z];
        for (int64_t i = z * w * h; i < (z + 1) * w * h; i++)
            if (cls[i] == which) {
                p[3 * k] = (float)(i % w);
                p[3 * k + 1] = (float)((i / w) % h);
                p[3 * k + 2] = (float)z;
                ix[k++] = i;
            }
    }
    free(first);
    *xyz = p;
    *index = ix;
    *count = n;
    return PARAC_OK;
}

void parac__skel_neighbour_means(const uint8_t *cls, int64_t w, int64_t h, int64_t d, int which, int from,
                                 float *field)
{
#pragma omp parallel for schedule(static)
    for (int64_t z = 0; z < d; z++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                const int64_t i = (z * h + y) * w + x;
                if (cls[i] != which) continue;
                double s[3] = {0, 0, 0};
                int n = 0;
                for (int dz = -1; dz <= 1; dz++)
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            const int64_t nx = x + dx, ny = y + dy, nz = z + dz;
                            if ((!dx && !dy && !dz) || nx < 0 || ny < 0 || nz < 0 || nx >= w || ny >= h || nz >= d)
                                continue;
                            const int64_t j = (nz * h + ny) * w + nx;
                            if (!(from >> cls[j] & 1)) continue;
                            for (int c = 0; c < 3; c++) s[c] += field[3 * j + c];
                            n++;
                        }
                for (int c = 0; c < 3; c++) field[3 * i + c] = n ? (float)(s[c] / n) : 0.0f;
            }
}
