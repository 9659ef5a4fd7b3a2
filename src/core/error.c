#include "error_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { MESSAGE_CAPACITY = 1024 };

static _Thread_local char last_message[MESSAGE_CAPACITY];

const char *parac_status_string(parac_status status)
{
    switch (status) {
    case PARAC_OK: return "success";
    case PARAC_ERR_INVALID_ARGUMENT: return "invalid argument";
    case PARAC_ERR_OUT_OF_MEMORY: return "out of memory";
    case PARAC_ERR_OVERFLOW: return "size overflow";
    case PARAC_ERR_IO: return "input/output error";
    case PARAC_ERR_FORMAT: return "bad file format";
    case PARAC_ERR_UNSUPPORTED: return "unsupported";
    case PARAC_ERR_NO_DEVICE: return "no such device";
    case PARAC_ERR_CUDA: return "CUDA error";
    case PARAC_ERR_OPENCL: return "OpenCL error";
    case PARAC_ERR_CANCELLED: return "cancelled";
    case PARAC_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

const char *parac_error_message(void) { return last_message; }

void parac_error_clear(void) { last_message[0] = '\0'; }

parac_status parac__fail(parac_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    return status;
}

parac_status parac__wrap(parac_status status, const char *fmt, ...)
{
    char previous[MESSAGE_CAPACITY];
    memcpy(previous, last_message, sizeof previous);
    char prefix[MESSAGE_CAPACITY];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    /* "label (method runs on cpu)" before "label: the input is f64": the
     * name once */
    const char *inner = previous;
    const size_t name = strcspn(prefix, " :");
    if (name && strncmp(previous, prefix, name) == 0 && previous[name] == ':' && previous[name + 1] == ' ')
        inner = previous + name + 2;
    if (previous[0])
        snprintf(last_message, sizeof last_message, "%.500s: %.500s", prefix, inner);
    else
        snprintf(last_message, sizeof last_message, "%.500s: %s", prefix,
                 parac_status_string(status));
    return status;
}
