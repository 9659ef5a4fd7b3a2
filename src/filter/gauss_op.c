/* The "gauss" operation: Gaussian filtering by any of the methods of
 * docs/gaussian.md, on the CPU and on CUDA. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "filter_cpu.h"
#include "gauss_plan.h"

const parac_dtype parac__filter_dtypes[3] = {PARAC_U8, PARAC_U16, PARAC_F32};

void parac__gauss_plan_free(parac__gauss_plan *p)
{
    for (int a = 0; a < 3; a++) {
        free(p->taps[a]);
        p->taps[a] = NULL;
    }
}

parac_status parac__gauss_plan_make(const parac_op_call *call, parac__gauss_plan *p)
{
    if (call->plan) { /* auto's choice parsed the parameters already (parac__gauss_choose) */
        *p = *(const parac__gauss_plan *)call->plan;
        for (int a = 0; a < 3; a++) p->taps[a] = NULL;
    } else {
        PARAC_TRY(parac__gauss_plan_params(call, p));
    }
    for (int a = 0; a < 3; a++) {
        p->fir[a].radius = p->radius[a];
        if (p->radius[a] == 0) continue;
        p->taps[a] = parac__malloc(sizeof(float) * (size_t)(2 * p->radius[a] + 1));
        if (!p->taps[a]) {
            parac__gauss_plan_free(p);
            return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "gauss: no memory for a kernel of radius %d",
                               p->radius[a]);
        }
        const int same = a > 0 && p->taps[a - 1] && p->sigma[a - 1] == p->sigma[a] && p->radius[a - 1] == p->radius[a];
        if (same) memcpy(p->taps[a], p->taps[a - 1], sizeof(float) * (size_t)(2 * p->radius[a] + 1));
        else parac__gauss_taps(p->sigma[a], p->radius[a], p->taps[a]);
        p->fir[a].taps = p->taps[a];
    }
    return PARAC_OK;
}

parac_status parac__gauss_plan_params(const parac_op_call *call, parac__gauss_plan *p)
{
    const parac_image *in = call->inputs[0];
    const parac__gauss_params *g = call->params;
    memset(p, 0, sizeof *p);
    if (in->dtype != PARAC_U8 && in->dtype != PARAC_U16 && in->dtype != PARAC_F32)
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "gauss: input dtype %s is not supported (u8, u16 or f32; see 'parac convert')",
                           parac_dtype_name(in->dtype));
    p->sigma[0] = g->sigma;
    p->sigma[1] = parac_call_has(call, "sigma-y") ? g->sigma_y : g->sigma;
    p->sigma[2] = in->depth > 1 ? (parac_call_has(call, "sigma-z") ? g->sigma_z : g->sigma) : 0.0;
    p->tolerance = g->tolerance;
    p->out_dtype = parac_call_has(call, "dtype") ? parac__filter_dtypes[g->dtype] : in->dtype;
    parac_border mode;
    double value = 0.0;
    PARAC_TRY(parac__wrap(parac_border_parse(g->border, &mode, &value), "gauss"));
    p->border.mode = mode;
    p->border.value = (float)value;
    for (int a = 0; a < 3; a++) {
        if (!(p->sigma[a] >= 0.0) || !isfinite(p->sigma[a]))
            return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "gauss: sigma must be >= 0, got %g", p->sigma[a]);
        if (p->sigma[a] == 0.0) continue;
        if (parac_call_has(call, "radius")) /* in 0..PARAC__MAX_RADIUS: the registry checked */
            p->radius[a] = g->radius;
        else
            PARAC_TRY(parac__wrap(parac__gauss_radius(p->sigma[a], g->truncate, &p->radius[a]), "gauss"));
    }
    return PARAC_OK;
}

