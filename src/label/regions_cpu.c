/* Statistics of labelled regions on the CPU: each thread sums a strip of
 * rows into its own table of accumulators, run by run (a run of equal labels
 * in a row is added at once); the tables are then merged, a range of labels
 * per thread. */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc_internal.h"
#include "../core/error_internal.h"
#include "../core/threads.h"
#include "label_values.h"
#include "regions.h"

typedef struct region_acc {
    int64_t area;
    int64_t lo[3], hi[3]; /* per axis x, y, z: first and last coordinate */
    uint64_t sum[3];      /* per axis: the sum of the coordinates */
    double imin, imax;
    int64_t isum;         /* integer intensities: exact */
    double fsum;          /* f32 intensities */
} region_acc;

typedef struct regions_job {
    const parac__regions_spec *s;
    int64_t n;            /* the largest label */
    int64_t rows;         /* height * depth */
    region_acc **acc;     /* per thread: n + 1 accumulators */
    int float_intensity;
} regions_job;

static double value_at(const parac_image *m, const void *row, int64_t x)
{
    switch (m->dtype) {
    case PARAC_U8: return ((const uint8_t *)row)[x];
    case PARAC_U16: return ((const uint16_t *)row)[x];
    case PARAC_I32: return ((const int32_t *)row)[x];
    default: return ((const float *)row)[x];
    }
}

/* One run of label l: pixels x0..x1 of row (y, z). */
static void add_run(region_acc *a, int64_t x0, int64_t x1, int64_t y, int64_t z, const parac_image *in,
                    const void *irow, int float_intensity)
{
    const int64_t len = x1 - x0 + 1;
    if (a->area == 0) {
        a->lo[0] = x0, a->hi[0] = x1, a->lo[1] = a->hi[1] = y, a->lo[2] = a->hi[2] = z;
        a->imin = DBL_MAX, a->imax = -DBL_MAX;
    } else {
        if (x0 < a->lo[0]) a->lo[0] = x0;
        if (x1 > a->hi[0]) a->hi[0] = x1;
        if (y < a->lo[1]) a->lo[1] = y;
        if (y > a->hi[1]) a->hi[1] = y;
        if (z < a->lo[2]) a->lo[2] = z;
        if (z > a->hi[2]) a->hi[2] = z;
    }
    a->area += len;
    a->sum[0] += (uint64_t)((x0 + x1) * len / 2);
    a->sum[1] += (uint64_t)(y * len);
    a->sum[2] += (uint64_t)(z * len);
    if (!irow) return;
    for (int64_t x = x0; x <= x1; x++) {
        const double v = value_at(in, irow, x);
        if (v < a->imin) a->imin = v;
        if (v > a->imax) a->imax = v;
        if (float_intensity) a->fsum += v;
        else a->isum += (int64_t)v;
    }
}

static void sum_strip(void *arg, int index, int threads)
{
    regions_job *j = arg;
    const parac_image *lab = j->s->labels, *in = j->s->intensity;
    region_acc *acc = j->acc[index];
    const int64_t r0 = j->rows * index / threads, r1 = j->rows * (index + 1) / threads;
    for (int64_t r = r0; r < r1; r++) {
        const int64_t y = r % lab->height, z = r / lab->height;
        const void *row = parac_image_at(lab, 0, y, z);
        const void *irow = in ? parac_image_at(in, 0, y, z) : NULL;
        int64_t x = 0;
        while (x < lab->width) {
            const int64_t l = parac__label_in_row(lab->dtype, row, x);
            int64_t e = x + 1;
            while (e < lab->width && parac__label_in_row(lab->dtype, row, e) == l) e++;
            if (l > 0) add_run(&acc[l], x, e - 1, y, z, in, irow, j->float_intensity);
            x = e;
        }
    }
}

