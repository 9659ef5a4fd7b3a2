/* Operation parameters decoded once: text (the command line, batch mode,
 * Python) or typed values (the C functions) into the operation's parameter
 * struct, checked against its table (types, ranges, choices, required),
 * defaults filled in. Operations read the struct and never parse text. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error_internal.h"
#include "registry_internal.h"

static parac_status parse_bool(const char *t, int *v)
{
    static const char *yes[] = {"1", "true", "yes", "on"}, *no[] = {"0", "false", "no", "off"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(t, yes[i]) == 0) return *v = 1, PARAC_OK;
        if (strcasecmp(t, no[i]) == 0) return *v = 0, PARAC_OK;
    }
    return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "'%s' is not a boolean (true/false)", t);
}

static parac_status parse_int(const char *t, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(t, &end, 10);
    if (errno || end == t || *end) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "'%s' is not an integer", t);
    *v = x;
    return PARAC_OK;
}

static parac_status parse_double(const char *t, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(t, &end);
    if (errno || end == t || *end || !isfinite(x))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "'%s' is not a finite number", t);
    *v = x;
    return PARAC_OK;
}

/* The position of `item` (n bytes) in the '|' separated list, or -1. */
static int position_in(const char *list, const char *item, size_t n)
{
    int k = 0;
    for (const char *p = list; p && *p; k++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, item, n) == 0) return k;
        p = bar ? bar + 1 : NULL;
    }
    return -1;
}

static int count_in(const char *list)
{
    int k = list && *list ? 1 : 0;
    for (const char *p = list; p && *p; p++) k += *p == '|';
    return k;
}

int parac__choice_index(const char *choices, const char *choice)
{
    return position_in(choices, choice, strlen(choice));
}

static int64_t int_field(const parac_param_spec *s, const void *params)
{
    const char *f = (const char *)params + s->offset;
    if (s->size == sizeof(int)) {
        int v;
        memcpy(&v, f, sizeof v);
        return v;
    }
    int64_t v;
    memcpy(&v, f, sizeof v);
    return v;
}

static void set_int(const parac_param_spec *s, void *params, int64_t v)
{
    char *f = (char *)params + s->offset;
    if (s->size == sizeof(int)) {
        int i = (int)v;
        memcpy(f, &i, sizeof i);
    } else {
        memcpy(f, &v, sizeof v);
    }
}

static double double_field(const parac_param_spec *s, const void *params)
{
    double v;
    memcpy(&v, (const char *)params + s->offset, sizeof v);
    return v;
}

static const char *text_field(const parac_param_spec *s, const void *params)
{
    const char *v;
    memcpy(&v, (const char *)params + s->offset, sizeof v);
    return v;
}

parac_status parac__param_layout_check(const parac_op *op)
{
    if (op->n_params > 64) return parac__fail(PARAC_ERR_INTERNAL, "%s: more than 64 parameters", op->name);
    for (int i = 0; i < op->n_params; i++) {
        const parac_param_spec *s = &op->params[i];
        size_t want = 0;
        switch (s->type) {
        case PARAC_PARAM_BOOL:
        case PARAC_PARAM_CHOICE: want = sizeof(int); break;
        case PARAC_PARAM_INT:
            want = s->size == sizeof(int) && s->min < s->max && s->min >= INT_MIN && s->max <= INT_MAX
                       ? sizeof(int) : sizeof(int64_t);
            break;
        case PARAC_PARAM_DOUBLE: want = sizeof(double); break;
        case PARAC_PARAM_STRING:
        case PARAC_PARAM_PATH:
        case PARAC_PARAM_LIST: want = sizeof(const char *); break;
        }
        if (s->size != want || s->offset + s->size > op->params_size)
            return parac__fail(PARAC_ERR_INTERNAL, "%s: parameter '%s' has a field of %zu bytes at %zu in a struct "
                               "of %zu; its type needs %zu", op->name, s->name, s->size, s->offset,
                               op->params_size, want);
        if (s->type == PARAC_PARAM_CHOICE && count_in(s->choices) < 1)
            return parac__fail(PARAC_ERR_INTERNAL, "%s: choice parameter '%s' lists no choices", op->name, s->name);
    }
    return PARAC_OK;
}

