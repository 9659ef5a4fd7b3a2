/* What the device runtimes share (see device_runtime.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "runtime/common/device_runtime.h"
#include "runtime/common/disk_cache.h"
#include "core/error_internal.h"

size_t parac__matrix_rows(int ndim, const long dims[3])
{
    size_t r = 1;
    for (int i = 0; i < ndim - 1; i++) r *= (size_t)dims[i];
    return r;
}

size_t parac__matrix_cols(int ndim, const long dims[3]) { return (size_t)dims[ndim > 0 ? ndim - 1 : 0]; }

parac_status parac__matrix_geometry(int ndim, long d0, long d1, long d2, size_t elem_size, size_t host_pitch,
                                    size_t *device_pitch)
{
    if (ndim < 1 || ndim > 3 || elem_size == 0 || d0 < 0 || d1 < 0 || d2 < 0)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "matrix of %d dims %ldx%ldx%ld", ndim, d0, d1, d2);
    const long dims[3] = {d0, d1, d2};
    const size_t row = parac__matrix_cols(ndim, dims) * elem_size;
    size_t pitch = (row + 63) / 64 * 64;
    if (pitch == 0) pitch = 64;
    if (d0 > 2147483647L || d1 > 2147483647L || d2 > 2147483647L || pitch / elem_size > 2147483647u ||
        (double)pitch * (double)parac__matrix_rows(ndim, dims) > 9.0e18)
        return parac__fail(PARAC_ERR_OVERFLOW, "matrix %ldx%ldx%ld: a size or the row pitch exceeds 2^31 - 1 elements",
                           d0, d1, d2);
    if (host_pitch < row) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "host pitch %zu < row %zu", host_pitch, row);
    *device_pitch = pitch;
    return PARAC_OK;
}

parac_status parac__launch_counts(const char *kernel, int ndim, const long *lo, const long *hi, const int *items,
                                  size_t count[3], int *empty)
{
    if (ndim < 1 || ndim > 3) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "launch of %d dims", ndim);
    count[0] = count[1] = count[2] = 1;
    *empty = 0;
    for (int d = 0; d < ndim; d++) {
        if (hi[d] <= lo[d]) {
            *empty = 1;
            return PARAC_OK;
        }
        if (hi[d] - lo[d] > 2147483647L) return parac__fail(PARAC_ERR_OVERFLOW, "kernel %s: box too large", kernel);
        long n = hi[d] - lo[d], per = items && items[d] > 1 ? items[d] : 1;
        if (per > 1) n = (n + 2 * (per - 1)) / per;
        count[ndim - 1 - d] = (size_t)n;
    }
    return PARAC_OK;
}

void parac__tally_copy(parac__transfer_tally *t, int to_device, long long bytes)
{
    atomic_fetch_add(to_device ? &t->uploads : &t->downloads, 1);
    atomic_fetch_add(to_device ? &t->upload_bytes : &t->download_bytes, bytes);
}

void parac__tally_fill(parac__transfer_tally *t) { atomic_fetch_add(&t->fills, 1); }

void parac__tally_read(parac__transfer_tally *t, long long out[5])
{
    out[0] = atomic_load(&t->uploads);
    out[1] = atomic_load(&t->downloads);
    out[2] = atomic_load(&t->fills);
    out[3] = atomic_load(&t->upload_bytes);
    out[4] = atomic_load(&t->download_bytes);
}

parac_status parac__check_variants(int nvar, const parac_kernel_variant *v)
{
    if (nvar < 1 || nvar > PARAC__MAX_VARIANTS || !v)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "launch of variants: %d candidate kernels (1 to %d)", nvar,
                           (int)PARAC__MAX_VARIANTS);
    return PARAC_OK;
}

parac_kernel_variant parac__one_variant(const char *kernel, int ndim, const int *wg, const int *items)
{
    parac_kernel_variant v = {kernel, {1, 1, 1}, {1, 1, 1}, 0};
    for (int d = 0; d < 3; d++) {
        if (wg) v.wg[d] = wg[d];
        if (items && d < ndim) v.items[d] = items[d];
    }
    return v;
}

parac_status parac__one_launch_work(const char *kernel, int ndim, const long *lo, const long *hi, const int *items,
                                    int nbox, const long *boxes, parac__one_launch *w, int *nothing)
{
    if (ndim > 2)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "kernel %s: one launch is for regions of one or two axes", kernel);
    PARAC_TRY(parac__pack_boxes(kernel, ndim, nbox, boxes, &w->boxes, &w->border_items));
    PARAC_TRY(parac__launch_counts(kernel, ndim, lo, hi, items, w->count, &w->empty));
    *nothing = w->empty && w->border_items == 0;
    return PARAC_OK;
}

parac_status parac__one_launch_grid(const char *kernel, int ndim, const parac__one_launch *w, const size_t local[2],
                                    size_t max_rows, size_t *gx, size_t *iblocks, size_t *rows)
{
    *gx = w->empty ? 1 : (w->count[0] + local[0] - 1) / local[0];
    *iblocks = w->empty ? 0 : ndim == 2 ? (w->count[1] + local[1] - 1) / local[1] : 1;
    size_t per_row = *gx * local[0] * local[1];
    *rows = *iblocks + ((size_t)w->border_items + per_row - 1) / per_row;
    if (w->empty && *rows > max_rows) {
        /* no interior: the border work-items take rows as wide as they need (the kernel
         * numbers them by the grid's width) */
        const size_t most = max_rows * local[0] * local[1];
        *gx = ((size_t)w->border_items + most - 1) / most;
        per_row = *gx * local[0] * local[1];
        *rows = ((size_t)w->border_items + per_row - 1) / per_row;
    }
    if (*rows > max_rows || *gx > 2147483647u)
        return parac__fail(PARAC_ERR_OVERFLOW, "kernel %s: %zu x %zu work-groups", kernel, *gx, *rows);
    return PARAC_OK;
}

