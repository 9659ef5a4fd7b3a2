/* Builds without CUDA: the CUDA methods of the fill report that the build
 * has none (no CUDA context exists in such a build, so the operations never
 * reach them; they keep fill_op.c free of build conditions). */
#include "../core/error_internal.h"
#include "fill.h"

static parac_status not_built(const parac__fill_spec *s)
{
    return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: this build has no CUDA support", s ? s->op : "floodfill");
}

parac_status parac__fill_ccl_cuda(const parac__fill_spec *s, const parac_image *in, parac_image *out, void *stream)
{
    (void)in, (void)out, (void)stream;
    return not_built(s);
}

parac_status parac__fill_seeds_cuda(const parac__fill_spec *s, const parac_image *in, parac_image *out, void *stream)
{
    (void)in, (void)out, (void)stream;
    return not_built(s);
}

parac_status parac__fill_hybrid(const parac__fill_spec *s, const parac_image *in_host, parac_image *out, void *stream)
{
    (void)in_host, (void)out, (void)stream;
    return not_built(s);
}

parac_status parac__floodfill_cuda(const parac_image *in, parac_image *out, const int64_t *seeds, int n_seeds,
                                   double value, double tolerance, int conn, int mask, void *stream)
{
    (void)in, (void)out, (void)seeds, (void)n_seeds, (void)value, (void)tolerance, (void)conn, (void)mask, (void)stream;
    return not_built(NULL);
}
