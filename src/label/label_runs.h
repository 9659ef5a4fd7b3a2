/* What the CPU labelling's two files share (label_cpu.c: the phases over
 * strips of rows; label_pairs.c: the steps that differ where pairs of rows
 * are labelled, label_bits.h). */
#ifndef PARAC_LABEL_LABEL_RUNS_H
#define PARAC_LABEL_LABEL_RUNS_H

#include <stdint.h>

#include "../core/threads.h"
#include "../core/union_find.h"
#include "label.h"

/* A backward neighbour row of a run: (dy, dz), the run widened by `grow`
 * (1 where diagonals connect). */
typedef struct back_row {
    int dy, dz, grow;
} back_row;

typedef struct labeller {
    const parac__label_spec *s;
    const parac_image *in;
    parac_image *out;
    int64_t w, h, d;
    int64_t rows;            /* the units labelled as one: rows, or pairs of rows (`pairs`) */
    int pairs;               /* 2D, 8-connected, nonzero pixels: pairs of rows (label_bits.h) */
    uint64_t *bits;          /* pairs: every row's bits, `words` a row */
    int64_t words;
    uint64_t *scratch;       /* pairs: each thread's `scratch_words` (pair_scratch) */
    int64_t scratch_words;
    int64_t *first;          /* rows + 1: the first run of each unit */
    int32_t *x0, *x1;
    uint32_t *parent;        /* the union-find; after E, each root's label */
    uint32_t *root;          /* E: each run's root */
    parac__uf_links links;   /* D: the roots linked under another strip's tree */
    int64_t roots[PARAC__MAX_THREADS]; /* E: roots per strip; then the labels before the strip */
    int nan[PARAC__MAX_THREADS];       /* A: a strip met NaN (equal values) */
    int n_back;
    back_row back[13];
    int threads;
    int64_t bounds[PARAC__MAX_THREADS + 1]; /* strip t: rows [bounds[t], bounds[t + 1]) */
} labeller;

static inline const void *row_of(const parac_image *im, int64_t r, int64_t h)
{
    return (const char *)im->data + (r / h) * im->slice_pitch + (r % h) * im->row_pitch;
}

static inline int32_t *out_row(const labeller *c, int64_t r)
{
    return (int32_t *)((char *)c->out->data + (r / c->h) * c->out->slice_pitch + (r % c->h) * c->out->row_pitch);
}

/* Row r of an i64 output. */
static inline int64_t *out_row_wide(const labeller *c, int64_t r)
{
    return (int64_t *)((char *)c->out->data + (r / c->h) * c->out->slice_pitch + (r % c->h) * c->out->row_pitch);
}

/* Pair p: rows 2p and 2p + 1 (none past an odd height's last row). */
static inline const uint64_t *pair_top(const labeller *c, int64_t p) { return c->bits + 2 * p * c->words; }

static inline const uint64_t *pair_bottom(const labeller *c, int64_t p)
{
    return 2 * p + 1 < c->h ? c->bits + (2 * p + 1) * c->words : NULL;
}

/* Thread t's room for a join's row of touching bits (`words` words) or a
 * pair's numbering marks (a byte for each of its runs, at most (w + 1) / 2). */
static inline uint64_t *pair_scratch(const labeller *c, int t) { return c->scratch + (size_t)t * (size_t)c->scratch_words; }

/* Run a joins run b of an earlier unit. */
static inline void join_runs(labeller *c, int64_t a, int64_t b, int across)
{
    uint32_t *parent = c->parent;
    if (across) parac__uf_unite_recorded(parent, c->root, (uint32_t)a, (uint32_t)b, &c->links);
    /* a root (a run not joined yet, mostly) goes under b's root, which is smaller: b's row is earlier */
    else if (parent[a] == (uint32_t)a) parent[a] = parac__uf_find_halving(parent, (uint32_t)b);
    else parac__uf_unite(parent, (uint32_t)a, (uint32_t)b);
}

/* label_pairs.c: the join of pair p with pair p - 1 (across: p is a
 * strip's first pair), each thread's numbering of its roots and its output,
 * pairs [p0, p1). */
void parac__label_join_pair(labeller *c, int64_t p, int across, uint64_t *touch);
void parac__label_number_pairs(labeller *c, int64_t p0, int64_t p1, uint32_t next, uint8_t *done);
void parac__label_output_pairs(const labeller *c, int64_t p0, int64_t p1);

#endif
