/* Divergence seeds (see skel_divergence.h). */
#include <math.h>
#include <stdlib.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "skel.h"
#include "skel_divergence.h"

typedef struct scored {
    float div;
    int64_t voxel;
} scored;

static int by_divergence(const void *a, const void *b)
{
    const scored *x = a, *y = b;
    if (x->div != y->div) return x->div < y->div ? -1 : 1;
    return x->voxel < y->voxel ? -1 : x->voxel > y->voxel; /* a total order: the same seeds every run */
}

/* Reorders a[0..n) so that its k smallest (by_divergence) come first. */
static void select_lowest(scored *a, int64_t n, int64_t k)
{
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        const scored pivot = a[lo + (hi - lo) / 2];
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (by_divergence(&a[i], &pivot) < 0) i++;
            while (by_divergence(&a[j], &pivot) > 0) j--;
            if (i <= j) {
                const scored t = a[i];
                a[i++] = a[j], a[j--] = t;
            }
        }
        if (k - 1 <= j) hi = j;
        else if (k - 1 >= i) lo = i;
        else break;
    }
}

static double divergence(const parac__skel_field *f, int64_t x, int64_t y, int64_t z)
{
    double div = 0;
    for (int k = 0; k < 3; k++) {
        double a[3] = {(double)x, (double)y, (double)z}, b[3] = {(double)x, (double)y, (double)z}, fa[3], fb[3];
        a[k] += 0.5, b[k] -= 0.5;
        parac__skel_interpolate(f, a, fa);
        parac__skel_interpolate(f, b, fb);
        div += fa[k] - fb[k];
    }
    return div;
}

parac_status parac__skel_divergence_seeds(const parac__skel_field *f, double frac, int threads, double **seeds,
                                          int64_t *n_seeds)
{
    *seeds = NULL;
    *n_seeds = 0;
    const int64_t N = f->w * f->h * f->d;
    float *div = parac__malloc((size_t)N * sizeof *div);
    if (!div) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: divergence of %lld voxels", (long long)N);
    double lo = INFINITY, hi = -INFINITY;
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : 1) reduction(min : lo) reduction(max : hi)
    for (int64_t i = 0; i < N; i++) {
        div[i] = NAN;
        if (f->cls[i] != PARAC__SKEL_INTERIOR) continue;
        const double v = divergence(f, i % f->w, (i / f->w) % f->h, i / (f->w * f->h));
        div[i] = (float)v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    if (!(lo <= hi)) { /* no interior voxel */
        free(div);
        return PARAC_OK;
    }
    const float limit = (float)(lo + frac * (hi - lo));
    int64_t n = 0;
    for (int64_t i = 0; i < N; i++) n += div[i] <= limit;
    scored *cand = parac__malloc((size_t)(n ? n : 1) * sizeof *cand);
    double *out = parac__malloc((size_t)(n < PARAC__SKEL_MAX_DIVERGENCE_SEEDS ? (n ? n : 1) : PARAC__SKEL_MAX_DIVERGENCE_SEEDS) *
                         3 * sizeof *out);
    if (!cand || !out) {
        free(div), free(cand), free(out);
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: %lld divergence candidates", (long long)n);
    }
    n = 0;
    for (int64_t i = 0; i < N; i++)
        if (div[i] <= limit) cand[n++] = (scored){div[i], i};
    free(div);
    if (n > PARAC__SKEL_MAX_DIVERGENCE_SEEDS) { /* only the lowest are kept: select them, sort those */
        select_lowest(cand, n, PARAC__SKEL_MAX_DIVERGENCE_SEEDS);
        n = PARAC__SKEL_MAX_DIVERGENCE_SEEDS;
    }
    qsort(cand, (size_t)n, sizeof *cand, by_divergence);
    for (int64_t c = 0; c < n; c++) {
        const int64_t i = cand[c].voxel;
        out[3 * c] = (double)(i % f->w), out[3 * c + 1] = (double)((i / f->w) % f->h), out[3 * c + 2] = (double)(i / (f->w * f->h));
    }
    const int64_t m = n;
    free(cand);
    *seeds = out;
    *n_seeds = m;
    return PARAC_OK;
}
