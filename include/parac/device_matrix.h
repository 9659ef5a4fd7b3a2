/* What the two runtimes of generated device code (parac/opencl.h,
 * parac/cuda.h) have in common: a matrix's host storage and device buffer,
 * a kernel argument, and the count of transfers. parac_cl_matrix and
 * parac_cu_matrix are names of parac_device_matrix, and so on. */
#ifndef PARAC_DEVICE_MATRIX_H
#define PARAC_DEVICE_MATRIX_H

#include <stddef.h>

/* A matrix of a program: host storage plus a device buffer whose rows are
 * padded to 64 bytes. `state` says which copy is current, so transfers
 * happen only when the data flow needs them. */
typedef struct parac_device_matrix {
    void *session;       /* the parac_cl_session or parac_cu_session it was bound to */
    void *host;
    size_t elem_size;
    int ndim;
    long dims[3];        /* d0, d1, d2 as declared (unused ones are 1) */
    size_t host_pitch;   /* bytes per host row */
    size_t device_pitch; /* bytes per device row, a multiple of 64 */
    void *buffer;        /* cl_mem or device pointer, made on first use */
    int state;           /* one of the states below */
} parac_device_matrix;

/* PARAC_DEVICE_ZEROS: the host copy is all zeros and the device buffer not
 * yet filled; the first upload fills the buffer on the device instead of
 * copying. */
enum {
    PARAC_DEVICE_HOST_NEWER = 0,
    PARAC_DEVICE_SAME = 1,
    PARAC_DEVICE_NEWER = 2,
    PARAC_DEVICE_ZEROS = 3
};

/* A kernel argument: a value, or a matrix (passed as its buffer, its pitch
 * in elements, d0, d1, d2). */
typedef struct parac_device_arg {
    int kind;
    size_t size;
    const void *value;
    parac_device_matrix *matrix;
} parac_device_arg;

enum { PARAC_DEVICE_ARG_VALUE = 1, PARAC_DEVICE_ARG_MATRIX = 2 };

/* What moved between host and device since the process started, over every
 * session of one runtime: copies each way with their bytes, and device-side
 * fills. Tests use it to check that a pipeline moves only what its data
 * flow needs. */
typedef struct parac_device_transfers {
    long long uploads, downloads, fills;
    long long upload_bytes, download_bytes;
} parac_device_transfers;

#endif