/* The full 2D kernel ky (x) kx for direct and fft. */
static parac_status kernel_2d(const parac__gauss_plan *p, float **k2d)
{
    const int ntx = 2 * p->radius[0] + 1, nty = 2 * p->radius[1] + 1;
    if ((double)ntx * nty > (double)(1 << 28))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                           "gauss: a %dx%d 2D kernel is too large for direct and fft; use separable "
                           "or recursive", ntx, nty);
    *k2d = parac__malloc(sizeof(float) * (size_t)ntx * (size_t)nty);
    if (!*k2d) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "gauss: no memory for a %dx%d kernel", ntx, nty);
    for (int j = 0; j < nty; j++)
        for (int i = 0; i < ntx; i++)
            (*k2d)[(size_t)j * ntx + i] = (p->radius[1] ? p->taps[1][j] : 1.0f) * (p->radius[0] ? p->taps[0][i] : 1.0f);
    return PARAC_OK;
}

static parac_status iir_coefs(const char *method, const parac__gauss_plan *p, parac__iir1d f[3])
{
    for (int a = 0; a < 3; a++) {
        if (strcmp(method, "recursive") == 0) PARAC_TRY(parac__iir_deriche4(p->sigma[a], &f[a]));
        else if (strcmp(method, "deriche2") == 0) PARAC_TRY(parac__iir_deriche2(p->sigma[a], &f[a]));
        else PARAC_TRY(parac__iir_yvv(p->sigma[a], &f[a]));
    }
    return PARAC_OK;
}

/* Input in the form the methods take (packed) and the output image. */
static parac_status prepare(parac_op_call *call, const parac__gauss_plan *p, parac_image **packed)
{
    parac_image *in = call->inputs[0];
    int cuda = parac_context_backend(call->ctx) == PARAC_BACKEND_CUDA;
    *packed = NULL;
    if (!cuda && !parac_image_is_packed(in))
        PARAC_TRY(parac_image_clone(packed, in, PARAC_MEMORY_HOST, -1, NULL));
    return parac_call_output(call, 0, in->width, in->height, in->depth, in->channels, p->out_dtype,
                             cuda ? PARAC_MEMORY_CUDA : PARAC_MEMORY_HOST,
                             cuda ? parac_context_cuda_device(call->ctx) : -1);
}

static parac_status run_method(parac_op_call *call)
{
    const char *m = call->method->name;
    const int cuda = parac_context_backend(call->ctx) == PARAC_BACKEND_CUDA;
    const int threads = parac_context_threads(call->ctx);
    void *stream = parac_context_stream(call->ctx);
    parac__gauss_plan p;
    PARAC_TRY(parac__gauss_plan_make(call, &p));
    parac_image *packed = NULL;
    parac_status st = prepare(call, &p, &packed);
    const parac_image *in = packed ? packed : call->inputs[0];
    parac_image *out = call->outputs[0];
    float *k2d = NULL;
    parac__iir1d f[3];
    if (st != PARAC_OK) goto done;
    if (cuda && strcmp(m, "fft") == 0) { /* keyed by the 1D kernels: no 2D kernel on the host */
        st = parac__cuda_fft2d_separable(in, out, &p.fir[0], &p.fir[1], &p.fir[2], p.border, stream);
        goto done;
    }
    if (strcmp(m, "direct") == 0 || strcmp(m, "fft") == 0) {
        st = kernel_2d(&p, &k2d);
        if (st != PARAC_OK) goto done;
        int fft = m[0] == 'f';
        if (cuda)
            st = fft ? parac__cuda_fft2d(in, out, k2d, p.radius[0], p.radius[1], &p.fir[2], p.border, stream)
                     : parac__cuda_direct2d(in, out, k2d, p.radius[0], p.radius[1], &p.fir[2], p.border, stream);
        else
            st = fft ? parac__cpu_fft2d(in, out, k2d, p.radius[0], p.radius[1], &p.fir[2], p.border, threads)
                     : parac__cpu_direct2d(in, out, k2d, p.radius[0], p.radius[1], &p.fir[2], p.border, threads);
    } else if (strcmp(m, "separable") == 0 || strcmp(m, "texture") == 0) {
        if (cuda)
            st = m[0] == 't' ? parac__cuda_separable_texture(in, out, p.fir, p.border, stream)
                             : parac__cuda_separable(in, out, p.fir, p.border, stream);
        else
            st = parac__cpu_separable(in, out, p.fir, p.border, threads);
    } else {
        st = iir_coefs(m, &p, f);
        if (st != PARAC_OK) goto done;
        if (cuda)
            st = parac__cuda_iir(in, out, f, p.border, stream);
        else
            st = parac__cpu_iir(in, out, f, p.border, threads);
    }
done:
    free(k2d);
    parac_image_destroy(packed);
    parac__gauss_plan_free(&p);
    return st;
}

