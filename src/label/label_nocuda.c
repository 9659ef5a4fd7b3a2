/* Builds without CUDA: the CUDA labelling reports that the build has none
 * (no CUDA context exists in such a build, so the operation never reaches
 * it). */
#include "../core/error_internal.h"
#include "label.h"
#include "label_holes.h"
#include "lookup.h"
#include "regions.h"
#include "small.h"

parac_status parac__label_cuda(const parac__label_spec *s, const parac_image *in, parac_image *out, int64_t *count,
                               void *stream)
{
    (void)in, (void)out, (void)count, (void)stream;
    return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: this build has no CUDA support", s->op);
}

parac_status parac__regions_cuda(const parac__regions_spec *s, parac_image **table, int64_t *count, void *stream)
{
    (void)table, (void)count, (void)stream;
    return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: this build has no CUDA support", s->op);
}

parac_status parac__region_areas_cuda(const parac_image *labels, int64_t n, uint64_t *areas, void *stream)
{
    (void)labels, (void)n, (void)areas, (void)stream;
    return parac__fail(PARAC_ERR_UNSUPPORTED, "this build has no CUDA support");
}

parac_status parac__largest_label_cuda(const char *op, const parac_image *labels, int64_t *n, void *stream)
{
    (void)labels, (void)n, (void)stream;
    return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: this build has no CUDA support", op);
}

parac_status parac__small_cuda(const parac__small_spec *s, const parac_image *in, parac_image *out, void *stream)
{
    (void)in, (void)out, (void)stream;
    return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: this build has no CUDA support", s->op);
}

parac_status parac__label_holes_cuda(const parac__label_holes_spec *s, const parac_image *in, parac_image *out,
                                     int64_t *filled, void *stream)
{
    (void)in, (void)out, (void)filled, (void)stream;
    return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: this build has no CUDA support", s->op);
}

parac_status parac__lookup_cuda(const parac__lookup_spec *s, const parac_image *index, const parac_image *table,
                                parac_image *out, parac__lookup_miss *miss, void *stream)
{
    (void)index, (void)table, (void)out, (void)miss, (void)stream;
    return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: this build has no CUDA support", s->op);
}
