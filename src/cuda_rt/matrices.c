/* Matrices of generated programs on a CUDA device: buffers with rows padded
 * to 64 bytes, and transfers only when the other side holds the newer copy. */
#include <stdlib.h>
#include <string.h>

#include "core/device_runtime.h"
#include "core/error_internal.h"
#include "cuda_rt/runtime_internal.h"

static size_t rows_of(const parac_cu_matrix *m) { return parac__matrix_rows(m->ndim, m->dims); }
static size_t cols_of(const parac_cu_matrix *m) { return parac__matrix_cols(m->ndim, m->dims); }
static size_t device_bytes(const parac_cu_matrix *m) { return m->device_pitch * (rows_of(m) ? rows_of(m) : 1); }

parac_status parac_cu_matrix_bind(parac_cu_session *s, parac_cu_matrix *m, void *host, size_t elem_size, int ndim,
                                  long d0, long d1, long d2, size_t host_pitch)
{
    if (!m || !s) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "parac_cu_matrix_bind: NULL argument");
    memset(m, 0, sizeof *m);
    PARAC_TRY(parac__cu_injected("parac_cu_matrix_bind"));
    PARAC_TRY(parac__matrix_geometry(ndim, d0, d1, d2, elem_size, host_pitch, &m->device_pitch));
    m->session = s;
    m->host = host;
    m->elem_size = elem_size;
    m->ndim = ndim;
    m->dims[0] = d0;
    m->dims[1] = d1;
    m->dims[2] = d2;
    m->host_pitch = host_pitch;
    m->state = PARAC_CU_HOST_NEWER;
    return PARAC_OK;
}

/* A spare buffer of exactly `bytes`, taken from the session's list, or NULL:
 * the last released first. A function releases its matrices in the reverse
 * order of their declaration, so a pipeline called again gives each matrix
 * the buffer it had (swapping an input's and an output's buffers between
 * calls cost the unsharp mask 8 % of its kernel time at 1536x2560) */
static void *take_spare(parac_cu_session *s, size_t bytes)
{
    for (int i = s->nspare - 1; i >= 0; i--)
        if (s->spare[i].bytes == bytes) {
            void *p = s->spare[i].ptr;
            s->spare_bytes -= bytes;
            memmove(s->spare + i, s->spare + i + 1, sizeof s->spare[0] * (size_t)(s->nspare - i - 1));
            s->nspare--;
            return p;
        }
    return NULL;
}

void parac__cu_free_spares(parac_cu_session *s)
{
    for (int i = 0; i < s->nspare; i++) cudaFree(s->spare[i].ptr); /* waits for the kernels that used them */
    s->nspare = 0;
    s->spare_bytes = 0;
}

static parac_status ensure_buffer(parac_cu_matrix *m)
{
    if (m->buffer) return PARAC_OK;
    PARAC_TRY(parac__cu_use(m->session));
    /* a released buffer of the same size: the stream orders its earlier
     * kernels before this matrix's */
    void *b = take_spare(m->session, device_bytes(m));
    cudaError_t e = b ? cudaSuccess : cudaMalloc(&b, device_bytes(m));
    if (e == cudaErrorMemoryAllocation && m->session->nspare) { /* the spares may hold what is missing */
        cudaGetLastError();
        parac__cu_free_spares(m->session);
        e = cudaMalloc(&b, device_bytes(m));
    }
    if (e != cudaSuccess) {
        cudaGetLastError(); /* an allocation failure is not sticky: clear it */
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "cudaMalloc of %zu bytes failed (%s)", device_bytes(m),
                           cudaGetErrorString(e));
    }
    m->buffer = b;
    /* the padding at the end of each row: kernels load whole aligned vectors
     * there (their lanes past the row feed no output), so it holds zeros
     * rather than whatever the allocation held */
    const size_t row = cols_of(m) * m->elem_size, rows = rows_of(m) ? rows_of(m) : 1;
    if (m->device_pitch > row)
        PARAC_CU_TRY(cudaMemset2DAsync((char *)b + row, m->device_pitch, 0, m->device_pitch - row, rows,
                                       m->session->stream),
                     "clearing the rows' padding");
    return PARAC_OK;
}

static parac__transfer_tally tally;

