/* What the region-filling methods share: the call's specification, the
 * volume geometry with its neighbour rows, the border runs, the seeds and
 * the per-pixel output rule. fill_op.c builds a spec from the registry call
 * and runs one method; each method file implements one way to decide, for
 * every background pixel, whether the border reaches it. */
#ifndef PARAC_FILL_FILL_H
#define PARAC_FILL_FILL_H

#include <stdint.h>

#include "parac/fill.h"
#include "parac/image.h"
#include "parac/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct parac__fill_spec {
    const char *op;       /* for messages */
    int conn;             /* 4, 8 (per slice on a volume), 6, 18, 26 */
    uint32_t threshold;   /* contour: value >= threshold */
    int contour;          /* parac_fill_contour */
    uint8_t inside, outside;
    int64_t seeds;        /* inner seeds of the seeds methods; 0: the method's default */
    int threads;          /* CPU threads */
} parac__fill_spec;

/* One neighbour row of a run: the row at (y+dy, z+dz), scanned over the run
 * widened by `grow` pixels on each side (1 where diagonals connect). */
typedef struct parac__fill_row {
    int dy, dz, grow;
} parac__fill_row;

typedef struct parac__fill_geom {
    int64_t w, h, d;
    int z_border;              /* slices 0 and d-1 are border (a 3D connectivity) */
    int n_rows;
    parac__fill_row rows[8];
} parac__fill_geom;

/* A horizontal run of pixels x0..x1 of row y in slice z. */
typedef struct parac__fill_run {
    int32_t y, z, x0, x1;
} parac__fill_run;

/* Checks dtype, channels and connectivity against the image; fills *g. */
parac_status parac__fill_geometry(const parac__fill_spec *s, const parac_image *in,
                                  parac__fill_geom *g);

/* The same without the dtype check (floodfill takes every dtype). */
parac_status parac__fill_conn_geometry(const char *op, int conn, const parac_image *in, parac__fill_geom *g);

/* The border pixels as runs: whole rows of border slices, rows 0 and h-1 and
 * both ends of the other rows. *out is malloc'd. */
parac_status parac__fill_border_runs(const parac__fill_geom *g, parac__fill_run **out, int64_t *count);

/* Inner seed j of n: evenly spaced rows over all d*h rows, one pseudo-random
 * x on each (the same for every run and device). */
void parac__fill_inner_seed(const parac__fill_geom *g, int64_t j, int64_t n, int64_t *x,
                            int64_t *y, int64_t *z);

/* The output value of one pixel: cls 0 inside, 1 outside, 2 contour. */
static inline uint32_t parac__fill_value(const parac__fill_spec *s, int cls, uint32_t v)
{
    if (cls == 2) {
        if (s->contour == PARAC_FILL_CONTOUR_KEEP) return v;
        cls = s->contour == PARAC_FILL_CONTOUR_OUTSIDE;
    }
    return cls ? s->outside : s->inside;
}

/* CPU methods (in: host memory; out: host, u8 or u16). */
parac_status parac__fill_serial(const parac__fill_spec *s, const parac_image *in, parac_image *out);
parac_status parac__fill_seeds_cpu(const parac__fill_spec *s, const parac_image *in, parac_image *out);
parac_status parac__fill_ccl_cpu(const parac__fill_spec *s, const parac_image *in, parac_image *out);

/* CUDA methods (in and out on the same device). */
parac_status parac__fill_ccl_cuda(const parac__fill_spec *s, const parac_image *in, parac_image *out,
                                  void *stream);
parac_status parac__fill_seeds_cuda(const parac__fill_spec *s, const parac_image *in, parac_image *out,
                                    void *stream);
/* hybrid: the CPU fills (seeds method) `in` in host memory, the device
 * writes the output from the labels. */
parac_status parac__fill_hybrid(const parac__fill_spec *s, const parac_image *in_host, parac_image *out,
                                void *stream);

/* Seeded flood fill on the CPU: seeds are (x,y,z) triples, checked. With
 * `mask`, out is a u8 image that gets 1 in the regions and 0 elsewhere
 * (value unused); else out has in's dtype and the regions take value. */
parac_status parac__floodfill_cpu(const parac_image *in, parac_image *out, const int64_t *seeds,
                                  int n_seeds, double value, double tolerance, int conn, int mask);

/* Seeded flood fill on CUDA (method "ccl"): in and out on one device. */
parac_status parac__floodfill_cuda(const parac_image *in, parac_image *out, const int64_t *seeds, int n_seeds,
                                   double value, double tolerance, int conn, int mask, void *stream);

#ifdef __cplusplus
}
#endif

#endif
