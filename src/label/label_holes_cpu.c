/* Filling every label's holes on the CPU (the operation
 * "fill-label-holes", label_holes.h):
 *   1. the regions of equal value are labelled (label_cpu.c, no
 *      background); the zero ones are the cavities;
 *   2. one pass finds, per cavity, whether it touches the image's border
 *      and the smallest and largest nonzero label beside it, and per label
 *      its bounding box;
 *   3. a cavity off the border with one label beside it is that label's
 *      hole (its region of pixels other than the label is itself);
 *   4. a cavity with several labels beside it is a hole of label v when it
 *      is not connected to the border through pixels other than v: for each
 *      label whose box holds such a cavity, a queue marks what its box's
 *      border reaches through pixels other than v; of the labels that
 *      enclose a cavity the innermost (smallest box) fills it. */
#include <stdlib.h>
#include <string.h>

#include "../core/alloc_internal.h"
#include "../core/error_internal.h"
#include "label.h"
#include "label_holes.h"
#include "label_values.h"
#include "regions.h"

static void grow(int64_t lo[3], int64_t hi[3], const int64_t c[3], int first)
{
    for (int k = 0; k < 3; k++) {
        if (first || c[k] < lo[k]) lo[k] = c[k];
        if (first || c[k] > hi[k]) hi[k] = c[k];
    }
}

/* Step 4 for label v: which cavities in its box it encloses. `outside`
 * (the box grown by one pixel, so that everything beyond the box is one
 * region) is scratch of enough bytes; `queue` of as many entries. */
static void enclose(const parac_image *in, int64_t v, const parac__holes_box *b, parac__cavity *cav,
                    const int64_t *ambiguous, int64_t n_ambiguous, int steps[26][3], int n_steps, uint8_t *outside,
                    int64_t *queue)
{
    const int is_3d = in->depth > 1;
    int64_t lo[3], size[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = b->lo[k] - 1;
        size[k] = b->hi[k] - b->lo[k] + 3;
    }
    if (!is_3d) lo[2] = 0, size[2] = 1;
    const int64_t total = size[0] * size[1] * size[2];
    memset(outside, 0, (size_t)total);
    int64_t head = 0, tail = 0;
    /* the grown box's faces: beyond the label's box, not v */
    for (int64_t i = 0; i < total; i++) {
        const int64_t x = i % size[0], y = i / size[0] % size[1], z = i / (size[0] * size[1]);
        if (x == 0 || y == 0 || x == size[0] - 1 || y == size[1] - 1 || (is_3d && (z == 0 || z == size[2] - 1))) {
            outside[i] = 1;
            queue[tail++] = i;
        }
    }
    while (head < tail) {
        const int64_t i = queue[head++];
        const int64_t x = i % size[0], y = i / size[0] % size[1], z = i / (size[0] * size[1]);
        for (int s = 0; s < n_steps; s++) {
            const int64_t nx = x + steps[s][0], ny = y + steps[s][1], nz = z + steps[s][2];
            if (nx < 0 || ny < 0 || nz < 0 || nx >= size[0] || ny >= size[1] || nz >= size[2]) continue;
            const int64_t j = (nz * size[1] + ny) * size[0] + nx;
            if (outside[j]) continue;
            const int64_t gx = lo[0] + nx, gy = lo[1] + ny, gz = lo[2] + nz;
            if (gx < 0 || gy < 0 || gz < 0 || gx >= in->width || gy >= in->height || gz >= in->depth ||
                parac__label_at(in, gx, gy, gz) == v)
                continue;
            outside[j] = 1;
            queue[tail++] = j;
        }
    }
    const int64_t volume = (b->hi[0] - b->lo[0] + 1) * (b->hi[1] - b->lo[1] + 1) * (b->hi[2] - b->lo[2] + 1);
    for (int64_t a = 0; a < n_ambiguous; a++) {
        parac__cavity *c = &cav[ambiguous[a]];
        int inside = 1;
        for (int k = 0; k < (is_3d ? 3 : 2); k++) inside &= c->lo[k] > b->lo[k] && c->hi[k] < b->hi[k];
        if (!inside) continue;
        const int64_t f = c->first, x = f % in->width, y = f / in->width % in->height, z = f / (in->width * in->height);
        const int64_t j = ((z - lo[2]) * size[1] + (y - lo[1])) * size[0] + (x - lo[0]);
        if (outside[j]) continue;
        if (!c->fill || volume < c->fill_volume || (volume == c->fill_volume && v < c->fill))
            c->fill = v, c->fill_volume = volume;
    }
}

/* The ambiguous cavities bucketed by their lowest corner in cells of about
 * one cavity each (offsets and items, a counting sort): a label's box looks
 * only at the cells its interior meets. Each label looking at every cavity
 * made the step quadratic in the image's size (a 5120^2 image of spotted
 * labels: 16 s, four times the pixels of one that took 1.4 s). */
