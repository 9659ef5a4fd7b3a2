/* Builds without CUDA: the entry points of the CUDA engines and steps
 * report that the build has none. No CUDA context can exist in such a
 * build, so the operations never reach them; they keep morph_op.c free of
 * build conditions. */
#include "../core/error_internal.h"
#include "morph_post.h"
#include "recon_devices.h"

static parac_status not_built(void)
{
    return parac__fail(PARAC_ERR_UNSUPPORTED, "reconstruction: this build has no CUDA support");
}

parac_status parac__recon_cuda(const char *method, const parac__recon_spec *s, const parac_image *marker,
                               const parac_image *mask, parac_image *out, void *stream)
{
    (void)method, (void)s, (void)marker, (void)mask, (void)out, (void)stream;
    return not_built();
}

parac_status parac__recon_cuda_plan(const parac_image *mask, int n_images, const int *workers, int n_workers,
                                    const parac__tuning *tuning, parac__cuda_layout *layout, int64_t *strips)
{
    (void)mask, (void)n_images, (void)workers, (void)n_workers, (void)tuning;
    *layout = PARAC__CUDA_WHOLE;
    *strips = 0;
    return not_built();
}

parac_status parac__recon_split(const parac__recon_spec *s, const parac_image *marker, const parac_image *mask,
                                parac_image *out, const int *workers, int n_workers, void *stream)
{
    (void)s, (void)marker, (void)mask, (void)out, (void)workers, (void)n_workers, (void)stream;
    return not_built();
}

parac_status parac__recon_tiled(const parac__recon_spec *s, const parac_image *marker, const parac_image *mask,
                                parac_image *out, const int *workers, int n_workers, int64_t strips)
{
    (void)s, (void)marker, (void)mask, (void)out, (void)workers, (void)n_workers, (void)strips;
    return not_built();
}

parac_status parac__morph_post_cuda(parac__post_kind kind, int minima, double h, const parac_image *f,
                                    const parac_image *R, parac_image *out, void *stream)
{
    (void)kind, (void)minima, (void)h, (void)f, (void)R, (void)out, (void)stream;
    return not_built();
}

parac_status parac__morph_minmax_cuda(const parac_image *in, parac_image *out, int64_t radius, int is_max,
                                      void *stream)
{
    (void)in, (void)out, (void)radius, (void)is_max, (void)stream;
    return not_built();
}
