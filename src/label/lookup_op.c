/* The registry operation "lookup": every pixel of an integer image replaced
 * by the entry of a table it indexes (NumPy's table[index]). The last step of
 * the chunked labelling and of the marking operations built on it (a block's
 * labels through the numbering or marking the merge decided, docs/
 * distributed.md); also any per-label property painted back onto the labels. */
#include <stdio.h>

#include "../core/error_internal.h"
#include "../core/registry_internal.h"
#include "label.h"
#include "lookup.h"
#include "parac/label.h"
#include "parac/op.h"

static parac_status lookup_check(const char *op, const parac_image *index, const parac_image *table)
{
    if (index->dtype != PARAC_U8 && index->dtype != PARAC_U16 && index->dtype != PARAC_I32 &&
        index->dtype != PARAC_I64)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: INDEX is %s; u8, u16, i32 or i64 is needed", op,
                           parac_dtype_name(index->dtype));
    if (index->channels != 1)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "%s: INDEX has %d channels; one is needed", op, index->channels);
    if (table->height != 1 || table->depth != 1 || table->channels != 1)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                           "%s: TABLE is %lldx%lldx%lld with %d channel(s); one row of one channel is needed (its "
                           "entries along x; from NumPy, table[None, :])", op, (long long)table->width,
                           (long long)table->height, (long long)table->depth, table->channels);
    return PARAC_OK;
}

/* The methods read pixels one after another in a row (and the table's
 * entries so): a view with gaps between pixels (a NumPy slice with a step
 * along x) is read from a packed copy. */
static parac_status packed(const parac_image *in, parac_image **copy, const parac_image **use, void *stream)
{
    *copy = NULL;
    *use = in;
    if (parac_image_is_packed(in)) return PARAC_OK;
    PARAC_TRY(parac_image_clone(copy, in, in->memory, in->device, stream));
    *use = *copy;
    return PARAC_OK;
}

static parac_status lookup_run(parac_op_call *call)
{
    const char *op = call->op->name;
    PARAC_TRY(lookup_check(op, call->inputs[0], call->inputs[1]));
    const int cuda = call->method->backend == PARAC_BACKEND_CUDA;
    void *stream = parac_context_stream(call->ctx);
    const parac_image *index = NULL, *table = NULL;
    parac_image *index_copy = NULL, *table_copy = NULL;
    parac_status st = packed(call->inputs[0], &index_copy, &index, stream);
    if (st == PARAC_OK) st = packed(call->inputs[1], &table_copy, &table, stream);
    if (st == PARAC_OK)
        st = parac_call_output(call, 0, index->width, index->height, index->depth, 1, table->dtype,
                               cuda ? PARAC_MEMORY_CUDA : PARAC_MEMORY_HOST,
                               cuda ? parac_context_cuda_device(call->ctx) : -1);
    const parac__lookup_spec s = {op, parac_context_threads(call->ctx)};
    parac__lookup_miss miss = {0, 0, 0, 0, 0};
    if (st == PARAC_OK)
        st = cuda ? parac__lookup_cuda(&s, index, table, call->outputs[0], &miss, stream)
                  : parac__lookup_cpu(&s, index, table, call->outputs[0], &miss);
    const int64_t entries = call->inputs[1]->width;
    parac_image_destroy(index_copy);
    parac_image_destroy(table_copy);
    PARAC_TRY(st);
    if (!miss.found) return PARAC_OK;
    char at[96];
    if (call->inputs[0]->depth > 1)
        snprintf(at, sizeof at, "(x %lld, y %lld, z %lld)", (long long)miss.x, (long long)miss.y, (long long)miss.z);
    else
        snprintf(at, sizeof at, "(x %lld, y %lld)", (long long)miss.x, (long long)miss.y);
    return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: INDEX holds %lld at %s, outside TABLE's %lld entries "
                       "(0..%lld)", op, (long long)miss.value, at, (long long)entries,
                       (long long)entries - 1);
}

static parac_status lookup_choose(parac_op_call *call, const char **method, char *why, size_t why_size)
{
    const int cuda = parac_context_backend(call->ctx) == PARAC_BACKEND_CUDA;
    *method = "gather";
    if (why_size)
        snprintf(why, why_size, "the %s's one method: each pixel reads its entry", cuda ? "GPU" : "CPU");
    return PARAC_OK;
}

/* The cells of the label demo, labelled, and a table that gives each label
 * one of a few grey levels (a class per cell). */
static parac_status lookup_demo(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    (void)args;
    int64_t n = 0;
    PARAC_TRY(parac__labelled_cells(ctx, &inputs[0], &n));
    PARAC_TRY(parac_image_create(&inputs[1], n + 1, 1, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    uint8_t *t = inputs[1]->data;
    t[0] = 0;
    for (int64_t i = 1; i <= n; i++) t[i] = (uint8_t)(80 + 35 * (i % 5));
    return PARAC_OK;
}

static const parac_method lookup_methods[] = {
    {"gather", PARAC_BACKEND_CPU, lookup_run, "a strip of rows per thread, each pixel reading its entry", NULL},
    {"gather", PARAC_BACKEND_CUDA, lookup_run, "a thread per pixel reading its entry", NULL},
};

const parac_op parac__op_lookup = {
    .name = "lookup",
    .summary = "replace every pixel by the table entry it indexes",
    .description =
        "OUT = TABLE[INDEX] per pixel, as NumPy's table[index]: INDEX is u8, u16, i32 or i64, 2D or 3D, one "
        "channel; TABLE is one row of N entries of any dtype (a 1-D array or NPY file; from Python also bool, int8, "
        "int16, uint32, uint64 or float16), and OUT has INDEX's size and TABLE's dtype. An index below 0 or at N or past it is an error that names the first "
        "such pixel. A label image through a table of its labels' values: classes, sizes, new numbers (the "
        "chunked labelling relabels each block so). See docs/labels.md.",
    .usage_args = "INDEX TABLE OUT",
    .n_inputs = 2,
    .row_inputs = 1u << 1,
    .moved_inputs = 1u << 1,
    .n_outputs = 1,
    .params_size = 0,
    .methods = lookup_methods,
    .n_methods = sizeof lookup_methods / sizeof lookup_methods[0],
    .choose = lookup_choose,
    .demo = lookup_demo,
    .demo_view = PARAC_DEMO_PLAIN,
};

/* ---- typed API ------------------------------------------------------------------ */
parac_status parac_lookup(parac_context *ctx, const parac_image *index, const parac_image *table, parac_image **out)
{
    if (!out) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "lookup: out is NULL");
    *out = NULL;
    parac_image *ins[2] = {(parac_image *)index, (parac_image *)table};
    return parac__op_run_typed(ctx, &parac__op_lookup, ins, 2, out, 1, NULL, 0, NULL, NULL, 0);
}