static void merge(region_acc *into, const region_acc *a)
{
    if (a->area == 0) return;
    if (into->area == 0) {
        *into = *a;
        return;
    }
    for (int k = 0; k < 3; k++) {
        if (a->lo[k] < into->lo[k]) into->lo[k] = a->lo[k];
        if (a->hi[k] > into->hi[k]) into->hi[k] = a->hi[k];
        into->sum[k] += a->sum[k];
    }
    into->area += a->area;
    if (a->imin < into->imin) into->imin = a->imin;
    if (a->imax > into->imax) into->imax = a->imax;
    into->isum += a->isum;
    into->fsum += a->fsum;
}

static void merge_range(void *arg, int index, int threads)
{
    regions_job *j = arg;
    const int64_t l0 = 1 + j->n * index / threads, l1 = 1 + j->n * (index + 1) / threads;
    for (int t = 1; j->acc[t]; t++)
        for (int64_t l = l0; l < l1; l++) merge(&j->acc[0][l], &j->acc[t][l]);
}

/* The largest label, and whether a label is negative (i32, i64). */
static int64_t scan_labels(const parac_image *lab, int *negative)
{
    int64_t n = 0;
    *negative = 0;
    for (int64_t z = 0; z < lab->depth; z++)
        for (int64_t y = 0; y < lab->height; y++) {
            const void *row = parac_image_at(lab, 0, y, z);
            for (int64_t x = 0; x < lab->width; x++) {
                const int64_t l = parac__label_in_row(lab->dtype, row, x);
                if (l > n) n = l;
                if (l < 0) *negative = 1;
            }
        }
    return n;
}

static void fill_row(double *row, const region_acc *a, int64_t label, int ndim, int with_intensity, int float_i)
{
    int c = 0;
    row[c++] = (double)label;
    row[c++] = (double)a->area;
    for (int k = ndim - 1; k >= 0; k--) row[c++] = (double)a->lo[k];
    for (int k = ndim - 1; k >= 0; k--) row[c++] = (double)(a->hi[k] + 1);
    for (int k = ndim - 1; k >= 0; k--) row[c++] = (double)a->sum[k] / (double)a->area;
    if (with_intensity) {
        row[c++] = a->imin;
        row[c++] = a->imax;
        row[c++] = (float_i ? a->fsum : (double)a->isum) / (double)a->area;
    }
}

parac_status parac__regions_cpu(const parac__regions_spec *s, parac_image **table, int64_t *count)
{
    *table = NULL;
    *count = 0;
    const parac_image *lab = s->labels;
    int64_t n = 0;
    PARAC_TRY(parac__largest_label_cpu(s->op, lab, &n));
    const int ndim = lab->depth > 1 ? 3 : 2;
    const int with_intensity = s->intensity != NULL;
    const int columns = parac__regions_columns(ndim, with_intensity, NULL, 0);
    /* a table per thread, as many threads as the memory allows */
    const size_t per_table = ((size_t)n + 1) * sizeof(region_acc);
    int threads = parac__thread_count(s->threads);
    const size_t budget = (size_t)1 << 30;
    while (threads > 1 && per_table * (size_t)threads > budget) threads--;
    if (threads > lab->height * lab->depth) threads = (int)(lab->height * lab->depth);
    region_acc *acc[PARAC__MAX_THREADS + 1] = {0};
    parac_status st = PARAC_OK;
    for (int t = 0; t < threads && st == PARAC_OK; t++) {
        acc[t] = parac__calloc((size_t)n + 1, sizeof(region_acc));
        if (!acc[t])
            st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: out of host memory for the statistics of %lld labels",
                             s->op, (long long)n);
    }
    regions_job j = {s, n, lab->height * lab->depth, acc, s->intensity && s->intensity->dtype == PARAC_F32};
    if (st == PARAC_OK) {
        parac__run_threads(threads, sum_strip, &j);
        if (threads > 1) parac__run_threads(threads, merge_range, &j);
        for (int64_t l = 1; l <= n; l++) *count += acc[0][l].area > 0;
        st = parac_image_create(table, columns, *count > 0 ? *count : 1, 1, 1, PARAC_F64, PARAC_MEMORY_HOST, -1);
    }
    if (st == PARAC_OK) {
        memset((*table)->data, 0, (size_t)(*table)->row_pitch * (size_t)(*table)->height);
        int64_t r = 0;
        for (int64_t l = 1; l <= n; l++)
            if (acc[0][l].area > 0)
                fill_row(parac_image_at(*table, 0, r++, 0), &acc[0][l], l, ndim, with_intensity, j.float_intensity);
    }
    for (int t = 0; t < threads; t++) free(acc[t]);
    if (st != PARAC_OK) {
        parac_image_destroy(*table);
        *table = NULL;
        *count = 0;
    }
    return st;
}

