/* The runtime of generated device code, written once for its backends.
 *
 * A backend (runtime/cuda, runtime/opencl) opens a device, builds the
 * program and fills a table of a few operations: buffers made, freed,
 * filled and copied by rows, a kernel looked up, one launch run or timed,
 * the device waited for. Everything else is here: the matrices and their
 * transfers, the spare buffers, the launch shapes, the search over shapes
 * and candidate kernels, the fusion choices, the tuning knobs (read once,
 * when a session opens) and the public entry points (public_api.h).
 *
 * A backend's session begins with a parac__rt_session, so a pointer to it
 * is a pointer to its core. */
#ifndef PARAC_RUNTIME_CORE_H
#define PARAC_RUNTIME_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "parac/device_matrix.h"
#include "parac/fusion_choice.h"
#include "parac/kernel_variant.h"
#include "parac/status.h"
#include "runtime/common/device_runtime.h"
#include "runtime/common/kernel_times.h"

typedef struct parac__rt_session parac__rt_session;

/* One kernel of a session's program, found by the backend once. */
typedef struct parac__rt_kernel {
    char *name;
    void *handle;     /* cudaKernel_t, cl_kernel */
    size_t max_items; /* the most work-items per group it allows on the device */
} parac__rt_kernel;

/* The arguments of one launch, in order: each the address of its value and
 * its size. Values the launch makes (counters, pitches, buffers) live in the
 * struct itself, which therefore is never copied. */
enum { PARAC__RT_MAX_ARGS = 96, PARAC__RT_MAX_MATRICES = 24 };
typedef struct parac__rt_args {
    const void *ptr[PARAC__RT_MAX_ARGS];
    size_t size[PARAC__RT_MAX_ARGS];
    int n;
    void *buffers[PARAC__RT_MAX_MATRICES];
    int nb;
    int ints[PARAC__RT_MAX_MATRICES * 4 + 6];
    int ni;
} parac__rt_args;

/* Each runtime's counts since the process started, over all its sessions. */
typedef struct parac__rt_stats {
    parac__transfer_tally tally;
    parac__kernel_times times; /* the profiling mode's kernel times */
    long searched, reused;     /* the search's choices made and read back */
} parac__rt_stats;
#define PARAC__RT_STATS_INIT {{0}, PARAC__KERNEL_TIMES_INIT, 0, 0}

/* What a backend does; every operation gets the session's core. */
typedef struct parac__rt_backend {
    const char *name;        /* "CUDA", "OpenCL": in messages */
    const char *knob_prefix; /* "PARAC_CU", "PARAC_CL": its environment variables */
    const char *api_prefix;  /* "parac_cu", "parac_cl": its public functions' names */
    parac_status fail_code;  /* PARAC_ERR_CUDA, PARAC_ERR_OPENCL */
    const char *search_tag;  /* put before the work size in the search's keys */
    size_t max_groups[3];    /* work-groups per launch axis */
    int items_in_int;        /* each axis's work-items (groups x shape) must fit an int */
    parac__rt_stats *stats;
    /* the session's device made current before it is used (NULL: nothing to do) */
    parac_status (*use)(parac__rt_session *s);
    /* the kernel's handle and its most work-items per group */
    parac_status (*find_kernel)(parac__rt_session *s, const char *name, void **handle, size_t *max_items);
    void (*release_kernel)(void *handle); /* NULL: nothing to release */
    /* a buffer of `bytes`; PARAC_ERR_OUT_OF_MEMORY when the device has no room */
    parac_status (*alloc)(parac__rt_session *s, size_t bytes, void **buffer);
    /* freed once the kernels queued before that use it have run */
    void (*free)(parac__rt_session *s, void *buffer);
    /* the padding after `row_bytes` of each of `rows` rows set to zero (NULL: left as it is) */
    parac_status (*clear_padding)(parac__rt_session *s, void *buffer, size_t pitch, size_t row_bytes, size_t rows);
    parac_status (*fill_zeros)(parac__rt_session *s, void *buffer, size_t bytes);
    /* rows of `width` bytes between host and device, finished on return */
    parac_status (*copy_rows)(parac__rt_session *s, void *buffer, size_t device_pitch, void *host, size_t host_pitch,
                              size_t width, size_t rows, int to_device);
    /* one launch of groups[d] groups of shape[d] work-items per axis (x first),
     * timed into stats->times when the session profiles */
    parac_status (*run)(parac__rt_session *s, parac__rt_kernel *k, int ndim, const size_t groups[3],
                        const size_t shape[3], const parac__rt_args *a);
    /* seconds for the best of three such launches after a warm-up; < 0 when
     * the device refuses the shape */
    double (*time)(parac__rt_session *s, parac__rt_kernel *k, int ndim, const size_t groups[3], const size_t shape[3],
                   const parac__rt_args *a);
    /* the device idle */
    parac_status (*wait)(parac__rt_session *s);
} parac__rt_backend;

/* The tuning knobs, from PREFIX_PROFILE, _SEARCH, _VARIANT, _FUSION and
 * _NO_SPARES as the session opens. */
