/* Coefficients of the recursive Gaussian filters (forms: iir_coefs.h). */
#include <math.h>
#include <string.h>

#include "../core/error_internal.h"
#include "iir_coefs.h"

static parac_status check_sigma(double sigma, parac__iir1d *f, const char *name)
{
    memset(f, 0, sizeof *f);
    f->sigma = sigma;
    if (!(sigma >= 0.0) || !isfinite(sigma))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: sigma must be a finite number >= 0, got %g",
                           name, sigma);
    return PARAC_OK;
}

/* Smallest extension after which the tail of an impulse response holds less
 * than 1e-7 of its total mass (h computed in double, n samples). */
static int tail_pad(const double *h, int n)
{
    double total = 0.0, tail = 0.0;
    for (int i = 0; i < n; i++) total += fabs(h[i]);
    for (int i = n - 1; i > 0; i--) {
        tail += fabs(h[i]);
        if (tail > 1e-7 * total) return i + 1;
    }
    return 1;
}

enum { IMPULSE_MAX = 1 << 16 };

/* Causal impulse response of the parallel form, summed over sections. */
static int parallel_pad(const parac__iir1d *f)
{
    int n = (int)(40.0 * f->sigma) + 64;
    if (n > IMPULSE_MAX) n = IMPULSE_MAX;
    static _Thread_local double h[IMPULSE_MAX];
    memset(h, 0, sizeof(double) * (size_t)n);
    for (int s = 0; s < f->n_sections; s++) {
        const parac__iir_section *q = &f->sec[s];
        double y1 = 0, y2 = 0;
        for (int i = 0; i < n; i++) {
            double x0 = i == 0, x1 = i == 1;
            double y = q->b0 * x0 + q->b1 * x1 - q->a1 * y1 - q->a2 * y2;
            h[i] += y;
            y2 = y1;
            y1 = y;
        }
    }
    return tail_pad(h, n);
}

/* Renormalise the rounded sections so that the DC gain is exactly 1. */
static void parallel_normalise(parac__iir1d *f)
{
    double dc = 0.0;
    for (int s = 0; s < f->n_sections; s++) {
        const parac__iir_section *q = &f->sec[s];
        dc += ((double)q->b0 + q->b1 + q->c1 + q->c2) / (1.0 + q->a1 + q->a2);
    }
    for (int s = 0; s < f->n_sections; s++) {
        parac__iir_section *q = &f->sec[s];
        q->b0 = (float)(q->b0 / dc);
        q->b1 = (float)(q->b1 / dc);
        q->c1 = (float)(q->c1 / dc);
        q->c2 = (float)(q->c2 / dc);
    }
}

/* One causal 2nd-order section from h[n] = (A cos(w n) + C sin(w n)) e^{-b n}
 * (n >= 0, scaled by `scale`), and its anticausal mirror h[-n], n >= 1. */
static void deriche_section(parac__iir_section *q, double A, double C, double b, double w,
                            double scale)
{
    double e = exp(-b), cw = cos(w), sw = sin(w);
    double a1 = -2.0 * e * cw, a2 = e * e;
    double b0 = A * scale;
    double b1 = e * (C * sw - A * cw) * scale;
    q->a1 = (float)a1;
    q->a2 = (float)a2;
    q->b0 = (float)b0;
    q->b1 = (float)b1;
    q->c1 = (float)(b1 - a1 * b0);
    q->c2 = (float)(-a2 * b0);
}

/* Deriche 1993, 4th order (INRIA RR-1893 constants). */
parac_status parac__iir_deriche4(double sigma, parac__iir1d *f)
{
    PARAC_TRY(check_sigma(sigma, f, "recursive"));
    if (sigma == 0.0) return PARAC_OK;
    const double scale = 1.0 / (sqrt(2.0 * 3.14159265358979323846) * sigma);
    f->form = PARAC__IIR_PARALLEL;
    f->n_sections = 2;
    deriche_section(&f->sec[0], 1.68, 3.735, 1.783 / sigma, 0.6318 / sigma, scale);
    deriche_section(&f->sec[1], -0.6803, -0.2598, 1.723 / sigma, 1.997 / sigma, scale);
    parallel_normalise(f);
    f->pad = parallel_pad(f);
    return PARAC_OK;
}