parac_status parac__pack_boxes(const char *kernel, int ndim, int nbox, const long *boxes, parac__boxes *out,
                               long *total)
{
    if (ndim < 1 || ndim > 3 || nbox < 0 || nbox > 6)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "kernel %s: %d boxes of %d dims", kernel, nbox, ndim);
    memset(out, 0, sizeof *out);
    *total = 0;
    for (int i = 0; i < nbox; i++) {
        const long *lo = boxes + 6 * i, *hi = lo + 3;
        long vol = 1;
        for (int d = 0; d < ndim; d++) {
            if (hi[d] - lo[d] > 2147483647L || lo[d] < -2147483647L || hi[d] > 2147483647L)
                return parac__fail(PARAC_ERR_OVERFLOW, "kernel %s: border box too large", kernel);
            vol *= hi[d] > lo[d] ? hi[d] - lo[d] : 0;
        }
        if (vol <= 0) continue;
        if (*total > 2147483647L - vol)
            return parac__fail(PARAC_ERR_OVERFLOW, "kernel %s: border boxes too large", kernel);
        *total += vol;
        for (int d = 0; d < ndim; d++) {
            out->b[out->n][2 * d] = (int)lo[d];
            out->b[out->n][2 * d + 1] = (int)hi[d];
        }
        out->n++;
    }
    return PARAC_OK;
}

/* Candidates per number of dimensions (x first); the model's own shape is
 * tried before them. */
static const unsigned cand1[][3] = {{32, 1, 1}, {64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}};
static const unsigned cand2[][3] = {{8, 8, 1},  {16, 8, 1}, {16, 16, 1}, {32, 4, 1},  {32, 8, 1},  {32, 16, 1},
                                    {64, 2, 1}, {64, 4, 1}, {128, 1, 1}, {128, 2, 1}, {256, 1, 1}, {64, 8, 1}};
static const unsigned cand3[][3] = {{8, 8, 4}, {16, 4, 4}, {32, 4, 2}, {32, 8, 1}, {64, 2, 2}, {32, 2, 2}, {16, 8, 2}};

const unsigned (*parac__search_candidates(int ndim, int *count))[3]
{
    if (ndim == 1) {
        *count = (int)(sizeof cand1 / sizeof cand1[0]);
        return cand1;
    }
    if (ndim == 2) {
        *count = (int)(sizeof cand2 / sizeof cand2[0]);
        return cand2;
    }
    *count = (int)(sizeof cand3 / sizeof cand3[0]);
    return cand3;
}

static int search_path(uint64_t key, char *path, size_t size)
{
    char dir[1024];
    if (!parac__cache_dir(dir, sizeof dir)) return 0;
    snprintf(path, size, "%s/search-%016llx.txt", dir, (unsigned long long)key);
    return 1;
}

int parac__search_cache_load(uint64_t key, unsigned shape[3], unsigned *variant)
{
    char path[1200];
    if (!search_path(key, path, sizeof path)) return 0;
    size_t len = 0;
    unsigned char *text = parac__read_all(path, &len);
    char *z = text ? parac__realloc(text, len + 1) : NULL;
    if (!z) {
        free(text);
        return 0;
    }
    z[len] = 0;
    unsigned v = 0; /* a choice written before variants were searched names none: the model's */
    const int got = sscanf(z, "%u %u %u %u", &shape[0], &shape[1], &shape[2], &v);
    const int ok = got >= 3 && shape[0] && shape[1] && shape[2];
    if (variant) *variant = got == 4 ? v : 0;
    free(z);
    return ok;
}

void parac__search_cache_store(uint64_t key, const unsigned shape[3], unsigned variant, const char *comment)
{
    char path[1200], text[1024];
    if (!search_path(key, path, sizeof path)) return;
    const int n = snprintf(text, sizeof text, "%u %u %u %u\n# %s\n", shape[0], shape[1], shape[2], variant, comment);
    if (n > 0)
        parac__write_atomic(path, (const unsigned char *)text, (size_t)(n < (int)sizeof text ? n : (int)sizeof text - 1));
}

static _Atomic long countdown; /* 0: off */

void parac__countdown_set(long n) { atomic_store(&countdown, n > 0 ? n : 0); }

int parac__countdown_hit(void)
{
    long left = atomic_load(&countdown);
    while (left > 0)
        if (atomic_compare_exchange_weak(&countdown, &left, left - 1)) return left == 1;
    return 0;
}

void parac__spread_small_launch(int ndim, const size_t count[3], unsigned units, size_t group[3])
{
    for (;;) {
        size_t groups = 1, items = 1;
        for (int d = 0; d < ndim; d++) {
            groups *= (count[d] + group[d] - 1) / group[d];
            items *= group[d];
        }
        if (groups >= units || items <= 32) return;
        int axis = -1; /* the widest axis past the first: the first stays wide for coalescing */
        for (int d = 1; d < ndim; d++)
            if (group[d] > 1 && (axis < 0 || group[d] > group[axis])) axis = d;
        if (axis < 0) {
            if (group[0] <= 32) return;
            axis = 0;
        }
        group[axis] /= 2;
    }
}
