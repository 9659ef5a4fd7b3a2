/* Reconstruction on CUDA devices in strips of rows: for images larger than
 * a device's memory budget, and to spread one image over several devices
 * (the paper's first level of parallelism, on the GPUs of one host).
 *
 * The strips are framed grids in host memory, as in the parallel CPU method
 * (recon_parallel.c): each one's first and last frame rows are halo rows
 * holding its neighbours' boundary rows, sources that are read but never
 * raised. Rounds:
 *   1. every strip marked dirty goes to a worker (strip i to worker
 *      i mod workers; a worker is a device and a stream of its own) which
 *      uploads it, runs the wavefront to the strip's fix point and
 *      downloads it; the workers run at once; after the first round the
 *      wavefront starts from the tiles next to the halos that changed;
 *   2. every strip copies its neighbours' boundary rows into its halo rows
 *      and is dirty when a halo changed;
 * until no strip is dirty. The phases do not overlap, so no strip is read
 * while it is written; values only rise, so the result is the same bits as
 * on one device. */
#include <inttypes.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "../core/device_internal.h"
#include "../core/error_internal.h"
#include "recon_devices.h"

parac_status parac__recon_tiled(const parac__recon_spec *s, const parac_image *marker,
                                const parac_image *mask, parac_image *out, const int *workers,
                                int n_workers, int64_t strips)
{
    const parac__engine *e = parac__engine_for(mask->dtype);
    const int64_t H = mask->height;
    const int64_t n = strips < 1 ? 1 : strips > H ? H : strips;
    parac__grid *g = parac__calloc((size_t)n, sizeof *g);
    parac__recon_violation *v = parac__calloc((size_t)n, sizeof *v);
    parac_status *st = parac__calloc((size_t)n, sizeof *st);
    unsigned char *dirty = parac__calloc((size_t)n, 1);
    void *streams[16] = {0};
    parac_status result = PARAC_OK;
    if (!g || !v || !st || !dirty) {
        result = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: no memory for %" PRId64 " strips", s->op, n);
        goto done;
    }
#define STRIP_Y0(i) (H * (i) / n)
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        const int64_t y0 = STRIP_Y0(i);
        st[i] = parac__grid_alloc(&g[i], mask->dtype, s->conn, mask->width, STRIP_Y0(i + 1) - y0, mask->depth);
        if (st[i] == PARAC_OK) e->load(&g[i], s, marker, mask, y0, &v[i]);
        dirty[i] = PARAC__HALO_TOP | PARAC__HALO_BOTTOM;
    }
    parac__recon_violation first = {0};
    for (int64_t i = 0; i < n; i++) {
        if (st[i] != PARAC_OK && result == PARAC_OK)
            result = parac__fail(st[i], "%s: no host memory for strip %" PRId64, s->op, i);
        if (v[i].found && parac__violation_earlier(&v[i], &first)) first = v[i];
    }
    if (result == PARAC_OK && first.found) result = parac__recon_violation_error(s, &first);
    for (int w = 0; result == PARAC_OK && w < n_workers; w++)
        result = parac__cuda_stream_create(workers[w], &streams[w]);

    for (int64_t round = 0; result == PARAC_OK; round++) {
        /* messages are per thread: each worker keeps its first failure */
        parac_status wst[16] = {0};
        char wmsg[16][256];
#pragma omp parallel num_threads(n_workers)
        {
            const int w = omp_get_thread_num();
            for (int64_t i = w; i < n && wst[w] == PARAC_OK; i += n_workers)
                if (dirty[i]) {
                    wst[w] = parac__recon_cuda_strip(&g[i], s->conn, workers[w], round == 0 ? 0u : dirty[i],
                                                     s->tuning->wavefront_batch,
                                                     streams[w]);
                    if (wst[w] != PARAC_OK)
                        snprintf(wmsg[w], sizeof wmsg[w], "%s", parac_error_message());
                }
        }
        for (int w = 0; w < n_workers && result == PARAC_OK; w++)
            if (wst[w] != PARAC_OK)
                result = parac__fail(wst[w], "%s: strip on CUDA device %d, round %" PRId64 ": %s",
                                     s->op, workers[w], round, wmsg[w]);
        int any = 0;
        for (int64_t i = 0; i < n && result == PARAC_OK; i++) {
            dirty[i] = 0;
            if (i > 0 && parac__grid_copy_halo(&g[i], 0, &g[i - 1], g[i - 1].h)) dirty[i] |= PARAC__HALO_TOP;
            if (i + 1 < n && parac__grid_copy_halo(&g[i], g[i].h + 1, &g[i + 1], 1)) dirty[i] |= PARAC__HALO_BOTTOM;
            any |= dirty[i];
        }
        if (!any) break;
    }
    if (result == PARAC_OK) {
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; i++) e->store(&g[i], s->erosion, out, STRIP_Y0(i));
    }
#undef STRIP_Y0
done:
    for (int w = 0; w < 16; w++) parac__cuda_stream_destroy(streams[w]);
    for (int64_t i = 0; g && i < n; i++) parac__grid_free(&g[i]);
    free(g), free(v), free(st), free(dirty);
    return result;
}
