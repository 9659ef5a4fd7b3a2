/* Small objects and holes on the CPU: the components labelled (label_cpu.c),
 * their pixels counted (regions_cpu.c), then every pixel decided by its
 * component's count, a strip of rows per thread. */
#include <stdlib.h>

#include "../core/alloc_internal.h"
#include "../core/error_internal.h"
#include "../core/threads.h"
#include "label.h"
#include "label_values.h"
#include "regions.h"
#include "small.h"

typedef struct select_job {
    const parac__small_spec *s;
    const parac_image *in, *labels;
    parac_image *out;
    const uint64_t *areas;
} select_job;

static void select_strip(void *arg, int index, int threads)
{
    select_job *j = arg;
    const parac_image *in = j->in;
    const int64_t rows = in->height * in->depth, r0 = rows * index / threads, r1 = rows * (index + 1) / threads;
    const size_t px = parac_image_pixel_bytes(in);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t y = r % in->height, z = r / in->height;
        for (int64_t x = 0; x < in->width; x++) {
            const int small = j->areas[parac__label_at(j->labels, x, y, z)] < (uint64_t)j->s->min_size;
            if (j->s->mode == PARAC__SMALL_HOLES) {
                const int keep = parac__label_at(in, x, y, z) != 0 || small;
                *(uint8_t *)parac_image_at(j->out, x, y, z) = keep ? (uint8_t)j->s->foreground : 0;
            } else {
                const char *src = parac_image_at(in, x, y, z);
                char *dst = parac_image_at(j->out, x, y, z);
                for (size_t b = 0; b < px; b++) dst[b] = small ? 0 : src[b];
            }
        }
    }
}

parac_status parac__small_cpu(const parac__small_spec *s, const parac_image *in, parac_image *out)
{
    parac_image *labels = NULL;
    int64_t n = 0;
    parac_status st = PARAC_OK;
    if (s->mode == PARAC__SMALL_LABELS) {
        st = parac__largest_label_cpu(s->op, in, s->threads, &n);
    } else {
        /* holes: the regions of equal value, with no background, of which
         * the zero ones are the holes */
        const parac__label_spec ls = {s->op, s->conn, s->mode == PARAC__SMALL_HOLES, 1e300, s->threads, NULL, NULL};
        st = parac_image_create(&labels, in->width, in->height, in->depth, 1, PARAC_I32, PARAC_MEMORY_HOST, -1);
        if (st == PARAC_OK) st = parac__label_cpu(&ls, in, labels, &n);
    }
    uint64_t *areas = st == PARAC_OK ? parac__malloc(((size_t)n + 1) * sizeof(uint64_t)) : NULL;
    if (st == PARAC_OK && !areas)
        st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: out of host memory for the sizes of %lld components", s->op,
                         (long long)n);
    const parac_image *lab = labels ? labels : in;
    if (st == PARAC_OK) st = parac__region_areas_cpu(lab, s->threads, n, areas);
    if (st == PARAC_OK) {
        if (s->mode != PARAC__SMALL_HOLES) areas[0] = UINT64_MAX; /* the background stays */
        select_job j = {s, in, lab, out, areas};
        int threads = parac__thread_count(s->threads);
        if (threads > in->height * in->depth) threads = (int)(in->height * in->depth);
        parac__run_threads(threads, select_strip, &j);
    }
    free(areas);
    parac_image_destroy(labels);
    return st;
}
