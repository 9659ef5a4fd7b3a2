/* copy_bytes: a C-contiguous host buffer (NumPy) to device memory (a CuPy
 * array's) or back, through parac_image_copy and so through the staged
 * copies of src/cuda/staged_copy.c.
 *
 * Why: CuPy's own copies between pageable memory and a GPU run at the
 * driver's pageable rate (9 GB/s to an H200, bench/RESULTS.md); a Dask worker
 * that moves each host chunk to its GPU and its result back spends most of a
 * chunk's time there. The bytes are described as rows of ROW_BYTES (and one
 * shorter row for the rest) so that the staging splits them into pieces. */
#include "copy.h"

#include <stdint.h>

#include "errors.h"
#include "parac/parac.h"

#define ROW_BYTES ((int64_t)1 << 20)

/* rows x width bytes at host and at dev, copied one way. */
static parac_status copy_rect(char *host, uintptr_t dev, int device, int64_t width, int64_t rows, int to_device,
                              void *stream)
{
    parac_image *h = NULL, *d = NULL;
    parac_status st = parac_image_wrap(&h, host, width, rows, 1, 1, PARAC_U8, 1, width, width * rows,
                                       PARAC_MEMORY_HOST, -1);
    if (st == PARAC_OK)
        st = parac_image_wrap(&d, (void *)dev, width, rows, 1, 1, PARAC_U8, 1, width, width * rows,
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
    if (PyObject_GetBuffer(obj, &v, PyBUF_C_CONTIGUOUS | (to_device ? 0 : PyBUF_WRITABLE)) != 0) return NULL;
    parac_status st = PARAC_OK;
    if (v.len > 0 && address == 0) {
        PyBuffer_Release(&v);
        PyErr_SetString(PyExc_ValueError, "copy_bytes: a device address of 0");
        return NULL;
    }
    const int64_t n = (int64_t)v.len, rows = n / ROW_BYTES, rest = n % ROW_BYTES;
    char *host = v.buf;
    void *s = (void *)(uintptr_t)stream;
    Py_BEGIN_ALLOW_THREADS
    if (rows > 0) st = copy_rect(host, (uintptr_t)address, device, ROW_BYTES, rows, to_device, s);
    if (st == PARAC_OK && rest > 0)
        st = copy_rect(host + rows * ROW_BYTES, (uintptr_t)address + (uintptr_t)(rows * ROW_BYTES), device, rest, 1,
                       to_device, s);
    Py_END_ALLOW_THREADS
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
