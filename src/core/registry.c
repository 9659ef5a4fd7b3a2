/* The operation registry: lookup, parameter checking, method choice,
 * residency of inputs, and the call itself. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "context_internal.h"
#include "device_internal.h"
#include "error_internal.h"
#include "registry_internal.h"

int parac_op_count(void) { return parac__op_total; }

const parac_op *parac_op_at(int index)
{
    return index >= 0 && index < parac__op_total ? parac__ops[index] : NULL;
}

const parac_op *parac_op_find(const char *name)
{
    for (int i = 0; name && i < parac__op_total; i++)
        if (strcmp(parac__ops[i]->name, name) == 0) return parac__ops[i];
    return NULL;
}

static void list_methods(const parac_op *op, parac_backend backend, char *buf, size_t size)
{
    buf[0] = '\0';
    size_t used = 0;
    for (int i = 0; i < op->n_methods; i++)
        if (op->methods[i].backend == backend) {
            int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", op->methods[i].name);
            if (n < 0 || (size_t)n >= size - used) break;
            used += (size_t)n;
        }
    if (!used) snprintf(buf, size, "none");
}

static parac_status resolve_method(parac_op_call *call, const char *requested, char *why,
                                   size_t why_size)
{
    const parac_op *op = call->op;
    const parac_backend backend = call->ctx->backend;
    if (strcmp(requested, "auto") == 0) {
        const char *name = NULL;
        if (op->choose) {
            PARAC_TRY(op->choose(call, &name, why, why_size));
        } else {
            for (int i = 0; i < op->n_methods && !name; i++)
                if (op->methods[i].backend == backend) name = op->methods[i].name;
            snprintf(why, why_size, "the only/first method on %s", parac_backend_name(backend));
        }
        if (!name)
            return parac__fail(PARAC_ERR_UNSUPPORTED, "%s has no method for the %s backend",
                               op->name, parac_backend_name(backend));
        requested = name;
    } else {
        snprintf(why, why_size, "requested");
    }
    int known = 0;
    for (int i = 0; i < op->n_methods; i++) {
        if (strcmp(op->methods[i].name, requested) != 0) continue;
        known = 1;
        if (op->methods[i].backend == backend) {
            call->method = &op->methods[i];
            return PARAC_OK;
        }
    }
    char avail[256]; /* for the messages only: listing them costs more than a small image's call */
    list_methods(op, backend, avail, sizeof avail);
    if (known)
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "%s: method '%s' is not available on the %s backend (available there: %s)",
                           op->name, requested, parac_backend_name(backend), avail);
    return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: unknown method '%s' (available on %s: %s)",
                       op->name, requested, parac_backend_name(backend), avail);
}

/* Inputs must live where the backend computes: on the context's CUDA device,
 * or in host memory for the CPU. Returns a resident view or copy in *out and
 * whether it is a temporary. */
static parac_status make_resident(parac_context *ctx, parac_image *in, parac_image **out,
                                  int *temporary)
{
    *temporary = 0;
    *out = in;
    if (ctx->backend == PARAC_BACKEND_CUDA) {
        if (in->memory == PARAC_MEMORY_CUDA && in->device == ctx->cuda_device) return PARAC_OK;
        *temporary = 1;
        return parac_image_clone(out, in, PARAC_MEMORY_CUDA, ctx->cuda_device, ctx->stream);
    }
    if (in->memory != PARAC_MEMORY_CUDA) return PARAC_OK;
    *temporary = 1;
    return parac_image_clone(out, in, PARAC_MEMORY_HOST, -1, NULL);
}

/* An input as the methods read it: on the context's device (unless the
 * operation places its inputs itself, keeps_inputs) and with packed pixels.
 * The methods index a row as an array of pixels; a strided view (a NumPy
 * slice a[:, ::2], a channel of an interleaved image) is copied first. */
