/* Fault injection for tests of generated code: the n-th checked runtime call
 * from now fails, so a test can make every step of a pipeline fail in turn
 * and check that the step's caller cleans up and reports it. */
#include "core/device_runtime.h"
#include "core/error_internal.h"
#include "opencl/runtime_internal.h"

void parac_cl_fail_after(long n) { parac__countdown_set(n); }

parac_status parac__cl_injected(const char *what)
{
    if (parac__countdown_hit())
        return parac__fail(PARAC_ERR_OPENCL, "%s: injected failure (parac_cl_fail_after)", what);
    return PARAC_OK;
}
