/* The slots of folded reductions (paracc -ffold-reductions): a kernel that
 * writes a matrix whole adds up what it stores into its slot, and the last
 * of its blocks leaves the total there and the running words clear. */
#include <string.h>

#include "core/error_internal.h"
#include "runtime/cuda/runtime_internal.h"

enum { WORDS = 4 };

parac_status parac_cu_fold_slot(parac_cu_session *s, int id, void **slot)
{
    if (!s || !slot) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "parac_cu_fold_slot: NULL argument");
    if (id < 0 || id >= PARAC_CU_FOLD_SLOTS)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "parac_cu_fold_slot: slot %d outside 0..%d", id,
                           PARAC_CU_FOLD_SLOTS - 1);
    PARAC_TRY(parac__cu_injected("parac_cu_fold_slot"));
    PARAC_TRY(parac__cu_use(s));
    if (!s->fold_slots) {
        const size_t bytes = sizeof *s->fold_slots * WORDS * PARAC_CU_FOLD_SLOTS;
        void *b = NULL;
        cudaError_t e = cudaMalloc(&b, bytes);
        if (e != cudaSuccess) {
            cudaGetLastError();
            return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "cudaMalloc of the folded reductions' %zu bytes failed (%s)",
                               bytes, cudaGetErrorString(e));
        }
        e = cudaMemsetAsync(b, 0, bytes, s->stream);
        if (e != cudaSuccess) {
            cudaFree(b);
            return parac__cu_check(e, "clearing the folded reductions' slots");
        }
        s->fold_slots = b;
    }
    *slot = s->fold_slots + (size_t)id * WORDS;
    return PARAC_OK;
}

parac_status parac_cu_fold_result(parac_cu_session *s, int id, size_t acc_size, void *result)
{
    if (!result || acc_size == 0 || acc_size > sizeof(unsigned long long))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "parac_cu_fold_result: result of %zu bytes", acc_size);
    void *slot;
    PARAC_TRY(parac_cu_fold_slot(s, id, &slot));
    unsigned long long w[3];
    cudaError_t e = cudaMemcpyAsync(w, slot, sizeof w, cudaMemcpyDeviceToHost, s->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s->stream);
    PARAC_TRY(parac__cu_check(e, "reading a folded reduction"));
    if (w[0] || w[1]) {
        /* a launch stopped part way: clear the slot for the next one */
        e = cudaMemsetAsync(slot, 0, sizeof(unsigned long long) * WORDS, s->stream);
        if (e != cudaSuccess) cudaGetLastError();
        return parac__fail(PARAC_ERR_CUDA, "folded reduction %d: its launch did not finish (%llu blocks counted)", id,
                           w[1]);
    }
    memcpy(result, &w[2], acc_size); /* little-endian: the low bytes hold a narrower total */
    return PARAC_OK;
}
