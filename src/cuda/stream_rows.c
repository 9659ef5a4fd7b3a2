/* An operation on images in host memory, run on a GPU in bands of rows
 * (slices of a volume) streamed through it: while the GPU computes band i,
 * band i + 1 comes in and band i - 1 goes out.
 *
 * Why: copied whole, an image crosses the host link, waits for the
 * computation and crosses back, three steps in a row, and both the input and
 * the output must fit in device memory at once. A method whose output rows
 * depend on the input rows within `reach` of their own (parac_method's
 * row_reach) gives the same bits computed band by band, each band from its
 * rows and `reach` rows either side (the rows near a band's cut edges, which
 * see the method's border rule there, are not kept). So the copies overlap
 * the computation, the copies in and out overlap each other (two threads:
 * this one brings bands in and launches them, a second takes results out),
 * and the device holds SLOTS bands, not the image.
 *
 * The rows two bands share are copied over the link once: band i takes
 * them from band i - 1's buffer on the device. The method runs on the
 * context's stream as always; the copies in and out have streams of their
 * own, ordered against it by events. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "core/alloc_internal.h"
#include "core/context_internal.h"
#include "core/device_internal.h"
#include "core/error_internal.h"
#include "core/registry_internal.h"
#include "cuda_check.h"
#include "parac/op.h"

enum { SLOTS = 3, MAX_IO = 8 };

typedef struct band {
    int64_t a, b;   /* output rows [a, b) */
    int64_t lo, hi; /* input rows [lo, hi) */
} band;

typedef struct streamer {
    parac_op_call *call;
    int device;
    int volume;            /* bands of slices (a volume), else of rows */
    int64_t extent;        /* rows or slices of the image */
    int64_t reach, rows;   /* halo and band height */
    int64_t n_bands;
    parac_image *slot_in[SLOTS][MAX_IO];  /* device buffers of a band's inputs */
    parac_image *band_in[SLOTS][MAX_IO];  /* views of them: the band's rows */
    parac_image *band_out[SLOTS][MAX_IO]; /* the method's outputs, kept until copied out */
    band bands[SLOTS];
    cudaEvent_t in_done[SLOTS], computed[SLOTS];
    cudaStream_t copy_in, copy_out;
    pthread_mutex_t lock;
    pthread_cond_t moved;
    int64_t launched, drained; /* bands handed to the drainer, and copied out */
    int stop;                  /* a failure on either side */
    parac_status drain_status;
    char drain_message[1024];
} streamer;

static band band_at(const streamer *s, int64_t i)
{
    band b;
    b.a = i * s->rows;
    b.b = i == s->n_bands - 1 ? s->extent : b.a + s->rows;
    b.lo = b.a - s->reach < 0 ? 0 : b.a - s->reach;
    b.hi = b.b + s->reach > s->extent ? s->extent : b.b + s->reach;
    return b;
}

/* Rows [r0, r1) of an image along the streamed axis, as a view. */
static parac_status rows_of(const streamer *s, const parac_image *m, int64_t r0, int64_t r1, parac_image **out)
{
    if (s->volume) return parac_image_view_roi(out, m, 0, 0, r0, m->width, m->height, r1 - r0);
    return parac_image_view_roi(out, m, 0, r0, 0, m->width, r1 - r0, 1);
}

static int64_t extent_of(const streamer *s, const parac_image *m) { return s->volume ? m->depth : m->height; }

/* ---- the drainer: results out, band by band -------------------------------- */