static parac_status prepare_input(parac_context *ctx, const parac_op *op, parac_image *in, parac_image **out,
                                  int *temporary)
{
    *temporary = 0;
    *out = in;
    if (!op->keeps_inputs) {
        PARAC_TRY(make_resident(ctx, in, out, temporary));
        if (*temporary) return PARAC_OK; /* a clone: packed */
    }
    if (parac_image_is_packed(in)) return PARAC_OK;
    *temporary = 1;
    *out = NULL; /* never the caller's image, should the clone fail */
    return parac_image_clone(out, in, in->memory, in->device, in->memory == PARAC_MEMORY_CUDA ? ctx->stream : NULL);
}

/* Whether any of op's methods may stream host images through a GPU. */
static int streams_any(const parac_op *op)
{
    for (int i = 0; i < op->n_methods; i++)
        if (op->methods[i].row_reach) return 1;
    return 0;
}

/* Room for any operation's parameter struct (parac__param_layout_check). */
typedef union params_room {
    max_align_t align;
    unsigned char bytes[PARAC__PARAMS_MAX];
} params_room;

/* What a call asks: its parameters as text or as a typed struct, and where
 * its numbers go. */
typedef struct run_request {
    int typed;                /* 0: text */
    const parac_args *args;   /* text (may be NULL: none) */
    const void *values;       /* typed: op->params_size bytes */
    uint64_t typed_set;
    const char *typed_method; /* NULL: auto */
    double *results;          /* op->results' values, n_results of them; NULL: not wanted */
    int n_results;
} run_request;

static parac_status run(parac_context *ctx, const char *name, parac_image *const *inputs, int n_inputs,
                        parac_image **outputs, int n_outputs, parac_image *const *given, const run_request *src,
                        char *explain, size_t explain_size);

parac_status parac_op_run(parac_context *ctx, const char *name, parac_image *const *inputs,
                          int n_inputs, parac_image **outputs, int n_outputs,
                          const parac_args *args, char *explain, size_t explain_size)
{
    const run_request src = {0, args, NULL, 0, NULL, NULL, 0};
    return run(ctx, name, inputs, n_inputs, outputs, n_outputs, NULL, &src, explain, explain_size);
}

parac_status parac_op_run_into(parac_context *ctx, const char *name, parac_image *const *inputs,
                               int n_inputs, parac_image **outputs, int n_outputs,
                               const parac_args *args, char *explain, size_t explain_size)
{
    return parac_op_run_results(ctx, name, inputs, n_inputs, outputs, n_outputs, args, NULL, 0, explain,
                                explain_size);
}

parac_status parac_op_run_results(parac_context *ctx, const char *name, parac_image *const *inputs,
                                  int n_inputs, parac_image **outputs, int n_outputs, const parac_args *args,
                                  double *results, int n_results, char *explain, size_t explain_size)
{
    if (n_outputs > 8) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: too many outputs", name ? name : "?");
    if (n_outputs > 0 && !outputs)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: outputs array is NULL", name ? name : "?");
    parac_image *given[8] = {0};
    for (int k = 0; k < n_outputs; k++) given[k] = outputs[k];
    const run_request src = {0, args, NULL, 0, NULL, results, n_results};
    parac_status st = run(ctx, name, inputs, n_inputs, outputs, n_outputs, given, &src, explain, explain_size);
    for (int k = 0; k < n_outputs; k++) {
        if (!given[k]) continue;
        if (st == PARAC_OK && outputs[k] != given[k]) { /* computed elsewhere: copied in */
            if (outputs[k]->width != given[k]->width || outputs[k]->height != given[k]->height ||
                outputs[k]->depth != given[k]->depth || outputs[k]->channels != given[k]->channels ||
                outputs[k]->dtype != given[k]->dtype)
                st = parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                                 "%s: output %d is %lldx%lldx%lld %s with %d channel(s), the result %lldx%lldx%lld "
                                 "%s with %d (width x height x depth)", name, k + 1, (long long)given[k]->width, (long long)given[k]->height,
                                 (long long)given[k]->depth, parac_dtype_name(given[k]->dtype), given[k]->channels,
                                 (long long)outputs[k]->width, (long long)outputs[k]->height,
                                 (long long)outputs[k]->depth, parac_dtype_name(outputs[k]->dtype),
                                 outputs[k]->channels);
            else
                st = parac_image_copy(given[k], outputs[k], parac_context_stream(ctx));
        }
        if (outputs[k] != given[k]) parac_image_destroy(outputs[k]);
        outputs[k] = given[k];
    }
    if (st != PARAC_OK)
        for (int k = 0; k < n_outputs; k++)
            if (!given[k]) {
                parac_image_destroy(outputs[k]);
                outputs[k] = NULL;
            }
    return st;
}

