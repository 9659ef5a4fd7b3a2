/* Copies between host buffers and device memory for the Python package's
 * Dask layer, through the library's pipelined pinned staging. */
#ifndef PARAC_PY_COPY_H
#define PARAC_PY_COPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* copy_bytes(host, address, device, to_device, stream=0): see copy.c. */
PyObject *parac_py_copy_bytes(PyObject *self, PyObject *args);
/* set_copy_threads(n) -> the value before: parac_set_copy_threads. */
PyObject *parac_py_set_copy_threads(PyObject *self, PyObject *args);

#endif
