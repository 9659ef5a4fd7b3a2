#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "op_timing.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

parac_status cli_time_op(parac_context *ctx, const parac_op *op, parac_image **inputs,
                         const parac_args *args, int runs, parac_image **outputs, op_timing *t)
{
    parac_image *resident[8] = {0};
    memset(t, 0, sizeof *t);
    if (runs < 1) runs = 1;
    double *samples = malloc(sizeof *samples * (size_t)runs);
    parac_status st = samples ? PARAC_OK : PARAC_ERR_OUT_OF_MEMORY;
    double t0 = now_ms();
    for (int i = 0; st == PARAC_OK && i < op->n_inputs; i++) {
        if (parac_context_backend(ctx) == PARAC_BACKEND_CUDA)
            st = parac_image_upload(&resident[i], inputs[i], parac_context_cuda_device(ctx),
                                    parac_context_stream(ctx));
        else
            st = parac_image_clone(&resident[i], inputs[i], PARAC_MEMORY_HOST, -1, NULL);
    }
    if (st == PARAC_OK) st = parac_context_synchronize(ctx);
    t->upload_ms = now_ms() - t0;
    for (int r = 0; st == PARAC_OK && r <= runs; r++) { /* run 0 warms up */
        for (int k = 0; k < op->n_outputs; k++) {
            parac_image_destroy(outputs[k]);
            outputs[k] = NULL;
        }
        double s = now_ms();
        st = parac_op_run_results(ctx, op->name, resident, op->n_inputs, outputs, op->n_outputs, args, t->results,
                                  PARAC_MAX_RESULTS, t->method, sizeof t->method);
        if (st == PARAC_OK) st = parac_context_synchronize(ctx);
        if (r > 0) samples[r - 1] = now_ms() - s;
    }
    if (st == PARAC_OK) {
        qsort(samples, (size_t)runs, sizeof *samples, compare_double);
        t->median_ms = samples[runs / 2];
        t->min_ms = samples[0];
    }
    for (int i = 0; i < op->n_inputs; i++) parac_image_destroy(resident[i]);
    free(samples);
    return st;
}
