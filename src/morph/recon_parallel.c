/* The parallel CPU method: the image's rows are cut into one strip per
 * thread; every strip is a grid of its own whose first and last frame rows
 * are halo rows holding the neighbouring strips' boundary rows. Rounds:
 *   1. every strip runs the fast hybrid method alone (the halo rows are
 *      sources it reads but never changes);
 *   2. every strip copies its neighbours' boundary rows into its halo rows;
 *   3. every strip raises its boundary rows from the new halo values and
 *      propagates with its FIFO; if no strip raised anything, the result is
 *      final, else back to 2.
 * Each phase is its own parallel loop, so a strip's pixels are never read
 * by one thread while another writes them. Values only rise and every round
 * uses values the final result bounds from below, so the fix point reached
 * is the reconstruction (the same bits as the other methods). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error_internal.h"
#include "recon_grid.h"

enum { MIN_STRIP_ROWS = 16 };

/* Copy grid `src`'s interior row `sy` into grid `dst`'s halo row `dy`, in
 * both buffers (J = I marks a halo pixel as a fixed source). */
static void copy_halo(parac__grid *dst, int64_t dy, const parac__grid *src, int64_t sy)
{
    const size_t es = parac_dtype_size(dst->dtype);
    for (int64_t z = dst->z0; z < dst->z0 + dst->d; z++) {
        const char *from = (const char *)src->I + es * (size_t)(z * src->sz + sy * src->sy + 1);
        char *toI = (char *)dst->I + es * (size_t)(z * dst->sz + dy * dst->sy + 1);
        char *toJ = (char *)dst->J + es * (size_t)(z * dst->sz + dy * dst->sy + 1);
        memcpy(toI, from, es * (size_t)dst->w);
        memcpy(toJ, from, es * (size_t)dst->w);
    }
}

/* The violation that comes first in raster order (z, then y, then x). */
static int earlier(const parac__recon_violation *a, const parac__recon_violation *b)
{
    if (!b->found) return 1;
    if (a->z != b->z) return a->z < b->z;
    if (a->y != b->y) return a->y < b->y;
    return a->x < b->x;
}

parac_status parac__recon_parallel(const parac__recon_spec *s, const parac_image *marker,
                                   const parac_image *mask, parac_image *out, int threads)
{
    const parac__engine *e = parac__engine_for(mask->dtype);
    const int64_t H = mask->height;
    int64_t n = threads > 0 ? threads : 1;
    if (n > H / MIN_STRIP_ROWS) n = H / MIN_STRIP_ROWS;
    if (n < 1) n = 1;
    parac__grid *g = calloc((size_t)n, sizeof *g);
    parac__queue *q = calloc((size_t)n, sizeof *q);
    parac__recon_violation *v = calloc((size_t)n, sizeof *v);
    parac_status *st = calloc((size_t)n, sizeof *st);
    int64_t *raised = calloc((size_t)n, sizeof *raised);
    if (!g || !q || !v || !st || !raised) {
        free(g), free(q), free(v), free(st), free(raised);
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: no memory for %" PRId64 " strips", s->op, n);
    }
#define STRIP_Y0(i) (H * (i) / n)

    /* Load and the first local run. */
#pragma omp parallel for schedule(static, 1) num_threads((int)n)
    for (int64_t i = 0; i < n; i++) {
        const int64_t y0 = STRIP_Y0(i), h = STRIP_Y0(i + 1) - y0;
        st[i] = parac__grid_alloc(&g[i], mask->dtype, s->conn, mask->width, h, mask->depth);
        if (st[i] != PARAC_OK) continue;
        e->load(&g[i], s, marker, mask, y0, &v[i]);
        if (!v[i].found) st[i] = e->hybrid(&g[i], &q[i]);
    }
    parac_status result = PARAC_OK;
    parac__recon_violation first = {0};
    /* messages are per thread: say here what failed */
    for (int64_t i = 0; i < n; i++) {
        if (st[i] != PARAC_OK && result == PARAC_OK)
            result = parac__fail(st[i], "%s: strip %" PRId64 " of the parallel method: %s", s->op, i,
                                 parac_status_string(st[i]));
        if (v[i].found && earlier(&v[i], &first)) first = v[i];
    }
    if (result == PARAC_OK && first.found) result = parac__recon_violation_error(s, &first);

    /* Halo exchange rounds until no strip changes. */
    while (result == PARAC_OK && n > 1) {
#pragma omp parallel for schedule(static, 1) num_threads((int)n)
        for (int64_t i = 0; i < n; i++) {
            if (i > 0) copy_halo(&g[i], 0, &g[i - 1], g[i - 1].h);
            if (i + 1 < n) copy_halo(&g[i], g[i].h + 1, &g[i + 1], 1);
        }
        int64_t total = 0;
#pragma omp parallel for schedule(static, 1) num_threads((int)n) reduction(+ : total)
        for (int64_t i = 0; i < n; i++) {
            raised[i] = e->seed_from_halo(&g[i], &q[i], &st[i]);
            total += raised[i];
        }
        for (int64_t i = 0; i < n; i++)
            if (st[i] != PARAC_OK && result == PARAC_OK)
                result = parac__fail(st[i], "%s: strip %" PRId64 " of the parallel method: %s", s->op,
                                     i, parac_status_string(st[i]));
        if (total == 0) break;
    }

    if (result == PARAC_OK) {
#pragma omp parallel for schedule(static, 1) num_threads((int)n)
        for (int64_t i = 0; i < n; i++) e->store(&g[i], s->erosion, out, STRIP_Y0(i));
    }
#undef STRIP_Y0
    for (int64_t i = 0; i < n; i++) {
        parac__grid_free(&g[i]);
        parac__queue_free(&q[i]);
    }
    free(g), free(q), free(v), free(st), free(raised);
    return result;
}