/* The typed value of one field against the table. */
static parac_status check_field(const parac_op *op, const parac_param_spec *s, const void *params)
{
    parac_status st = PARAC_OK;
    double x = 0;
    switch (s->type) {
    case PARAC_PARAM_BOOL: {
        const int64_t b = int_field(s, params);
        if (b != 0 && b != 1) st = parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%lld is not a boolean (0 or 1)", (long long)b);
        break;
    }
    case PARAC_PARAM_INT: {
        const int64_t v = int_field(s, params);
        x = (double)v;
        if (s->choices) {
            char text[24];
            const int n = snprintf(text, sizeof text, "%lld", (long long)v);
            if (position_in(s->choices, text, (size_t)n) < 0)
                st = parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%lld is not one of %s", (long long)v, s->choices);
        }
        break;
    }
    case PARAC_PARAM_DOUBLE:
        x = double_field(s, params);
        if (!isfinite(x)) st = parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%g is not a finite number", x);
        break;
    case PARAC_PARAM_CHOICE: {
        const int64_t k = int_field(s, params);
        if (k < 0 || k >= count_in(s->choices))
            st = parac__fail(PARAC_ERR_INVALID_ARGUMENT, "choice %lld is not a position in %s", (long long)k, s->choices);
        break;
    }
    case PARAC_PARAM_STRING:
    case PARAC_PARAM_PATH:
    case PARAC_PARAM_LIST: {
        const char *t = text_field(s, params);
        if (!t || !*t) st = parac__fail(PARAC_ERR_INVALID_ARGUMENT, "empty value");
        break;
    }
    }
    if (st == PARAC_OK && (s->type == PARAC_PARAM_INT || s->type == PARAC_PARAM_DOUBLE) && s->min < s->max &&
        (x < s->min || x > s->max))
        st = parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%.17g is outside %g..%g", x, s->min, s->max);
    if (st != PARAC_OK) return parac__wrap(st, "%s: parameter '%s'", op->name, s->name);
    return PARAC_OK;
}

/* Text into the field; the text itself is kept by the caller. */
static parac_status decode_text(const parac_op *op, const parac_param_spec *s, const char *v, void *params)
{
    parac_status st = PARAC_OK;
    char *f = (char *)params + s->offset;
    switch (s->type) {
    case PARAC_PARAM_BOOL: {
        int b = 0;
        if ((st = parse_bool(v, &b)) == PARAC_OK) set_int(s, params, b);
        break;
    }
    case PARAC_PARAM_INT: {
        int64_t i = 0;
        if ((st = parse_int(v, &i)) == PARAC_OK) {
            /* an int field's range is within int's (parac__param_layout_check) */
            if (s->size == sizeof(int) && (i < s->min || i > s->max))
                st = parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s is outside %g..%g", v, s->min, s->max);
            else set_int(s, params, i);
        }
        break;
    }
    case PARAC_PARAM_DOUBLE: {
        double d = 0;
        if ((st = parse_double(v, &d)) == PARAC_OK) memcpy(f, &d, sizeof d);
        break;
    }
    case PARAC_PARAM_CHOICE: {
        const int k = parac__choice_index(s->choices, v);
        if (k < 0) st = parac__fail(PARAC_ERR_INVALID_ARGUMENT, "'%s' is not one of %s", v, s->choices);
        else set_int(s, params, k);
        break;
    }
    case PARAC_PARAM_STRING:
    case PARAC_PARAM_PATH:
    case PARAC_PARAM_LIST: memcpy(f, &v, sizeof v); break;
    }
    if (st != PARAC_OK) return parac__wrap(st, "%s: parameter '%s'", op->name, s->name);
    return check_field(op, s, params);
}

static int spec_index(const parac_op *op, const char *name)
{
    for (int i = 0; i < op->n_params; i++)
        if (strcmp(op->params[i].name, name) == 0) return i;
    return -1;
}

uint64_t parac__param_bit(const parac_op *op, const char *name)
{
    const int i = spec_index(op, name);
    return i < 0 ? 0 : (uint64_t)1 << i;
}

/* Fields neither given nor defaulted are zeroed; defaults decoded; required
 * ones present. */
static parac_status complete(const parac_op *op, void *params, uint64_t *set)
{
    for (int i = 0; i < op->n_params; i++) {
        const parac_param_spec *s = &op->params[i];
        if (*set >> i & 1) continue;
        if (s->required) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: --%s is required", op->name, s->name);
        memset((char *)params + s->offset, 0, s->size);
        if (!s->default_value) continue;
        PARAC_TRY(decode_text(op, s, s->default_value, params));
        *set |= (uint64_t)1 << i;
    }
    return PARAC_OK;
}

parac_status parac__params_from_text(const parac_op *op, const parac_args *args, void *params, uint64_t *set,
                                     const char **method)
{
    *set = 0;
    *method = "auto";
    memset(params, 0, op->params_size);
    for (int i = 0; i < parac_args_count(args); i++) {
        const char *n = parac_args_name_at(args, i);
        const char *v = parac_args_get(args, n);
        if (strcmp(n, "method") == 0 && op->n_methods > 0) {
            *method = v;
            continue;
        }
        const int k = spec_index(op, n);
        if (k < 0)
            return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: unknown parameter '%s' (see 'parac %s --help')",
                               op->name, n, op->name);
        PARAC_TRY(decode_text(op, &op->params[k], v, params));
        *set |= (uint64_t)1 << k;
    }
    return complete(op, params, set);
}

parac_status parac__params_check(const parac_op *op, void *params, uint64_t *set)
{
    for (int i = 0; i < op->n_params; i++)
        if (*set >> i & 1) PARAC_TRY(check_field(op, &op->params[i], params));
    return complete(op, params, set);
}

int parac_call_has(const parac_op_call *call, const char *name)
{
    const int i = spec_index(call->op, name);
    return i >= 0 && (call->params_set >> i & 1);
}
