#ifndef PARAC_REGISTRY_INTERNAL_H
#define PARAC_REGISTRY_INTERNAL_H

#include "parac/op.h"

/* The table of all operations, in src/core/op_table.c. */
extern const parac_op *const parac__ops[];
extern const int parac__op_total;

/* Value parsing shared by validation and the parac_call_* accessors. */
parac_status parac__parse_bool(const char *text, int *value);
parac_status parac__parse_int(const char *text, int64_t *value);
parac_status parac__parse_double(const char *text, double *value);
/* `choice` is one of the '|' separated `choices`. */
int parac__choice_ok(const char *choices, const char *choice);

#endif