/* The bytes an image's pixels span. */
static void span(const parac_image *m, uintptr_t *lo, uintptr_t *hi)
{
    *lo = (uintptr_t)m->data;
    *hi = *lo + (uintptr_t)((m->depth - 1) * m->slice_pitch + (m->height - 1) * m->row_pitch +
                            m->width * m->pixel_stride);
}

static int overlaps_an_input(const parac_op_call *call, const parac_image *g)
{
    uintptr_t a, b;
    span(g, &a, &b);
    for (int i = 0; i < call->n_inputs; i++) {
        uintptr_t c, d;
        span(call->inputs[i], &c, &d);
        if (a < d && c < b) return 1;
    }
    return 0;
}

parac_status parac_call_output(parac_op_call *call, int k, int64_t width, int64_t height, int64_t depth,
                               int channels, parac_dtype dtype, parac_memory memory, int device)
{
    parac_image *g = call->given && k < call->n_outputs ? call->given[k] : NULL;
    if (g && overlaps_an_input(call, g)) g = NULL; /* in place would read pixels already written */
    const int same_place = g && (memory == PARAC_MEMORY_CUDA ? g->memory == PARAC_MEMORY_CUDA && g->device == device
                                                             : g->memory != PARAC_MEMORY_CUDA);
    if (same_place && g->width == width && g->height == height && g->depth == depth && g->channels == channels &&
        g->dtype == dtype && parac_image_is_packed(g)) {
        call->outputs[k] = g;
        return PARAC_OK;
    }
    return parac_image_create(&call->outputs[k], width, height, depth, channels, dtype, memory, device);
}

