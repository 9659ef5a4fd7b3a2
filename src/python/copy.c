/* copy_bytes: a host buffer (NumPy) to device memory (a CuPy array's,
 * C-contiguous) or back, through parac_image_copy and so through the staged
 * copies of src/cuda/staged_copy.c.
 *
 * Why: CuPy's own copies between pageable memory and a GPU run at the
 * driver's pageable rate (9 GB/s to an H200, bench/RESULTS.md); a Dask worker
 * that moves each host chunk to its GPU and its result back spends most of a
 * chunk's time there. A C-contiguous buffer is described as rows of
 * ROW_BYTES (and one shorter row for the rest) so that the staging splits
 * them into pieces. A strided one of 2 or 3 axes whose last axis is
 * contiguous (a chunk of dask.array.from_array over a larger NumPy array) is
 * copied as its rows, each at its own place: no packed copy on the host
 * first, which cost a 32768² image's chunks a quarter of a second. */
#include "copy.h"

#include <stdint.h>

#include "errors.h"
#include "parac/parac.h"

#define ROW_BYTES ((int64_t)1 << 20)

/* The rows of a strided buffer: its last axis contiguous, the others apart
 * by positive pitches that keep rows and planes from overlapping. */
static int strided_rows(const Py_buffer *v, int64_t *row_bytes, int64_t *rows, int64_t *planes, int64_t *row_pitch,
                        int64_t *plane_pitch)
{
    if (v->ndim < 2 || v->ndim > 3 || !v->strides || v->strides[v->ndim - 1] != v->itemsize) return 0;
    const int r = v->ndim - 2;
    *row_bytes = (int64_t)v->shape[r + 1] * v->itemsize;
    *rows = v->shape[r];
    *row_pitch = v->strides[r];
    *planes = v->ndim == 3 ? v->shape[0] : 1;
    *plane_pitch = v->ndim == 3 ? v->strides[0] : *row_pitch * *rows;
    return *row_pitch >= *row_bytes && *plane_pitch >= *row_pitch * *rows;
}

/* planes x rows of row_bytes at host (rows and planes at the given pitches) and at dev
 * (packed), one way. */
static parac_status copy_pitched(char *host, int64_t row_pitch, int64_t plane_pitch, uintptr_t dev, int device,
                                 int64_t row_bytes, int64_t rows, int64_t planes, int to_device, void *stream)
{
    parac_image *h = NULL, *d = NULL;
    parac_status st = parac_image_wrap(&h, host, row_bytes, rows, planes, 1, PARAC_U8, 1, row_pitch, plane_pitch,
                                       PARAC_MEMORY_HOST, -1);
    if (st == PARAC_OK)
        st = parac_image_wrap(&d, (void *)dev, row_bytes, rows, planes, 1, PARAC_U8, 1, row_bytes, row_bytes * rows,
                              PARAC_MEMORY_CUDA, device);
    if (st == PARAC_OK) st = to_device ? parac_image_copy(d, h, stream) : parac_image_copy(h, d, stream);
    parac_image_destroy(h);
    parac_image_destroy(d);
    return st;
}

PyObject *parac_py_copy_bytes(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *obj;
    unsigned long long address, stream = 0;
    int device, to_device;
    if (!PyArg_ParseTuple(args, "OKip|K", &obj, &address, &device, &to_device, &stream)) return NULL;
    Py_buffer v;
    if (PyObject_GetBuffer(obj, &v, PyBUF_STRIDES | (to_device ? 0 : PyBUF_WRITABLE)) != 0) return NULL;
    parac_status st = PARAC_OK;
    if (v.len > 0 && address == 0) {
        PyBuffer_Release(&v);
        PyErr_SetString(PyExc_ValueError, "copy_bytes: a device address of 0");
        return NULL;
    }
    const int contiguous = PyBuffer_IsContiguous(&v, 'C');
    int64_t row_bytes = 0, rows = 0, planes = 0, row_pitch = 0, plane_pitch = 0;
    if (!contiguous && !strided_rows(&v, &row_bytes, &rows, &planes, &row_pitch, &plane_pitch)) {
        PyBuffer_Release(&v);
        PyErr_SetString(PyExc_ValueError, "copy_bytes: the host buffer is neither C-contiguous nor rows of a "
                                          "contiguous last axis at positive pitches (2 or 3 axes)");
        return NULL;
    }
    char *host = v.buf;
    void *s = (void *)(uintptr_t)stream;
    if (contiguous) {
        const int64_t n = (int64_t)v.len, pieces = n / ROW_BYTES, rest = n % ROW_BYTES;
        Py_BEGIN_ALLOW_THREADS
        if (pieces > 0)
            st = copy_pitched(host, ROW_BYTES, ROW_BYTES * pieces, (uintptr_t)address, device, ROW_BYTES, pieces, 1,
                              to_device, s);
        if (st == PARAC_OK && rest > 0)
            st = copy_pitched(host + pieces * ROW_BYTES, rest, rest, (uintptr_t)address + (uintptr_t)(pieces * ROW_BYTES),
                              device, rest, 1, 1, to_device, s);
        Py_END_ALLOW_THREADS
    } else if (row_bytes > 0 && rows > 0 && planes > 0) {
        Py_BEGIN_ALLOW_THREADS
        st = copy_pitched(host, row_pitch, plane_pitch, (uintptr_t)address, device, row_bytes, rows, planes,
                          to_device, s);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&v);
    if (st != PARAC_OK) return parac_py_raise_status(st, "copy_bytes");
    Py_RETURN_NONE;
}

PyObject *parac_py_set_copy_threads(PyObject *self, PyObject *args)
{
    (void)self;
    int threads;
    if (!PyArg_ParseTuple(args, "i", &threads)) return NULL;
    const int before = parac_copy_threads();
    parac_set_copy_threads(threads);
    return PyLong_FromLong(before);
}
