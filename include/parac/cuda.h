/* CUDA: the runtime used by code that `paracc --target cuda` generates.
 * Available when parac_has_cuda() is true; otherwise every call returns
 * PARAC_ERR_UNSUPPORTED.
 *
 * The same model as the OpenCL runtime (parac/opencl.h): a session is one
 * device and one program, here CUDA C++ compiled at run time by NVRTC into a
 * binary for the device's architecture and loaded through the CUDA runtime's
 * library API; matrices are host storage plus a device buffer with rows
 * padded to 64 bytes, moved only when the other side holds the newer copy. */
#ifndef PARAC_CUDA_H
#define PARAC_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "parac/device_matrix.h"
#include "parac/export.h"
#include "parac/fusion_choice.h"
#include "parac/kernel_variant.h"
#include "parac/status.h"

PARAC_BEGIN_DECLS

/* The device is `selector` or, when NULL, $PARAC_CUDA_DEVICE: a device
 * number ("1") or a case-insensitive substring of its name ("H100");
 * without either, device 0. Compiled programs are cached on disk as the
 * OpenCL runtime's are ($PARAC_CACHE_DIR, PARAC_CACHE_DIR=off disables),
 * keyed by the source, the NVRTC options and version, the device and the
 * driver. */
typedef struct parac_cu_session parac_cu_session;

typedef parac_device_matrix parac_cu_matrix;

enum {
    PARAC_CU_HOST_NEWER = PARAC_DEVICE_HOST_NEWER,
    PARAC_CU_SAME = PARAC_DEVICE_SAME,
    PARAC_CU_DEVICE_NEWER = PARAC_DEVICE_NEWER,
    PARAC_CU_ZEROS = PARAC_DEVICE_ZEROS
};

typedef parac_device_arg parac_cu_arg;

enum { PARAC_CU_ARG_VALUE = PARAC_DEVICE_ARG_VALUE, PARAC_CU_ARG_MATRIX = PARAC_DEVICE_ARG_MATRIX };
#define PARAC_CU_VALUE(v) ((parac_cu_arg){PARAC_CU_ARG_VALUE, sizeof(v), &(v), 0})
#define PARAC_CU_MATRIX(m) ((parac_cu_arg){PARAC_CU_ARG_MATRIX, 0, 0, (m)})

PARAC_API parac_status parac_cu_session_open(parac_cu_session **session, const char *name, const char *source,
                                             const char *selector);
PARAC_API void parac_cu_session_close(parac_cu_session *session);
/* "CUDA / device name (sm_XY)" of an open session. */
PARAC_API const char *parac_cu_session_device(const parac_cu_session *session);
/* Whether the session's program came from the disk cache (for tests). */
PARAC_API int parac_cu_session_from_cache(const parac_cu_session *session);

PARAC_API parac_status parac_cu_matrix_bind(parac_cu_session *session, parac_cu_matrix *m, void *host,
                                            size_t elem_size, int ndim, long d0, long d1, long d2,
                                            size_t host_pitch);
PARAC_API parac_status parac_cu_to_device(parac_cu_matrix *m);
PARAC_API parac_status parac_cu_to_host(parac_cu_matrix *m);
PARAC_API void parac_cu_host_modified(parac_cu_matrix *m);
PARAC_API void parac_cu_device_modified(parac_cu_matrix *m);
PARAC_API void parac_cu_matrix_release(parac_cu_matrix *m);
PARAC_API void parac_cu_matrix_zeroed(parac_cu_matrix *m);
PARAC_API void parac_cu_matrix_overwritten(parac_cu_matrix *m);

typedef parac_device_transfers parac_cu_transfers;
PARAC_API void parac_cu_transfer_counts(parac_cu_transfers *out);

/* For tests: the n-th checked call from now fails with PARAC_ERR_CUDA. */
PARAC_API void parac_cu_fail_after(long n);

/* Launches, as parac_cl_launch, parac_cl_launch_items, parac_cl_launch_tuned
 * and parac_cl_launch_boxes: thread dimension x runs along the last axis; a
 * tuned launch searches the block shape when PARAC_CU_SEARCH=1 was set as the
 * session opened, and caches the choice on disk. */
