/* The operation registry.
 *
 * Every image operation is described once, by a parac_op: its name, help
 * text, typed parameters and one or more methods per backend. The registry
 * drives the C API (parac_op_run), the command-line interface (one
 * subcommand per operation, --help generated from the description) and the
 * demo. Adding an operation means writing its parac_op and listing it in
 * src/core/op_table.c.
 *
 * Parameters arrive as text (name=value pairs in a parac_args, from the
 * command line, batch mode and Python) or typed (the C functions of the
 * areas' headers). Either way the registry decodes them once, before the
 * operation runs, into the operation's own parameter struct: each
 * parac_param_spec names a field of it (PARAC_FIELD), and the registry
 * checks types, ranges and choices there, fills in defaults and rejects a
 * missing required parameter. The operation reads its struct (call->params)
 * and never parses text.
 *
 * Every operation with methods accepts the parameter "method": "auto" (the
 * default) lets the operation choose for the context's backend; a named
 * method that does not exist for that backend is an error, never a silent
 * substitute. */
#ifndef PARAC_OP_H
#define PARAC_OP_H

#include <stddef.h>
#include <stdint.h>

#include "parac/context.h"
#include "parac/export.h"
#include "parac/image.h"
#include "parac/status.h"

PARAC_BEGIN_DECLS

typedef enum parac_param_type {
    PARAC_PARAM_BOOL = 0, /* "1/0", "true/false", "yes/no", "on/off" */
    PARAC_PARAM_INT,      /* 64-bit integer */
    PARAC_PARAM_DOUBLE,
    PARAC_PARAM_STRING,
    PARAC_PARAM_CHOICE,   /* one of `choices`, a '|' separated list */
    PARAC_PARAM_PATH,     /* a file name */
    PARAC_PARAM_LIST      /* text that may be given several times: the values joined with ';' */
} parac_param_type;

/* The field a parameter decodes into, by type:
 *   BOOL                  int, 0 or 1
 *   INT                   int64_t, or int (the range must then lie within int's)
 *   DOUBLE                double, finite
 *   CHOICE                int: the value's position in `choices` (0 for the first)
 *   STRING, PATH, LIST    const char *: the text, valid while the call runs
 * A parameter that is neither given nor defaulted leaves its field 0 (NULL);
 * parac_call_has tells it from a given 0. */
typedef struct parac_param_spec {
    const char *name;
    parac_param_type type;
    const char *default_value; /* NULL: optional, unset unless given */
    const char *choices;       /* CHOICE: "a|b|c"; INT: the values allowed, "4|8|6|18|26"; else NULL */
    double min, max;           /* numeric range, checked when min < max */
    const char *help;
    size_t offset, size;       /* the field in the operation's parameter struct: PARAC_FIELD */
    int required;              /* 1: a call without it fails before the operation runs */
} parac_param_spec;

/* The last members of a parac_param_spec: its field in the parameter struct
 * `type` (offsetof and sizeof), optional or required. */
#define PARAC_FIELD(type, field) offsetof(type, field), sizeof(((type *)0)->field), 0
#define PARAC_REQUIRED_FIELD(type, field) offsetof(type, field), sizeof(((type *)0)->field), 1

/* How `parac demo` draws an operation's outputs (inputs are drawn as they
 * are; volumes as maximum-intensity projections along the three axes). */
typedef enum parac_demo_view {
    PARAC_DEMO_PLAIN = 0, /* the output as it is */
    PARAC_DEMO_MASK,      /* the output's nonzero pixels in colour over the first input */
    PARAC_DEMO_CHANGES,   /* the output, the pixels where it differs from the first input tinted */
    PARAC_DEMO_LABELS     /* an integer output as labels: each nonzero value its own colour, 0 black */
} parac_demo_view;

/* A number an operation returns beside its images (label: the count of
 * components). */
typedef struct parac_result_spec {
    const char *name;
    const char *help;
} parac_result_spec;

