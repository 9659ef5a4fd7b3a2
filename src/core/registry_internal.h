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

#endif
