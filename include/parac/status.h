/* Status codes and error messages.
 *
 * Every fallible parac function returns a parac_status. On failure the library
 * also records a message (what failed, where, why) in thread-local storage;
 * parac_error_message() returns it until the next failure on the same thread.
 * The library never prints and never exits. */
#ifndef PARAC_STATUS_H
#define PARAC_STATUS_H

#include "parac/export.h"

PARAC_BEGIN_DECLS

typedef enum parac_status {
    PARAC_OK = 0,
    PARAC_ERR_INVALID_ARGUMENT, /* a parameter is out of range or inconsistent */
    PARAC_ERR_OUT_OF_MEMORY,    /* host or device allocation failed */
    PARAC_ERR_OVERFLOW,         /* a size computation would overflow */
    PARAC_ERR_IO,               /* the operating system refused a read/write */
    PARAC_ERR_FORMAT,           /* a file is corrupt, truncated or not what it claims */
    PARAC_ERR_UNSUPPORTED,      /* a valid request this build or backend cannot do */
    PARAC_ERR_NO_DEVICE,        /* the requested device is absent */
    PARAC_ERR_CUDA,             /* a CUDA runtime/library call failed */
    PARAC_ERR_OPENCL,           /* an OpenCL call failed */
    PARAC_ERR_CANCELLED,        /* a progress callback asked to stop */
    PARAC_ERR_INTERNAL          /* a bug in parac */
} parac_status;

/* A short fixed description of a status code ("invalid argument", ...). */
PARAC_API const char *parac_status_string(parac_status status);

/* The message of the last failure on this thread; "" if none. */
PARAC_API const char *parac_error_message(void);

/* Forget the last failure on this thread. */
PARAC_API void parac_error_clear(void);

PARAC_END_DECLS

#endif