#define PARAC_MAX_RESULTS 8

typedef struct parac_op parac_op;
typedef struct parac_args parac_args;
typedef struct parac_op_call parac_op_call;

typedef parac_status (*parac_op_fn)(parac_op_call *call);

typedef struct parac_method {
    const char *name;
    parac_backend backend;
    parac_op_fn run;
    const char *help;
    /* For a method whose output rows (slices, in a volume) depend on the
     * input rows within a distance of their own only, computed from them the
     * same way whatever the image's size, with border rules that reach no
     * further than that distance into the image: sets *reach to the distance
     * for the call's parameters, or to -1 where they make rows depend on far
     * ones (an IIR filter, a wrapped border). Such a method runs on images in
     * host memory through a GPU in bands of rows streamed in and out, the
     * copies overlapping the computation (src/cuda/stream_rows.c), with the
     * same result. NULL: never streamed. */
    parac_status (*row_reach)(parac_op_call *call, int64_t *reach);
} parac_method;

struct parac_op {
    const char *name;
    const char *summary;     /* one line */
    const char *description; /* paragraphs for --help */
    const char *usage_args;  /* e.g. "IN OUT"; optional inputs in brackets: "LABELS [INTENSITY] TABLE" */
    int n_inputs, n_outputs;
    int n_optional_inputs;   /* the last this many of the n_inputs may be left out (0: none) */
    const parac_param_spec *params;
    int n_params;               /* at most 64 */
    size_t params_size;         /* sizeof the parameter struct the specs' fields belong to */
    const parac_method *methods;
    int n_methods;
    const parac_result_spec *results; /* the numbers it returns (at most PARAC_MAX_RESULTS); NULL: none */
    int n_results;
    /* Picks a method for "auto" on the call's backend; writes the reason into
     * `why` (why_size 0: no reason wanted, skip formatting it). NULL: the
     * first method listed for the backend. */
    parac_status (*choose)(parac_op_call *call, const char **method, char *why, size_t why_size);
    /* Synthetic inputs and parameters for `parac demo` (every operation has
     * one: the registry's tests check it), and how the demo draws the result. */
    parac_status (*demo)(parac_context *ctx, parac_image **inputs, parac_args *args);
    parac_demo_view demo_view;
    /* Outputs that are tables, not images: an f64 image with one row per
     * record (the operation's first result counts the records; the image has
     * at least one row) and one column per field. Writes the names of output
     * k's columns for inputs of `ndim` dimensions (2 or 3), `n_inputs` of them
     * given, into `names` (static strings, at most `max`) and returns how many;
     * 0: output k is an image. NULL: every output is an image. The CLI writes a
     * table as CSV, JSON or NPY (parac_table_write); Python returns it as a
     * dict of columns. */
    int (*table_columns)(int k, int ndim, int n_inputs, const char **names, int max);
    /* 0: the dispatcher moves the inputs to the context's device first;
     * 1: the operation gets them where they are and places them itself (an
     * image larger than device memory can stay on the host). */
    int keeps_inputs;
    /* Bit k: input k is a row of entries (a table of values), not an image:
     * Python takes a 1-D array there and the CLI a 1-D NPY file, as one row. */
    unsigned row_inputs;
    /* Bit k: output 0's elements are input k's, moved and never computed on:
     * Python passes an element type the library lacks (bool, int8, int16,
     * uint32, uint64, float16) as the library's type of its size, and gives
     * output 0 back as the caller's type. */
    unsigned moved_inputs;
};

/* Parameter lists. */
PARAC_API parac_status parac_args_create(parac_args **out);
PARAC_API void parac_args_destroy(parac_args *args);
/* Set (or replace) one parameter. */
PARAC_API parac_status parac_args_set(parac_args *args, const char *name, const char *value);
/* The same from a number, written so that it parses back exactly. */
PARAC_API parac_status parac_args_set_number(parac_args *args, const char *name, double value);
/* Parse "name=value name=value ..." (whitespace separated). */
PARAC_API parac_status parac_args_parse(parac_args *args, const char *text);
PARAC_API const char *parac_args_get(const parac_args *args, const char *name);
PARAC_API int parac_args_count(const parac_args *args);
PARAC_API const char *parac_args_name_at(const parac_args *args, int index);

