/* Builds without CUDA: the CUDA filters report that the build has none (no
 * CUDA context exists in such a build, so gauss and convolve never reach
 * them; they keep the operation files free of build conditions). */
#include "../core/error_internal.h"
#include "filter_internal.h"

static parac_status not_built(void)
{
    return parac__fail(PARAC_ERR_UNSUPPORTED, "filter: this build has no CUDA support");
}

parac_status parac__cuda_direct2d(const parac_image *in, parac_image *out, const float *k2d, int rx, int ry,
                                  const parac__fir1d *kz, parac__border_rule border, void *stream)
{
    (void)in, (void)out, (void)k2d, (void)rx, (void)ry, (void)kz, (void)border, (void)stream;
    return not_built();
}

parac_status parac__cuda_separable(const parac_image *in, parac_image *out, const parac__fir1d k[3],
                                   parac__border_rule border, void *stream)
{
    (void)in, (void)out, (void)k, (void)border, (void)stream;
    return not_built();
}

parac_status parac__cuda_separable_texture(const parac_image *in, parac_image *out, const parac__fir1d k[3],
                                           parac__border_rule border, void *stream)
{
    (void)in, (void)out, (void)k, (void)border, (void)stream;
    return not_built();
}

parac_status parac__cuda_fft2d(const parac_image *in, parac_image *out, const float *k2d, int rx, int ry,
                               const parac__fir1d *kz, parac__border_rule border, void *stream)
{
    (void)in, (void)out, (void)k2d, (void)rx, (void)ry, (void)kz, (void)border, (void)stream;
    return not_built();
}

parac_status parac__cuda_fft2d_separable(const parac_image *in, parac_image *out, const parac__fir1d *kx,
                                         const parac__fir1d *ky, const parac__fir1d *kz, parac__border_rule border,
                                         void *stream)
{
    (void)in, (void)out, (void)kx, (void)ky, (void)kz, (void)border, (void)stream;
    return not_built();
}

parac_status parac__cuda_iir(const parac_image *in, parac_image *out, const parac__iir1d f[3],
                             parac__border_rule border, void *stream)
{
    (void)in, (void)out, (void)f, (void)border, (void)stream;
    return not_built();
}
