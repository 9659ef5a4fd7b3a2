/* Device memory of the CUDA backend: buffers made and freed, filled, and
 * copied by rows to and from the host on the session's stream. */
#include "core/error_internal.h"
#include "runtime/cuda/runtime_internal.h"

static parac_cu_session *cu(parac__rt_session *s) { return (parac_cu_session *)s; }

parac_status parac__cu_alloc(parac__rt_session *s, size_t bytes, void **buffer)
{
    (void)s;
    const cudaError_t e = cudaMalloc(buffer, bytes);
    if (e == cudaSuccess) return PARAC_OK;
    cudaGetLastError(); /* an allocation failure is not sticky: clear it */
    *buffer = NULL;
    return parac__fail(e == cudaErrorMemoryAllocation ? PARAC_ERR_OUT_OF_MEMORY : PARAC_ERR_CUDA,
                       "cudaMalloc of %zu bytes failed (%s)", bytes, cudaGetErrorString(e));
}

void parac__cu_free(parac__rt_session *s, void *buffer)
{
    /* kernels still queued may use the buffer: cudaFree waits for the device */
    cudaSetDevice(cu(s)->device);
    cudaFree(buffer);
}

parac_status parac__cu_clear_padding(parac__rt_session *s, void *buffer, size_t pitch, size_t row_bytes, size_t rows)
{
    PARAC_CU_TRY(cudaMemset2DAsync((char *)buffer + row_bytes, pitch, 0, pitch - row_bytes, rows, cu(s)->stream),
                 "clearing the rows' padding");
    return PARAC_OK;
}

parac_status parac__cu_fill_zeros(parac__rt_session *s, void *buffer, size_t bytes)
{
    PARAC_CU_TRY(cudaMemsetAsync(buffer, 0, bytes, cu(s)->stream), "filling a matrix with zeros");
    return PARAC_OK;
}

/* Finished before returning: the host code reads or frees its storage next. */
parac_status parac__cu_copy_rows(parac__rt_session *s, void *buffer, size_t device_pitch, void *host,
                                 size_t host_pitch, size_t width, size_t rows, int to_device)
{
    cudaStream_t stream = cu(s)->stream;
    cudaError_t e = to_device ? cudaMemcpy2DAsync(buffer, device_pitch, host, host_pitch, width, rows,
                                                  cudaMemcpyHostToDevice, stream)
                              : cudaMemcpy2DAsync(host, host_pitch, buffer, device_pitch, width, rows,
                                                  cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess)
        return parac__fail(PARAC_ERR_CUDA, "%s of a %zux%zu-byte matrix failed (%s)", to_device ? "upload" : "download",
                           rows, width, cudaGetErrorString(e));
    return PARAC_OK;
}

parac_status parac__cu_wait(parac__rt_session *s)
{
    return parac__cu_check(cudaStreamSynchronize(cu(s)->stream), "fusion choice: cudaStreamSynchronize");
}
