/* parac_skeleton(): the typed form of the registry operation "skeleton". */
#include <stdio.h>

#include "../core/error_internal.h"
#include "parac/op.h"
#include "parac/skeleton.h"

parac_skeleton_options parac_skeleton_defaults(void)
{
    return (parac_skeleton_options){.field_strength = 6, .charge_distance = 1, .divergence = 0.5,
                                    .spacing = {1, 1, 1}};
}

parac_status parac_skeleton(parac_context *ctx, const parac_image *in, parac_image **out,
                            const parac_skeleton_options *options)
{
    if (!out) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "skeleton: out is NULL");
    *out = NULL;
    const parac_skeleton_options o = options ? *options : parac_skeleton_defaults();
    parac_args *a;
    PARAC_TRY(parac_args_create(&a));
    parac_status st = PARAC_OK;
    if (o.has_threshold) st = parac_args_set_number(a, "threshold", o.threshold);
    if (st == PARAC_OK && o.field_strength) st = parac_args_set_number(a, "field-strength", o.field_strength);
    if (st == PARAC_OK && o.charge_distance >= 0) st = parac_args_set_number(a, "charge-distance", o.charge_distance);
    if (st == PARAC_OK && o.rules) st = parac_args_set(a, "rules", o.rules);
    if (st == PARAC_OK && o.divergence >= 0) st = parac_args_set_number(a, "divergence", o.divergence);
    if (st == PARAC_OK && (o.spacing[0] || o.spacing[1] || o.spacing[2])) {
        char t[200];
        snprintf(t, sizeof t, "%.17g,%.17g,%.17g", o.spacing[0], o.spacing[1], o.spacing[2]);
        st = parac_args_set(a, "spacing", t);
    }
    if (st == PARAC_OK && o.graph) st = parac_args_set(a, "graph", o.graph);
    if (st == PARAC_OK && o.method) st = parac_args_set(a, "method", o.method);
    parac_image *ins[1] = {(parac_image *)in};
    if (st == PARAC_OK) st = parac_op_run(ctx, "skeleton", ins, 1, out, 1, a, NULL, 0);
    parac_args_destroy(a);
    return st;
}
