/* Statistics of labelled regions on the CPU. Threads take strips of rows:
 *   1. each strip's smallest and largest label (and whether one is
 *      negative), which size the tables;
 *   2. each thread sums its strip into a table of accumulators of its own,
 *      run by run (a run of equal labels in a row is added at once), the
 *      table covering only the labels its strip holds: labels numbered in
 *      raster order (every labelling's) give each strip a range of its own,
 *      so the tables together take about one accumulator a label, not one a
 *      label and thread;
 *   3. the table's rows, a range of labels per thread: each label's
 *      accumulators from the strips whose ranges hold it, combined; the
 *      rows' positions from a count of the labels present per range.
 * The pixel loops are written per element type (a switch per pixel cost
 * more than the work it chose). */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc_internal.h"
#include "../core/error_internal.h"
#include "../core/image_internal.h"
#include "../core/threads.h"
#include "label_values.h"
#include "regions.h"

/* The strips' tables together at most this many bytes (a build may set a
 * small one to test the strips' grouping). */
#ifndef PARAC_REGIONS_TABLE_BUDGET
#define PARAC_REGIONS_TABLE_BUDGET ((size_t)1 << 30)
#endif

typedef struct region_acc {
    int64_t area;
    int64_t lo[3], hi[3]; /* per axis x, y, z: first and last coordinate */
    uint64_t sum[3];      /* per axis: the sum of the coordinates */
    double imin, imax;
    int64_t isum;         /* integer intensities: exact */
    double fsum;          /* f32 intensities */
} region_acc;

/* The labels of a strip of rows: [lo, hi] (lo > hi: none), and whether any
 * is negative. */
typedef struct label_range {
    int64_t lo, hi;
    int negative;
} label_range;

/* Rows r0..r1 of a strip: row r is (r % height, r / height). */
static void strip_rows(int64_t rows, int index, int threads, int64_t *r0, int64_t *r1)
{
    *r0 = rows * index / threads;
    *r1 = rows * (index + 1) / threads;
}

/* Written for the vectoriser: the row's extremes in T, the smallest positive
 * label as the smallest of max(v, 0 -> TMAX); a strip whose largest label
 * is TMAX and whose smallest positive is TMAX has only TMAX. */
#define RANGE_OF_ROW(T, TMAX)                                                                                \
    static void range_of_row_##T(const T *row, int64_t w, label_range *g)                                    \
    {                                                                                                        \
        T hi = 0, lo = 0, pos = TMAX;                                                                        \
        _Pragma("omp simd reduction(max : hi) reduction(min : lo, pos)")                                     \
        for (int64_t x = 0; x < w; x++) {                                                                    \
            const T v = row[x], p = v > 0 ? v : (T)TMAX;                                                     \
            hi = v > hi ? v : hi;                                                                            \
            lo = v < lo ? v : lo;                                                                            \
            pos = p < pos ? p : pos;                                                                         \
        }                                                                                                    \
        if ((int64_t)hi > g->hi) g->hi = (int64_t)hi;                                                        \
        if (hi > 0 && (int64_t)pos < g->lo) g->lo = (int64_t)pos;                                            \
        const int64_t least = (int64_t)lo; /* a variable: with unsigned T the test would warn */             \
        g->negative |= least < 0;                                                                            \
    }
RANGE_OF_ROW(uint8_t, UINT8_MAX)
RANGE_OF_ROW(uint16_t, UINT16_MAX)
RANGE_OF_ROW(int32_t, INT32_MAX)
RANGE_OF_ROW(int64_t, INT64_MAX)

typedef struct ranges_job {
    const parac_image *labels;
    label_range *range; /* per strip */
} ranges_job;

static void range_of_strip(void *arg, int index, int threads)
{
    ranges_job *j = arg;
    const parac_image *lab = j->labels;
    label_range g = {INT64_MAX, 0, 0};
    int64_t r0, r1;
    strip_rows(lab->height * lab->depth, index, threads, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const void *row = parac_image_at(lab, 0, r % lab->height, r / lab->height);
        switch (lab->dtype) {
        case PARAC_U8: range_of_row_uint8_t(row, lab->width, &g); break;
        case PARAC_U16: range_of_row_uint16_t(row, lab->width, &g); break;
        case PARAC_I32: range_of_row_int32_t(row, lab->width, &g); break;
        default: range_of_row_int64_t(row, lab->width, &g); break;
        }
    }
    j->range[index] = g;
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

/* The strips' label ranges (threads strips), the largest label in *n, and
 * the errors a label image can hold. */
static parac_status label_ranges(const char *op, const parac_image *labels, int threads, label_range *range,
                                 int64_t *n)
{
    ranges_job j = {labels, range};
    parac__run_threads(threads, range_of_strip, &j);
    int negative = 0;
    *n = 0;
    for (int t = 0; t < threads; t++) {
        negative |= range[t].negative;
        if (range[t].hi > *n) *n = range[t].hi;
    }
    if (negative)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: the labels have negative values; labels are 0 "
                           "(background) or positive", op);
    return table_fits(op, labels, *n);
}

