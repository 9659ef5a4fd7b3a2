#ifndef PARAC_CONTEXT_INTERNAL_H
#define PARAC_CONTEXT_INTERNAL_H

#include "parac/context.h"

struct parac_context {
    parac_backend backend;
    int cuda_device;        /* -1 on the CPU */
    char device[32];        /* "cpu", "cuda:N" */
    char reason[512];
    void *stream;           /* the stream in use */
    void *own_stream;       /* created by the context, destroyed with it */
    int threads;
    parac_progress_fn progress;
    void *progress_user;
};

#endif
