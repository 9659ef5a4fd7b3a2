"""CuPy arrays and PyTorch CUDA tensors in and out of parac without copies.

An input that exports ``__cuda_array_interface__`` is handed to the library
by its device address, shape and strides; the operation runs on its device,
on the caller's current stream (CuPy's, or PyTorch's for the tensor's
device), and each output stays in device memory: it comes back as the same
kind of array (a CuPy array for CuPy input, a tensor for a tensor), viewing
memory that the library allocated and frees when the array is collected.
"""

import sys

_TYPESTR = {"u8": "|u1", "u16": "<u2", "i32": "<i4", "f32": "<f4", "f64": "<f8", "i64": "<i8"}


_KIND_OF_TYPE = {}  # type -> "cupy", "torch", "numpy" or "other", found once: asked on every call


def kind_of(a):
    """'cupy', 'torch' or 'cuda' (another exporter) for a device array, else None."""
    t = type(a)
    k = _KIND_OF_TYPE.get(t)
    if k is None:
        top = t.__module__.split(".")[0]
        k = top if top in ("cupy", "torch", "numpy") else "other"
        _KIND_OF_TYPE[t] = k
    if k == "cupy":
        return k
    if k == "torch":  # a tensor on the CPU has no interface
        return k if a.is_cuda else None
    if k == "other" and hasattr(a, "__cuda_array_interface__"):
        return "cuda"
    return None


def _layout_ok(shape, strides, itemsize):
    """Rows after rows, slices after slices, positive steps: usable in place."""
    if len(shape) not in (2, 3) or any(s <= 0 for s in strides) or strides[-1] < itemsize:
        return False
    if strides[-1] * shape[-1] > strides[-2]:
        return False
    return len(shape) == 2 or strides[-2] * shape[-2] <= strides[0]


def _c_strides(shape, itemsize):
    out, step = [], itemsize
    for n in reversed(shape):
        out.append(step)
        step *= n
    return tuple(reversed(out))


def _contiguous(a, kind):
    if kind == "torch":
        return a.contiguous()
    if kind == "cupy":
        import cupy

        return cupy.ascontiguousarray(a)
    raise ValueError("parac: a device array with this layout must be made C-contiguous first")


def is_float64(a, kind):
    """Whether a device array holds float64 (asked on every call: no str() of NumPy's dtype)."""
    if kind == "torch":
        return str(a.dtype) == "torch.float64"
    char = getattr(a.dtype, "char", None)  # NumPy's dtype (CuPy's arrays have it)
    return char == "d" if char is not None else str(a.dtype) == "float64"


def astype(a, kind, name):
    """a converted to the element type `name` ("float32"), on its device."""
    if kind == "torch":
        import torch

        return a.to(getattr(torch, name))
    return a.astype(name)


def device_index(a, kind):
    if kind == "torch":
        return a.device.index or 0
    if kind == "cupy":
        return a.device.id
    return 0


def gpu_of(device):
    """The GPU index a call's device string names ("cuda": CuPy's current
    device, or 0; "cuda:N": N), or None for the CPU and "auto"."""
    if not isinstance(device, str) or not device.startswith("cuda"):
        return None
    tail = device[5:]
    if tail.isdigit():
        return int(tail)
    cupy = sys.modules.get("cupy")
    try:
        return int(cupy.cuda.runtime.getDevice()) if cupy is not None else 0
    except Exception:  # no GPU CuPy can see
        return 0


def release_cached(gpu):
    """Free the memory that CuPy's and PyTorch's caching allocators hold
    unused on GPU gpu in this process: blocks they keep for their own later
    arrays, which the library's allocations cannot use (after dask-image's
    Gaussian of 10 GB of CuPy chunks, CuPy's pool held so much that parac's
    next call on the same worker ran out of memory). The bytes freed (0
    where neither library is loaded or held any)."""
    freed = 0
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        try:
            pool = cupy.get_default_memory_pool()
            with cupy.cuda.Device(gpu):
                freed += pool.free_bytes()
                pool.free_all_blocks()
        except Exception:  # CuPy without a usable GPU: nothing of it to free
            pass
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            if torch.cuda.is_initialized():
                freed += torch.cuda.memory_reserved(gpu) - torch.cuda.memory_allocated(gpu)
                with torch.cuda.device(gpu):  # empty_cache frees the current device's only
                    torch.cuda.empty_cache()
        except Exception:
            pass
    return freed


def describe(a, kind):
    """(array kept alive, ("cuda", address, shape, strides, typestr, device))."""
    cai = a.__cuda_array_interface__
    shape, typestr = tuple(cai["shape"]), cai["typestr"]
    itemsize = int(typestr[2:])
    strides = tuple(cai["strides"]) if cai.get("strides") else _c_strides(shape, itemsize)
    if not _layout_ok(shape, strides, itemsize) and len(shape) in (2, 3):
        a = _contiguous(a, kind)
        cai = a.__cuda_array_interface__
        strides = tuple(cai["strides"]) if cai.get("strides") else _c_strides(shape, itemsize)
    return a, ("cuda", int(cai["data"][0]), shape, strides, typestr, device_index(a, kind))


def stream_of(a, kind):
    """The caller's stream for work on a's data (0: the default stream)."""
    if kind == "torch":
        import torch

        return int(torch.cuda.current_stream(a.device).cuda_stream)
    s = a.__cuda_array_interface__.get("stream")
    return int(s) if s else 0