/* One run of label l: pixels x0..x1 of row (y, z); its coordinates. */
static inline void add_coords(region_acc *a, int64_t x0, int64_t x1, int64_t y, int64_t z)
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
}

#define ADD_INTEGERS(T)                                                                                      \
    static void add_integers_##T(region_acc *a, const T *v, int64_t x0, int64_t x1)                          \
    {                                                                                                        \
        int64_t lo = v[x0], hi = v[x0], sum = 0;                                                             \
        for (int64_t x = x0; x <= x1; x++) {                                                                 \
            const int64_t k = v[x];                                                                          \
            lo = k < lo ? k : lo;                                                                            \
            hi = k > hi ? k : hi;                                                                            \
            sum += k;                                                                                        \
        }                                                                                                    \
        if ((double)lo < a->imin) a->imin = (double)lo;                                                      \
        if ((double)hi > a->imax) a->imax = (double)hi;                                                      \
        a->isum += sum;                                                                                      \
    }
ADD_INTEGERS(uint8_t)
ADD_INTEGERS(uint16_t)
ADD_INTEGERS(int32_t)

static void add_floats(region_acc *a, const float *v, int64_t x0, int64_t x1)
{
    for (int64_t x = x0; x <= x1; x++) {
        const double k = v[x];
        if (k < a->imin) a->imin = k;
        if (k > a->imax) a->imax = k;
        a->fsum += k;
    }
}

static void add_values(region_acc *a, const parac_image *in, const void *irow, int64_t x0, int64_t x1)
{
    switch (in->dtype) {
    case PARAC_U8: add_integers_uint8_t(a, irow, x0, x1); break;
    case PARAC_U16: add_integers_uint16_t(a, irow, x0, x1); break;
    case PARAC_I32: add_integers_int32_t(a, irow, x0, x1); break;
    default: add_floats(a, irow, x0, x1); break;
    }
}

/* acc: the strip's table, entry l - base for label l. */
#define SUM_ROW(T)                                                                                           \
    static void sum_row_##T(const T *row, int64_t w, int64_t y, int64_t z, region_acc *acc, int64_t base,    \
                            const parac_image *in, const void *irow)                                         \
    {                                                                                                        \
        int64_t x = 0;                                                                                       \
        while (x < w) {                                                                                      \
            const T l = row[x];                                                                              \
            int64_t e = x + 1;                                                                               \
            while (e < w && row[e] == l) e++;                                                                \
            if (l > 0) {                                                                                     \
                region_acc *a = &acc[(int64_t)l - base];                                                     \
                add_coords(a, x, e - 1, y, z);                                                               \
                if (irow) add_values(a, in, irow, x, e - 1);                                                 \
            }                                                                                                \
            x = e;                                                                                           \
        }                                                                                                    \
    }
SUM_ROW(uint8_t)
SUM_ROW(uint16_t)
SUM_ROW(int32_t)
SUM_ROW(int64_t)

typedef struct regions_job {
    const parac__regions_spec *s;
    int strips;               /* the strips of step 1, which the groups join */
    int groups;
    const label_range *range; /* per group: the union of its strips' ranges */
    region_acc **acc;         /* per group: entries range.lo..range.hi (NULL: none), zeroed by its thread */
    int64_t n;                /* the largest label */
    int64_t *present;         /* per range of labels (step 3): the labels present */
    parac_image *table;
    int ndim, float_intensity;
} regions_job;

