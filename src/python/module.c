/* parac._parac: the CPython extension under the `parac` package.
 *
 * Three functions, all driven by the operation registry, so that a new
 * operation needs no binding of its own:
 *   ops()  describes every registry operation (name, help, inputs, outputs,
 *          typed parameters with defaults and ranges, methods); the package
 *          builds its Python functions and docstrings from it;
 *   run(name, inputs, params, device, stream=0, keep_device=False, out=None,
 *       explain=True, channels_last=False)
 *          runs one operation: inputs are objects with the buffer protocol (NumPy
 *          arrays), used in place through their strides, no copy, or device
 *          arrays described as ("cuda", address, shape, strides, typestr,
 *          device) (what CuPy and PyTorch export), also used in place; with
 *          channels_last their last axis holds 1-4 interleaved channels;
 *          params a dict of text values; the GIL is released while the
 *          operation runs, on `stream` when given (the caller's CUDA stream);
 *          out: None, or a tuple with, per output, None, a device array's
 *          descriptor (as inputs give it) or a writable host
 *          array that receives it (parac_op_run_into: computed in it where
 *          the operation can, else copied in; its entry in the result is None).
 *          It returns, per output, an Image (the library's host image, which
 *          NumPy views through the buffer protocol without a copy), the
 *          shape and the dtype name; with keep_device, an output in device
 *          memory stays there: ("cuda", owner, address, shape, strides,
 *          dtype, device), where `owner` frees it when it is collected.
 *          Inputs may also be objects that export __cuda_array_interface__,
 *          read in C; explain=False skips the account of the choice.
 *   call(name, arrays, kwargs, stream=None)
 *          the package's path for CUDA arrays (CuPy arrays, CUDA tensors):
 *          their interface read in C, keyword arguments by their Python
 *          names and values, the device and stream taken from the arrays,
 *          outputs kept on the device; NotImplemented sends what it does not
 *          take (a reversed view, a list value) to the general path.
 * read(path, layout) and write(path, array, channels, ...) are the library's
 * image readers and writers (parac.imread, parac.imwrite).
 * Errors become exceptions carrying the library's message: ValueError for
 * bad arguments, TypeError for unsupported element types, MemoryError,
 * OSError for files, RuntimeError for device failures. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "copy.h"
#include "cuda_array.h"
#include "errors.h"
#include "ops.h"
#include "parac/parac.h"

/* The addresses of the last run's inputs on this thread, as handed to the
 * library: the package's tests check that arrays are used in place. */
static _Thread_local uintptr_t last_inputs[8];
static _Thread_local int n_last_inputs;

/* transfers() -> (to_device, to_host, bytes): the library's host <-> device
 * image copies since the process started (parac_image_transfer_counts). */
static PyObject *py_transfers(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    uint64_t up = 0, down = 0, bytes = 0;
    parac_image_transfer_counts(&up, &down, &bytes);
    return Py_BuildValue("(KKK)", (unsigned long long)up, (unsigned long long)down, (unsigned long long)bytes);
}