/* Registry lookup. */
PARAC_API int parac_op_count(void);
PARAC_API const parac_op *parac_op_at(int index);
PARAC_API const parac_op *parac_op_find(const char *name);

/* Run an operation. Inputs may live anywhere: the dispatcher (or, for
 * operations with keeps_inputs, the operation) copies them to the context's
 * device when needed. Outputs are new images, created by the
 * operation on the context's device (in host memory where the call streamed
 * host images through the GPU in bands: see parac_method's row_reach; the
 * image's `memory` says which); the caller destroys them. `args` may be
 * NULL. When `explain` is not NULL it receives which method ran and why. */
PARAC_API parac_status parac_op_run(parac_context *ctx, const char *name,
                                    parac_image *const *inputs, int n_inputs,
                                    parac_image **outputs, int n_outputs,
                                    const parac_args *args, char *explain, size_t explain_size);

/* The same, writing into images the caller has: each outputs[k] that is not
 * NULL on entry receives result k (same size, channels and dtype as the
 * result, in any residency) and stays the caller's; the others receive new
 * images. An operation that can compute straight into such an image does
 * (parac_call_output); otherwise its result is copied in. */
PARAC_API parac_status parac_op_run_into(parac_context *ctx, const char *name,
                                         parac_image *const *inputs, int n_inputs,
                                         parac_image **outputs, int n_outputs,
                                         const parac_args *args, char *explain, size_t explain_size);

/* parac_op_run_into that also returns the operation's numbers: results[k]
 * receives the value of op->results[k] for k < n_results (results may be
 * NULL when none are wanted). */
PARAC_API parac_status parac_op_run_results(parac_context *ctx, const char *name,
                                            parac_image *const *inputs, int n_inputs,
                                            parac_image **outputs, int n_outputs,
                                            const parac_args *args, double *results, int n_results,
                                            char *explain, size_t explain_size);

/* Inside an operation: the call being executed. */
struct parac_op_call {
    parac_context *ctx;
    const parac_op *op;
    const parac_method *method;
    parac_image *const *inputs;
    int n_inputs;
    parac_image **outputs;
    int n_outputs;
    const void *params;        /* the operation's parameter struct: decoded, checked, defaults filled in */
    uint64_t params_set;       /* bit i: op->params[i] was given or has a default */
    parac_image *const *given; /* parac_op_run_into's images per output (NULL entries: none) */
    /* What `choose` worked out that the method's run can use instead of
     * working it out again (gauss: its parsed parameters); the registry frees
     * it with plan_free after the run. NULL: none. */
    void *plan;
    void (*plan_free)(void *plan);
    double results[PARAC_MAX_RESULTS]; /* the method sets op->results' values here */
};

/* Output k of the call: the caller's image when parac_op_run_into gave one
 * that fits (size, channels, dtype, residency, packed rows of pixels), else
 * a new image; either way in call->outputs[k]. */
PARAC_API parac_status parac_call_output(parac_op_call *call, int k, int64_t width, int64_t height,
                                         int64_t depth, int channels, parac_dtype dtype, parac_memory memory,
                                         int device);

/* Whether parameter `name` was given or has a default (its field holds a
 * value rather than the 0 of an unset parameter). */
PARAC_API int parac_call_has(const parac_op_call *call, const char *name);

/* Report progress (0..1) from inside an operation; returns PARAC_ERR_CANCELLED
 * when the context's callback asks to stop. */
PARAC_API parac_status parac_progress(parac_context *ctx, double fraction);

PARAC_END_DECLS

#endif
