/* Device arrays of other libraries (CuPy arrays, CUDA tensors, anything
 * that exports __cuda_array_interface__), read in C so that a call on one
 * costs no Python work before the launch. */
#ifndef PARAC_PY_CUDA_ARRAY_H
#define PARAC_PY_CUDA_ARRAY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

typedef struct py_cuda_array {
    uintptr_t address;
    int ndim;                 /* 2 (rows, columns) or 3 (slices, rows, columns) */
    long long shape[3], strides[3]; /* strides in bytes */
    int dtype;                /* a parac_dtype */
    int in_place;             /* rows after rows, slices after slices, positive steps */
    int has_stream;           /* the interface names the stream its data is ready on */
    unsigned long long stream;
} py_cuda_array;

/* The parac_dtype of an array-interface type string ("<f4", "|u1"), or -1. */
int parac_py_dtype_of_typestr(const char *typestr);

/* obj's __cuda_array_interface__ in *a; 0, 1 when obj has none, or -1 with
 * a Python exception
 * (TypeError for an element type parac does not take, ValueError for a
 * wrong number of dimensions or an empty array). `what` and `index` name the
 * array in messages ("input", 0 -> "input 1"), `op` the operation. */
int parac_py_cuda_array(PyObject *obj, py_cuda_array *a, const char *what, int index, const char *op);

#endif
