/* Batch mode of the operation commands (cmd_batch.c). */
#ifndef PARAC_CLI_BATCH_H
#define PARAC_CLI_BATCH_H

#include "parac/parac.h"

typedef struct cli_batch_options {
    const char *out_dir;
    int workers;
    int explain;
    const parac_read_options *read;
    const parac_write_options *write;
} cli_batch_options;

/* Run `op` on every input (files, directories, glob patterns), writing
 * OUT_DIR/<input's file name>. Returns the exit code. */
int cli_run_batch(const parac_op *op, const parac_args *args, const char *const *inputs, int n_inputs,
                  const cli_batch_options *o);

#endif
