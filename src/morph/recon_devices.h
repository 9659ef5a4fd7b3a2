/* Reconstruction over CUDA devices when the image is not simply whole on
 * one of them (builds without CUDA: morph_nocuda.c):
 *   SPLIT        several devices, the images on the context's device: one
 *                strip of rows per worker, resident on the worker's device
 *                for the whole call; only boundary rows move between rounds
 *                (recon_split.c, cuda/recon_dev_strip.cu);
 *   HOST_STRIPS  the image is beyond the devices' memory budget: strips in
 *                host memory, uploaded to a worker when their halo changed
 *                (recon_tiled.c). */
#ifndef PARAC_MORPH_RECON_DEVICES_H
#define PARAC_MORPH_RECON_DEVICES_H

#include <stdint.h>

#include "core/tuning.h"
#include "recon.h"
#include "recon_grid.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum parac__cuda_layout {
    PARAC__CUDA_WHOLE = 0,
    PARAC__CUDA_SPLIT,
    PARAC__CUDA_HOST_STRIPS
} parac__cuda_layout;

/* How a CUDA reconstruction of `mask` runs on `workers` (workers[0] is the
 * context's device): WHOLE when one worker can hold n_images images of its
 * size plus the engine's grids; SPLIT when several workers can hold the
 * images (on the first) and a strip each; else HOST_STRIPS with *strips
 * strips (at least one per worker). Budgets: free memory, or
 * PARAC_CUDA_MEMORY_CAP. */
parac_status parac__recon_cuda_plan(const parac_image *mask, int n_images, const int *workers,
                                    int n_workers, const parac__tuning *tuning, parac__cuda_layout *layout,
                                    int64_t *strips);

/* SPLIT: the first row of each worker's strip, y0[n] = H. A worker on
 * another device than the images' receives its rows and sends its result
 * over a link, so it gets fewer rows (parac__dev_strip_share). */
void parac__split_rows(const int *workers, int n, int images_device, const parac_image *mask, int64_t H,
                       const parac__tuning *tuning, int64_t *y0);
/* Whether splitting pays: from 2^26 pixels (measured, docs/morphology.md);
 * PARAC_CUDA_SPLIT=always splits any image of at least one row a worker
 * (tests), =never keeps every image whole on the first device. */
parac_status parac__split_pays(const parac_image *mask, const parac__tuning *tuning, int *pays);

/* SPLIT: marker (NULL unless rule IMAGE), mask and out on the context's
 * device (or anywhere CUDA can copy from); `stream` is the context's stream,
 * which the inputs were written on. */
parac_status parac__recon_split(const parac__recon_spec *s, const parac_image *marker,
                                const parac_image *mask, parac_image *out, const int *workers,
                                int n_workers, void *stream);

/* HOST_STRIPS. */
parac_status parac__recon_tiled(const parac__recon_spec *s, const parac_image *marker,
                                const parac_image *mask, parac_image *out, const int *workers,
                                int n_workers, int64_t strips);
/* Reconstruct one strip grid (host memory) in place on `device`; `start` as
 * the wavefront's (0: every tile; else the halo rows that changed since the
 * strip was last at its fix point); `batch` the wavefront's rounds per look
 * (0: adaptive). */
parac_status parac__recon_cuda_strip(parac__grid *g, int conn, int device, unsigned start, int batch,
                                     void *stream);

/* A strip resident on a device (cuda/recon_dev_strip.cu). */
typedef struct parac__dev_strip parac__dev_strip;
/* Peer access between every two of the devices that allow it. */
parac_status parac__dev_strips_connect(const int *devices, int n);
/* The share of rows a worker on `device` gets against one on the images'
 * device (1 there); `mask` tells how its rows cross the link (NULL when
 * planning: as across a peer link). */
double parac__dev_strip_share(int images_device, int device, const parac_image *mask,
                              const parac__tuning *tuning);
/* Whether a worker on `device` can read `im` (write: write it) from its own
 * kernels across a peer link instead of staging copies: peer access between
 * the devices and memory that grants it (a pool's or mapped memory may not).
 * PARAC_SPLIT_LINK=copy makes the strips stage copies all the same. */
int parac__dev_strip_direct(int device, const parac_image *im, int write);
/* Allocate a strip of rows [y0, y0 + h) on `device` and load it (the halo
 * rows at the dtype's minimum); *bad: the first problem pixel's code, all
 * ones when none. *out is set even on failure: free it. */
parac_status parac__dev_strip_load(parac__dev_strip **out, const parac__recon_spec *s,
                                   const parac_image *marker, const parac_image *mask, int64_t y0,
                                   int64_t h, int device, unsigned long long *bad);
/* Run the wavefront on the strip from `start` (as parac__recon_cuda_strip). */
parac_status parac__dev_strip_run(parac__dev_strip *t, unsigned start);
/* Queue on t's stream: raise t's top (bottom = 0) or bottom halo row to
 * `from`'s boundary row next to it. */
parac_status parac__dev_strip_take_halo(parac__dev_strip *t, int bottom, const parac__dev_strip *from);
/* Wait for t's exchanges; *start: the halos they raised (PARAC__HALO_*). */
parac_status parac__dev_strip_raised(parac__dev_strip *t, unsigned *start);
/* Write the strip's rows of the result to `out` and wait for it. */
parac_status parac__dev_strip_store(parac__dev_strip *t, int erosion, parac_image *out);
void parac__dev_strip_free(parac__dev_strip *t);
/* The error for a problem pixel's code. */
parac_status parac__recon_cuda_violation(const parac__recon_spec *s, unsigned long long code,
                                         const parac_image *marker, const parac_image *mask);

#ifdef __cplusplus
}
#endif

#endif
