/* Fault injection for tests of generated code: the n-th checked runtime call
 * from now fails, so a test can make every step of a pipeline fail in turn
 * and check that the step's caller cleans up and reports it. */
#include <stdatomic.h>

#include "core/error_internal.h"
#include "opencl/runtime_internal.h"

static _Atomic long countdown; /* 0: off */

void parac_cl_fail_after(long n) { atomic_store(&countdown, n > 0 ? n : 0); }

parac_status parac__cl_injected(const char *what)
{
    long left = atomic_load(&countdown);
    while (left > 0) {
        if (atomic_compare_exchange_weak(&countdown, &left, left - 1)) {
            if (left == 1) return parac__fail(PARAC_ERR_OPENCL, "%s: injected failure (parac_cl_fail_after)", what);
            return PARAC_OK;
        }
    }
    return PARAC_OK;
}
