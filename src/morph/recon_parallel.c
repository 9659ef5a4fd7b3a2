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
        if (v[i].found && parac__violation_earlier(&v[i], &first)) first = v[i];
    }
    if (result == PARAC_OK && first.found) result = parac__recon_violation_error(s, &first);

    /* Halo exchange rounds until no strip changes. */
    while (result == PARAC_OK && n > 1) {
#pragma omp parallel for schedule(static, 1) num_threads((int)n)
        for (int64_t i = 0; i < n; i++) {
            if (i > 0) parac__grid_copy_halo(&g[i], 0, &g[i - 1], g[i - 1].h);
            if (i + 1 < n) parac__grid_copy_halo(&g[i], g[i].h + 1, &g[i + 1], 1);
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
