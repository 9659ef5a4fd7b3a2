/* Reconstruction of an image spread over several CUDA devices (the paper's
 * first level of parallelism, on the GPUs of one host). Worker k owns strip
 * k of the image's rows, resident on its device for the whole call:
 *   1. every worker loads its strip (reading its rows of the inputs across
 *      the peer link from its load kernel when the images are on another
 *      device, or staging them by a copy where the memory does not allow
 *      it) and runs the wavefront on it;
 *   2. every strip takes its neighbours' boundary rows into its halo rows
 *      (a peer copy where the devices allow it);
 *   3. a strip whose halo rose runs the wavefront again, starting from the
 *      tiles next to that halo only (the rest is at its fix point already);
 * 2 and 3 repeat until no halo rises. The phases do not overlap, so no strip
 * is read while it is written; values only rise, so the result is the same
 * bits as on one device. A front that crosses strip borders m times costs m
 * exchanges, each a few rows' copy and the tiles the front reaches. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/device_internal.h"
#include "../core/error_internal.h"
#include "recon_devices.h"

enum { MAX_WORKERS = 16 };

/* From 8192² two H100s split an h-maxima image faster than one runs it
 * whole (1.15x; 4096²: 2x slower; docs/morphology.md). */
#define SPLIT_MIN_PIXELS ((int64_t)1 << 26)

parac_status parac__split_pays(const parac_image *mask, const parac__tuning *tuning, int *pays)
{
    switch (tuning->cuda_split) {
    case PARAC__SPLIT_MALFORMED:
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "PARAC_CUDA_SPLIT is '%s': always, never or auto",
                           tuning->cuda_split_text);
    case PARAC__SPLIT_ALWAYS: *pays = 1; break;
    case PARAC__SPLIT_NEVER: *pays = 0; break;
    case PARAC__SPLIT_AUTO: *pays = parac_image_pixel_count(mask) >= SPLIT_MIN_PIXELS; break;
    }
    return PARAC_OK;
}

void parac__split_rows(const int *workers, int n, int images_device, const parac_image *mask, int64_t H,
                       const parac__tuning *tuning, int64_t *y0)
{
    double share[MAX_WORKERS], total = 0, acc = 0;
    for (int k = 0; k < n; k++)
        total += share[k] = parac__dev_strip_share(images_device, workers[k], mask, tuning);
    for (int k = 0; k < n; k++) {
        /* at least one row each, in order */
        int64_t y = (int64_t)((double)H * acc / total + 0.5);
        const int64_t lo = k == 0 ? 0 : y0[k - 1] + 1, hi = H - (n - k);
        y0[k] = k == 0 ? 0 : y < lo ? lo : y > hi ? hi : y;
        acc += share[k];
    }
    y0[n] = H;
}

typedef struct worker_result {
    parac_status st;
    char msg[256];
} worker_result;

static void keep(worker_result *r, parac_status st)
{
    if (st != PARAC_OK && r->st == PARAC_OK) {
        r->st = st;
        snprintf(r->msg, sizeof r->msg, "%s", parac_error_message());
    }
}

/* The first failure among the workers, as this thread's error. */
static parac_status first_failure(const parac__recon_spec *s, const worker_result *r, const int *workers,
                                  int n, const char *phase)
{
    for (int k = 0; k < n; k++)
        if (r[k].st != PARAC_OK)
            return parac__fail(r[k].st, "%s: strip %d on CUDA device %d, %s: %s", s->op, k, workers[k], phase,
                               r[k].msg);
    return PARAC_OK;
}

parac_status parac__recon_split(const parac__recon_spec *s, const parac_image *marker,
                                const parac_image *mask, parac_image *out, const int *workers,
                                int n_workers, void *stream)
{
    const int n = n_workers < MAX_WORKERS ? n_workers : MAX_WORKERS;
    const int64_t H = mask->height;
    if (n < 2 || H < n)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: %" PRId64 " rows cannot be split over %d devices",
                           s->op, H, n);
    PARAC_TRY(parac__recon_check(s, marker, mask));
    PARAC_TRY(parac__cuda_stream_sync(stream)); /* the inputs are written */
    PARAC_TRY(parac__dev_strips_connect(workers, n));
    int64_t y0[MAX_WORKERS + 1];
    parac__split_rows(workers, n, mask->memory == PARAC_MEMORY_CUDA ? mask->device : workers[0], mask, H,
                      s->tuning, y0);
    parac__dev_strip *t[MAX_WORKERS] = {0};
    unsigned long long bad[MAX_WORKERS];
    unsigned start[MAX_WORKERS];
    worker_result r[MAX_WORKERS] = {0};
    parac_status result = PARAC_OK;

    /* one host thread per strip, so that every device is busy at once */
#pragma omp parallel for num_threads(n) schedule(static, 1)
    for (int k = 0; k < n; k++) {
        keep(&r[k], parac__dev_strip_load(&t[k], s, marker, mask, y0[k], y0[k + 1] - y0[k], workers[k], &bad[k]));
        if (r[k].st == PARAC_OK && bad[k] == ~0ull) keep(&r[k], parac__dev_strip_run(t[k], 0));
    }
    unsigned long long first_bad = ~0ull;
    for (int k = 0; k < n; k++)
        if (r[k].st == PARAC_OK && bad[k] < first_bad) first_bad = bad[k];
    result = first_failure(s, r, workers, n, "loading and first run");
    if (result == PARAC_OK && first_bad != ~0ull) result = parac__recon_cuda_violation(s, first_bad, marker, mask);

    for (int64_t round = 1; result == PARAC_OK; round++) {
        /* exchange: every strip takes both neighbours' boundary rows */
        for (int k = 0; k < n && result == PARAC_OK; k++) {
            if (k > 0) result = parac__dev_strip_take_halo(t[k], 0, t[k - 1]);
            if (k + 1 < n && result == PARAC_OK) result = parac__dev_strip_take_halo(t[k], 1, t[k + 1]);
        }
        int any = 0;
        for (int k = 0; k < n && result == PARAC_OK; k++) {
            result = parac__dev_strip_raised(t[k], &start[k]);
            any |= start[k] != 0;
        }
        if (result != PARAC_OK || !any) break;
#pragma omp parallel for num_threads(n) schedule(static, 1)
        for (int k = 0; k < n; k++)
            if (start[k]) keep(&r[k], parac__dev_strip_run(t[k], start[k]));
        char phase[48];
        snprintf(phase, sizeof phase, "round %" PRId64, round);
        result = first_failure(s, r, workers, n, phase);
    }
    if (result == PARAC_OK) {
#pragma omp parallel for num_threads(n) schedule(static, 1)
        for (int k = 0; k < n; k++) keep(&r[k], parac__dev_strip_store(t[k], s->erosion, out));
        result = first_failure(s, r, workers, n, "storing");
    }
    for (int k = 0; k < n; k++) parac__dev_strip_free(t[k]);
    return result;
}
