/* Every operation parac knows, in the order `parac --help` lists them.
 * Adding an operation: define its parac_op in its area and list it here. */
#include "registry_internal.h"

extern const parac_op parac__op_convert;
extern const parac_op parac__op_gauss;
extern const parac_op parac__op_convolve;

const parac_op *const parac__ops[] = {
    &parac__op_convert,
    &parac__op_gauss,
    &parac__op_convolve,
};

const int parac__op_total = sizeof parac__ops / sizeof parac__ops[0];
