/* The "convolve" operation: correlation with a user kernel (2D, or
 * separable as x and y kernels), through the engines of gauss. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "filter_cpu.h"
#include "gauss_plan.h"
#include "kernel_file.h"

typedef struct conv_params {
    const char *kernel, *kernel_x, *kernel_y; /* NULL: not given */
    const char *border;
    int dtype; /* position in PARAC__FILTER_DTYPES; unset: the input's */
} conv_params;

typedef struct conv_setup {
    parac__kernel k2, kx, ky; /* as loaded */
    float *k2d;               /* padded to odd sizes: (2ry+1) x (2rx+1) */
    int rx, ry;
    float *tx, *ty;           /* padded 1D kernels */
    parac__fir1d fir[3];
    parac__border_rule border;
    parac_dtype out_dtype;
} conv_setup;

static void setup_free(conv_setup *s)
{
    parac__kernel_free(&s->k2);
    parac__kernel_free(&s->kx);
    parac__kernel_free(&s->ky);
    free(s->k2d);
    free(s->tx);
    free(s->ty);
}

/* A 1D kernel of n taps, anchor n/2, as 2*(n/2)+1 taps (a zero appended when n is even). */
static parac_status pad_1d(const parac__kernel *k, const char *name, float **taps, int *radius)
{
    if (k->w != 1 && k->h != 1)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "convolve: --%s must be 1D, got %dx%d", name, k->h, k->w);
    int n = k->w * k->h, r = n / 2;
    *taps = parac__calloc((size_t)(2 * r + 1), sizeof(float));
    if (!*taps) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "convolve: no memory");
    memcpy(*taps, k->v, sizeof(float) * (size_t)n);
    *radius = r;
    return PARAC_OK;
}

static parac_status setup_make(const parac_op_call *call, conv_setup *s)
{
    const parac_image *in = call->inputs[0];
    memset(s, 0, sizeof *s);
    if (in->dtype != PARAC_U8 && in->dtype != PARAC_U16 && in->dtype != PARAC_F32)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "convolve: input dtype %s is not supported (u8, u16 or f32)",
                           parac_dtype_name(in->dtype));
    const conv_params *p = call->params;
    const int has2 = p->kernel != NULL, hasx = p->kernel_x != NULL, hasy = p->kernel_y != NULL;
    if (has2 && (hasx || hasy))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "convolve: give --kernel or --kernel-x/--kernel-y, not both");
    if (!has2 && !hasx && !hasy)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "convolve: a kernel is required (--kernel, or --kernel-x and/or --kernel-y)");
    s->out_dtype = parac_call_has(call, "dtype") ? parac__filter_dtypes[p->dtype] : in->dtype;
    parac_border mode;
    double value = 0;
    PARAC_TRY(parac__wrap(parac_border_parse(p->border, &mode, &value), "convolve"));
    s->border.mode = mode;
    s->border.value = (float)value;
    parac_status st = PARAC_OK;
    if (has2) {
        st = parac__kernel_load(p->kernel, &s->k2);
        if (st != PARAC_OK) return st;
        s->rx = s->k2.w / 2;
        s->ry = s->k2.h / 2;
        int ntx = 2 * s->rx + 1, nty = 2 * s->ry + 1;
        s->k2d = parac__calloc((size_t)ntx * (size_t)nty, sizeof(float));
        if (!s->k2d) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "convolve: no memory");
        for (int j = 0; j < s->k2.h; j++)
            memcpy(s->k2d + (size_t)j * ntx, s->k2.v + (size_t)j * s->k2.w, sizeof(float) * (size_t)s->k2.w);
        return PARAC_OK;
    }
    if (hasx) {
        PARAC_TRY(parac__kernel_load(p->kernel_x, &s->kx));
        PARAC_TRY(pad_1d(&s->kx, "kernel-x", &s->tx, &s->fir[0].radius));
        s->fir[0].taps = s->tx;
    }
    if (hasy) {
        PARAC_TRY(parac__kernel_load(p->kernel_y, &s->ky));
        PARAC_TRY(pad_1d(&s->ky, "kernel-y", &s->ty, &s->fir[1].radius));
        s->fir[1].taps = s->ty;
    }
    /* the 2D equivalent, for direct and fft */
    s->rx = s->fir[0].radius;
    s->ry = s->fir[1].radius;
    int ntx = 2 * s->rx + 1, nty = 2 * s->ry + 1;
    if ((double)ntx * nty <= (double)(1 << 26)) {
        s->k2d = parac__malloc(sizeof(float) * (size_t)ntx * (size_t)nty);
        if (!s->k2d) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "convolve: no memory");
        for (int j = 0; j < nty; j++)
            for (int i = 0; i < ntx; i++)
                s->k2d[(size_t)j * ntx + i] = (s->ty ? s->ty[j] : 1.0f) * (s->tx ? s->tx[i] : 1.0f);
    }
    return st;
}