/* The FIR methods' rows depend on the rows within the kernel's radius along
 * the streamed axis (y, or z in a volume); a wrapped border reaches the far
 * side, and the texture method's mirror works in coordinates scaled by the
 * image's size. */
static parac_status fir_row_reach(parac_op_call *call, int64_t *reach)
{
    parac__gauss_plan p;
    *reach = -1;
    if (call->plan) p = *(const parac__gauss_plan *)call->plan;
    else PARAC_TRY(parac__gauss_plan_params(call, &p));
    if (p.border.mode == PARAC_BORDER_WRAP) return PARAC_OK;
    if (strcmp(call->method->name, "texture") == 0 && p.border.mode == PARAC_BORDER_REFLECT) return PARAC_OK;
    *reach = p.radius[call->inputs[0]->depth > 1 ? 2 : 1];
    return PARAC_OK;
}

static parac_status gauss_demo(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    (void)ctx;
    PARAC_TRY(parac_image_create(&inputs[0], 640, 480, 1, 3, PARAC_U8, PARAC_MEMORY_HOST, -1));
    parac_image *img = inputs[0];
    for (int64_t y = 0; y < img->height; y++)
        for (int64_t x = 0; x < img->width; x++) {
            uint8_t *px = parac_image_at(img, x, y, 0);
            int on = ((x / 32) + (y / 32)) % 2;
            px[0] = (uint8_t)(on ? 230 : 20);
            px[1] = (uint8_t)(x * 255 / img->width);
            px[2] = (uint8_t)((x - 320) * (x - 320) + (y - 240) * (y - 240) < 100 * 100 ? 255 : 0);
        }
    return parac_args_set(args, "sigma", "3");
}

static const parac_param_spec gauss_params[] = {
    {"sigma", PARAC_PARAM_DOUBLE, NULL, NULL, 0, 1e6,
     "standard deviation in pixels along x (and y, z unless given); 0 = no filtering along it; required",
     PARAC_REQUIRED_FIELD(parac__gauss_params, sigma)},
    {"sigma-y", PARAC_PARAM_DOUBLE, NULL, NULL, 0, 1e6, "sigma along y (default: sigma)",
     PARAC_FIELD(parac__gauss_params, sigma_y)},
    {"sigma-z", PARAC_PARAM_DOUBLE, NULL, NULL, 0, 1e6,
     "sigma along z for 3D volumes (default: sigma; 0 filters each slice alone)",
     PARAC_FIELD(parac__gauss_params, sigma_z)},
    {"truncate", PARAC_PARAM_DOUBLE, "4.0", NULL, 0.01, 1000,
     "kernel radius = int(truncate * sigma + 0.5) per axis (scipy's rule)",
     PARAC_FIELD(parac__gauss_params, truncate)},
    {"radius", PARAC_PARAM_INT, NULL, NULL, 0, PARAC__MAX_RADIUS,
     "explicit kernel radius for every filtered axis (overrides truncate; FIR methods only)",
     PARAC_FIELD(parac__gauss_params, radius)},
    {"border", PARAC_PARAM_STRING, "reflect101", NULL, 0, 0,
     "pixels outside the image: reflect101 (dcb|abcd|cba, OpenCV default, scipy 'mirror'), "
     "reflect (cba|abcd|dcb, scipy default), replicate, constant[:VALUE] (default 0), wrap",
     PARAC_FIELD(parac__gauss_params, border)},
    {"dtype", PARAC_PARAM_CHOICE, NULL, PARAC__FILTER_DTYPES, 0, 0,
     "output dtype (default: the input's); integers are rounded to nearest and saturated",
     PARAC_FIELD(parac__gauss_params, dtype)},
    {"tolerance", PARAC_PARAM_DOUBLE, "1e-4", NULL, 0, 1,
     "auto method: largest error allowed against the sampled FIR Gaussian, as a fraction of the "
     "data range (IIR methods are chosen only where they meet it)", PARAC_FIELD(parac__gauss_params, tolerance)},
};