typedef struct parac__rt_knobs {
    int profile;   /* every kernel timed (and waited for) */
    int search;    /* work-group shapes and candidate kernels searched */
    int variant;   /* candidate k of every region that has several (tests, benchmarks) */
    int fusion;    /* alternative k of every fusion choice (tests, benchmarks) */
    int no_spares; /* every released buffer freed at once (comparisons) */
} parac__rt_knobs;

enum { PARAC__RT_SPARE_BUFFERS = 16 };
/* at most this many bytes of spare buffers per session */
#define PARAC__RT_SPARE_BYTES ((size_t)2 << 30)

struct parac__rt_session {
    const parac__rt_backend *backend;
    char label[600];      /* the device, in words */
    int from_cache;       /* the program came from the disk cache */
    uint64_t program_key; /* the program cache's key: source, options, device, driver */
    parac__rt_knobs knobs;
    size_t max_dims[3];   /* work-items per group along each axis, of the device */
    unsigned units;       /* multiprocessors or compute units */
    parac__rt_kernel **kernels; /* each allocated on its own: a pointer handed out stays valid */
    int nkernels;
    struct parac__rt_shape *shapes; /* the search's choices made so far, kept for its later launches */
    int nshapes;
    /* buffers of released matrices, kept for the next matrix of the same
     * size: a pipeline called again, or a fusion choice's alternative run
     * again, allocates nothing */
    struct parac__rt_spare {
        void *buffer;
        size_t bytes;
    } spare[PARAC__RT_SPARE_BUFFERS];
    int nspare;
    size_t spare_bytes;
    int keep_spares;
};

/* session.c: the core set up (knobs read), and everything it holds freed. */
void parac__rt_session_init(parac__rt_session *s, const parac__rt_backend *b);
void parac__rt_session_free(parac__rt_session *s);
/* The kernel of that name (found once, then kept). */
parac_status parac__rt_kernel_get(parac__rt_session *s, const char *name, parac__rt_kernel **out);
/* PARAC_OK, or the failure the fault injector (API_fail_after) asked for,
 * naming `what` or the public function API_call. */
parac_status parac__rt_injected(const parac__rt_backend *b, const char *what);
parac_status parac__rt_injected_call(const parac__rt_backend *b, const char *call);
parac_status parac__rt_use(parac__rt_session *s);
/* Whether a device selector (a case-insensitive part of the name) names it. */
int parac__rt_names_device(const char *name, const char *selector);

/* matrices.c */
parac_status parac__rt_matrix_bind(parac__rt_session *s, parac_device_matrix *m, void *host, size_t elem_size,
                                   int ndim, long d0, long d1, long d2, size_t host_pitch);
parac_status parac__rt_to_device(parac_device_matrix *m);
parac_status parac__rt_to_host(parac_device_matrix *m);
void parac__rt_matrix_release(parac_device_matrix *m);
void parac__rt_free_spares(parac__rt_session *s);
void parac__rt_transfer_counts(const parac__rt_backend *b, parac_device_transfers *out);

/* args.c: the counter box, then the program's arguments (matrices as
 * buffer, pitch in elements, d0, d1, d2). */
parac_status parac__rt_arg(parac__rt_args *a, const void *value, size_t size, const char *kernel);
parac_status parac__rt_arg_int(parac__rt_args *a, int v, const char *kernel, int **where);
parac_status parac__rt_args_box(parac__rt_args *a, int ndim, const long *lo, const long *hi, const char *kernel);
parac_status parac__rt_args_program(parac__rt_args *a, int nargs, const parac_device_arg *args, const char *kernel);

/* launch.c */
parac_status parac__rt_launch_items(parac__rt_session *s, const char *kernel, int ndim, const long *lo,
                                    const long *hi, const int *wg, const int *items, int nargs,
                                    const parac_device_arg *args, int tuned);
parac_status parac__rt_launch_variants(parac__rt_session *s, int nvar, const parac_kernel_variant *v, int ndim,
                                       const long *lo, const long *hi, int nbox, const long *boxes, int nargs,
                                       const parac_device_arg *args, int tuned);
parac_status parac__rt_launch_boxes(parac__rt_session *s, const char *kernel, int ndim, int nbox, const long *boxes,
                                    int nargs, const parac_device_arg *args);

/* search.c: one candidate kernel of a region for the search, with its
 * work-items per axis, its model's shape and whether that shape is fixed. */
typedef struct parac__rt_candidate {
    parac__rt_kernel *k;
    size_t count[3];
    size_t shape[3];
    int fixed;
} parac__rt_candidate;
/* The fastest candidate (*chosen) and its shape, from the session's
 * choices, the disk cache, or a search that times each candidate with its
 * own shape and, where not fixed, the search's shapes; all take args. */
parac_status parac__rt_search(parac__rt_session *s, int ndim, int ncand, const parac__rt_candidate *c,
                              const parac__rt_args *args, int *chosen, size_t shape[3]);
parac_status parac__rt_fusion_begin(parac__rt_session *s, const char *name, int nalts, int nsizes, const long *sizes,
                                    parac_fusion_choice *c);
int parac__rt_fusion_next(parac__rt_session *s, parac_fusion_choice *c);

#endif
