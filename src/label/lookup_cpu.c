/* Table lookup on the CPU: a strip of rows per thread, one plain loop per
 * (index type, entry size). A loop that kept the last run's entry instead
 * of reading the table again ran 2-5x slower on label images (a branch per
 * pixel); the table of a label image's numbering fits the caches. */
#include <stdlib.h>

#include "../core/alloc_internal.h"
#include "../core/error_internal.h"
#include "../core/threads.h"
#include "lookup.h"

typedef struct lookup_job {
    const parac_image *index, *table;
    parac_image *out;
    parac__lookup_miss miss[PARAC__MAX_THREADS];
} lookup_job;

/* One row: out[x] = table[index[x]]; returns nonzero when an index was out of
 * range (its entry then read as entry 0's). */
#define LOOKUP_ROW(NAME, IT, ET)                                                                           \
    static int NAME(const void *in_, const void *tab_, void *out_, int64_t w, uint64_t n)                  \
    {                                                                                                      \
        const IT *in = in_;                                                                                \
        const ET *tab = tab_;                                                                              \
        ET *out = out_;                                                                                    \
        int bad = 0;                                                                                       \
        for (int64_t x = 0; x < w; x++) {                                                                  \
            const uint64_t v = (uint64_t)(int64_t)in[x];                                                   \
            bad |= v >= n;                                                                                 \
            out[x] = tab[v < n ? v : 0];                                                                   \
        }                                                                                                  \
        return bad;                                                                                        \
    }

#define LOOKUP_ROWS(IT, SUFFIX)                                                                            \
    LOOKUP_ROW(row_##SUFFIX##_1, IT, uint8_t)                                                              \
    LOOKUP_ROW(row_##SUFFIX##_2, IT, uint16_t)                                                             \
    LOOKUP_ROW(row_##SUFFIX##_4, IT, uint32_t)                                                             \
    LOOKUP_ROW(row_##SUFFIX##_8, IT, uint64_t)

LOOKUP_ROWS(uint8_t, u8)
LOOKUP_ROWS(uint16_t, u16)
LOOKUP_ROWS(int32_t, i32)
LOOKUP_ROWS(int64_t, i64)

typedef int (*row_fn)(const void *, const void *, void *, int64_t, uint64_t);

static row_fn row_for(parac_dtype index, size_t entry)
{
    static const row_fn rows[4][4] = {
        {row_u8_1, row_u8_2, row_u8_4, row_u8_8},
        {row_u16_1, row_u16_2, row_u16_4, row_u16_8},
        {row_i32_1, row_i32_2, row_i32_4, row_i32_8},
        {row_i64_1, row_i64_2, row_i64_4, row_i64_8},
    };
    const int i = index == PARAC_U8 ? 0 : index == PARAC_U16 ? 1 : index == PARAC_I32 ? 2 : 3;
    const int e = entry == 1 ? 0 : entry == 2 ? 1 : entry == 4 ? 2 : 3;
    return rows[i][e];
}

static int64_t index_value(const parac_image *m, int64_t x, int64_t y, int64_t z)
{
    const void *p = parac_image_at(m, x, y, z);
    switch (m->dtype) {
    case PARAC_U8: return *(const uint8_t *)p;
    case PARAC_U16: return *(const uint16_t *)p;
    case PARAC_I32: return *(const int32_t *)p;
    default: return *(const int64_t *)p;
    }
}

static void lookup_strip(void *arg, int part, int parts)
{
    lookup_job *j = arg;
    const parac_image *in = j->index;
    const int64_t rows = in->height * in->depth, r0 = rows * part / parts, r1 = rows * (part + 1) / parts;
    const uint64_t n = (uint64_t)j->table->width;
    const row_fn row = row_for(in->dtype, parac_dtype_size(j->table->dtype));
    parac__lookup_miss *miss = &j->miss[part];
    miss->found = 0;
    for (int64_t r = r0; r < r1; r++) {
        const int64_t y = r % in->height, z = r / in->height;
        if (!row(parac_image_at(in, 0, y, z), j->table->data, parac_image_at(j->out, 0, y, z), in->width, n) ||
            miss->found)
            continue;
        for (int64_t x = 0; x < in->width; x++) { /* the first pixel out of range: the message names it */
            const int64_t v = index_value(in, x, y, z);
            if (v < 0 || (uint64_t)v >= n) {
                *miss = (parac__lookup_miss){1, x, y, z, v};
                break;
            }
        }
    }
}

parac_status parac__lookup_cpu(const parac__lookup_spec *s, const parac_image *index, const parac_image *table,
                               parac_image *out, parac__lookup_miss *miss)
{
    lookup_job *j = parac__malloc(sizeof *j);
    if (!j) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: out of host memory", s->op);
    j->index = index, j->table = table, j->out = out;
    /* a thread per 1 M pixels at most: starting one costs tens of microseconds */
    const int64_t rows = index->height * index->depth, pixels = parac_image_pixel_count(index);
    int threads = parac__thread_count(s->threads);
    if (threads > rows) threads = (int)rows;
    if (threads > pixels / (1 << 20)) threads = (int)(pixels / (1 << 20));
    if (threads < 1) threads = 1;
    parac__run_threads(threads, lookup_strip, j);
    miss->found = 0;
    for (int t = 0; t < threads && !miss->found; t++)
        if (j->miss[t].found) *miss = j->miss[t];
    free(j);
    return PARAC_OK;
}