/* Tables indexed by label (a hundred bytes a label) take time and memory in
 * proportion to the largest label: up to 2^31 - 1 as i32 labels allow, and
 * past that up to the pixel count, as numbered labels are (a sparse label
 * of 2^40 on a small image would ask for terabytes). */
static parac_status table_fits(const char *op, const parac_image *labels, int64_t n)
{
    const int64_t pixels = parac_image_pixel_count(labels);
    if (n > INT32_MAX && n > pixels)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: the largest label is %lld, beyond the image's %lld pixels; "
                           "tables indexed by label take labels up to 2^31 - 1 or the pixel count (number the "
                           "labels 1..n first, e.g. with 'parac label --equal-values')", op, (long long)n,
                           (long long)pixels);
    return PARAC_OK;
}

parac_status parac__largest_label_cpu(const char *op, const parac_image *labels, int64_t *n)
{
    int negative = 0;
    *n = scan_labels(labels, &negative);
    if (negative)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: the labels have negative values; labels are 0 "
                           "(background) or positive", op);
    return table_fits(op, labels, *n);
}

typedef struct areas_job {
    const parac_image *labels;
    int64_t n, rows;
    uint64_t **counts; /* per thread */
} areas_job;

static void count_strip(void *arg, int index, int threads)
{
    areas_job *j = arg;
    const parac_image *lab = j->labels;
    uint64_t *c = j->counts[index];
    const int64_t r0 = j->rows * index / threads, r1 = j->rows * (index + 1) / threads;
    for (int64_t r = r0; r < r1; r++) {
        const void *row = parac_image_at(lab, 0, r % lab->height, r / lab->height);
        for (int64_t x = 0; x < lab->width; x++) c[parac__label_in_row(lab->dtype, row, x)]++;
    }
}

static void sum_counts(void *arg, int index, int threads)
{
    areas_job *j = arg;
    const int64_t l0 = j->n * index / threads + 1, l1 = j->n * (index + 1) / threads + 1;
    for (int t = 1; j->counts[t]; t++)
        for (int64_t l = l0; l < l1; l++) j->counts[0][l] += j->counts[t][l];
}

parac_status parac__region_areas_cpu(const parac_image *labels, int threads, int64_t n, uint64_t *areas)
{
    const int64_t rows = labels->height * labels->depth;
    int t = parac__thread_count(threads);
    while (t > 1 && ((size_t)n + 1) * sizeof(uint64_t) * (size_t)t > ((size_t)1 << 30)) t--;
    if (t > rows) t = (int)rows;
    uint64_t *counts[PARAC__MAX_THREADS + 1] = {areas};
    memset(areas, 0, ((size_t)n + 1) * sizeof(uint64_t));
    parac_status st = PARAC_OK;
    for (int k = 1; k < t && st == PARAC_OK; k++)
        if (!(counts[k] = parac__calloc((size_t)n + 1, sizeof(uint64_t))))
            st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory for the areas of %lld labels", (long long)n);
    areas_job j = {labels, n, rows, counts};
    if (st == PARAC_OK) {
        parac__run_threads(t, count_strip, &j);
        if (t > 1) parac__run_threads(t, sum_counts, &j);
        areas[0] = 0;
    }
    for (int k = 1; k < t; k++) free(counts[k]);
    return st;
}
