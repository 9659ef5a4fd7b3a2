/* Recursive (IIR) Gaussian filters: coefficients and the boundary rules,
 * shared by the CPU methods (iir_cpu.c) and the CUDA ones (cuda/). Included
 * from C and from CUDA.
 *
 * Two forms cover the three methods:
 *
 *  PARAC__IIR_PARALLEL ("recursive": Deriche 4th order as 2 second-order
 *  sections; "deriche2": the 2nd-order filter of NVIDIA's recursiveGaussian
 *  sample as 1 section). For every section s, along a line x[0..n-1]:
 *      causal      p[i] = b0 x[i] + b1 x[i-1] - a1 p[i-1] - a2 p[i-2]
 *      anticausal  m[i] = c1 x[i+1] + c2 x[i+2] - a1 m[i+1] - a2 m[i+2]
 *  and the output is the sum over sections of p[i] + m[i]. Sections are run
 *  separately (never multiplied out into one 4th-order polynomial), which is
 *  what keeps the filter stable in float32 up to sigma = 200.
 *
 *  PARAC__IIR_CASCADE3 ("yvv": Young, van Vliet, van Ginkel 2002, 3rd order):
 *      forward   w[i] = B x[i] + b[0] w[i-1] + b[1] w[i-2] + b[2] w[i-3]
 *      backward  y[i] = B w[i] + b[0] y[i+1] + b[1] y[i+2] + b[2] y[i+3]
 *
 * Coefficients are computed in double, rounded to float, and the DC gain of
 * the rounded filter is renormalised to exactly 1 (in double), so a constant
 * image stays constant.
 *
 * Borders (every backend does the same): a line is extended on both sides by
 * `pad` samples formed by the border rule (parac__border_index), only for
 * reflect101, reflect and wrap; beyond the extension the line is taken to
 * continue with its end sample (for constant: with the constant value, and
 * no extension is needed, pad = 0). The passes start in the exact state for
 * that constant continuation:
 *   - causal / forward: steady state of the first (extended) sample v,
 *       parallel: p = v (b0+b1)/(1+a1+a2), forward: w = v;
 *   - anticausal: steady state of the last sample v: m = v (c1+c2)/(1+a1+a2);
 *   - backward (cascade): Triggs & Sdika 2006 (parac__iir_yvv_backward_init).
 * So replicate and constant are exact, and the other modes differ from an
 * infinite extension by less than ~1e-7 of the data range (pad is chosen
 * from the slowest pole). Intermediate values are float32. */
#ifndef PARAC_IIR_COEFS_H
#define PARAC_IIR_COEFS_H

#include "parac/status.h"

#include "../core/host_device.h"

#ifdef __cplusplus
extern "C" {
#endif

enum parac__iir_form {
    PARAC__IIR_NONE = 0,   /* axis not filtered (sigma 0) */
    PARAC__IIR_PARALLEL,   /* sum of causal + anticausal 2nd-order sections */
    PARAC__IIR_CASCADE3    /* 3rd-order forward pass then backward pass */
};

typedef struct parac__iir_section {
    float b0, b1; /* causal numerator */
    float c1, c2; /* anticausal numerator */
    float a1, a2; /* shared denominator 1 + a1 z^-1 + a2 z^-2 */
} parac__iir_section;

typedef struct parac__iir1d {
    int form;          /* enum parac__iir_form */
    int n_sections;    /* PARALLEL: 1 or 2 */
    parac__iir_section sec[2];
    float B, b[3];     /* CASCADE3 */
    float M[9];        /* CASCADE3: Triggs-Sdika matrix, row-major */
    int pad;           /* extension per side for reflect101/reflect/wrap */
    double sigma;
} parac__iir1d;

/* Coefficients for one axis; sigma 0 gives PARAC__IIR_NONE. Errors for
 * sigma < 0 or not finite. */
parac_status parac__iir_deriche4(double sigma, parac__iir1d *f);
parac_status parac__iir_deriche2(double sigma, parac__iir1d *f);
parac_status parac__iir_yvv(double sigma, parac__iir1d *f);

/* Steady states of a section for a constant input v. */
PARAC_HD float parac__iir_causal_steady(const parac__iir_section *s, float v)
{
    return v * (s->b0 + s->b1) / (1.0f + s->a1 + s->a2);
}
PARAC_HD float parac__iir_anticausal_steady(const parac__iir_section *s, float v)
{
    return v * (s->c1 + s->c2) / (1.0f + s->a1 + s->a2);
}

/* Backward-pass start of the cascade (Triggs & Sdika): given the last three
 * forward outputs w[n-1], w[n-2], w[n-3] and the last input sample v (the
 * line continues with v), writes y[n-1], y[n], y[n+1]; the backward pass then
 * runs from i = n-2 down to 0 using these. */
PARAC_HD void parac__iir_yvv_backward_init(const parac__iir1d *f, float w1, float w2, float w3,
                                           float v, float y[3])
{
    float d1 = w1 - v, d2 = w2 - v, d3 = w3 - v;
    for (int r = 0; r < 3; r++)
        y[r] = f->B * (f->M[3 * r] * d1 + f->M[3 * r + 1] * d2 + f->M[3 * r + 2] * d3) + v;
}

#ifdef __cplusplus
}
#endif

#endif
