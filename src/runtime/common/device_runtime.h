/* What the OpenCL and CUDA runtimes for paracc's generated code share: the
 * geometry of a matrix's padded device copy, the packing of border boxes
 * for one launch, the search's candidate shapes and its choices on disk,
 * and the countdown of injected failures. */
#ifndef PARAC_CORE_DEVICE_RUNTIME_H
#define PARAC_CORE_DEVICE_RUNTIME_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "parac/fusion_choice.h"
#include "parac/kernel_variant.h"
#include "parac/status.h"

/* Every dimension but the last counts as rows (channels are planes of rows). */
size_t parac__matrix_rows(int ndim, const long dims[3]);
size_t parac__matrix_cols(int ndim, const long dims[3]);
/* Checks a matrix of ndim dims d0 x d1 x d2 of elem_size bytes whose host
 * rows are host_pitch bytes apart, and gives its device row pitch: rows
 * padded to 64 bytes. Kernels take each size and the pitch as an int and
 * index in 64 bits, so the whole matrix may exceed 2^31 elements, no size. */
parac_status parac__matrix_geometry(int ndim, long d0, long d1, long d2, size_t elem_size, size_t host_pitch,
                                    size_t *device_pitch);

/* The work-items per axis (x first: the last iterator axis) of a launch over
 * the counter box [lo, hi) of ndim axes, items[d] counters per work-item
 * (NULL: one; a kernel that aligns its first work-item down may need one
 * more). *empty is set for an empty box (nothing to launch). */
parac_status parac__launch_counts(const char *kernel, int ndim, const long *lo, const long *hi, const int *items,
                                  size_t count[3], int *empty);
/* A launch of fewer work-groups than the device has compute units: its
 * groups halved (the widest axis past the first, then the first down to 32)
 * until each unit has one or a group is one warp (32 work-items). */
void parac__spread_small_launch(int ndim, const size_t count[3], unsigned units, size_t group[3]);

/* What moved between host and device, counted per runtime for its tests. */
typedef struct parac__transfer_tally {
    _Atomic long long uploads, downloads, fills, upload_bytes, download_bytes;
} parac__transfer_tally;
void parac__tally_copy(parac__transfer_tally *t, int to_device, long long bytes);
void parac__tally_fill(parac__transfer_tally *t);
/* uploads, downloads, fills, upload bytes, download bytes */
void parac__tally_read(parac__transfer_tally *t, long long out[5]);

/* The border boxes of one launch as the kernels take them (by value). */
typedef struct parac__boxes {
    int n;
    int b[6][6]; /* lo, hi per axis */
} parac__boxes;
/* Packs nbox boxes (6 longs each: lo[0..2], hi[0..2]), dropping empty
 * ones; *total is the number of work-items over all of them. */
parac_status parac__pack_boxes(const char *kernel, int ndim, int nbox, const long *boxes, parac__boxes *out,
                               long *total);

/* One launch for a region and its border boxes (parac_cl_launch_all,
 * parac_cu_launch_all). The work: the boxes packed, the interior's
 * work-items per axis, *nothing when there is none at all. */
typedef struct parac__one_launch {
    parac__boxes boxes;
    long border_items; /* work-items over all boxes */
    size_t count[3];   /* the interior's work-items per axis (x first) */
    int empty;         /* no interior */
} parac__one_launch;
parac_status parac__one_launch_work(const char *kernel, int ndim, const long *lo, const long *hi, const int *items,
                                    int nbox, const long *boxes, parac__one_launch *w, int *nothing);
/* The grid for a work-group shape: gx groups along x, the interior's rows of
 * them (*iblocks), then *rows in all, the border's rows after; max_rows bounds it. */
parac_status parac__one_launch_grid(const char *kernel, int ndim, const parac__one_launch *w, const size_t local[2],
                                    size_t max_rows, size_t *gx, size_t *iblocks, size_t *rows);

/* The candidate kernels of one launch (parac_cl_launch_variants,
 * parac_cu_launch_variants): at most PARAC__MAX_VARIANTS; the check of the
 * count, and the one candidate of a plain one-launch call. */
enum { PARAC__MAX_VARIANTS = 8 };
parac_status parac__check_variants(int nvar, const parac_kernel_variant *v);
parac_kernel_variant parac__one_variant(const char *kernel, int ndim, const int *wg, const int *items);

/* The search's candidate shapes for ndim dimensions (x first). */
const unsigned (*parac__search_candidates(int ndim, int *count))[3];
/* A choice read from the disk cache (search-KEY.txt): the shape and the
 * candidate kernel (0: the model's; variant may be NULL); 1 when found. */
int parac__search_cache_load(uint64_t key, unsigned shape[3], unsigned *variant);
/* A choice written to the disk cache, with a comment saying what it is. */
void parac__search_cache_store(uint64_t key, const unsigned shape[3], unsigned variant, const char *comment);

/* The runs of a fusion choice (parac/fusion_choice.h). Started to run
 * alternative `once` one time, or (once < 0) to time every alternative. A
 * step returns 1 while an alternative (c->alt) is to run; when timing, each
 * step first waits for the device (wait(ctx)), and the step that picks the
 * fastest sets *decided. */
parac_status parac__fusion_start(parac_fusion_choice *c, const char *name, uint64_t key, int nalts, int once);
int parac__fusion_step(parac_fusion_choice *c, parac_status (*wait)(void *), void *ctx, int *decided);
/* The key of a choice: the program's key, its name and the sizes. */
uint64_t parac__fusion_key(uint64_t program_key, const char *name, int nsizes, const long *sizes);
/* A choice started from a runtime's state: the alternative forced (> 0,
 * PARAC_*_FUSION), the search off, the session's remembered alternative
 * (>= 0), the disk cache's (*from_disk set), else timed. */
parac_status parac__fusion_plan(parac_fusion_choice *c, const char *name, uint64_t key, int nalts, int forced,
                                int search, int remembered, int *from_disk);
/* The search's pick written to the disk cache, with every alternative's time. */
void parac__fusion_store(const parac_fusion_choice *c, const char *device);

/* For the runtimes' fail_after test hooks: the n-th call of
 * parac__countdown_hit() from now returns 1 (n = 0: never). */
void parac__countdown_set(long n);
int parac__countdown_hit(void);

#endif
