#include "context_internal.h"
#include "error_internal.h"
#include "parac/op.h"

parac_status parac_progress(parac_context *ctx, double fraction)
{
    if (!ctx || !ctx->progress) return PARAC_OK;
    if (fraction < 0) fraction = 0;
    if (fraction > 1) fraction = 1;
    if (ctx->progress(ctx->progress_user, fraction))
        return parac__fail(PARAC_ERR_CANCELLED, "cancelled by the progress callback");
    return PARAC_OK;
}
