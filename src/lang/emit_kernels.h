/* The kernel back end's files (emit_device_kernels in emit_kernels.c is the
 * entry point): the dialect and what they ask of each other. */
#ifndef PARAC_LANG_EMIT_KERNELS_H
#define PARAC_LANG_EMIT_KERNELS_H

#include "lang/lang.h"

typedef struct Dialect {
    bool cuda;
    const char *kernel;     /* qualifiers before a kernel's name */
    const char *global;     /* address space of a matrix pointer */
    const char *restrict_kw;
} Dialect;

static const Dialect opencl_dialect = {false, "__kernel void", "__global ", "restrict "};
static const Dialect cuda_dialect = {true, "extern \"C\" __global__ void", "", "__restrict__ "};
/* The dialect p prints: CUDA C++ or OpenCL C. */
static inline const Dialect *dialect(const PrintCtx *p) { return p->cuda ? &cuda_dialect : &opencl_dialect; }

/* emit_kernels.c */
void kernel_params(PrintCtx *p, Region *r, bool restrict_ptrs, int mode); /* a kernel's parameter list */
void kernel_fold_open(PrintCtx *p, Region *r);  /* a folded reduction's accumulator */
void kernel_fold_close(PrintCtx *p, Region *r); /* and its sum into the slot */
const char *kernel_global_id(const PrintCtx *p, int g); /* along work-item dimension g (0: x) */
const char *kernel_group_id(const PrintCtx *p, int g);
const char *kernel_local_id(const PrintCtx *p, int g);
const char *kernel_local_size(const PrintCtx *p, int g);
void kernel_consts(PrintCtx *p, Region *r);     /* the constant small matrices the region uses */
/* emit_kernels_staged.c */
void kernel_staged(PrintCtx *p, Region *r, const char *src, bool restrict_ptrs);
/* emit_kernels_hist.c */
void kernel_histograms(PrintCtx *p, Region *r, const char *src, bool restrict_ptrs);

#endif