static void setup_release(void *plan)
{
    setup_free(plan);
    free(plan);
}

/* The kernels loaded once per call: by auto's choice, or here. */
static parac_status setup_of(parac_op_call *call, conv_setup **out)
{
    if (call->plan) {
        *out = call->plan;
        return PARAC_OK;
    }
    conv_setup *s = parac__calloc(1, sizeof *s);
    if (!s) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "convolve: no memory");
    call->plan = s;
    call->plan_free = setup_release;
    const parac_status st = setup_make(call, s);
    *out = s;
    return st;
}

static parac_status convolve_run(parac_op_call *call)
{
    const char *m = call->method->name;
    const int cuda = parac_context_backend(call->ctx) == PARAC_BACKEND_CUDA;
    const int threads = parac_context_threads(call->ctx);
    void *stream = parac_context_stream(call->ctx);
    conv_setup *sp = NULL;
    parac_status st = setup_of(call, &sp);
    if (st != PARAC_OK) return st;
    const conv_setup s = *sp;
    parac_image *packed = NULL;
    parac_image *in = call->inputs[0];
    if (st == PARAC_OK && strcmp(m, "separable") == 0 && s.k2.v)
        st = parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                         "convolve: method separable needs --kernel-x/--kernel-y (a 2D --kernel runs with direct or fft)");
    if (st == PARAC_OK && strcmp(m, "separable") != 0 && !s.k2d)
        st = parac__fail(PARAC_ERR_INVALID_ARGUMENT, "convolve: the kernels are too large for method %s", m);
    if (st == PARAC_OK && !cuda && !parac_image_is_packed(in)) st = parac_image_clone(&packed, in, PARAC_MEMORY_HOST, -1, NULL);
    if (packed) in = packed;
    if (st == PARAC_OK)
        st = parac_image_create(&call->outputs[0], in->width, in->height, in->depth, in->channels, s.out_dtype,
                                cuda ? PARAC_MEMORY_CUDA : PARAC_MEMORY_HOST, cuda ? parac_context_cuda_device(call->ctx) : -1);
    if (st == PARAC_OK) {
        parac_image *out = call->outputs[0];
        parac__fir1d none = {0, NULL};
        if (strcmp(m, "separable") == 0) {
            if (cuda) st = parac__cuda_separable(in, out, s.fir, s.border, stream);
            else st = parac__cpu_separable(in, out, s.fir, s.border, threads);
        } else if (strcmp(m, "fft") == 0) {
            if (cuda) st = parac__cuda_fft2d(in, out, s.k2d, s.rx, s.ry, &none, s.border, stream);
            else st = parac__cpu_fft2d(in, out, s.k2d, s.rx, s.ry, &none, s.border, threads);
        } else {
            if (cuda) st = parac__cuda_direct2d(in, out, s.k2d, s.rx, s.ry, &none, s.border, stream);
            else st = parac__cpu_direct2d(in, out, s.k2d, s.rx, s.ry, &none, s.border, threads);
        }
    }
    parac_image_destroy(packed);
    return st;
}

static parac_status convolve_choose(parac_op_call *call, const char **method, char *why, size_t why_size)
{
    conv_setup *sp = NULL;
    PARAC_TRY(setup_of(call, &sp));
    const conv_setup s = *sp;
    const parac_image *in = call->inputs[0];
    int cuda = parac_context_backend(call->ctx) == PARAC_BACKEND_CUDA;
    if (!s.k2.v) {
        *method = "separable";
        snprintf(why, why_size, "auto: separable kernels (--kernel-x/--kernel-y)");
        return PARAC_OK;
    }
    /* direct costs ~taps per pixel, fft does not depend on the kernel size:
     * compare their measured gauss timings at the Gaussian of the same extent */
    double extent = (double)(2 * s.rx + 1) * (2 * s.ry + 1);
    double sigma = (sqrt(extent) - 1.0) / 8.0;
    double pixels = (double)in->width * in->height * in->depth * in->channels;
    parac_dtype dt = in->dtype == PARAC_U8 ? PARAC_U8 : PARAC_F32;
    double td = parac__gauss_predict_ms(cuda, "direct", dt, pixels, sigma > 0.1 ? sigma : 0.1);
    double tf = parac__gauss_predict_ms(cuda, "fft", dt, pixels, sigma > 0.1 ? sigma : 0.1);
    if (td < 0 || tf < 0) {
        *method = "direct";
        snprintf(why, why_size, "auto: no measured timings for this backend; direct");
    } else {
        *method = td <= tf ? "direct" : "fft";
        snprintf(why, why_size, "auto: %dx%d kernel, predicted direct %.3g ms vs fft %.3g ms (measured timings)",
                 s.k2.w, s.k2.h, td, tf);
    }
    return PARAC_OK;
}