class _Buffer:
    """Library-owned device memory, exported by ``__cuda_array_interface__``;
    it lives as long as an array views it."""

    def __init__(self, owner, address, shape, strides, dtype, stream):
        self._owner = owner  # frees the library's image when collected
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "strides": tuple(strides), "typestr": _TYPESTR[dtype],
            "data": (address, False), "version": 3, "stream": stream or None,
        }


def wrap_output(out, kind, stream):
    """A kept device output as the caller's kind of array, without a copy."""
    _, owner, address, shape, strides, dtype, device = out
    buf = _Buffer(owner, address, shape, strides, dtype, stream)
    if kind == "torch":
        import torch

        return torch.as_tensor(buf, device="cuda:%d" % device)
    import cupy

    nbytes = sum((n - 1) * s for n, s in zip(shape, strides)) + int(_TYPESTR[dtype][2:])
    mem = cupy.cuda.UnownedMemory(address, nbytes, buf, device)
    return cupy.ndarray(tuple(shape), dtype=_TYPESTR[dtype], memptr=cupy.cuda.MemoryPointer(mem, 0),
                        strides=tuple(strides))


def transposed_copy(a, dtype=None):
    """a.T as a new C-contiguous array (of element type dtype, a NumPy name;
    None: a's), where a lives: one copy, the cast in it."""
    kind = kind_of(a)
    if kind == "torch":
        import torch

        t = a.t()
        return (t if dtype is None else t.to(getattr(torch, dtype))).contiguous()
    if kind == "cupy":
        import cupy

        return cupy.array(a.T, dtype=dtype, order="C")
    import numpy as np

    n = a.shape[0]
    if a.ndim != 2 or n <= _TRANSPOSE_ROWS:
        return np.array(a.T, dtype=dtype, order="C")
    # by blocks of rows: a's rows of a few columns read in order and each
    # block's columns written while in cache; NumPy's copy of the whole a.T
    # walked the output in columns (800k records of 12 fields: 72 against 25
    # ms on the build machine)
    out = np.empty((a.shape[1], n), dtype if dtype is not None else a.dtype)
    for i in range(0, n, _TRANSPOSE_ROWS):
        out[:, i:i + _TRANSPOSE_ROWS] = a[i:i + _TRANSPOSE_ROWS].T
    return out


_TRANSPOSE_ROWS = 4096

# Host arrays of at least this many bytes go to and from a GPU through the
# library's staged copies (pinned buffers filled and emptied by several
# threads, src/cuda/staged_copy.c: 20-50 GB/s where CuPy's pageable copies
# reach 9-17); smaller ones through CuPy, whose fixed cost is lower.
STAGED_MIN = 16 << 20
_copy_threads_set = []


def _copy_threads():
    """Several threads for the staged copies, once per process: Dask's worker
    processes hold OpenMP to one thread (OMP_NUM_THREADS=1), which would
    leave a 268 MB copy to one thread's memcpy and page faults (the rate of
    CuPy's pageable copy); copying is bound by memory, not cores."""
    if _copy_threads_set:
        return
    import os

    from . import _parac

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    before = _parac.set_copy_threads(0)
    # the caller's choice stands; else the cores this process may use, up to 8
    _parac.set_copy_threads(before if before else min(8, cores))
    _copy_threads_set.append(True)


def _rows_apart(a):
    """Whether copy_bytes can read a's rows where they lie: 2 or 3 axes, the
    last contiguous, rows and planes at positive pitches that keep them apart."""
    if a.ndim not in (2, 3) or a.strides[-1] != a.itemsize:
        return False
    row_bytes, rows = a.shape[-1] * a.itemsize, a.shape[-2]
    return a.strides[-2] >= row_bytes and (a.ndim == 2 or a.strides[0] >= a.strides[-2] * rows)


def to_gpu(a, gpu=None):
    """A host array's copy on GPU gpu (None or negative: CuPy's current
    device), as a C-contiguous CuPy array."""
    import contextlib

    import cupy
    import numpy as np

    a = np.asarray(a)
    # a chunk of a larger array (dask.array.from_array's) goes row by row from
    # where it lies; other layouts are packed on the host first
    if not (a.flags.c_contiguous or (a.nbytes >= STAGED_MIN and _rows_apart(a))):
        a = np.ascontiguousarray(a)
    with cupy.cuda.Device(gpu) if gpu is not None and gpu >= 0 else contextlib.nullcontext():
        if a.nbytes < STAGED_MIN or a.nbytes == 0:
            return cupy.asarray(a)
        from . import _parac

        _copy_threads()
        out = cupy.empty(a.shape, a.dtype)
        _parac.copy_bytes(a, out.data.ptr, out.device.id, True, cupy.cuda.get_current_stream().ptr)
        return out


def to_host(a):
    """A CuPy array's copy in host memory, as a C-contiguous NumPy array."""
    import cupy
    import numpy as np

    if a.nbytes < STAGED_MIN or a.nbytes == 0:
        return a.get()
    from . import _parac

    _copy_threads()
    with a.device:
        a = cupy.ascontiguousarray(a)
        out = np.empty(a.shape, a.dtype)
        _parac.copy_bytes(out, a.data.ptr, a.device.id, False, cupy.cuda.get_current_stream().ptr)
    return out


def array_module(a):
    """numpy or cupy, as an array (a Dask block) is."""
    import numpy as np

    if type(a).__module__.split(".")[0] == "cupy":
        import cupy

        return cupy
    return np


def on_host(a):
    """a in host memory: a CuPy array's copy (large ones through parac's staged copies), else a itself."""
    import numpy as np

    if hasattr(a, "get") and not isinstance(a, np.ndarray):
        return to_host(a)
    return np.asarray(a)