static PyObject *py_last_inputs(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    PyObject *t = PyTuple_New(n_last_inputs);
    for (int i = 0; t && i < n_last_inputs; i++) {
        PyObject *v = PyLong_FromSize_t((size_t)last_inputs[i]);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

/* The dtype of a buffer's format, or -1. */
static int dtype_of(const Py_buffer *v)
{
    const char *f = v->format ? v->format : "B";
    if (*f == '@' || *f == '=' || *f == '<') f++; /* native, little-endian hosts only */
    if (f[0] == 0 || f[1] != 0) return -1;
    switch (f[0]) {
    case 'B':
    case '?': return v->itemsize == 1 ? PARAC_U8 : -1; /* bool: its bytes are 0 and 1 */
    case 'H': return v->itemsize == 2 ? PARAC_U16 : -1;
    case 'i':
    case 'l':
    case 'q': return v->itemsize == 4 ? PARAC_I32 : v->itemsize == 8 ? PARAC_I64 : -1;
    case 'f': return v->itemsize == 4 ? PARAC_F32 : -1;
    case 'd': return v->itemsize == 8 ? PARAC_F64 : -1;
    default: return -1;
    }
}

typedef struct run_state {
    int n_in, n_out;
    Py_buffer views[16];
    int n_views;
    parac_image *in[8], *out[8], *given[8]; /* given: the caller's arrays to write into */
    parac_context *ctx;
    parac_args *args;
    int not_in_place;          /* a CUDA array whose layout the library cannot read in place */
    int cuda_device;           /* the device of the first CUDA array, or -1 */
    int has_stream;            /* the first CUDA array's interface names its stream */
    unsigned long long stream; /* that stream */
    int channels_last;         /* host arrays and device tuples end with an axis of 1-4 channels */
} run_state;

static void run_state_free(run_state *s)
{
    for (int i = 0; i < s->n_views; i++) PyBuffer_Release(&s->views[i]);
    for (int i = 0; i < 8; i++) {
        parac_image_destroy(s->in[i]);
        if (s->out[i] != s->given[i]) parac_image_destroy(s->out[i]);
        parac_image_destroy(s->given[i]); /* the wrapper only: the array stays the caller's */
    }
    parac_args_destroy(s->args);
}

/* Contexts are kept per thread and device name: creating one for a CUDA
 * device (a stream, the device's properties) costs far more than a small
 * operation. A thread's contexts live as long as the process. */
enum { CACHED_CONTEXTS = 8 };
static _Thread_local struct {
    char device[64];
    parac_context *ctx;
} contexts[CACHED_CONTEXTS];

static parac_status cached_context(const char *device, parac_context **out)
{
    const char *key = device ? device : "";
    for (int i = 0; i < CACHED_CONTEXTS && contexts[i].ctx; i++)
        if (strcmp(contexts[i].device, key) == 0) {
            *out = contexts[i].ctx;
            return PARAC_OK;
        }
    parac_status st = parac_context_create(out, device);
    if (st != PARAC_OK || strlen(key) >= sizeof contexts[0].device) return st;
    for (int i = 0; i < CACHED_CONTEXTS; i++)
        if (!contexts[i].ctx) {
            snprintf(contexts[i].device, sizeof contexts[i].device, "%s", key);
            contexts[i].ctx = *out;
            return PARAC_OK;
        }
    return st; /* the cache is full: this one is the caller's (not cached) */
}

static int is_cached(const parac_context *ctx)
{
    for (int i = 0; i < CACHED_CONTEXTS; i++)
        if (contexts[i].ctx == ctx) return 1;
    return 0;
}

/* An array of 2 (rows, columns) or 3 (slices, rows, columns) dimensions,
 * strides in bytes, as a wrapped one-channel image; with channels_last one
 * more axis, of 1-4 interleaved channels (adjacent elements), at the end.
 * -1 with an exception. */
static int wrap_array(parac_image **img, void *data, int nd, const long long *shape, const long long *strides,
                      int dtype, parac_memory memory, int device, const char *op, int channels_last)
{
    int channels = 1;
    if (channels_last) {
        channels = (int)shape[nd - 1];
        nd--;
        if (channels < 1 || channels > 4 || strides[nd] != (long long)parac_dtype_size((parac_dtype)dtype)) {
            PyErr_Format(PyExc_ValueError, "%s: the channel axis (last) has %d entries of stride %lld bytes; parac "
                         "takes 1-4 adjacent channels", op, channels, strides[nd]);
            return -1;
        }
    }
    const int64_t w = shape[nd - 1], h = shape[nd - 2], depth = nd == 3 ? shape[0] : 1;
    const int64_t ps = strides[nd - 1], rp = strides[nd - 2], sp = nd == 3 ? strides[0] : rp * h;
    const parac_status st = parac_image_wrap(img, data, w, h, depth, channels, (parac_dtype)dtype, ps, rp, sp, memory,
                                             device);
    if (st != PARAC_OK) {
        parac_py_raise_status(st, op);
        return -1;
    }
    return 0;
}

/* A device array ("cuda", address, shape, strides, typestr, device) as a
 * wrapped image, no copy; `what` names it in messages ("input", "output"). */
static int wrap_device(PyObject *t, parac_image **img, const char *what, int index, const char *op, int channels_last)
{
    unsigned long long addr;
    PyObject *shape, *strides;
    const char *kind, *typestr;
    int device;
    if (!PyArg_ParseTuple(t, "sKO!O!si", &kind, &addr, &PyTuple_Type, &shape, &PyTuple_Type, &strides, &typestr,
                          &device))
        return -1;
    const int dt = parac_py_dtype_of_typestr(typestr);
    if (dt < 0) {
        PyErr_Format(PyExc_TypeError, "%s: %s %d has element type '%s'; parac takes uint8, uint16, int32, "
                     "float32, float64 or int64", op, what, index + 1, typestr);
        return -1;
    }
    const Py_ssize_t nd = PyTuple_GET_SIZE(shape), spatial = nd - (channels_last ? 1 : 0);
    if ((spatial != 2 && spatial != 3) || PyTuple_GET_SIZE(strides) != nd) {
        PyErr_Format(PyExc_ValueError, "%s: %s %d has %zd dimensions; parac takes 2 (rows, columns) or 3 "
                     "(slices, rows, columns)%s", op, what, index + 1, nd, channels_last ? " and channels" : "");
        return -1;
    }
    long long sh[4], st[4];
    for (Py_ssize_t d = 0; d < nd; d++) {
        sh[d] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, d));
        st[d] = PyLong_AsLongLong(PyTuple_GET_ITEM(strides, d));
        if (PyErr_Occurred()) return -1;
        if (sh[d] <= 0 || st[d] <= 0) {
            PyErr_Format(PyExc_ValueError, "%s: %s %d: %s", op, what, index + 1,
                         sh[d] <= 0 ? "an empty array" : "negative strides (the package copies such views)");
            return -1;
        }
    }
    return wrap_array(img, (void *)(uintptr_t)addr, (int)nd, sh, st, dt, PARAC_MEMORY_CUDA, device, op, channels_last);
}

static int wrap_device_input(run_state *s, PyObject *t, int index, const char *op)
{
    if (wrap_device(t, &s->in[index], "input", index, op, s->channels_last) != 0) return -1;
    last_inputs[index] = (uintptr_t)s->in[index]->data;
    n_last_inputs = index + 1;
    return 0;
}

/* An input array as a wrapped image (no copy); 2D arrays are images (rows,
 * columns), 3D arrays volumes (slices, rows, columns). */
