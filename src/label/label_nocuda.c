/* Builds without CUDA: the CUDA labelling reports that the build has none
 * (no CUDA context exists in such a build, so the operation never reaches
 * it). */
#include "../core/error_internal.h"
#include "label.h"

parac_status parac__label_cuda(const parac__label_spec *s, const parac_image *in, parac_image *out, int64_t *count,
                               void *stream)
{
    (void)in, (void)out, (void)count, (void)stream;
    return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: this build has no CUDA support", s->op);
}