static parac_status drain_band(streamer *s, int64_t i)
{
    parac_op_call *call = s->call;
    const int k = (int)(i % SLOTS);
    const band b = s->bands[k];
    PARAC_CUDA_TRY(cudaStreamWaitEvent(s->copy_out, s->computed[k], 0));
    for (int o = 0; o < call->n_outputs; o++) {
        parac_image *src = NULL, *dst = NULL;
        parac_status st = rows_of(s, s->band_out[k][o], b.a - b.lo, b.b - b.lo, &src);
        if (st == PARAC_OK) st = rows_of(s, call->outputs[o], b.a, b.b, &dst);
        if (st == PARAC_OK) st = parac_image_copy(dst, src, s->copy_out);
        parac_image_destroy(src);
        parac_image_destroy(dst);
        PARAC_TRY(st);
    }
    /* pinned or pageable, the rows are in place before the band's memory goes */
    PARAC_CUDA_TRY(cudaStreamSynchronize(s->copy_out));
    for (int o = 0; o < call->n_outputs; o++) {
        parac_image_destroy(s->band_out[k][o]);
        s->band_out[k][o] = NULL;
    }
    return PARAC_OK;
}

static void *drainer(void *arg)
{
    streamer *s = arg;
    parac_status st = PARAC_CUDA_CHECK(cudaSetDevice(s->device));
    for (int64_t i = 0; st == PARAC_OK && i < s->n_bands; i++) {
        pthread_mutex_lock(&s->lock);
        while (s->launched <= i && !s->stop) pthread_cond_wait(&s->moved, &s->lock);
        const int stop = s->stop;
        pthread_mutex_unlock(&s->lock);
        if (stop) break;
        st = drain_band(s, i);
        pthread_mutex_lock(&s->lock);
        if (st == PARAC_OK) s->drained = i + 1;
        pthread_cond_broadcast(&s->moved);
        pthread_mutex_unlock(&s->lock);
    }
    if (st != PARAC_OK) {
        pthread_mutex_lock(&s->lock);
        s->drain_status = st;
        snprintf(s->drain_message, sizeof s->drain_message, "%s", parac_error_message());
        s->stop = 1;
        pthread_cond_broadcast(&s->moved);
        pthread_mutex_unlock(&s->lock);
    }
    return NULL;
}

/* ---- this thread: bands in, and the method on them ------------------------- */

/* The outputs in host memory, shaped after band 0's: the method's output
 * rows follow its input rows (row_reach's promise, checked here). */
static parac_status make_outputs(streamer *s, int k)
{
    parac_op_call *call = s->call;
    const band b = s->bands[k];
    for (int o = 0; o < call->n_outputs; o++) {
        const parac_image *m = s->band_out[k][o];
        if (!m || extent_of(s, m) != b.hi - b.lo || (s->volume && m->height != call->inputs[0]->height))
            return parac__fail(PARAC_ERR_INTERNAL, "%s: method %s's output %d does not follow its input's rows",
                               call->op->name, call->method->name, o + 1);
        const int64_t h = s->volume ? m->height : s->extent, d = s->volume ? s->extent : 1;
        PARAC_TRY(parac_call_output(call, o, m->width, h, d, m->channels, m->dtype, PARAC_MEMORY_HOST, -1));
    }
    return PARAC_OK;
}

static parac_status same_shape(const streamer *s, int k)
{
    const parac_op_call *call = s->call;
    for (int o = 0; o < call->n_outputs; o++) {
        const parac_image *m = s->band_out[k][o], *whole = call->outputs[o];
        if (!m || extent_of(s, m) != s->bands[k].hi - s->bands[k].lo || m->width != whole->width ||
            m->channels != whole->channels || m->dtype != whole->dtype ||
            (s->volume ? m->height != whole->height : m->depth != 1))
            return parac__fail(PARAC_ERR_INTERNAL, "%s: method %s's output %d changed shape between bands",
                               call->op->name, call->method->name, o + 1);
    }
    return PARAC_OK;
}

/* Band i's input rows onto the device: the rows it shares with band i - 1
 * from that band's buffer, the rest from the host. */
