/* A choice between ways of fusing some iterators of a ParaC program
 * (paracc's fusion checked by the search): alternative 0 is the fused
 * region the model chose, the others the same statements fused with less or
 * not at all. Generated code runs
 *
 *     parac_fusion_choice c;
 *     PARAC__CHECK(parac_cu_fusion_begin(session, "NAME", ALTS, NSIZES, SIZES, &c));
 *     while (parac_cu_fusion_next(session, &c)) { run alternative c.alt }
 *     PARAC__CHECK(c.status);
 *
 * (parac_cl_* on OpenCL). Without the search the loop runs alternative 0
 * once, or the one PARAC_CU_FUSION / PARAC_CL_FUSION=k names (k past the
 * last: the last, the unfused one). With the search (PARAC_CU_SEARCH /
 * PARAC_CL_SEARCH=1) the first run for a program, device and sizes runs
 * every alternative once to warm up and three more times, each timed by the
 * host clock from an idle device to an idle device (launches included: an
 * alternative of more kernels pays for them), and keeps the fastest in the
 * session and on disk, as the work-group search keeps its shapes; the last
 * run is the chosen alternative's. Only for statements that give the same
 * result however often they run. */
#ifndef PARAC_FUSION_CHOICE_H
#define PARAC_FUSION_CHOICE_H

#include <stdint.h>

#include "parac/status.h"

enum { PARAC_FUSION_MAX_ALTS = 8 };

typedef struct parac_fusion_choice {
    int alt;                 /* the alternative to run now */
    parac_status status;     /* PARAC_OK, or why the device could not be waited for */
    /* the runtime's */
    const char *name;
    uint64_t key;
    int nalts, timing, step;
    double start, best[PARAC_FUSION_MAX_ALTS];
} parac_fusion_choice;

#endif
