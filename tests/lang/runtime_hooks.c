/* The device runtime's test hooks under one set of names, so that a
 * self-checking ParaC program (fail_status.pc) runs through either device
 * target: built with PARAC_CHECK_CUDA for the CUDA target's code, else for
 * the OpenCL target's (also linked with the C target's, where nothing runs
 * on a device). */
#include "parac/cuda.h"
#include "parac/opencl.h"

void hook_fail_after(long n);
long long hook_device_moves(void);
int hook_runtime_error(void);
void hook_search_counts(long *searched, long *reused);

#ifdef PARAC_CHECK_CUDA
void hook_fail_after(long n) { parac_cu_fail_after(n); }
long long hook_device_moves(void)
{
    parac_cu_transfers t;
    parac_cu_transfer_counts(&t);
    return t.uploads + t.fills;
}
int hook_runtime_error(void) { return PARAC_ERR_CUDA; }
void hook_search_counts(long *searched, long *reused) { parac_cu_search_counts(searched, reused); }
#else
void hook_fail_after(long n) { parac_cl_fail_after(n); }
long long hook_device_moves(void)
{
    parac_cl_transfers t;
    parac_cl_transfer_counts(&t);
    return t.uploads + t.fills;
}
int hook_runtime_error(void) { return PARAC_ERR_OPENCL; }
void hook_search_counts(long *searched, long *reused) { parac_cl_search_counts(searched, reused); }
#endif
