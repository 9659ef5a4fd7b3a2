// Method "separable" on CUDA: one fused x+y kernel when both radii fit its
// tile (the intermediate stays in shared memory), otherwise an x pass and a
// y pass through a float image; 3D volumes get a z pass after that.
#include "cuda/cuda_check.h"
#include "filter_cuda_common.cuh"

extern "C" parac_status parac__cuda_separable(const parac_image *in, parac_image *out,
                                              const parac__fir1d k[3], parac__border_rule border,
                                              void *stream_)
{
    cudaStream_t stream = (cudaStream_t)stream_;
    PARAC_CUDA_TRY(cudaSetDevice(in->device));
    const pc_img s = pc_view(in), d = pc_view(out);
    const bool zpass = in->depth > 1 && k[2].radius > 0;
    float *tmp = NULL, *tmp2 = NULL;
    parac_status st = PARAC_OK;
    pc_img mid = d;
    const size_t count = (size_t)s.w * s.h * s.d * s.ch;
    if (zpass) {
        st = pc_alloc_float(&tmp, count, stream);
        if (st) goto done;
        mid = pc_float_like(s, tmp);
    }
    {
        int fused = 0;
        st = pc_pass_xy_fused(s, mid, &k[0], &k[1], border, stream, &fused);
        if (st || fused) goto zp;
        if (k[0].radius > 0 && k[1].radius > 0) {
            st = pc_alloc_float(&tmp2, count, stream);
            if (st) goto done;
            pc_img t2 = pc_float_like(s, tmp2);
            st = pc_pass_x(s, t2, &k[0], border, stream);
            if (!st) st = pc_pass_axis(t2, mid, 1, &k[1], border, stream);
        } else if (k[1].radius == 0) {
            st = pc_pass_x(s, mid, &k[0], border, stream);
        } else {
            st = pc_pass_axis(s, mid, 1, &k[1], border, stream);
        }
    }
zp:
    if (!st && zpass) st = pc_pass_axis(mid, d, 2, &k[2], border, stream);
done:
    pc_free(tmp, stream);
    pc_free(tmp2, stream);
    return st;
}
