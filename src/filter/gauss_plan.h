/* The parameters of one gauss call, resolved: per-axis sigma and kernels,
 * border, output dtype (shared by the gauss methods and the chooser). */
#ifndef PARAC_GAUSS_PLAN_H
#define PARAC_GAUSS_PLAN_H

#include "filter_internal.h"
#include "parac/op.h"

/* The parameters of gauss as the registry decodes them. */
typedef struct parac__gauss_params {
    double sigma, sigma_y, sigma_z; /* sigma_y, sigma_z: unset = sigma */
    double truncate;
    int radius;                     /* unset: from truncate */
    const char *border;
    int dtype;                      /* position in PARAC__FILTER_DTYPES; unset: the input's */
    double tolerance;
} parac__gauss_params;

/* The output dtypes of the filters, as a choice parameter lists them. */
#define PARAC__FILTER_DTYPES "u8|u16|f32"
extern const parac_dtype parac__filter_dtypes[3];

typedef struct parac__gauss_plan {
    double sigma[3];      /* x, y, z; 0 = axis not filtered (z: 0 for 2D images) */
    int radius[3];
    float *taps[3];       /* 2*radius+1 each (NULL when radius 0) */
    parac__fir1d fir[3];
    parac__border_rule border;
    parac_dtype out_dtype;
    double tolerance;
} parac__gauss_plan;

/* Reads and checks the call's parameters and builds the kernels. */
parac_status parac__gauss_plan_make(const parac_op_call *call, parac__gauss_plan *p);
/* The same without the kernels (taps NULL): sigma, radius, border, dtypes. */
parac_status parac__gauss_plan_params(const parac_op_call *call, parac__gauss_plan *p);
void parac__gauss_plan_free(parac__gauss_plan *p);

/* The "auto" method of gauss (gauss_choose.c). */
parac_status parac__gauss_choose(parac_op_call *call, const char **method, char *why, size_t why_size);

/* Worst-case error (fraction of the data range) of an IIR method against the
 * FIR result for one axis of the given sigma; < 0 for FIR methods. */
double parac__gauss_iir_error(const char *method, double sigma);

/* Time predicted from the measured timings (gauss_crossover.h) for a square
 * gauss filter of the given sigma on `pixels` values; < 0 if not measured. */
double parac__gauss_predict_ms(int cuda, const char *method, parac_dtype dtype, double pixels,
                               double sigma);

#endif
