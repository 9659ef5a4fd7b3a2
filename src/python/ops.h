/* parac._parac.ops() (ops.c). */
#ifndef PARAC_PYTHON_OPS_H
#define PARAC_PYTHON_OPS_H

#include <Python.h>

/* Every registry operation as a dict: name, summary, description, usage,
 * n_inputs, n_outputs, params (name, type, default, choices, min, max,
 * help), methods (name, backend, help), results (names). */
PyObject *parac_py_ops(PyObject *self, PyObject *unused);

#endif
