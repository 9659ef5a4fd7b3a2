/* A library status as a Python exception. See errors.h. */
#include "errors.h"

#include <string.h>

#include "parac/parac.h"

PyObject *parac_py_raise_status(parac_status st, const char *what)
{
    const char *msg = parac_error_message();
    PyObject *type = PyExc_RuntimeError;
    switch (st) {
    case PARAC_ERR_INVALID_ARGUMENT:
    case PARAC_ERR_OVERFLOW: type = PyExc_ValueError; break;
    case PARAC_ERR_OUT_OF_MEMORY: type = PyExc_MemoryError; break;
    case PARAC_ERR_IO:
    case PARAC_ERR_FORMAT: type = PyExc_OSError; break;
    case PARAC_ERR_UNSUPPORTED: type = PyExc_TypeError; break;
    default: break;
    }
    if (!msg || !*msg) msg = parac_status_string(st);
    const size_t n = strlen(what);
    if (strncmp(msg, what, n) == 0 && (msg[n] == ':' || strncmp(msg + n, " (method ", 9) == 0))
        PyErr_SetString(type, msg); /* it names the operation */
    else PyErr_Format(type, "%s: %s", what, msg);
    return NULL;
}
