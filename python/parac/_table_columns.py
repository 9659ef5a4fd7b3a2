"""A table's columns cut from the library's records on a CUDA device in one
launch (table_columns.cu, compiled by CuPy on first use and cached by it):
regionprops_table's arrays are then two allocations and a view per column,
where slicing, transposing and casting each block took CuPy several
microseconds a step."""
import os

import numpy as np

_kernel = []
MAX_COLUMNS = 16  # of the records and of the answer: a source index is 4 bits of one 64-bit word


def _launcher():
    if not _kernel:
        import cupy

        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "table_columns.cu")) as f:
            _kernel.append(cupy.RawKernel(f.read(), "parac_table_columns"))
    return _kernel[0]


def cut(records, plan):
    """records: a C-contiguous CuPy float64 array, a row per item; plan:
    [(name, record column, integer)] (at most MAX_COLUMNS). The named
    columns in the plan's order, int64 or float64, each a contiguous row of
    one of two new arrays."""
    import cupy

    n, ncols = records.shape
    src = is_int = 0
    for j, (_name, i, integer) in enumerate(plan):
        src |= i << (4 * j)
        is_int |= int(integer) << j
    ni = bin(is_int).count("1")
    ints = cupy.empty((ni, n), cupy.int64)
    floats = cupy.empty((len(plan) - ni, n), cupy.float64)
    total = n * len(plan)
    if total:
        _launcher()(((total + 255) // 256,), (256,), (records, np.int64(n), np.int32(ncols), np.uint64(src),
                                                       np.uint32(is_int), np.int32(len(plan)), ints, floats))
    out, a, b = {}, 0, 0
    for name, _i, integer in plan:
        if integer:
            out[name] = ints[a]
            a += 1
        else:
            out[name] = floats[b]
            b += 1
    return out