static parac_status run(parac_context *ctx, const char *name, parac_image *const *inputs, int n_inputs,
                        parac_image **outputs, int n_outputs, parac_image *const *given, const run_request *src,
                        char *explain, size_t explain_size)
{
    if (!ctx) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "context is NULL");
    const parac_op *op = parac_op_find(name);
    if (!op) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "unknown operation '%s'", name ? name : "(null)");
    if (n_inputs > op->n_inputs || n_inputs < op->n_inputs - op->n_optional_inputs || n_outputs != op->n_outputs) {
        if (op->n_optional_inputs)
            return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s takes %d to %d input(s) and %d output(s), got %d and %d",
                               op->name, op->n_inputs - op->n_optional_inputs, op->n_inputs, op->n_outputs, n_inputs,
                               n_outputs);
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s takes %d input(s) and %d output(s), got %d and %d",
                           op->name, op->n_inputs, op->n_outputs, n_inputs, n_outputs);
    }
    for (int i = 0; i < n_inputs; i++)
        if (!inputs || !inputs[i]) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: input %d is NULL", op->name, i);
    if (n_outputs && !outputs) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: outputs array is NULL", op->name);
    if (op->params_size > sizeof(params_room))
        return parac__fail(PARAC_ERR_INTERNAL, "%s: a parameter struct of %zu bytes", op->name, op->params_size);

    params_room room;
    uint64_t set = 0;
    const char *method = "auto";
    parac_status st;
    if (!src->typed) {
        st = parac__params_from_text(op, src->args, &room, &set, &method);
    } else {
        if (op->params_size) memcpy(&room, src->values, op->params_size); /* none: values may be NULL */
        set = src->typed_set;
        if (src->typed_method) method = src->typed_method;
        st = parac__params_check(op, &room, &set);
    }

    parac_image *resident[8] = {0};
    int temporary[8] = {0};
    if (st == PARAC_OK && n_inputs > 8) st = parac__fail(PARAC_ERR_INTERNAL, "too many inputs");

    parac_op_call call = {ctx, op, NULL, inputs, n_inputs, outputs, n_outputs, &room, set, given, NULL, NULL, {0}};
    for (int i = 0; i < n_outputs; i++) outputs[i] = NULL;
    char why[512] = "";
    parac__stream_plan stream = {0, 0, 0};
    /* Methods that may stream images from host memory through the GPU are
     * chosen before the inputs move: the choice decides whether they do. */
    const int early = ctx->backend == PARAC_BACKEND_CUDA && !op->keeps_inputs && streams_any(op);
    /* the reason is only formatted when asked for (auto runs on every call) */
    if (st == PARAC_OK && early) st = resolve_method(&call, method, why, explain ? sizeof why : 0);
    if (st == PARAC_OK && early) st = parac__stream_plan_make(&call, &stream);
    for (int i = 0; st == PARAC_OK && !stream.rows && i < n_inputs; i++)
        st = prepare_input(ctx, op, inputs[i], &resident[i], &temporary[i]);
    if (!stream.rows) call.inputs = resident;
    if (st == PARAC_OK && !early) st = resolve_method(&call, method, why, explain ? sizeof why : 0);
    if (st == PARAC_OK) {
        if (explain && stream.rows)
            snprintf(explain, explain_size,
                     "%s: method '%s' on %s (%s), streamed from host memory in %lld band(s) of %lld %s "
                     "and %lld more each way", op->name, call.method->name, ctx->device, why,
                     (long long)stream.bands, (long long)stream.rows, inputs[0]->depth > 1 ? "slices" : "rows",
                     (long long)stream.reach);
        else if (explain)
            snprintf(explain, explain_size, "%s: method '%s' on %s (%s)", op->name,
                     call.method->name, ctx->device, why);
        st = parac_progress(ctx, 0.0);
        if (st == PARAC_OK && stream.rows) st = parac__cuda_stream_rows(&call, stream.reach, stream.rows);
        else if (st == PARAC_OK) st = call.method->run(&call);
        if (st == PARAC_OK) st = parac_progress(ctx, 1.0);
        for (int k = 0; st == PARAC_OK && src->results && k < src->n_results && k < op->n_results; k++)
            src->results[k] = call.results[k];
        if (st != PARAC_OK) {
            parac__wrap(st, "%s (method %s on %s)", op->name, call.method->name, ctx->device);
            for (int i = 0; i < n_outputs; i++) {
                if (!given || outputs[i] != given[i]) parac_image_destroy(outputs[i]); /* never the caller's */
                outputs[i] = NULL;
            }
        }
    }
    if (call.plan_free) call.plan_free(call.plan);
    for (int i = 0; i < n_inputs; i++)
        if (temporary[i]) {
            if (resident[i] && resident[i]->memory == PARAC_MEMORY_CUDA) parac_context_synchronize(ctx);
            parac_image_destroy(resident[i]);
        }
    return st;
}

parac_status parac__op_run_typed(parac_context *ctx, const parac_op *op, parac_image *const *inputs, int n_inputs,
                                 parac_image **outputs, int n_outputs, const void *params, uint64_t set,
                                 const char *method, double *results, int n_results)
{
    const run_request src = {1, NULL, params, set, method, results, n_results};
    return run(ctx, op->name, inputs, n_inputs, outputs, n_outputs, NULL, &src, NULL, 0);
}
