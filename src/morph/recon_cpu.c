/* The CPU methods of reconstruction: sequential (Vincent's raster and
 * anti-raster passes until stable), hybrid (Vincent's fast hybrid), downhill
 * (Robinson & Whelan) on one thread, and parallel (recon_parallel.c). */
#include <string.h>

#include "../core/error_internal.h"
#include "recon_grid.h"

parac_status parac__recon_cpu(const char *method, const parac__recon_spec *s,
                              const parac_image *marker, const parac_image *mask,
                              parac_image *out, int threads)
{
    PARAC_TRY(parac__recon_check(s, marker, mask));
    if (strcmp(method, "parallel") == 0) return parac__recon_parallel(s, marker, mask, out, threads);
    const parac__engine *e = parac__engine_for(mask->dtype);
    parac__grid g;
    PARAC_TRY(parac__grid_alloc(&g, mask->dtype, s->conn, mask->width, mask->height, mask->depth));
    parac__recon_violation v;
    e->load(&g, s, marker, mask, 0, &v);
    parac_status st = PARAC_OK;
    if (v.found) st = parac__recon_violation_error(s, &v);
    else if (strcmp(method, "sequential") == 0) {
        /* until a raster + anti-raster pair changes nothing */
        for (;;) {
            const int64_t a = e->scan(&g, 0);
            const int64_t b = e->scan(&g, 1);
            if (!a && !b) break;
        }
    } else if (strcmp(method, "hybrid") == 0) {
        parac__queue q = {0};
        st = e->hybrid(&g, &q);
        parac__queue_free(&q);
    } else if (strcmp(method, "downhill") == 0) {
        st = e->downhill(&g);
    } else {
        st = parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: unknown CPU method '%s'", s->op, method);
    }
    if (st == PARAC_OK) e->store(&g, s->erosion, out, 0);
    parac__grid_free(&g);
    return st;
}