PARAC_API parac_status parac_cu_launch(parac_cu_session *session, const char *kernel, int ndim,
                                       const long *lo, const long *hi, const int *wg, int nargs,
                                       const parac_cu_arg *args);
PARAC_API parac_status parac_cu_launch_items(parac_cu_session *session, const char *kernel, int ndim,
                                             const long *lo, const long *hi, const int *wg, const int *items,
                                             int nargs, const parac_cu_arg *args);
PARAC_API parac_status parac_cu_launch_tuned(parac_cu_session *session, const char *kernel, int ndim,
                                             const long *lo, const long *hi, const int *wg, const int *items,
                                             int nargs, const parac_cu_arg *args);
PARAC_API void parac_cu_search_counts(long *searched, long *reused);
PARAC_API parac_status parac_cu_launch_boxes(parac_cu_session *session, const char *kernel, int ndim, int nbox,
                                             const long *boxes, int nargs, const parac_cu_arg *args);
/* The interior box [lo, hi) (as parac_cu_launch_items) and nbox border
 * boxes (as parac_cu_launch_boxes) in one launch of a kernel that takes the
 * counter box, the boxes, the number of the interior's rows of work-groups,
 * then args: the work-groups past those rows (dimension 1) run the border
 * work-items. For regions of one or two axes. tuned: the kernel gives the
 * same result however often it runs, and its shape may be searched (as
 * parac_cu_launch_tuned; the search times the interior). */
PARAC_API parac_status parac_cu_launch_all(parac_cu_session *session, const char *kernel, int ndim, const long *lo,
                                          const long *hi, const int *wg, const int *items, int nbox,
                                          const long *boxes, int nargs, const parac_cu_arg *args, int tuned);
/* The same with nvar candidate kernels of one region (the same arguments,
 * each its own work-group shape and outputs per work-item): variants[0],
 * the model's, runs unless the search (PARAC_CU_SEARCH=1) is on and the
 * kernels are tuned; then the first launch for a work size times every
 * candidate (with the search's work-group shapes, where its shape is not
 * fixed) and the fastest, with its shape, is kept in the session and on
 * disk as the shape search's choices are. */
PARAC_API parac_status parac_cu_launch_variants(parac_cu_session *session, int nvar, const parac_kernel_variant *variants,
                                               int ndim, const long *lo, const long *hi, int nbox, const long *boxes,
                                               int nargs, const parac_cu_arg *args, int tuned);
/* A fusion choice's runs (parac/fusion_choice.h): begin with the choice's
 * name in the program, its nalts alternatives and the sizes that key the
 * search's choice; next says whether to run alternative c->alt (again). */
PARAC_API parac_status parac_cu_fusion_begin(parac_cu_session *session, const char *name, int nalts, int nsizes,
                                            const long *sizes, parac_fusion_choice *c);
PARAC_API int parac_cu_fusion_next(parac_cu_session *session, parac_fusion_choice *c);
/* With PARAC_CU_PROFILE=1 when a session opens, each kernel is timed by CUDA
 * events (and waited for): totals in nanoseconds, for benchmarks. */
PARAC_API unsigned long long parac_cu_profile_ns(void);
PARAC_API int parac_cu_profile_kernel(int i, const char **name, unsigned long long *ns);
/* Two-level reduction of m: `kernel` (per block, warp shuffles) then
 * `kernel`_final (one block over the partial results). */
PARAC_API parac_status parac_cu_reduce(parac_cu_session *session, const char *kernel, parac_cu_matrix *m,
                                       size_t acc_size, void *result);
/* Folded reductions (paracc -ffold-reductions): the kernel that writes a
 * matrix whole also adds up the values it stores, into slot `id` of the
 * session: 4 words of 64 bits (the running sum, the blocks done, the last
 * launch's total, unused), zero when the session first hands the slot out.
 * The last block of a launch moves the sum to the total and clears the
 * running words for the next launch. */
#define PARAC_CU_FOLD_SLOTS 256
PARAC_API parac_status parac_cu_fold_slot(parac_cu_session *session, int id, void **slot);
/* The total of the slot's last launch (acc_size bytes of it, at most 8);
 * an error when that launch did not finish (its running words are not clear:
 * they are cleared then). */
PARAC_API parac_status parac_cu_fold_result(parac_cu_session *session, int id, size_t acc_size, void *result);

PARAC_END_DECLS

#endif
