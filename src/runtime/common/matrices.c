/* Matrices of generated programs on a device: buffers with rows padded to
 * 64 bytes, made on first use (or taken from the spares of released ones),
 * and transfers only when the other side holds the newer copy. */
#include <string.h>

#include "core/error_internal.h"
#include "runtime/common/runtime_core.h"

static parac__rt_session *session_of(const parac_device_matrix *m) { return m->session; }
static size_t rows_of(const parac_device_matrix *m) { return parac__matrix_rows(m->ndim, m->dims); }
static size_t cols_of(const parac_device_matrix *m) { return parac__matrix_cols(m->ndim, m->dims); }
static size_t device_bytes(const parac_device_matrix *m) { return m->device_pitch * (rows_of(m) ? rows_of(m) : 1); }

parac_status parac__rt_matrix_bind(parac__rt_session *s, parac_device_matrix *m, void *host, size_t elem_size,
                                   int ndim, long d0, long d1, long d2, size_t host_pitch)
{
    memset(m, 0, sizeof *m);
    PARAC_TRY(parac__rt_injected_call(s->backend, "matrix_bind"));
    PARAC_TRY(parac__matrix_geometry(ndim, d0, d1, d2, elem_size, host_pitch, &m->device_pitch));
    m->session = s;
    m->host = host;
    m->elem_size = elem_size;
    m->ndim = ndim;
    m->dims[0] = d0;
    m->dims[1] = d1;
    m->dims[2] = d2;
    m->host_pitch = host_pitch;
    m->state = PARAC_DEVICE_HOST_NEWER;
    return PARAC_OK;
}

/* A spare buffer of exactly `bytes`, taken from the session's list, or NULL:
 * the last released first. A function releases its matrices in the reverse
 * order of their declaration, so a pipeline called again gives each matrix
 * the buffer it had (swapping an input's and an output's buffers between
 * calls cost the unsharp mask 8 % of its kernel time at 1536x2560 on CUDA).
 * The device runs the kernels queued before on it first. */
static void *take_spare(parac__rt_session *s, size_t bytes)
{
    for (int i = s->nspare - 1; i >= 0; i--)
        if (s->spare[i].bytes == bytes) {
            void *b = s->spare[i].buffer;
            s->spare_bytes -= bytes;
            memmove(s->spare + i, s->spare + i + 1, sizeof s->spare[0] * (size_t)(s->nspare - i - 1));
            s->nspare--;
            return b;
        }
    return NULL;
}

void parac__rt_free_spares(parac__rt_session *s)
{
    for (int i = 0; i < s->nspare; i++) s->backend->free(s, s->spare[i].buffer);
    s->nspare = 0;
    s->spare_bytes = 0;
}

static parac_status ensure_buffer(parac_device_matrix *m)
{
    if (m->buffer) return PARAC_OK;
    parac__rt_session *s = session_of(m);
    PARAC_TRY(parac__rt_use(s));
    const size_t bytes = device_bytes(m);
    void *b = take_spare(s, bytes);
    if (b) {
        m->buffer = b;
        return PARAC_OK;
    }
    parac_status st = s->backend->alloc(s, bytes, &b);
    if (st == PARAC_ERR_OUT_OF_MEMORY && s->nspare) { /* the spares may hold what is missing */
        parac__rt_free_spares(s);
        st = s->backend->alloc(s, bytes, &b);
    }
    PARAC_TRY(st);
    m->buffer = b;
    /* the padding at the end of each row: kernels load whole aligned vectors
     * there (their lanes past the row feed no output), so it holds zeros
     * rather than whatever the allocation held */
    const size_t row = cols_of(m) * m->elem_size;
    if (s->backend->clear_padding && m->device_pitch > row)
        PARAC_TRY(s->backend->clear_padding(s, b, m->device_pitch, row, rows_of(m) ? rows_of(m) : 1));
    return PARAC_OK;
}

void parac__rt_transfer_counts(const parac__rt_backend *b, parac_device_transfers *out)
{
    long long v[5];
    parac__tally_read(&b->stats->tally, v);
    out->uploads = v[0];
    out->downloads = v[1];
    out->fills = v[2];
    out->upload_bytes = v[3];
    out->download_bytes = v[4];
}

static parac_status copy_rows(parac_device_matrix *m, int to_device)
{
    const size_t rows = rows_of(m), width = cols_of(m) * m->elem_size;
    if (rows == 0 || width == 0) return PARAC_OK;
    if (!m->host) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "matrix without host storage");
    parac__rt_session *s = session_of(m);
    PARAC_TRY(s->backend->copy_rows(s, m->buffer, m->device_pitch, m->host, m->host_pitch, width, rows, to_device));
    parac__tally_copy(&s->backend->stats->tally, to_device, (long long)(rows * width));
    return PARAC_OK;
}

parac_status parac__rt_to_device(parac_device_matrix *m)
{
    parac__rt_session *s = session_of(m);
    PARAC_TRY(parac__rt_injected_call(s->backend, "to_device"));
    PARAC_TRY(ensure_buffer(m));
    if (m->state == PARAC_DEVICE_ZEROS) {
        PARAC_TRY(s->backend->fill_zeros(s, m->buffer, device_bytes(m)));
        parac__tally_fill(&s->backend->stats->tally);
        m->state = PARAC_DEVICE_SAME;
        return PARAC_OK;
    }
    if (m->state != PARAC_DEVICE_HOST_NEWER) return PARAC_OK;
    PARAC_TRY(copy_rows(m, 1));
    m->state = PARAC_DEVICE_SAME;
    return PARAC_OK;
}

parac_status parac__rt_to_host(parac_device_matrix *m)
{
    parac__rt_session *s = session_of(m);
    PARAC_TRY(parac__rt_injected_call(s->backend, "to_host"));
    if (m->state != PARAC_DEVICE_NEWER) return PARAC_OK;
    PARAC_TRY(parac__rt_use(s));
    PARAC_TRY(copy_rows(m, 0));
    m->state = PARAC_DEVICE_SAME;
    return PARAC_OK;
}

void parac__rt_matrix_release(parac_device_matrix *m)
{
    parac__rt_session *s = session_of(m);
    if (m->buffer && s) {
        const size_t bytes = device_bytes(m);
        if (s->keep_spares && s->nspare < PARAC__RT_SPARE_BUFFERS && s->spare_bytes + bytes <= PARAC__RT_SPARE_BYTES) {
            /* kept for the next matrix of this size; kernels still queued
             * may use it, and the device runs them before any later use */
            s->spare[s->nspare].buffer = m->buffer;
            s->spare[s->nspare++].bytes = bytes;
            s->spare_bytes += bytes;
        } else
            s->backend->free(s, m->buffer);
    }
    m->buffer = NULL;
    m->state = PARAC_DEVICE_HOST_NEWER;
}