void parac_cu_transfer_counts(parac_cu_transfers *out)
{
    long long v[5];
    parac__tally_read(&tally, v);
    out->uploads = v[0];
    out->downloads = v[1];
    out->fills = v[2];
    out->upload_bytes = v[3];
    out->download_bytes = v[4];
}

/* One rectangular copy between the two pitches, finished before returning
 * (the host code reads or frees its storage next). */
static parac_status copy_rect(parac_cu_matrix *m, int to_device)
{
    size_t rows = rows_of(m), width = cols_of(m) * m->elem_size;
    if (rows == 0 || width == 0) return PARAC_OK;
    if (!m->host) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "matrix without host storage");
    parac_cu_session *s = m->session;
    cudaError_t e = to_device ? cudaMemcpy2DAsync(m->buffer, m->device_pitch, m->host, m->host_pitch, width, rows,
                                                  cudaMemcpyHostToDevice, s->stream)
                              : cudaMemcpy2DAsync(m->host, m->host_pitch, m->buffer, m->device_pitch, width, rows,
                                                  cudaMemcpyDeviceToHost, s->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s->stream);
    if (e != cudaSuccess)
        return parac__fail(PARAC_ERR_CUDA, "%s of a %zux%zu-byte matrix failed (%s)", to_device ? "upload" : "download",
                           rows, width, cudaGetErrorString(e));
    parac__tally_copy(&tally, to_device, (long long)(rows * width));
    return PARAC_OK;
}

parac_status parac_cu_to_device(parac_cu_matrix *m)
{
    PARAC_TRY(parac__cu_injected("parac_cu_to_device"));
    PARAC_TRY(ensure_buffer(m));
    if (m->state == PARAC_CU_ZEROS) {
        PARAC_CU_TRY(cudaMemsetAsync(m->buffer, 0, device_bytes(m), m->session->stream), "filling a matrix with zeros");
        parac__tally_fill(&tally);
        m->state = PARAC_CU_SAME;
        return PARAC_OK;
    }
    if (m->state != PARAC_CU_HOST_NEWER) return PARAC_OK;
    PARAC_TRY(copy_rect(m, 1));
    m->state = PARAC_CU_SAME;
    return PARAC_OK;
}

parac_status parac_cu_to_host(parac_cu_matrix *m)
{
    PARAC_TRY(parac__cu_injected("parac_cu_to_host"));
    if (m->state != PARAC_CU_DEVICE_NEWER) return PARAC_OK;
    PARAC_TRY(parac__cu_use(m->session));
    PARAC_TRY(copy_rect(m, 0));
    m->state = PARAC_CU_SAME;
    return PARAC_OK;
}

void parac_cu_host_modified(parac_cu_matrix *m) { m->state = PARAC_CU_HOST_NEWER; }
void parac_cu_device_modified(parac_cu_matrix *m) { m->state = PARAC_CU_DEVICE_NEWER; }

void parac_cu_matrix_overwritten(parac_cu_matrix *m)
{
    if (m->state == PARAC_CU_HOST_NEWER || m->state == PARAC_CU_ZEROS) m->state = PARAC_CU_SAME;
}

void parac_cu_matrix_zeroed(parac_cu_matrix *m)
{
    if (m->state == PARAC_CU_HOST_NEWER && !m->buffer) m->state = PARAC_CU_ZEROS;
}

void parac_cu_matrix_release(parac_cu_matrix *m)
{
    if (!m) return;
    if (m->buffer) {
        parac_cu_session *s = m->session;
        const size_t bytes = device_bytes(m);
        if (s && s->keep_spares && s->nspare < PARAC__SPARE_BUFFERS && s->spare_bytes + bytes <= PARAC__SPARE_BYTES) {
            /* kept for the next matrix of this size; kernels still queued may use it, and the
             * stream runs them before any later use */
            s->spare[s->nspare].ptr = m->buffer;
            s->spare[s->nspare++].bytes = bytes;
            s->spare_bytes += bytes;
        } else {
            /* kernels still queued may use the buffer: cudaFree waits for the device */
            if (s) cudaSetDevice(s->device);
            cudaFree(m->buffer);
        }
    }
    m->buffer = NULL;
    m->state = PARAC_CU_HOST_NEWER;
}
