/* The runtime for generated CUDA code in a build without CUDA: every entry
 * point says so. */
#include "core/error_internal.h"
#include "parac/cuda.h"
#include "runtime/common/runtime_core.h"

static parac_status no_cuda(void)
{
    return parac__fail(PARAC_ERR_UNSUPPORTED, "this build of parac has no CUDA runtime (built without nvcc)");
}

struct parac_cu_session {
    parac__rt_session rt; /* never made */
};

#define PARAC__API(name) parac_cu_##name
#define PARAC__SESSION parac_cu_session
#define PARAC__PRESENT 0
#define PARAC__BACKEND ((const parac__rt_backend *)0)
#define PARAC__MISSING() no_cuda()
#include "runtime/common/public_api.h"

parac_status parac_cu_session_open(parac_cu_session **s, const char *name, const char *source, const char *selector)
{
    (void)name, (void)source, (void)selector;
    if (s) *s = 0;
    return no_cuda();
}
void parac_cu_session_close(parac_cu_session *s) { (void)s; }
parac_status parac_cu_reduce(parac_cu_session *s, const char *kernel, parac_cu_matrix *m, size_t acc_size,
                             void *result)
{
    (void)s, (void)kernel, (void)m, (void)acc_size, (void)result;
    return no_cuda();
}
parac_status parac_cu_fold_slot(parac_cu_session *s, int id, void **slot)
{
    (void)s, (void)id, (void)slot;
    return no_cuda();
}
parac_status parac_cu_fold_result(parac_cu_session *s, int id, size_t acc_size, void *result)
{
    (void)s, (void)id, (void)acc_size, (void)result;
    return no_cuda();
}