static const parac_method gauss_methods[] = {
    {"separable", PARAC_BACKEND_CPU, run_method, "row + column passes, cache-blocked, OpenMP", NULL},
    {"direct", PARAC_BACKEND_CPU, run_method, "full (2r+1)^2 2D kernel", NULL},
    {"fft", PARAC_BACKEND_CPU, run_method, "FFTW convolution with border padding", NULL},
    {"recursive", PARAC_BACKEND_CPU, run_method,
     "Deriche 4th-order IIR in 2nd-order sections, cost independent of sigma", NULL},
    {"deriche2", PARAC_BACKEND_CPU, run_method,
     "the 2nd-order IIR of NVIDIA's recursiveGaussian sample (about 12% L1 error; reproduction)", NULL},
    {"yvv", PARAC_BACKEND_CPU, run_method,
     "Young-van Vliet 3rd-order IIR, Triggs-Sdika boundaries", NULL},
    /* Listed in every build, so that naming a CUDA-only method on the CPU is
     * reported as "not available on the cpu backend"; without CUDA support no
     * CUDA context can exist, so these entries never run there. */
    {"separable", PARAC_BACKEND_CUDA, run_method, "shared-memory row/column passes", fir_row_reach},
    {"texture", PARAC_BACKEND_CUDA, run_method, "separable passes reading through texture objects", fir_row_reach},
    {"direct", PARAC_BACKEND_CUDA, run_method, "tiled shared-memory 2D kernel", fir_row_reach},
    {"fft", PARAC_BACKEND_CUDA, run_method, "cuFFT convolution with border padding", NULL},
    {"recursive", PARAC_BACKEND_CUDA, run_method, "Deriche 4th-order IIR", NULL},
    {"deriche2", PARAC_BACKEND_CUDA, run_method, "NVIDIA sample's 2nd-order IIR", NULL},
    {"yvv", PARAC_BACKEND_CUDA, run_method, "Young-van Vliet 3rd-order IIR", NULL},
};

const parac_op parac__op_gauss = {
    .name = "gauss",
    .summary = "Gaussian blur (FIR, FFT or recursive), 2D and 3D",
    .description =
        "Filters with a sampled Gaussian of standard deviation sigma (per axis), radius "
        "int(truncate*sigma+0.5), normalised to sum 1, like scipy.ndimage.gaussian_filter. "
        "Methods: separable, direct and fft compute that FIR filter exactly (up to float32 "
        "rounding); recursive, yvv and deriche2 approximate the Gaussian with IIR filters whose "
        "cost does not depend on sigma; texture (CUDA only) is the separable filter through "
        "texture reads. 'auto' picks the fastest method whose error stays within --tolerance "
        "(default 1e-4 of the data range), from measured timings; --explain says which and why. "
        "u8, u16 and f32 images with 1-4 channels; a 3D volume is filtered along z too. "
        "See docs/gaussian.md.",
    .usage_args = "IN OUT",
    .n_inputs = 1,
    .n_outputs = 1,
    .params = gauss_params,
    .n_params = sizeof gauss_params / sizeof gauss_params[0],
    .params_size = sizeof(parac__gauss_params),
    .methods = gauss_methods,
    .n_methods = sizeof gauss_methods / sizeof gauss_methods[0],
    .choose = parac__gauss_choose,
    .demo = gauss_demo,
};