static parac_status bring_in(streamer *s, int64_t i)
{
    parac_op_call *call = s->call;
    const int k = (int)(i % SLOTS), prev = (int)((i + SLOTS - 1) % SLOTS);
    const band b = band_at(s, i), p = i > 0 ? s->bands[prev] : b;
    const int64_t shared = i > 0 && p.hi > b.lo ? p.hi - b.lo : 0;
    for (int n = 0; n < call->n_inputs; n++) {
        parac_image_destroy(s->band_in[k][n]);
        s->band_in[k][n] = NULL;
        PARAC_TRY(rows_of(s, s->slot_in[k][n], 0, b.hi - b.lo, &s->band_in[k][n]));
        parac_image *src = NULL, *dst = NULL;
        parac_status st = PARAC_OK;
        if (shared > 0) {
            st = rows_of(s, s->slot_in[prev][n], b.lo - p.lo, p.hi - p.lo, &src);
            if (st == PARAC_OK) st = rows_of(s, s->slot_in[k][n], 0, shared, &dst);
            if (st == PARAC_OK) st = parac_image_copy(dst, src, s->copy_in);
            parac_image_destroy(src);
            parac_image_destroy(dst);
            src = dst = NULL;
        }
        if (st == PARAC_OK && b.lo + shared < b.hi) { /* the last band may have them all */
            st = rows_of(s, call->inputs[n], b.lo + shared, b.hi, &src);
            if (st == PARAC_OK) st = rows_of(s, s->slot_in[k][n], shared, b.hi - b.lo, &dst);
            if (st == PARAC_OK) st = parac_image_copy(dst, src, s->copy_in);
        }
        parac_image_destroy(src);
        parac_image_destroy(dst);
        PARAC_TRY(st);
    }
    s->bands[k] = b;
    PARAC_CUDA_TRY(cudaEventRecord(s->in_done[k], s->copy_in));
    return PARAC_CUDA_CHECK(cudaStreamWaitEvent((cudaStream_t)call->ctx->stream, s->in_done[k], 0));
}

/* The method on band i's rows, on the context's stream. */
static parac_status compute(streamer *s, int64_t i)
{
    parac_op_call *call = s->call;
    const int k = (int)(i % SLOTS);
    parac_op_call sub = *call;
    sub.inputs = s->band_in[k];
    sub.outputs = s->band_out[k];
    sub.given = NULL;
    sub.plan = call->plan;
    sub.plan_free = call->plan_free;
    parac_status st = call->method->run(&sub);
    if (sub.plan != call->plan) { /* made by the first band: later ones take it */
        call->plan = sub.plan;
        call->plan_free = sub.plan_free;
    }
    PARAC_TRY(st);
    PARAC_TRY(i == 0 ? make_outputs(s, k) : same_shape(s, k));
    return PARAC_CUDA_CHECK(cudaEventRecord(s->computed[k], (cudaStream_t)call->ctx->stream));
}

/* Until band i's slot is free: the band SLOTS before it copied out. */
static int wait_for_slot(streamer *s, int64_t i)
{
    pthread_mutex_lock(&s->lock);
    while (s->drained + SLOTS <= i && !s->stop) pthread_cond_wait(&s->moved, &s->lock);
    const int stop = s->stop;
    pthread_mutex_unlock(&s->lock);
    return !stop;
}

static parac_status run_bands(streamer *s, pthread_t *thread, int *started)
{
    parac_op_call *call = s->call;
    for (int64_t i = 0; i < s->n_bands; i++) {
        if (!wait_for_slot(s, i)) return PARAC_OK; /* the drainer failed: its status is reported */
        PARAC_TRY(bring_in(s, i));
        PARAC_TRY(compute(s, i));
        pthread_mutex_lock(&s->lock);
        s->launched = i + 1;
        pthread_cond_broadcast(&s->moved);
        pthread_mutex_unlock(&s->lock);
        if (i == 0) { /* the outputs exist now */
            if (pthread_create(thread, NULL, drainer, s) != 0)
                return parac__fail(PARAC_ERR_INTERNAL, "%s: could not start the thread that copies bands out",
                                   call->op->name);
            *started = 1;
        }
        PARAC_TRY(parac_progress(call->ctx, (double)(i + 1) / (double)(s->n_bands + 1)));
    }
    return PARAC_OK;
}