static void sum_strip(void *arg, int index, int threads)
{
    regions_job *j = arg;
    const parac_image *lab = j->s->labels, *in = j->s->intensity;
    region_acc *acc = j->acc[index];
    if (!acc) return; /* no labels in the strip */
    const int64_t base = j->range[index].lo, rows = lab->height * lab->depth;
    memset(acc, 0, (size_t)(j->range[index].hi - base + 1) * sizeof *acc); /* its pages touched here first */
    /* group `index` joins strips s0..s1 - 1 of step 1: its rows are theirs */
    const int64_t s0 = (int64_t)j->strips * index / threads, s1 = (int64_t)j->strips * (index + 1) / threads;
    const int64_t r0 = rows * s0 / j->strips, r1 = rows * s1 / j->strips;
    for (int64_t r = r0; r < r1; r++) {
        const int64_t y = r % lab->height, z = r / lab->height;
        const void *row = parac_image_at(lab, 0, y, z);
        const void *irow = in ? parac_image_at(in, 0, y, z) : NULL;
        switch (lab->dtype) {
        case PARAC_U8: sum_row_uint8_t(row, lab->width, y, z, acc, base, in, irow); break;
        case PARAC_U16: sum_row_uint16_t(row, lab->width, y, z, acc, base, in, irow); break;
        case PARAC_I32: sum_row_int32_t(row, lab->width, y, z, acc, base, in, irow); break;
        default: sum_row_int64_t(row, lab->width, y, z, acc, base, in, irow); break;
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

/* Group t's accumulator of label l, or NULL where its range does not hold l. */
static const region_acc *entry_of(const regions_job *j, int t, int64_t l)
{
    return j->acc[t] && l >= j->range[t].lo && l <= j->range[t].hi ? &j->acc[t][l - j->range[t].lo] : NULL;
}

/* Label l's accumulators from every group whose range holds it. */
static region_acc combined(const regions_job *j, int64_t l)
{
    region_acc a;
    memset(&a, 0, sizeof a);
    for (int t = 0; t < j->groups; t++) {
        const region_acc *e = entry_of(j, t, l);
        if (e) merge(&a, e);
    }
    return a;
}

static void labels_of_part(int64_t n, int index, int parts, int64_t *l0, int64_t *l1)
{
    *l0 = 1 + n * index / parts;
    *l1 = 1 + n * (index + 1) / parts;
}

static int is_present(const regions_job *j, int64_t l)
{
    for (int t = 0; t < j->groups; t++) {
        const region_acc *e = entry_of(j, t, l);
        if (e && e->area > 0) return 1;
    }
    return 0;
}

static void count_part(void *arg, int index, int parts)
{
    regions_job *j = arg;
    int64_t l0, l1, count = 0;
    labels_of_part(j->n, index, parts, &l0, &l1);
    for (int64_t l = l0; l < l1; l++) count += is_present(j, l);
    j->present[index] = count;
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

/* present[index] holds the rows before the part's first (step 3's scan). */
static void write_part(void *arg, int index, int parts)
{
    regions_job *j = arg;
    int64_t l0, l1, r = j->present[index];
    labels_of_part(j->n, index, parts, &l0, &l1);
    for (int64_t l = l0; l < l1; l++) {
        const region_acc a = combined(j, l);
        if (a.area > 0)
            fill_row(parac_image_at(j->table, 0, r++, 0), &a, l, j->ndim, j->s->intensity != NULL,
                     j->float_intensity);
    }
}

/* How many strips the rows are cut into: the threads asked for, at most a
 * strip a row. */
static int strip_count(const parac_image *labels, int threads)
{
    int t = parac__thread_count(threads);
    const int64_t rows = labels->height * labels->depth;
    return t > rows ? (int)rows : t;
}

parac_status parac__regions_cpu(const parac__regions_spec *s, parac_image **table, int64_t *count)
{
    *table = NULL;
    *count = 0;
    const parac_image *lab = s->labels;
    const int strips = strip_count(lab, s->threads);
    label_range range[PARAC__MAX_THREADS];
    int64_t n = 0;
    PARAC_TRY(label_ranges(s->op, lab, strips, range, &n));
    /* The strips' tables together; labels not numbered in raster order give
     * each strip a wide range: fewer, longer strips then keep the tables
     * within 1 GB (each range is then the union of the strips it joins). */
    const size_t budget = PARAC_REGIONS_TABLE_BUDGET;
    int groups = strips;
    label_range grange[PARAC__MAX_THREADS];
    for (;;) {
        size_t bytes = 0;
        for (int g = 0; g < groups; g++) {
            int64_t s0, s1;
            strip_rows(strips, g, groups, &s0, &s1); /* strips s0..s1 - 1 form group g */
            label_range u = {INT64_MAX, 0, 0};
            for (int64_t t = s0; t < s1; t++) {
                if (range[t].lo < u.lo) u.lo = range[t].lo;
                if (range[t].hi > u.hi) u.hi = range[t].hi;
            }
            grange[g] = u;
            if (u.lo <= u.hi) bytes += (size_t)(u.hi - u.lo + 1) * sizeof(region_acc);
        }
        if (bytes <= budget || groups == 1) break;
        groups = groups / 2 > 1 ? groups / 2 : 1;
    }
    /* the tables come from the blocks the library keeps between calls: a
     * fresh block's pages cost a fault each and its release a flush of every
     * core's page tables, a fifth of a call at 800k labels */
    region_acc *acc[PARAC__MAX_THREADS] = {0};
    size_t acc_bytes[PARAC__MAX_THREADS] = {0};
    parac_status st = PARAC_OK;
    for (int g = 0; g < groups && st == PARAC_OK; g++) {
        if (grange[g].lo > grange[g].hi) continue;
        acc_bytes[g] = (size_t)(grange[g].hi - grange[g].lo + 1) * sizeof(region_acc);
        acc[g] = parac__kept_block_take(acc_bytes[g]);
        if (!acc[g])
            st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: out of host memory for the statistics of %lld labels",
                             s->op, (long long)(grange[g].hi - grange[g].lo + 1));
    }
    const int ndim = lab->depth > 1 ? 3 : 2;
    const int parts = n > 0 ? (n < parac__thread_count(s->threads) ? (int)n : parac__thread_count(s->threads)) : 1;
    int64_t present[PARAC__MAX_THREADS] = {0};
    regions_job j = {s, strips, groups, grange, acc, n, present, NULL, ndim,
                     s->intensity && s->intensity->dtype == PARAC_F32};
    if (st == PARAC_OK) {
        parac__run_threads(groups, sum_strip, &j);
        if (n > 0) parac__run_threads(parts, count_part, &j);
        for (int p = 0; p < parts; p++) {
            const int64_t c = present[p];
            present[p] = *count;
            *count += c;
        }
        const int columns = parac__regions_columns(ndim, s->intensity != NULL, NULL, 0);
        st = parac_image_create(table, columns, *count > 0 ? *count : 1, 1, 1, PARAC_F64, PARAC_MEMORY_HOST, -1);
    }
    if (st == PARAC_OK) {
        memset((*table)->data, 0, (size_t)(*table)->row_pitch * (size_t)(*table)->height);
        j.table = *table;
        if (n > 0) parac__run_threads(parts, write_part, &j);
    }
    for (int g = 0; g < groups; g++) parac__kept_block_give(acc[g], acc_bytes[g]);
    if (st != PARAC_OK) {
        parac_image_destroy(*table);
        *table = NULL;
        *count = 0;
    }
    return st;
}

parac_status parac__largest_label_cpu(const char *op, const parac_image *labels, int threads, int64_t *n)
{
    label_range range[PARAC__MAX_THREADS];
    return label_ranges(op, labels, strip_count(labels, threads), range, n);
}

typedef struct areas_job {
    const parac_image *labels;
    int64_t n, rows;
    uint64_t **counts; /* per thread */
} areas_job;

#define COUNT_ROW(T)                                                                                         \
    static void count_row_##T(const T *row, int64_t w, uint64_t *c)                                          \
    {                                                                                                        \
        for (int64_t x = 0; x < w; x++) c[row[x]]++;                                                         \
    }
COUNT_ROW(uint8_t)
COUNT_ROW(uint16_t)
COUNT_ROW(int32_t)
COUNT_ROW(int64_t)

static void count_strip(void *arg, int index, int threads)
{
    areas_job *j = arg;
    const parac_image *lab = j->labels;
    uint64_t *c = j->counts[index];
    int64_t r0, r1;
    strip_rows(j->rows, index, threads, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const void *row = parac_image_at(lab, 0, r % lab->height, r / lab->height);
        switch (lab->dtype) {
        case PARAC_U8: count_row_uint8_t(row, lab->width, c); break;
        case PARAC_U16: count_row_uint16_t(row, lab->width, c); break;
        case PARAC_I32: count_row_int32_t(row, lab->width, c); break;
        default: count_row_int64_t(row, lab->width, c); break;
        }
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
