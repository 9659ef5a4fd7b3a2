/* Builds without CUDA: the GPU field is reported as missing. */
#include "../core/error_internal.h"
#include "skel.h"
#include "skel_field_approx.h"

parac_status parac__skel_field_cuda(const char *method, const float *targets, int64_t nt, const float *charges,
                                    int64_t nc, int M, float *F, void *stream)
{
    (void)method, (void)targets, (void)nt, (void)charges, (void)nc, (void)M, (void)F, (void)stream;
    return parac__fail(PARAC_ERR_UNSUPPORTED, "skeleton: this build has no CUDA support");
}

parac_status parac__skel_field_approx_cuda(const parac__skel_tree *tree, int M, float *F, void *stream,
                                           float *kernel_ms)
{
    (void)tree, (void)M, (void)F, (void)stream, (void)kernel_ms;
    return parac__fail(PARAC_ERR_UNSUPPORTED, "skeleton: this build has no CUDA support");
}