static parac_status make_slots(streamer *s)
{
    const parac_op_call *call = s->call;
    int64_t e = 0; /* the tallest band's input rows */
    for (int64_t i = 0; i < s->n_bands; i++) {
        const band b = band_at(s, i);
        if (b.hi - b.lo > e) e = b.hi - b.lo;
    }
    for (int k = 0; k < SLOTS; k++) {
        for (int n = 0; n < call->n_inputs; n++) {
            const parac_image *in = call->inputs[n];
            PARAC_TRY(parac_image_create(&s->slot_in[k][n], in->width, s->volume ? in->height : e,
                                         s->volume ? e : 1, in->channels, in->dtype, PARAC_MEMORY_CUDA, s->device));
        }
        PARAC_CUDA_TRY(cudaEventCreateWithFlags(&s->in_done[k], cudaEventDisableTiming));
        PARAC_CUDA_TRY(cudaEventCreateWithFlags(&s->computed[k], cudaEventDisableTiming));
    }
    PARAC_CUDA_TRY(cudaStreamCreateWithFlags(&s->copy_in, cudaStreamNonBlocking));
    return PARAC_CUDA_CHECK(cudaStreamCreateWithFlags(&s->copy_out, cudaStreamNonBlocking));
}

static void free_slots(streamer *s)
{
    for (int k = 0; k < SLOTS; k++) {
        for (int n = 0; n < MAX_IO; n++) {
            parac_image_destroy(s->band_in[k][n]);
            parac_image_destroy(s->slot_in[k][n]);
            parac_image_destroy(s->band_out[k][n]);
        }
        if (s->in_done[k]) cudaEventDestroy(s->in_done[k]);
        if (s->computed[k]) cudaEventDestroy(s->computed[k]);
    }
    if (s->copy_in) cudaStreamDestroy(s->copy_in);
    if (s->copy_out) cudaStreamDestroy(s->copy_out);
}

parac_status parac__cuda_stream_rows(parac_op_call *call, int64_t reach, int64_t rows)
{
    if (call->n_inputs > MAX_IO || call->n_outputs > MAX_IO || call->n_inputs < 1)
        return parac__fail(PARAC_ERR_INTERNAL, "%s: %d inputs and %d outputs cannot be streamed", call->op->name,
                           call->n_inputs, call->n_outputs);
    streamer *s = parac__calloc(1, sizeof *s);
    if (!s) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s: no memory to stream bands", call->op->name);
    const parac_image *in = call->inputs[0];
    s->call = call;
    s->device = call->ctx->cuda_device;
    s->volume = in->depth > 1;
    s->extent = extent_of(s, in);
    s->reach = reach;
    s->rows = rows < 1 ? 1 : rows;
    s->n_bands = parac__stream_band_count(s->extent, s->rows);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->moved, NULL);
    pthread_t thread;
    int started = 0;
    parac_status st = PARAC_CUDA_CHECK(cudaSetDevice(s->device));
    if (st == PARAC_OK) st = make_slots(s);
    if (st == PARAC_OK) st = run_bands(s, &thread, &started);
    if (st != PARAC_OK) {
        pthread_mutex_lock(&s->lock);
        s->stop = 1;
        pthread_cond_broadcast(&s->moved);
        pthread_mutex_unlock(&s->lock);
    }
    if (started) pthread_join(thread, NULL);
    if (st == PARAC_OK && s->drain_status != PARAC_OK)
        st = parac__fail(s->drain_status, "%s", s->drain_message);
    /* nothing may still read or write the slots when they go (a failed copy
     * out may have left one in flight) */
    parac_status sync = PARAC_CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)call->ctx->stream));
    cudaStream_t copies[2] = {s->copy_in, s->copy_out};
    for (int c = 0; c < 2; c++)
        if (copies[c]) {
            parac_status w = PARAC_CUDA_CHECK(cudaStreamSynchronize(copies[c]));
            if (sync == PARAC_OK) sync = w;
        }
    if (st == PARAC_OK) st = sync;
    free_slots(s);
    pthread_cond_destroy(&s->moved);
    pthread_mutex_destroy(&s->lock);
    free(s);
    return st;
}