/* A host array (the buffer protocol) as a wrapped image, no copy: 2D arrays
 * are images (rows, columns), 3D arrays volumes (slices, rows, columns).
 * `what` names it in messages ("input", "output"); outputs must be writable. */
static int wrap_host(run_state *s, PyObject *obj, parac_image **img, int writable, const char *what, int index,
                     const char *op)
{
    Py_buffer *v = &s->views[s->n_views];
    if (PyObject_GetBuffer(obj, v, PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) != 0) return -1;
    s->n_views++;
    const int dt = dtype_of(v);
    if (dt < 0) {
        PyErr_Format(PyExc_TypeError, "%s: %s %d has element type '%s'; parac takes uint8, uint16, int32, "
                     "float32, float64 or int64", op, what, index + 1, v->format ? v->format : "B");
        return -1;
    }
    const int spatial = v->ndim - (s->channels_last ? 1 : 0);
    if (spatial != 2 && spatial != 3) {
        PyErr_Format(PyExc_ValueError, "%s: %s %d has %d dimensions; parac takes 2 (rows, columns) or 3 "
                     "(slices, rows, columns)%s", op, what, index + 1, v->ndim, s->channels_last ? " and channels" : "");
        return -1;
    }
    for (int d = 0; d < v->ndim; d++)
        if (v->strides[d] < 0 || v->shape[d] == 0) {
            PyErr_Format(PyExc_ValueError, "%s: %s %d: %s", op, what, index + 1,
                         v->shape[d] == 0 ? "an empty array" : "negative strides (the package copies such views)");
            return -1;
        }
    long long shape[4], strides[4];
    for (int d = 0; d < v->ndim; d++) shape[d] = v->shape[d], strides[d] = v->strides[d];
    return wrap_array(img, v->buf, v->ndim, shape, strides, dt, PARAC_MEMORY_HOST, -1, op, s->channels_last);
}

/* An object that exports __cuda_array_interface__ as a wrapped image, no
 * copy. A layout the library cannot read in place (negative steps,
 * transposed) sets s->not_in_place and wraps nothing: the caller copies. */
static int wrap_cuda_array(run_state *s, PyObject *obj, parac_image **img, const char *what, int index,
                           const char *op)
{
    py_cuda_array a;
    const int r = parac_py_cuda_array(obj, &a, what, index, op);
    if (r != 0) return r; /* 1: no interface */
    if (!a.in_place) {
        s->not_in_place = 1;
        return 0;
    }
    int device = -1;
    parac_status st = parac_cuda_pointer_device((const void *)a.address, &device);
    if (st != PARAC_OK) {
        parac_py_raise_status(st, op);
        return -1;
    }
    if (wrap_array(img, (void *)a.address, a.ndim, a.shape, a.strides, a.dtype, PARAC_MEMORY_CUDA, device, op, 0) != 0)
        return -1;
    if (s->cuda_device < 0) {
        s->cuda_device = device;
        s->has_stream = a.has_stream;
        s->stream = a.stream;
    }
    return 0;
}

/* An input: a device array's descriptor tuple, a CUDA array (its
 * interface) or a host array (the buffer protocol). With cuda_first the
 * interface is looked for first (a CuPy array has a buffer protocol that
 * only refuses); else only where there is no buffer protocol. */