typedef struct cavity_grid {
    int64_t cell;   /* a cell's side in pixels */
    int64_t n[3];   /* cells along x, y, z */
    int64_t *start; /* n[0] n[1] n[2] + 1 offsets into items */
    int64_t *items; /* indices into the ambiguous list */
} cavity_grid;

static int64_t cell_of(const cavity_grid *g, const int64_t p[3])
{
    return ((p[2] / g->cell) * g->n[1] + p[1] / g->cell) * g->n[0] + p[0] / g->cell;
}

static parac_status grid_build(const char *op, const parac_image *in, const parac__cavity *cav,
                               const int64_t *ambiguous, int64_t n_ambiguous, cavity_grid *g)
{
    const int64_t dims[3] = {in->width, in->height, in->depth};
    const int nd = in->depth > 1 ? 3 : 2;
    const double per_cavity = (double)dims[0] * (double)dims[1] * (double)dims[2] / (double)n_ambiguous;
    g->cell = 1;
    while (g->cell < dims[0] + dims[1] + dims[2] && (double)g->cell * (double)g->cell * (nd == 3 ? (double)g->cell : 1.0) < per_cavity)
        g->cell *= 2;
    int64_t cells = 1;
    for (int k = 0; k < 3; k++) cells *= g->n[k] = (dims[k] + g->cell - 1) / g->cell;
    g->start = parac__calloc((size_t)cells + 1, sizeof *g->start);
    g->items = parac__malloc((size_t)n_ambiguous * sizeof *g->items);
    if (!g->start || !g->items) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    for (int64_t a = 0; a < n_ambiguous; a++) g->start[cell_of(g, cav[ambiguous[a]].lo) + 1]++;
    for (int64_t c = 0; c < cells; c++) g->start[c + 1] += g->start[c];
    for (int64_t a = 0; a < n_ambiguous; a++) g->items[g->start[cell_of(g, cav[ambiguous[a]].lo)]++] = a;
    for (int64_t c = cells; c > 0; c--) g->start[c] = g->start[c - 1]; /* the fill moved each start to the next */
    g->start[0] = 0;
    return PARAC_OK;
}

/* The ambiguous cavities whose boxes box b strictly holds, into `held` (room
 * for all of them); their count. */
static int64_t held_by(const cavity_grid *g, const parac__cavity *cav, const int64_t *ambiguous,
                       const parac__holes_box *b, int is_3d, int64_t *held)
{
    const int nd = is_3d ? 3 : 2;
    int64_t c0[3] = {0, 0, 0}, c1[3] = {0, 0, 0};
    for (int k = 0; k < nd; k++) {
        if (b->hi[k] - b->lo[k] < 2) return 0; /* no pixel strictly inside */
        c0[k] = (b->lo[k] + 1) / g->cell, c1[k] = (b->hi[k] - 1) / g->cell;
    }
    int64_t n = 0;
    for (int64_t z = c0[2]; z <= c1[2]; z++)
        for (int64_t y = c0[1]; y <= c1[1]; y++)
            for (int64_t x = c0[0]; x <= c1[0]; x++) {
                const int64_t c = (z * g->n[1] + y) * g->n[0] + x;
                for (int64_t i = g->start[c]; i < g->start[c + 1]; i++) {
                    const parac__cavity *cv = &cav[ambiguous[g->items[i]]];
                    int inside = 1;
                    for (int k = 0; k < nd; k++) inside &= cv->lo[k] > b->lo[k] && cv->hi[k] < b->hi[k];
                    if (inside) held[n++] = ambiguous[g->items[i]];
                }
            }
    return n;
}

parac_status parac__label_holes_enclose(const char *op, const parac_image *in, int conn, int64_t n_labels,
                                        const parac__holes_box *boxes, parac__cavity *cav, const int64_t *ambiguous,
                                        int64_t n_ambiguous)
{
    if (n_ambiguous <= 0) return PARAC_OK;
    const int is_3d = in->depth > 1;
    int steps[26][3];
    const int n_steps = parac__holes_steps(conn, is_3d, steps);
    uint8_t *outside = NULL;
    int64_t *queue = NULL;
    size_t room = 0;
    cavity_grid g = {0};
    int64_t *held = parac__malloc((size_t)n_ambiguous * sizeof *held);
    parac_status st = held ? grid_build(op, in, cav, ambiguous, n_ambiguous, &g)
                           : parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    for (int64_t v = 1; st == PARAC_OK && v <= n_labels; v++) {
        const parac__holes_box *b = &boxes[v];
        const int64_t n_held = held_by(&g, cav, ambiguous, b, is_3d, held);
        if (!n_held) continue;
        const size_t need = (size_t)(b->hi[0] - b->lo[0] + 3) * (size_t)(b->hi[1] - b->lo[1] + 3) *
                            (size_t)(is_3d ? b->hi[2] - b->lo[2] + 3 : 1);
        if (need > room) {
            free(outside);
            free(queue);
            outside = parac__malloc(need);
            queue = parac__malloc(need * sizeof *queue);
            room = need;
            if (!outside || !queue) {
                st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
                break;
            }
        }
        enclose(in, v, b, cav, held, n_held, steps, n_steps, outside, queue);
    }
    free(outside);
    free(queue);
    free(held);
    free(g.start);
    free(g.items);
    return st;
}