/* The 2nd-order filter of NVIDIA's recursiveGaussian sample (Deriche 1990
 * smoothing operator, alpha = 1.695 / sigma), coefficients as the sample. */
parac_status parac__iir_deriche2(double sigma, parac__iir1d *f)
{
    PARAC_TRY(check_sigma(sigma, f, "deriche2"));
    if (sigma == 0.0) return PARAC_OK;
    double alpha = 1.695 / sigma, ema = exp(-alpha), ema2 = exp(-2.0 * alpha);
    double k = (1.0 - ema) * (1.0 - ema) / (1.0 + 2.0 * alpha * ema - ema2);
    parac__iir_section *q = &f->sec[0];
    f->form = PARAC__IIR_PARALLEL;
    f->n_sections = 1;
    q->b0 = (float)k;
    q->b1 = (float)(k * (alpha - 1.0) * ema);
    q->c1 = (float)(k * (alpha + 1.0) * ema);
    q->c2 = (float)(-k * ema2);
    q->a1 = (float)(-2.0 * ema);
    q->a2 = (float)ema2;
    parallel_normalise(f);
    f->pad = parallel_pad(f);
    return PARAC_OK;
}

/* Triggs & Sdika 2006: the backward-pass start for a line that continues
 * with its last value, for w[i] = x[i] + a1 w[i-1] + a2 w[i-2] + a3 w[i-3]. */
static void triggs_matrix(double a1, double a2, double a3, float M[9])
{
    double d = (1.0 + a1 - a2 + a3) * (1.0 - a1 - a2 - a3) * (1.0 + a2 + (a1 - a3) * a3);
    double m[9] = {
        -a3 * a1 + 1.0 - a3 * a3 - a2,
        (a3 + a1) * (a2 + a3 * a1),
        a3 * (a1 + a3 * a2),
        a1 + a3 * a2,
        -(a2 - 1.0) * (a2 + a3 * a1),
        -a3 * (a3 * a1 + a3 * a3 + a2 - 1.0),
        a3 * a1 + a2 + a1 * a1 - a2 * a2,
        a1 * a2 + a3 * a2 * a2 - a1 * a3 * a3 - a3 * a3 * a3 - a3 * a2 + a3,
        a3 * (a1 + a3 * a2),
    };
    for (int i = 0; i < 9; i++) M[i] = (float)(m[i] / d);
}

/* Young, van Vliet, van Ginkel 2002 (IEEE TSP 50:2799), 3rd order. */
parac_status parac__iir_yvv(double sigma, parac__iir1d *f)
{
    PARAC_TRY(check_sigma(sigma, f, "yvv"));
    if (sigma == 0.0) return PARAC_OK;
    const double m0 = 1.16680, m1 = 1.10783, m2 = 1.40586;
    double q = sigma < 3.556 ? -0.2568 + 0.5784 * sigma + 0.0561 * sigma * sigma
                             : 2.5091 + 0.9804 * (sigma - 3.556);
    double scale = (m0 + q) * (m1 * m1 + m2 * m2 + 2.0 * m1 * q + q * q);
    double b1 = q * (2.0 * m0 * m1 + m1 * m1 + m2 * m2 + (2.0 * m0 + 4.0 * m1) * q + 3.0 * q * q) / scale;
    double b2 = -q * q * (m0 + 2.0 * m1 + 3.0 * q) / scale;
    double b3 = q * q * q / scale;
    f->form = PARAC__IIR_CASCADE3;
    f->b[0] = (float)b1;
    f->b[1] = (float)b2;
    f->b[2] = (float)b3;
    /* DC gain exactly 1 with the rounded feedback coefficients. */
    f->B = (float)(1.0 - ((double)f->b[0] + f->b[1] + f->b[2]));
    triggs_matrix(f->b[0], f->b[1], f->b[2], f->M);
    int n = (int)(40.0 * sigma) + 64;
    if (n > IMPULSE_MAX) n = IMPULSE_MAX;
    static _Thread_local double h[IMPULSE_MAX];
    double w1 = 0, w2 = 0, w3 = 0;
    for (int i = 0; i < n; i++) {
        double w = f->B * (i == 0) + f->b[0] * w1 + f->b[1] * w2 + f->b[2] * w3;
        h[i] = w;
        w3 = w2;
        w2 = w1;
        w1 = w;
    }
    f->pad = tail_pad(h, n);
    return PARAC_OK;
}