static int wrap_input(run_state *s, PyObject *obj, int index, const char *op, int cuda_first)
{
    if (PyTuple_Check(obj)) return wrap_device_input(s, obj, index, op);
    int r = cuda_first || !PyObject_CheckBuffer(obj) ? wrap_cuda_array(s, obj, &s->in[index], "input", index, op) : 1;
    if (r == 1 && !PyObject_CheckBuffer(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: input %d (of type %s) is neither a host array (buffer protocol) nor "
                     "a CUDA array (__cuda_array_interface__)", op, index + 1, Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (r == 1) r = wrap_host(s, obj, &s->in[index], 0, "input", index, op);
    if (r != 0) return -1;
    if (s->not_in_place) return 0;
    last_inputs[index] = (uintptr_t)s->in[index]->data;
    n_last_inputs = index + 1;
    return 0;
}

static void free_image_capsule(PyObject *capsule)
{
    parac_image_destroy(PyCapsule_GetPointer(capsule, "parac.image"));
}

/* (z, y, x) or (y, x) of an image, and c after them where it has more than
 * one channel (as host outputs have their axes). */
static PyObject *dims_tuple(const parac_image *img, int64_t x, int64_t y, int64_t z, int64_t c)
{
    if (img->channels > 1)
        return img->depth > 1 ? Py_BuildValue("(LLLL)", (long long)z, (long long)y, (long long)x, (long long)c)
                              : Py_BuildValue("(LLL)", (long long)y, (long long)x, (long long)c);
    return img->depth > 1 ? Py_BuildValue("(LLL)", (long long)z, (long long)y, (long long)x)
                          : Py_BuildValue("(LL)", (long long)y, (long long)x);
}

/* A device output kept on the device: ("cuda", owner, address, shape,
 * strides, dtype, device). The owner capsule takes the image. */
static PyObject *device_output(parac_image **img)
{
    const parac_image *m = *img;
    PyObject *shape = dims_tuple(m, m->width, m->height, m->depth, m->channels);
    PyObject *strides = dims_tuple(m, m->pixel_stride, m->row_pitch, m->slice_pitch,
                                   (int64_t)parac_dtype_size(m->dtype));
    PyObject *owner = shape && strides ? PyCapsule_New(*img, "parac.image", free_image_capsule) : NULL;
    if (!owner) {
        Py_XDECREF(shape);
        Py_XDECREF(strides);
        return NULL;
    }
    *img = NULL; /* the capsule owns it now */
    return Py_BuildValue("(sNKNNsi)", "cuda", owner, (unsigned long long)(uintptr_t)m->data, shape, strides,
                         parac_dtype_name(m->dtype), m->device);
}

/* parac._parac.Image: a host image the library made, lent to NumPy through
 * the buffer protocol (shape and strides as the image has them, rows padded
 * or not), so an output reaches Python without a copy; the image is freed
 * when the last array viewing it goes. */
typedef struct image_object {
    PyObject_HEAD
    parac_image *img;
    int ndim;
    Py_ssize_t shape[4], strides[4];
    char format[2];
} image_object;

static void image_dealloc(image_object *self)
{
    parac_image_destroy(self->img);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int image_getbuffer(image_object *self, Py_buffer *view, int flags)
{
    if (!(flags & PyBUF_STRIDES)) {
        PyErr_SetString(PyExc_BufferError, "parac image: a strided view is needed (use numpy.asarray)");
        return -1;
    }
    Py_ssize_t len = (Py_ssize_t)parac_dtype_size(self->img->dtype);
    for (int d = 0; d < self->ndim; d++) len += (self->shape[d] - 1) * self->strides[d];
    view->obj = (PyObject *)self;
    Py_INCREF(self);
    view->buf = self->img->data;
    view->len = len;
    view->readonly = 0;
    view->itemsize = (Py_ssize_t)parac_dtype_size(self->img->dtype);
    view->format = (flags & PyBUF_FORMAT) ? self->format : NULL;
    view->ndim = self->ndim;
    view->shape = self->shape;
    view->strides = self->strides;
    view->suboffsets = NULL;
    view->internal = NULL;
    return 0;
}

static PyBufferProcs image_buffer = {(getbufferproc)image_getbuffer, NULL};

static PyTypeObject image_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "parac._parac.Image",
    .tp_basicsize = sizeof(image_object),
    .tp_dealloc = (destructor)image_dealloc,
    .tp_as_buffer = &image_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A host image of the library, viewed by NumPy without a copy.",
};

static char format_of(parac_dtype dt)
{
    switch (dt) {
    case PARAC_U8: return 'B';
    case PARAC_U16: return 'H';
    case PARAC_I32: return 'i';
    case PARAC_F32: return 'f';
    case PARAC_I64: return 'q';
    default: return 'd';
    }
}

/* An output image as (Image, shape, dtype name): a host image is taken over
 * (*img becomes NULL), a device image is downloaded first. */
static PyObject *output_tuple(parac_image **img, const char *op)
{
    parac_image *host = NULL;
    if ((*img)->memory == PARAC_MEMORY_CUDA) {
        parac_status st;
        Py_BEGIN_ALLOW_THREADS
        st = parac_image_download(&host, *img, 0, NULL);
        Py_END_ALLOW_THREADS
        if (st != PARAC_OK) return parac_py_raise_status(st, op);
    } else {
        host = *img;
        *img = NULL;
    }
    image_object *o = PyObject_New(image_object, &image_type);
    if (!o) {
        parac_image_destroy(host);
        return NULL;
    }
    o->img = host;
    o->ndim = 0;
    o->format[0] = format_of(host->dtype);
    o->format[1] = 0;
    if (host->depth > 1) {
        o->shape[o->ndim] = (Py_ssize_t)host->depth;
        o->strides[o->ndim++] = (Py_ssize_t)host->slice_pitch;
    }
    o->shape[o->ndim] = (Py_ssize_t)host->height;
    o->strides[o->ndim++] = (Py_ssize_t)host->row_pitch;
    o->shape[o->ndim] = (Py_ssize_t)host->width;
    o->strides[o->ndim++] = (Py_ssize_t)host->pixel_stride;
    if (host->channels > 1) {
        o->shape[o->ndim] = host->channels;
        o->strides[o->ndim++] = (Py_ssize_t)parac_dtype_size(host->dtype);
    }
    PyObject *shape = PyTuple_New(o->ndim);
    for (int d = 0; shape && d < o->ndim; d++) PyTuple_SET_ITEM(shape, d, PyLong_FromSsize_t(o->shape[d]));
    if (!shape) {
        Py_DECREF(o);
        return NULL;
    }
    return Py_BuildValue("(NNs)", (PyObject *)o, shape, parac_dtype_name(host->dtype));
}

/* The answer that sends a call back to the package's general path
 * (Py_NewRef is not in Python 3.9). */
static PyObject *not_implemented(void)
{
    Py_INCREF(Py_NotImplemented);
    return Py_NotImplemented;
}

/* Runs the operation of a prepared state (inputs wrapped, arguments set) on
 * `device`, with the GIL released, on `stream` for CUDA (0: the context's
 * own). Returns the outputs tuple (see run), or NULL with an exception.
 * `explain` (may be NULL) receives the library's account of the choice. */
static PyObject *execute(run_state *s, const char *name, const char *device, unsigned long long stream,
                         int keep_device, int into, char *explain, size_t explain_size)
{
    parac_status st;
    double results[PARAC_MAX_RESULTS] = {0};
    const parac_op *op = parac_op_find(name);
    const int n_res = op ? op->n_results : 0;
    (void)into; /* outputs not given are NULL: parac_op_run_results makes new images for them */
    Py_BEGIN_ALLOW_THREADS
    st = cached_context(device, &s->ctx);
    if (st == PARAC_OK && parac_context_backend(s->ctx) == PARAC_BACKEND_CUDA) /* the caller's stream, or its own */
        st = parac_context_set_stream(s->ctx, (void *)(uintptr_t)stream);
    if (st == PARAC_OK)
        st = parac_op_run_results(s->ctx, name, s->in, s->n_in, s->out, s->n_out, s->args, results, PARAC_MAX_RESULTS,
                                  explain, explain_size);
    if (s->ctx && !is_cached(s->ctx)) parac_context_destroy(s->ctx);
    s->ctx = NULL;
    Py_END_ALLOW_THREADS
    if (st != PARAC_OK) return parac_py_raise_status(st, name);
    PyObject *outs = PyTuple_New(s->n_out + n_res);
    if (!outs) return NULL;
    for (int k = 0; k < n_res; k++) { /* the operation's numbers after its images: whole ones as int */
        const double v = results[k];
        PyObject *num = v == floor(v) && fabs(v) < 9007199254740992.0 ? PyLong_FromLongLong((long long)v)
                                                                      : PyFloat_FromDouble(v);
        if (!num) {
            Py_DECREF(outs);
            return NULL;
        }
        PyTuple_SET_ITEM(outs, s->n_out + k, num);
    }
    for (int i = 0; i < s->n_out; i++) {
        if (s->given[i]) { /* written into the caller's array */
            Py_INCREF(Py_None);
            PyTuple_SET_ITEM(outs, i, Py_None);
            continue;
        }
        PyObject *t = keep_device && s->out[i]->memory == PARAC_MEMORY_CUDA ? device_output(&s->out[i])
                                                                              : output_tuple(&s->out[i], name);
        if (!t) {
            Py_DECREF(outs);
            return NULL;
        }
        PyTuple_SET_ITEM(outs, i, t);
    }
    return outs;
}

static const parac_op *find_op(const char *name, PyObject *inputs, run_state *s)
{
    const parac_op *op = parac_op_find(name);
    if (!op) {
        PyErr_Format(PyExc_ValueError, "no operation named '%s'", name);
        return NULL;
    }
    memset(s, 0, sizeof *s);
    s->cuda_device = -1;
    s->n_in = (int)PyTuple_GET_SIZE(inputs);
    s->n_out = op->n_outputs;
    if (s->n_in > op->n_inputs || s->n_in < op->n_inputs - op->n_optional_inputs || s->n_in > 8 || s->n_out > 8) {
        PyErr_Format(PyExc_TypeError, "%s takes %d%s input array%s, %d given", name, op->n_inputs,
                     op->n_optional_inputs ? " or fewer" : "", op->n_inputs == 1 ? "" : "s", s->n_in);
        return NULL;
    }
    return op;
}

static PyObject *py_run(PyObject *self, PyObject *pyargs)
{
    (void)self;
    const char *name, *device = NULL;
    PyObject *inputs, *params, *given = Py_None;
    unsigned long long stream = 0;
    int keep_device = 0, want_explain = 1, channels_last = 0;
    if (!PyArg_ParseTuple(pyargs, "sO!O!z|KpOpp", &name, &PyTuple_Type, &inputs, &PyDict_Type, &params, &device,
                          &stream, &keep_device, &given, &want_explain, &channels_last))
        return NULL;
    run_state s;
    if (!find_op(name, inputs, &s)) return NULL;
    s.channels_last = channels_last;
    PyObject *result = NULL;
    n_last_inputs = 0;
    for (int i = 0; i < s.n_in; i++)
        if (wrap_input(&s, PyTuple_GET_ITEM(inputs, i), i, name, 0) != 0) goto done;
    if (s.not_in_place) {
        result = not_implemented();
        goto done;
    }
    int into = 0; /* arrays to write the results into: None, or a tuple with None where there is none */
    if (given != Py_None) {
        if (!PyTuple_Check(given) || PyTuple_GET_SIZE(given) != s.n_out) {
            PyErr_Format(PyExc_TypeError, "%s: out must be a tuple of %d array(s) or None", name, s.n_out);
            goto done;
        }
        for (int k = 0; k < s.n_out; k++) {
            PyObject *g = PyTuple_GET_ITEM(given, k);
            if (g == Py_None) continue;
            /* a device array (its descriptor tuple), or a writable host array */
            if ((PyTuple_Check(g) ? wrap_device(g, &s.given[k], "output", k, name, s.channels_last)
                                  : wrap_host(&s, g, &s.given[k], 1, "output", k, name)) != 0)
                goto done;
            s.out[k] = s.given[k];
            into = 1;
        }
    }
    parac_status st = parac_args_create(&s.args);
    if (st != PARAC_OK) {
        parac_py_raise_status(st, name);
        goto done;
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(params, &pos, &key, &value)) {
        if (!PyUnicode_Check(key) || !PyUnicode_Check(value)) {
            PyErr_Format(PyExc_TypeError, "%s: run() takes parameters as text: %R: %R is %s: %s", name, key, value,
                         Py_TYPE(key)->tp_name, Py_TYPE(value)->tp_name);
            goto done;
        }
        const char *k = PyUnicode_AsUTF8(key), *v = PyUnicode_AsUTF8(value);
        if (!k || !v) goto done;
        if ((st = parac_args_set(s.args, k, v)) != PARAC_OK) {
            parac_py_raise_status(st, name);
            goto done;
        }
    }
    char explain[512] = "";
    PyObject *outs = execute(&s, name, device, stream, keep_device, into, want_explain ? explain : NULL,
                             want_explain ? sizeof explain : 0);
    if (outs) result = Py_BuildValue("(Ns)", outs, explain);
done:
    run_state_free(&s);
    return result;
}

/* The Python function's name of an operation ("h-maxima" -> "h_maxima"). */
static void py_name_of(const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s", name);
    for (char *p = buf; *p; p++)
        if (*p == '-') *p = '_';
}

/* A keyword argument's name as the registry's parameter ("sigma_y" ->
 * "sigma-y"), checked against the operation's parameters; -1 with a
 * TypeError naming them when it has no such parameter. */
static int param_name(const parac_op *op, PyObject *key, char *buf, size_t size)
{
    if (!PyUnicode_Check(key)) {
        PyErr_Format(PyExc_TypeError, "%s: keyword argument names must be str, got %s", op->name,
                     Py_TYPE(key)->tp_name);
        return -1;
    }
    const char *k = PyUnicode_AsUTF8(key);
    if (!k) return -1;
    snprintf(buf, size, "%s", k);
    for (char *p = buf; *p; p++)
        if (*p == '_') *p = '-';
    size_t n = strlen(buf);
    if (n > 1 && buf[n - 1] == '-') buf[n - 1] = '\0'; /* a Python keyword's trailing '_' */
    if (strcmp(buf, "method") == 0 && op->n_methods > 0) return 0;
    for (int i = 0; i < op->n_params; i++)
        if (strcmp(op->params[i].name, buf) == 0) return 0;
    char fn[64], list[1024] = "";
    py_name_of(op->name, fn, sizeof fn);
    if (strcmp(buf, "method") == 0) {
        PyErr_Format(PyExc_TypeError, "%s() has no methods to choose from", fn);
        return -1;
    }
    size_t used = 0;
    for (int i = 0; i < op->n_params && used < sizeof list; i++) {
        char p[64];
        py_name_of(op->params[i].name, p, sizeof p);
        int w = snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", p);
        if (w < 0) break;
        used += (size_t)w;
    }
    PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s' (parameters: %s)", fn, k, list);
    return -1;
}

/* A keyword argument's value as the registry's text: 1 when done, 0 for a
 * value that is not a bool, int, float or str (the package writes those),
 * -1 with an exception. */
static int param_text(PyObject *v, char *buf, size_t size)
{
    if (PyBool_Check(v)) {
        snprintf(buf, size, "%s", v == Py_True ? "1" : "0");
        return 1;
    }
    if (PyLong_Check(v)) {
        long long x = PyLong_AsLongLong(v);
        if (x == -1 && PyErr_Occurred()) return -1;
        snprintf(buf, size, "%lld", x);
        return 1;
    }
    if (PyFloat_Check(v)) { /* repr: the shortest text that reads back as the same double */
        char *r = PyOS_double_to_string(PyFloat_AS_DOUBLE(v), 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
        if (!r) return -1;
        snprintf(buf, size, "%s", r);
        PyMem_Free(r);
        return 1;
    }
    if (PyUnicode_Check(v)) {
        const char *u = PyUnicode_AsUTF8(v);
        if (!u) return -1;
        if (strlen(u) >= size) return 0;
        snprintf(buf, size, "%s", u);
        return 1;
    }
    return 0;
}

/* call(name, arrays, kwargs, stream=None): the package's path for CUDA
 * arrays, with no Python work before the launch. arrays: objects that
 * export __cuda_array_interface__ (and host arrays beside them); kwargs: the
 * Python function's keyword arguments (None: left out), method= among them;
 * the operation runs on the first CUDA array's device, on `stream` (None:
 * the stream that array's interface names, else the context's own). Returns
 * the outputs as run(keep_device=True) does, or NotImplemented when an
 * array's layout or an argument's value needs the package's general path
 * (a copy of a reversed view, a list parameter). */
static PyObject *py_call(PyObject *self, PyObject *pyargs)
{
    (void)self;
    const char *name;
    PyObject *inputs, *kwargs, *stream_obj = Py_None;
    if (!PyArg_ParseTuple(pyargs, "sO!O!|O", &name, &PyTuple_Type, &inputs, &PyDict_Type, &kwargs, &stream_obj))
        return NULL;
    run_state s;
    const parac_op *op = find_op(name, inputs, &s);
    if (!op) return NULL;
    PyObject *result = NULL;
    n_last_inputs = 0;
    for (int i = 0; i < s.n_in; i++)
        if (wrap_input(&s, PyTuple_GET_ITEM(inputs, i), i, name, 1) != 0) goto done;
    if (s.not_in_place || s.cuda_device < 0) {
        result = not_implemented();
        goto done;
    }
    unsigned long long stream = s.has_stream ? s.stream : 0;
    if (stream_obj != Py_None) {
        stream = PyLong_AsUnsignedLongLong(stream_obj);
        if (PyErr_Occurred()) goto done;
    }
    parac_status st = parac_args_create(&s.args);
    if (st != PARAC_OK) {
        parac_py_raise_status(st, name);
        goto done;
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
        char k[64], v[256];
        if (param_name(op, key, k, sizeof k) != 0) goto done;
        if (value == Py_None) continue;
        const int r = param_text(value, v, sizeof v);
        if (r < 0) goto done;
        if (r == 0) {
            result = not_implemented();
            goto done;
        }
        if ((st = parac_args_set(s.args, k, v)) != PARAC_OK) {
            parac_py_raise_status(st, name);
            goto done;
        }
    }
    char device[32];
    snprintf(device, sizeof device, "cuda:%d", s.cuda_device);
    result = execute(&s, name, device, stream, 1, 0, NULL, 0);
done:
    run_state_free(&s);
    return result;
}

/* read(path, layout) -> (Image, shape, dtype): a file through the library's readers. */
static PyObject *py_read(PyObject *self, PyObject *pyargs)
{
    (void)self;
    const char *path, *layout = "auto";
    if (!PyArg_ParseTuple(pyargs, "s|s", &path, &layout)) return NULL;
    parac_read_options o = {.format = PARAC_FORMAT_AUTO, .layout = PARAC_LAYOUT_AUTO};
    if (strcmp(layout, "hwc") == 0) o.layout = PARAC_LAYOUT_HWC;
    else if (strcmp(layout, "dhw") == 0) o.layout = PARAC_LAYOUT_DHW;
    else if (strcmp(layout, "auto") != 0)
        return PyErr_Format(PyExc_ValueError, "imread: layout must be 'auto', 'hwc' or 'dhw', got '%s'", layout);
    parac_image *img = NULL;
    parac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = parac_image_read(path, &o, &img);
    Py_END_ALLOW_THREADS
    if (st != PARAC_OK) return parac_py_raise_status(st, "imread");
    PyObject *r = output_tuple(&img, "imread");
    parac_image_destroy(img);
    return r;
}

/* write(path, array, channels, options) with the array's buffer used in
 * place: (rows, columns), (rows, columns, channels), (slices, rows,
 * columns) or (slices, rows, columns, channels) as `channels` says (0: no
 * channel axis). options: format, jpeg_quality, png_compression,
 * tiff_compress, nrrd_gzip. */
static PyObject *py_write(PyObject *self, PyObject *pyargs)
{
    (void)self;
    const char *path, *format = NULL;
    PyObject *obj;
    int channels, quality = 0, compression = -1, tiff_compress = 0, nrrd_gzip = 0;
    if (!PyArg_ParseTuple(pyargs, "sOi|ziipp", &path, &obj, &channels, &format, &quality, &compression,
                          &tiff_compress, &nrrd_gzip))
        return NULL;
    Py_buffer v;
    if (PyObject_GetBuffer(obj, &v, PyBUF_STRIDES | PyBUF_FORMAT) != 0) return NULL;
    PyObject *result = NULL;
    parac_image *img = NULL;
    const int dt = dtype_of(&v), spatial = v.ndim - (channels ? 1 : 0);
    parac_write_options o = {PARAC_FORMAT_AUTO, quality, compression, 0, nrrd_gzip, 0, tiff_compress};
    parac_status st = PARAC_OK;
    if (dt < 0) {
        PyErr_Format(PyExc_TypeError, "imwrite: element type '%s'; parac writes uint8, uint16, int32, float32 "
                     "or float64", v.format ? v.format : "B");
        goto done;
    }
    if (spatial != 2 && spatial != 3) {
        PyErr_Format(PyExc_ValueError, "imwrite: %d dimensions; parac writes (rows, columns[, channels]) or "
                     "(slices, rows, columns[, channels])", v.ndim);
        goto done;
    }
    if (channels && (v.shape[v.ndim - 1] != channels || v.strides[v.ndim - 1] != v.itemsize)) {
        PyErr_SetString(PyExc_ValueError, "imwrite: channels must be the last, contiguous axis");
        goto done;
    }
    if (format && (st = parac_format_from_name(format, &o.format)) != PARAC_OK) {
        parac_py_raise_status(st, "imwrite");
        goto done;
    }
    const int64_t w = v.shape[spatial - 1], h = v.shape[spatial - 2], depth = spatial == 3 ? v.shape[0] : 1;
    const int64_t ps = v.strides[spatial - 1], rp = v.strides[spatial - 2], sp = spatial == 3 ? v.strides[0] : rp * h;
    st = parac_image_wrap(&img, v.buf, w, h, depth, channels ? channels : 1, (parac_dtype)dt, ps, rp, sp,
                          PARAC_MEMORY_HOST, -1);
    if (st == PARAC_OK) {
        Py_BEGIN_ALLOW_THREADS
        st = parac_image_write(path, img, &o);
        Py_END_ALLOW_THREADS
    }
    if (st != PARAC_OK) parac_py_raise_status(st, "imwrite");
    else {
        Py_INCREF(Py_None);
        result = Py_None;
    }
done:
    parac_image_destroy(img);
    PyBuffer_Release(&v);
    return result;
}

/* write_table(path, rows, columns): a C-contiguous float64 array of rows x
 * len(columns) written as the CLI writes an operation's table (.csv, .json,
 * .npy; numbers that read back exactly; atomic). */
static PyObject *py_write_table(PyObject *self, PyObject *pyargs)
{
    (void)self;
    const char *path;
    PyObject *obj, *names;
    if (!PyArg_ParseTuple(pyargs, "sOO!", &path, &obj, &PyList_Type, &names)) return NULL;
    Py_buffer v;
    if (PyObject_GetBuffer(obj, &v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) return NULL;
    PyObject *result = NULL;
    parac_image *img = NULL;
    const Py_ssize_t n_columns = PyList_GET_SIZE(names);
    const char **columns = NULL;
    if (v.ndim != 2 || v.itemsize != 8 || !v.format || strcmp(v.format, "d") != 0 || v.shape[1] != n_columns ||
        n_columns < 1 || n_columns > 64) {
        PyErr_SetString(PyExc_ValueError, "write_table: a float64 array of rows x len(columns), 1..64 columns");
        goto done;
    }
    columns = PyMem_Calloc((size_t)n_columns, sizeof *columns);
    if (!columns) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t c = 0; c < n_columns; c++)
        if (!(columns[c] = PyUnicode_AsUTF8(PyList_GET_ITEM(names, c)))) goto done;
    /* an empty table still needs an image to describe its columns */
    static const double empty_row[64];
    const int64_t rows = v.shape[0];
    void *data = rows ? v.buf : (void *)empty_row;
    parac_status st = parac_image_wrap(&img, data, n_columns, rows ? rows : 1, 1, 1, PARAC_F64, 8, n_columns * 8,
                                       n_columns * 8 * (rows ? rows : 1), PARAC_MEMORY_HOST, -1);
    if (st == PARAC_OK) {
        Py_BEGIN_ALLOW_THREADS
        st = parac_table_write(path, img, rows, columns, (int)n_columns);
        Py_END_ALLOW_THREADS
    }
    if (st != PARAC_OK) parac_py_raise_status(st, "write_table");
    else {
        Py_INCREF(Py_None);
        result = Py_None;
    }
done:
    PyMem_Free(columns);
    parac_image_destroy(img);
    PyBuffer_Release(&v);
    return result;
}

static PyObject *py_memory_trim(PyObject *self, PyObject *noargs)
{
    (void)self, (void)noargs;
    Py_BEGIN_ALLOW_THREADS parac_memory_trim();
    Py_END_ALLOW_THREADS Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"read", py_read, METH_VARARGS, "read(path, layout='auto') -> (Image, shape, dtype)"},
    {"write", py_write, METH_VARARGS,
     "write(path, array, channels, format=None, jpeg_quality=0, png_compression=-1, tiff_compress=False, "
     "nrrd_gzip=False)"},
    {"write_table", py_write_table, METH_VARARGS,
     "write_table(path, rows, columns): a float64 rows x columns array as the CLI writes a table (.csv, .json, "
     ".npy)"},
    {"ops", parac_py_ops, METH_NOARGS, "Every registry operation, as a list of dicts."},
    {"transfers", py_transfers, METH_NOARGS,
     "(to_device, to_host, bytes): the library's host <-> device image copies since the process started."},
    {"last_inputs", py_last_inputs, METH_NOARGS,
     "The addresses of the last run's input buffers on this thread, as handed to the library."},
    {"run", py_run, METH_VARARGS,
     "run(name, inputs, params, device, stream=0, keep_device=False, out=None, explain=True, channels_last=False) "
     "-> (outputs, explanation); an output is (Image, shape, dtype), (\"cuda\", owner, address, shape, strides, dtype, "
     "device) kept on the device, or None when written into the array given in out"},
    {"copy_bytes", parac_py_copy_bytes, METH_VARARGS,
     "copy_bytes(host, address, device, to_device, stream=0): the bytes of a C-contiguous host buffer to device "
     "memory at address on GPU device, or back (to_device false: the host buffer is written), through the "
     "library's pipelined pinned staging; ordered on stream (a cudaStream_t as an integer)"},
    {"set_copy_threads", parac_py_set_copy_threads, METH_VARARGS,
     "set_copy_threads(n) -> the value before: the threads of the staged host <-> GPU copies (0: OpenMP's count, "
     "at most 8)"},
    {"memory_trim", py_memory_trim, METH_NOARGS,
     "memory_trim() -> None: frees the memory the library keeps cached (the CUDA pool, the CPU methods' scratch "
     "blocks)"},
    {"call", py_call, METH_VARARGS,
     "call(name, arrays, kwargs, stream=None) -> outputs kept on the device, or NotImplemented: the path for "
     "CUDA arrays (__cuda_array_interface__), keyword arguments by their Python names"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_parac", "parac's C library, driven by its registry.", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__parac(void)
{
    if (PyType_Ready(&image_type) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddStringConstant(m, "version", parac_version_string()) != 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
