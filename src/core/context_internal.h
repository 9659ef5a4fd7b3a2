#ifndef PARAC_CONTEXT_INTERNAL_H
#define PARAC_CONTEXT_INTERNAL_H

#include "parac/context.h"
#include "tuning.h"

struct parac_context {
    parac_backend backend;
    int cuda_device;        /* -1 on the CPU */
    char device[128];       /* "cpu", "cuda:N", "cuda:0,cuda:1" */
    int workers[16];        /* CUDA devices for operations that spread over several */
    int n_workers;          /* 0 on the CPU, 1 for one device */
    char reason[512];
    void *stream;           /* the stream in use */
    void *own_stream;       /* created by the context, destroyed with it */
    int threads;
    parac_progress_fn progress;
    void *progress_user;
    parac__tuning tuning;   /* read when the context is created */
};

#endif
