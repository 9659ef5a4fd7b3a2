/* parac_args: an ordered list of name=value text pairs. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "error_internal.h"
#include "parac/op.h"

struct parac_args {
    int count, capacity;
    char **names;
    char **values;
};

parac_status parac_args_create(parac_args **out)
{
    *out = parac__calloc(1, sizeof **out);
    return *out ? PARAC_OK : parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
}

void parac_args_destroy(parac_args *args)
{
    if (!args) return;
    for (int i = 0; i < args->count; i++) {
        free(args->names[i]);
        free(args->values[i]);
    }
    free(args->names);
    free(args->values);
    free(args);
}

static char *dup_text(const char *s, size_t n)
{
    char *d = parac__malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

parac_status parac_args_set(parac_args *args, const char *name, const char *value)
{
    if (!args || !name || !*name || !value)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "parameter name or value is missing");
    char *v = dup_text(value, strlen(value));
    if (!v) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    for (int i = 0; i < args->count; i++)
        if (strcmp(args->names[i], name) == 0) {
            free(args->values[i]);
            args->values[i] = v;
            return PARAC_OK;
        }
    if (args->count == args->capacity) {
        int cap = args->capacity ? args->capacity * 2 : 8;
        char **n = parac__realloc(args->names, cap * sizeof *n);
        if (n) args->names = n;
        char **vv = parac__realloc(args->values, cap * sizeof *vv);
        if (vv) args->values = vv;
        if (!n || !vv) {
            free(v);
            return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
        }
        args->capacity = cap;
    }
    char *nm = dup_text(name, strlen(name));
    if (!nm) {
        free(v);
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    args->names[args->count] = nm;
    args->values[args->count] = v;
    args->count++;
    return PARAC_OK;
}

parac_status parac_args_set_number(parac_args *args, const char *name, double value)
{
    char text[40];
    snprintf(text, sizeof text, "%.17g", value);
    return parac_args_set(args, name, text);
}

parac_status parac_args_parse(parac_args *args, const char *text)
{
    const char *p = text ? text : "";
    while (*p) {
        while (isspace((unsigned char)*p)) p++;
        if (!*p) break;
        const char *start = p;
        while (*p && !isspace((unsigned char)*p)) p++;
        const char *eq = memchr(start, '=', (size_t)(p - start));
        if (!eq || eq == start)
            return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "expected name=value, got '%.*s'",
                               (int)(p - start), start);
        char *name = dup_text(start, (size_t)(eq - start));
        char *value = dup_text(eq + 1, (size_t)(p - eq - 1));
        parac_status st = name && value ? parac_args_set(args, name, value)
                                        : parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of memory");
        free(name);
        free(value);
        PARAC_TRY(st);
    }
    return PARAC_OK;
}

const char *parac_args_get(const parac_args *args, const char *name)
{
    if (!args) return NULL;
    for (int i = 0; i < args->count; i++)
        if (strcmp(args->names[i], name) == 0) return args->values[i];
    return NULL;
}

int parac_args_count(const parac_args *args) { return args ? args->count : 0; }

const char *parac_args_name_at(const parac_args *args, int index)
{
    return args && index >= 0 && index < args->count ? args->names[index] : NULL;
}
