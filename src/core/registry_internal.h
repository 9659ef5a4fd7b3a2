#ifndef PARAC_REGISTRY_INTERNAL_H
#define PARAC_REGISTRY_INTERNAL_H

#include "parac/op.h"

/* The table of all operations, in src/core/op_table.c. */
extern const parac_op *const parac__ops[];
extern const int parac__op_total;

/* The largest parameter struct an operation may have. */
enum { PARAC__PARAMS_MAX = 1024 };

/* ---- params.c: parameters decoded once ---------------------------------------- */
/* The position of `choice` in the '|' separated `choices`, or -1. */
int parac__choice_index(const char *choices, const char *choice);
/* Whether op's table fits its struct: each field's size is the one its type
 * needs, inside params_size; at most 64 parameters; choices listed. */
parac_status parac__param_layout_check(const parac_op *op);
/* The text path: `args` decoded into `params` (op->params_size bytes),
 * checked, defaults filled in; *set: bit i for op->params[i] given or
 * defaulted; *method: the "method" parameter's text, or "auto". */
parac_status parac__params_from_text(const parac_op *op, const parac_args *args, void *params, uint64_t *set,
                                     const char **method);
/* The typed path: the fields of *set checked as the text path checks them,
 * the others zeroed or defaulted (*set gains the defaulted ones). */
parac_status parac__params_check(const parac_op *op, void *params, uint64_t *set);
/* The bit of parameter `name` in a set; 0 when op has no such parameter. */
uint64_t parac__param_bit(const parac_op *op, const char *name);

/* ---- registry.c ---------------------------------------------------------------- */
/* Run `op` with a parameter struct filled by a typed C function: `set` says
 * which fields it gave (parac__param_bit); `method` NULL or "auto": auto;
 * results as parac_op_run_results' (NULL: not wanted). */
parac_status parac__op_run_typed(parac_context *ctx, const parac_op *op, parac_image *const *inputs, int n_inputs,
                                 parac_image **outputs, int n_outputs, const void *params, uint64_t set,
                                 const char *method, double *results, int n_results);

/* ---- stream_plan.c: calls on host images streamed through a GPU in bands ------ */
typedef struct parac__stream_plan {
    int64_t reach;  /* input rows each way that an output row depends on */
    int64_t rows;   /* a band's output rows; 0: the call is not streamed */
    int64_t bands;
} parac__stream_plan;
/* Whether `call` (its method resolved, its inputs where the caller has them)
 * runs in bands streamed through the context's GPU: a CUDA context, inputs
 * in host memory with packed pixels and one shape, a method with a
 * row_reach that allows it, and images large enough for the overlap to pay
 * (PARAC_STREAM, PARAC_STREAM_ROWS: tuning.h). */
parac_status parac__stream_plan_make(parac_op_call *call, parac__stream_plan *plan);
/* How many bands of `rows` rows an extent makes (the remainder joins the last). */
int64_t parac__stream_band_count(int64_t extent, int64_t rows);

#endif
