/* parac._parac.ops(): the operation registry as Python data (the package
 * builds its functions, docstrings and type stub from it). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "ops.h"
#include "parac/parac.h"

static const char *const type_names[] = {"bool", "int", "float", "str", "choice", "path", "list"};

/* Per output, None for an image, or for a table its column names by
 * (ndim, inputs given): {(2, 1): [...], (2, 2): [...], (3, 1): ...}. */
static PyObject *table_columns(const parac_op *op)
{
    PyObject *list = PyList_New(op->n_outputs);
    if (!list) return NULL;
    for (int k = 0; k < op->n_outputs; k++) {
        const char *names[64];
        if (!op->table_columns || !op->table_columns(k, 2, op->n_inputs, names, 64)) {
            Py_INCREF(Py_None);
            PyList_SET_ITEM(list, k, Py_None);
            continue;
        }
        PyObject *by = PyDict_New();
        if (!by) goto fail;
        PyList_SET_ITEM(list, k, by);
        for (int ndim = 2; ndim <= 3; ndim++)
            for (int n_in = op->n_inputs - op->n_optional_inputs; n_in <= op->n_inputs; n_in++) {
                const int n = op->table_columns(k, ndim, n_in, names, 64);
                PyObject *cols = PyList_New(n), *key = Py_BuildValue("(ii)", ndim, n_in);
                for (int c = 0; cols && c < n; c++) {
                    PyObject *t = PyUnicode_FromString(names[c]);
                    if (!t) break;
                    PyList_SET_ITEM(cols, c, t);
                }
                const int bad = !cols || !key || PyErr_Occurred() || PyDict_SetItem(by, key, cols) != 0;
                Py_XDECREF(cols);
                Py_XDECREF(key);
                if (bad) goto fail;
            }
    }
    return list;
fail:
    Py_DECREF(list);
    return NULL;
}

PyObject *parac_py_ops(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    const int n = parac_op_count();
    PyObject *list = PyList_New(n);
    if (!list) return NULL;
    for (int i = 0; i < n; i++) {
        const parac_op *op = parac_op_at(i);
        PyObject *params = PyList_New(op->n_params), *methods = PyList_New(op->n_methods),
                 *results = PyList_New(op->n_results);
        if (!params || !methods || !results) goto fail_item;
        for (int k = 0; k < op->n_results; k++) {
            PyObject *t = PyUnicode_FromString(op->results[k].name);
            if (!t) goto fail_item;
            PyList_SET_ITEM(results, k, t);
        }
        for (int k = 0; k < op->n_params; k++) {
            const parac_param_spec *p = &op->params[k];
            PyObject *t = Py_BuildValue("{s:s,s:s,s:z,s:z,s:d,s:d,s:z}", "name", p->name, "type",
                                        type_names[p->type], "default", p->default_value, "choices", p->choices,
                                        "min", p->min, "max", p->max, "help", p->help);
            if (!t) goto fail_item;
            PyList_SET_ITEM(params, k, t);
        }
        for (int k = 0; k < op->n_methods; k++) {
            const parac_method *m = &op->methods[k];
            PyObject *t = Py_BuildValue("{s:s,s:s,s:z}", "name", m->name, "backend", parac_backend_name(m->backend),
                                        "help", m->help);
            if (!t) goto fail_item;
            PyList_SET_ITEM(methods, k, t);
        }
        PyObject *tables = table_columns(op);
        if (!tables) goto fail_item;
        PyObject *d = Py_BuildValue("{s:s,s:z,s:z,s:z,s:i,s:i,s:i,s:I,s:I,s:N,s:N,s:N,s:N}", "name", op->name,
                                    "summary", op->summary, "description", op->description, "usage", op->usage_args,
                                    "n_inputs", op->n_inputs, "n_optional_inputs", op->n_optional_inputs, "n_outputs",
                                    op->n_outputs, "row_inputs", op->row_inputs, "moved_inputs", op->moved_inputs,
                                    "params", params, "methods", methods, "results", results, "tables", tables);
        if (!d) {
            params = methods = results = NULL; /* stolen by "N" even on failure */
            goto fail_item;
        }
        PyList_SET_ITEM(list, i, d);
        continue;
    fail_item:
        Py_XDECREF(params);
        Py_XDECREF(methods);
        Py_XDECREF(results);
        Py_DECREF(list);
        return NULL;
    }
    return list;
}