/* The direct and separable filters' rows depend on the kernel's rows about
 * the anchor; a volume's slices are filtered one by one. A wrapped border
 * reaches the far side. */
static parac_status convolve_row_reach(parac_op_call *call, int64_t *reach)
{
    conv_setup *sp = NULL;
    *reach = -1;
    PARAC_TRY(setup_of(call, &sp));
    if (sp->border.mode == PARAC_BORDER_WRAP) return PARAC_OK;
    *reach = call->inputs[0]->depth > 1 ? 0 : sp->ry;
    return PARAC_OK;
}

static parac_status convolve_demo(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    (void)ctx;
    PARAC_TRY(parac_image_create(&inputs[0], 640, 480, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    parac_image *img = inputs[0];
    for (int64_t y = 0; y < img->height; y++)
        for (int64_t x = 0; x < img->width; x++) {
            int on = ((x / 40) + (y / 40)) % 2;
            *(uint8_t *)parac_image_at(img, x, y, 0) = (uint8_t)(on ? 200 : 50);
        }
    /* an edge detector (Laplacian), offset so negative responses stay visible */
    PARAC_TRY(parac_args_set(args, "kernel", "0,1,0;1,-4,1;0,1,0"));
    return parac_args_set(args, "dtype", "f32");
}

static const parac_param_spec convolve_params[] = {
    {"kernel", PARAC_PARAM_STRING, NULL, NULL, 0, 0,
     "2D kernel: a .npy file (float or integer, 1D or 2D), a text file (one row per line, numbers "
     "separated by spaces or commas, '#' comments), or inline rows like \"1,2,1;2,4,2;1,2,1\"; "
     "applied as a correlation with its anchor at (width/2, height/2), not normalised",
     PARAC_FIELD(conv_params, kernel)},
    {"kernel-x", PARAC_PARAM_STRING, NULL, NULL, 0, 0,
     "1D kernel along x (file or inline \"1,2,1\"); with --kernel-y a separable filter",
     PARAC_FIELD(conv_params, kernel_x)},
    {"kernel-y", PARAC_PARAM_STRING, NULL, NULL, 0, 0, "1D kernel along y (file or inline)",
     PARAC_FIELD(conv_params, kernel_y)},
    {"border", PARAC_PARAM_STRING, "reflect101", NULL, 0, 0,
     "pixels outside the image: reflect101, reflect, replicate, constant[:VALUE], wrap",
     PARAC_FIELD(conv_params, border)},
    {"dtype", PARAC_PARAM_CHOICE, NULL, PARAC__FILTER_DTYPES, 0, 0,
     "output dtype (default: the input's); integers are rounded to nearest and saturated",
     PARAC_FIELD(conv_params, dtype)},
};

static const parac_method convolve_methods[] = {
    {"direct", PARAC_BACKEND_CPU, convolve_run, "sum over the full 2D kernel", NULL},
    {"fft", PARAC_BACKEND_CPU, convolve_run, "FFTW with border padding", NULL},
    {"separable", PARAC_BACKEND_CPU, convolve_run, "x then y pass (--kernel-x/--kernel-y)", NULL},
    {"direct", PARAC_BACKEND_CUDA, convolve_run, "tiled shared-memory 2D kernel", convolve_row_reach},
    {"fft", PARAC_BACKEND_CUDA, convolve_run, "cuFFT with border padding", NULL},
    {"separable", PARAC_BACKEND_CUDA, convolve_run, "shared-memory passes", convolve_row_reach},
};

const parac_op parac__op_convolve = {
    .name = "convolve",
    .summary = "filter with a user kernel (2D or separable)",
    .description =
        "Filters each channel (and each slice of a volume) with a given kernel, as "
        "cv2.filter2D / scipy.ndimage.correlate do: out(x,y) = sum k(i,j) in(x+i-w/2, y+j-h/2) "
        "(no flip, no normalisation). The kernel comes from --kernel (2D) or from --kernel-x "
        "and --kernel-y (separable). Borders as for gauss. See docs/gaussian.md.",
    .usage_args = "IN OUT",
    .n_inputs = 1,
    .n_outputs = 1,
    .params = convolve_params,
    .n_params = sizeof convolve_params / sizeof convolve_params[0],
    .params_size = sizeof(conv_params),
    .methods = convolve_methods,
    .n_methods = sizeof convolve_methods / sizeof convolve_methods[0],
    .choose = convolve_choose,
    .demo = convolve_demo,
};
