/* Matrices of generated programs on an OpenCL device: padded buffers and
 * transfers only when the other side holds the newer copy. */
#include <stdlib.h>
#include <string.h>

#include "core/device_runtime.h"
#include "core/error_internal.h"
#include "opencl/runtime_internal.h"

static size_t rows_of(const parac_cl_matrix *m) { return parac__matrix_rows(m->ndim, m->dims); }
static size_t cols_of(const parac_cl_matrix *m) { return parac__matrix_cols(m->ndim, m->dims); }

parac_status parac_cl_matrix_bind(parac_cl_session *s, parac_cl_matrix *m, void *host, size_t elem_size,
                                  int ndim, long d0, long d1, long d2, size_t host_pitch)
{
    if (!m || !s) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "parac_cl_matrix_bind: NULL argument");
    memset(m, 0, sizeof *m);
    PARAC_TRY(parac__cl_injected("parac_cl_matrix_bind"));
    PARAC_TRY(parac__matrix_geometry(ndim, d0, d1, d2, elem_size, host_pitch, &m->device_pitch));
    m->session = s;
    m->host = host;
    m->elem_size = elem_size;
    m->ndim = ndim;
    m->dims[0] = d0;
    m->dims[1] = d1;
    m->dims[2] = d2;
    m->host_pitch = host_pitch;
    m->state = PARAC_CL_HOST_NEWER;
    return PARAC_OK;
}

static size_t buffer_bytes(const parac_cl_matrix *m) { return m->device_pitch * (rows_of(m) ? rows_of(m) : 1); }

void parac__cl_free_spares(parac_cl_session *s)
{
    for (int i = 0; i < s->nspare; i++) clReleaseMemObject((cl_mem)s->spare[i].buffer);
    s->nspare = 0;
    s->spare_bytes = 0;
}

static parac_status ensure_buffer(parac_cl_matrix *m)
{
    if (m->buffer) return PARAC_OK;
    cl_int err = CL_SUCCESS;
    const size_t bytes = buffer_bytes(m);
    parac_cl_session *s = m->session;
    /* a released buffer of the same size, the last released first (each
     * matrix of a pipeline called again gets the buffer it had); the
     * in-order queue runs its earlier kernels first */
    for (int i = s->nspare - 1; i >= 0; i--)
        if (s->spare[i].bytes == bytes) {
            m->buffer = s->spare[i].buffer;
            s->spare_bytes -= bytes;
            memmove(s->spare + i, s->spare + i + 1, sizeof s->spare[0] * (size_t)(s->nspare - i - 1));
            s->nspare--;
            return PARAC_OK;
        }
    cl_mem b = clCreateBuffer(s->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS && s->nspare) { /* the spares may hold what is missing */
        parac__cl_free_spares(s);
        b = clCreateBuffer(s->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    }
    if (err != CL_SUCCESS)
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "clCreateBuffer of %zu bytes failed (error %d)", bytes, (int)err);
    m->buffer = b;
    return PARAC_OK;
}

static parac__transfer_tally tally;

void parac_cl_transfer_counts(parac_cl_transfers *out)
{
    long long v[5];
    parac__tally_read(&tally, v);
    out->uploads = v[0];
    out->downloads = v[1];
    out->fills = v[2];
    out->upload_bytes = v[3];
    out->download_bytes = v[4];
}