parac_status parac__label_holes_cpu(const parac__label_holes_spec *s, const parac_image *in, parac_image *out,
                                    int64_t *filled)
{
    *filled = 0;
    int64_t n_labels = 0;
    PARAC_TRY(parac__largest_label_cpu(s->op, in, s->threads, &n_labels));
    const int is_3d = in->depth > 1;
    const int64_t w = in->width, h = in->height, d = in->depth;
    parac_image *reg = NULL;
    int64_t n_regions = 0;
    const parac__label_spec ls = {s->op, s->conn, 1, 1e300, s->threads, NULL, NULL};
    parac_status st = parac_image_create(&reg, w, h, d, 1, PARAC_I32, PARAC_MEMORY_HOST, -1);
    if (st == PARAC_OK) st = parac__label_cpu(&ls, in, reg, &n_regions);
    parac__cavity *cav = st == PARAC_OK ? parac__calloc((size_t)n_regions + 1, sizeof *cav) : NULL;
    parac__holes_box *boxes = st == PARAC_OK ? parac__calloc((size_t)n_labels + 1, sizeof *boxes) : NULL;
    char *seen = st == PARAC_OK ? parac__calloc((size_t)(n_labels > n_regions ? n_labels : n_regions) + 1, 1) : NULL;
    if (st == PARAC_OK && (!cav || !boxes || !seen))
        st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: out of host memory for %lld regions and a table of labels up "
                         "to %lld", s->op, (long long)n_regions, (long long)n_labels);
    for (int64_t r = 0; st == PARAC_OK && r <= n_regions; r++) cav[r].first = -1; /* not a zero region (yet) */
    int steps[26][3];
    const int n_steps = parac__holes_steps(s->conn, is_3d, steps);
    /* step 2 */
    for (int64_t z = 0; st == PARAC_OK && z < d; z++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                const int64_t v = parac__label_at(in, x, y, z), c[3] = {x, y, z};
                if (v != 0) {
                    grow(boxes[v].lo, boxes[v].hi, c, !seen[v]);
                    seen[v] = 1;
                    continue;
                }
                const int64_t r = *(const int32_t *)parac_image_at(reg, x, y, z);
                parac__cavity *k = &cav[r];
                const int fresh = k->first < 0;
                if (fresh) k->first = (z * h + y) * w + x;
                grow(k->lo, k->hi, c, fresh);
                if (x == 0 || y == 0 || x == w - 1 || y == h - 1 || (is_3d && (z == 0 || z == d - 1))) k->border = 1;
                for (int t = 0; t < n_steps; t++) {
                    const int64_t nx = x + steps[t][0], ny = y + steps[t][1], nz = z + steps[t][2];
                    if (nx < 0 || ny < 0 || nz < 0 || nx >= w || ny >= h || nz >= d) continue;
                    const int64_t u = parac__label_at(in, nx, ny, nz);
                    if (u == 0) continue;
                    if (k->nb_max == 0 || u < k->nb_min) k->nb_min = u;
                    if (u > k->nb_max) k->nb_max = u;
                }
            }
    /* step 3, and the cavities left for step 4 */
    int64_t *ambiguous = NULL, n_ambiguous = 0;
    if (st == PARAC_OK) {
        ambiguous = parac__malloc(((size_t)n_regions + 1) * sizeof *ambiguous);
        if (!ambiguous) st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: out of host memory", s->op);
    }
    for (int64_t r = 1; st == PARAC_OK && r <= n_regions; r++) {
        parac__cavity *k = &cav[r];
        if (k->first < 0 || k->border) continue; /* a region of labels, or zeros reaching the border */
        if (k->nb_min == k->nb_max) k->fill = k->nb_min;
        else ambiguous[n_ambiguous++] = r;
    }
    /* step 4 */
    if (st == PARAC_OK && n_ambiguous > 0)
        st = parac__label_holes_enclose(s->op, in, s->conn, n_labels, boxes, cav, ambiguous, n_ambiguous);
    /* the output */
    if (st == PARAC_OK) {
        for (int64_t z = 0; z < d; z++)
            for (int64_t y = 0; y < h; y++)
                for (int64_t x = 0; x < w; x++) {
                    int64_t v = parac__label_at(in, x, y, z);
                    if (v == 0) {
                        const int64_t r = *(const int32_t *)parac_image_at(reg, x, y, z);
                        if (cav[r].fill) v = cav[r].fill, (*filled)++;
                    }
                    parac__label_set(out, x, y, z, v);
                }
    }
    free(ambiguous);
    free(cav);
    free(boxes);
    free(seen);
    parac_image_destroy(reg);
    return st;
}
