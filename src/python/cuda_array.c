/* __cuda_array_interface__ (version 2 or 3) read in C. See cuda_array.h. */
#include "cuda_array.h"

#include <string.h>

#include "parac/parac.h"

int parac_py_dtype_of_typestr(const char *t)
{
    if (!t || strlen(t) != 3 || t[0] == '>') return -1;
    const int size = t[2] - '0';
    switch (t[1]) {
    case 'u': return size == 1 ? PARAC_U8 : size == 2 ? PARAC_U16 : -1;
    case 'b': return size == 1 ? PARAC_U8 : -1; /* bool: its bytes are 0 and 1 */
    case 'i': return size == 4 ? PARAC_I32 : size == 8 ? PARAC_I64 : -1;
    case 'f': return size == 4 ? PARAC_F32 : size == 8 ? PARAC_F64 : -1;
    default: return -1;
    }
}

/* A tuple of ndim integers into out; -1 with an exception. */
static int int_tuple(PyObject *t, int ndim, long long *out, const char *field)
{
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != ndim) {
        PyErr_Format(PyExc_ValueError, "__cuda_array_interface__: '%s' must be a tuple of %d integers", field, ndim);
        return -1;
    }
    for (int d = 0; d < ndim; d++) {
        out[d] = PyLong_AsLongLong(PyTuple_GET_ITEM(t, d));
        if (out[d] == -1 && PyErr_Occurred()) return -1;
    }
    return 0;
}

/* The interface's keys, made once: read on every call. */
enum { K_SHAPE, K_TYPESTR, K_DATA, K_STRIDES, K_MASK, K_STREAM, K_ATTRIBUTE, N_KEYS };
static const char *const key_text[N_KEYS] = {"shape", "typestr", "data", "strides", "mask", "stream",
                                             "__cuda_array_interface__"};
static PyObject *keys[N_KEYS];

static int make_keys(void)
{
    for (int k = 0; k < N_KEYS; k++)
        if (!keys[k] && !(keys[k] = PyUnicode_InternFromString(key_text[k]))) return -1;
    return 0;
}

/* dict[key], borrowed; NULL when absent (with no exception). */
static PyObject *optional(PyObject *dict, int key) { return PyDict_GetItem(dict, keys[key]); }

static PyObject *item(PyObject *dict, int key)
{
    PyObject *v = optional(dict, key);
    if (!v) PyErr_Format(PyExc_ValueError, "__cuda_array_interface__ has no '%s'", key_text[key]);
    return v;
}

static int read_interface(PyObject *cai, py_cuda_array *a, const char *what, int index, const char *op)
{
    if (!PyDict_Check(cai)) {
        PyErr_Format(PyExc_TypeError, "%s: %s %d: __cuda_array_interface__ is not a dict", op, what, index + 1);
        return -1;
    }
    PyObject *shape = item(cai, K_SHAPE), *typestr = item(cai, K_TYPESTR), *data = item(cai, K_DATA);
    if (!shape || !typestr || !data) return -1;
    const char *ts = PyUnicode_Check(typestr) ? PyUnicode_AsUTF8(typestr) : NULL;
    if (!ts) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "__cuda_array_interface__: 'typestr' is not a str");
        return -1;
    }
    a->dtype = parac_py_dtype_of_typestr(ts);
    if (a->dtype < 0) {
        PyErr_Format(PyExc_TypeError, "%s: %s %d has element type '%s'; parac takes uint8, uint16, int32, "
                     "float32, float64 or int64", op, what, index + 1, ts);
        return -1;
    }
    const Py_ssize_t nd = PyTuple_Check(shape) ? PyTuple_GET_SIZE(shape) : -1;
    if (nd != 2 && nd != 3) {
        PyErr_Format(PyExc_ValueError, "%s: %s %d has %zd dimensions; parac takes 2 (rows, columns) or 3 "
                     "(slices, rows, columns)", op, what, index + 1, nd);
        return -1;
    }
    a->ndim = (int)nd;
    if (int_tuple(shape, a->ndim, a->shape, "shape") != 0) return -1;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] <= 0) {
            PyErr_Format(PyExc_ValueError, "%s: %s %d: an empty array", op, what, index + 1);
            return -1;
        }
    if (!PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2) {
        PyErr_SetString(PyExc_ValueError, "__cuda_array_interface__: 'data' must be (address, read_only)");
        return -1;
    }
    a->address = (uintptr_t)PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(data, 0));
    if (PyErr_Occurred()) return -1;
    PyObject *mask = optional(cai, K_MASK);
    if (mask && mask != Py_None) {
        PyErr_Format(PyExc_ValueError, "%s: %s %d: masked device arrays are not supported", op, what, index + 1);
        return -1;
    }
    const long long itemsize = ts[2] - '0';
    PyObject *strides = optional(cai, K_STRIDES);
    if (strides && strides != Py_None) {
        if (int_tuple(strides, a->ndim, a->strides, "strides") != 0) return -1;
    } else { /* C-contiguous */
        long long step = itemsize;
        for (int d = a->ndim - 1; d >= 0; d--) {
            a->strides[d] = step;
            step *= a->shape[d];
        }
    }
    /* an axis of one element has no step of its own: give it the packed one */
    for (int d = a->ndim - 1; d >= 0; d--)
        if (a->shape[d] == 1) a->strides[d] = d == a->ndim - 1 ? itemsize : a->strides[d + 1] * a->shape[d + 1];
    const long long *st = a->strides, *sh = a->shape;
    const int n = a->ndim;
    a->in_place = st[n - 1] >= itemsize && st[n - 2] > 0 && st[n - 1] * sh[n - 1] <= st[n - 2] &&
                  (n == 2 || (st[0] > 0 && st[1] * sh[1] <= st[0]));
    PyObject *stream = optional(cai, K_STREAM);
    a->has_stream = stream && stream != Py_None;
    a->stream = 0;
    if (a->has_stream) {
        a->stream = PyLong_AsUnsignedLongLong(stream);
        if (PyErr_Occurred()) return -1;
    }
    return 0;
}

int parac_py_cuda_array(PyObject *obj, py_cuda_array *a, const char *what, int index, const char *op)
{
    if (make_keys() != 0) return -1;
    PyObject *cai = PyObject_GetAttr(obj, keys[K_ATTRIBUTE]);
    if (!cai) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
        PyErr_Clear();
        return 1;
    }
    const int r = read_interface(cai, a, what, index, op);
    Py_DECREF(cai);
    return r;
}
