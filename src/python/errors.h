/* A library status as a Python exception of the matching type. */
#ifndef PARAC_PY_ERRORS_H
#define PARAC_PY_ERRORS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "parac/status.h"

/* Sets the exception for st (the library's message, prefixed with `what`
 * unless it names it already) and returns NULL. */
PyObject *parac_py_raise_status(parac_status st, const char *what);

#endif