/* One rectangular copy: rows of `cols_of*elem` bytes between two pitches. */
static parac_status copy_rect(parac_cl_matrix *m, int to_device)
{
    size_t rows = rows_of(m), width = cols_of(m) * m->elem_size;
    if (rows == 0 || width == 0) return PARAC_OK;
    if (!m->host) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "matrix without host storage");
    size_t origin[3] = {0, 0, 0}, region[3] = {width, rows, 1};
    cl_int err;
    if (to_device)
        err = clEnqueueWriteBufferRect(m->session->queue, (cl_mem)m->buffer, CL_TRUE, origin, origin, region,
                                       m->device_pitch, 0, m->host_pitch, 0, m->host, 0, NULL, NULL);
    else
        err = clEnqueueReadBufferRect(m->session->queue, (cl_mem)m->buffer, CL_TRUE, origin, origin, region,
                                      m->device_pitch, 0, m->host_pitch, 0, m->host, 0, NULL, NULL);
    /* a driver that allocates a buffer's memory at its first use (NVIDIA's)
     * reports the allocation failing here */
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY)
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s of a %zux%zu-byte matrix failed: the device could not "
                           "allocate it (error %d)", to_device ? "upload" : "download", rows, width, (int)err);
    if (err != CL_SUCCESS)
        return parac__fail(PARAC_ERR_OPENCL, "%s of a %zux%zu-byte matrix failed (error %d)",
                           to_device ? "upload" : "download", rows, width, (int)err);
    parac__tally_copy(&tally, to_device, (long long)(rows * width));
    return PARAC_OK;
}

/* The device copy of a matrix whose host copy is all zeros. */
static parac_status fill_zeros(parac_cl_matrix *m)
{
    const cl_uchar zero = 0;
    size_t bytes = m->device_pitch * (rows_of(m) ? rows_of(m) : 1);
    cl_int err = clEnqueueFillBuffer(m->session->queue, (cl_mem)m->buffer, &zero, sizeof zero, 0, bytes, 0, NULL,
                                     NULL);
    if (err != CL_SUCCESS)
        return parac__fail(PARAC_ERR_OPENCL, "filling a %zu-byte matrix with zeros failed (error %d)", bytes,
                           (int)err);
    parac__tally_fill(&tally);
    return PARAC_OK;
}

parac_status parac_cl_to_device(parac_cl_matrix *m)
{
    PARAC_TRY(parac__cl_injected("parac_cl_to_device"));
    PARAC_TRY(ensure_buffer(m));
    if (m->state == PARAC_CL_ZEROS) {
        PARAC_TRY(fill_zeros(m));
        m->state = PARAC_CL_SAME;
        return PARAC_OK;
    }
    if (m->state != PARAC_CL_HOST_NEWER) return PARAC_OK;
    PARAC_TRY(copy_rect(m, 1));
    m->state = PARAC_CL_SAME;
    return PARAC_OK;
}

parac_status parac_cl_to_host(parac_cl_matrix *m)
{
    PARAC_TRY(parac__cl_injected("parac_cl_to_host"));
    if (m->state != PARAC_CL_DEVICE_NEWER) return PARAC_OK;
    PARAC_TRY(copy_rect(m, 0));
    m->state = PARAC_CL_SAME;
    return PARAC_OK;
}

void parac_cl_host_modified(parac_cl_matrix *m) { m->state = PARAC_CL_HOST_NEWER; }
void parac_cl_matrix_overwritten(parac_cl_matrix *m)
{
    if (m->state == PARAC_CL_HOST_NEWER || m->state == PARAC_CL_ZEROS) m->state = PARAC_CL_SAME;
}

void parac_cl_matrix_zeroed(parac_cl_matrix *m)
{
    if (m->state == PARAC_CL_HOST_NEWER && !m->buffer) m->state = PARAC_CL_ZEROS;
}
void parac_cl_device_modified(parac_cl_matrix *m) { m->state = PARAC_CL_DEVICE_NEWER; }

void parac_cl_matrix_release(parac_cl_matrix *m)
{
    parac_cl_session *s = m ? m->session : NULL;
    if (m && m->buffer) {
        const size_t bytes = buffer_bytes(m);
        if (s && !s->no_spares && s->nspare < PARAC__CL_SPARE_BUFFERS && s->spare_bytes + bytes <= PARAC__CL_SPARE_BYTES) {
            s->spare[s->nspare].buffer = m->buffer; /* kept for the next matrix of this size */
            s->spare[s->nspare++].bytes = bytes;
            s->spare_bytes += bytes;
        } else
            clReleaseMemObject((cl_mem)m->buffer);
    }
    if (m) {
        m->buffer = NULL;
        m->state = PARAC_CL_HOST_NEWER;
    }
}
