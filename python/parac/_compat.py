"""Shared helpers of the scipy / scikit-image compatible wrappers: the
arguments they translate, and the few array operations they do around the
library's call, for NumPy arrays and for CuPy arrays / PyTorch CUDA tensors
alike (those stay on their device: parac computes there and the wrappers'
casts and comparisons run there too)."""
import numpy as np

from . import _device


def connectivity(ndim, footprint=None, connectivity=None, default_full=True, who=""):
    """parac's neighbour count from a scikit-image footprint / connectivity
    (squared distance from the centre), or from a scipy structure."""
    face, full = (4, 8) if ndim == 2 else (6, 26)
    if footprint is not None:
        fp = np.asarray(footprint, dtype=bool)
        if fp.shape != (3,) * ndim:
            raise NotImplementedError("%s: only 3x3 (3x3x3) footprints are supported" % who)
        grid = np.indices(fp.shape) - 1
        dist = (grid ** 2).sum(axis=0)
        for c, n in ((1, face), (2, 8 if ndim == 2 else 18), (ndim, full)):
            if np.array_equal(fp, dist <= c):
                return n
        raise NotImplementedError("%s: only the face, edge or full neighbourhood is supported" % who)
    if connectivity is None:
        return full if default_full else face
    c = int(connectivity)
    if c < 1:
        raise ValueError("%s: connectivity must be at least 1" % who)
    if c == 1:
        return face
    if c == 2 and ndim == 3:
        return 18
    return full


_DTYPE_NAMES = {}


def dtype_name(a):
    """'uint8', 'float32', ... for a NumPy, CuPy or PyTorch array (remembered
    per dtype: str() of a NumPy dtype takes microseconds, which every call of
    a wrapper paid)."""
    dt = a.dtype
    name = _DTYPE_NAMES.get(dt)
    if name is None:
        name = _DTYPE_NAMES[dt] = str(dt).replace("torch.", "")
    return name


def same_kind(arrays, who):
    """The kind shared by every array (None: host arrays), or TypeError."""
    kinds = {_device.kind_of(a) for a in arrays}
    if len(kinds) > 1:
        raise TypeError("%s: the arrays must all be NumPy or all of one device kind, got %s" % (
            who, ", ".join(sorted(str(k or "numpy") for k in kinds))))
    return kinds.pop()


def to_type(a, name):
    """a converted to the element type `name` where it lives (no copy when it has it)."""
    kind = _device.kind_of(a)
    if kind is None:
        return np.asarray(a).astype(name, copy=False)
    return a if dtype_name(a) == name else _device.astype(a, kind, name)


def _equal(a, b, kind):
    if kind is None:
        return np.array_equal(a, b)
    if kind == "torch":
        import torch

        return bool(torch.equal(a, b))
    import cupy

    return bool(cupy.array_equal(a, b))


def work_dtype(*arrays, who=""):
    """The dtype parac computes in for these arrays (uint8, uint16, float32),
    and the arrays cast to it, where they live. Values that would change in
    the cast raise."""
    kind = same_kind(arrays, who)
    if kind is None:
        arrays = [np.asarray(a) for a in arrays]
        dt = np.result_type(*arrays)
    else:
        dt = np.result_type(*[np.dtype(dtype_name(a)) for a in arrays])
    if dt == np.bool_:
        dt = np.dtype(np.uint8)
    if dt in (np.uint8, np.uint16, np.float32):
        return [to_type(a, dt.name) for a in arrays]
    if np.issubdtype(dt, np.integer):
        lo = min(int(a.min()) for a in arrays)
        hi = max(int(a.max()) for a in arrays)
        target = "uint8" if 0 <= lo and hi <= 255 else "uint16" if 0 <= lo and hi <= 65535 else "float32"
    else:
        target = "float32"
    cast = [to_type(a, target) for a in arrays]
    for a, c in zip(arrays, cast):
        if not _equal(a, to_type(c, dtype_name(a)), kind):
            raise TypeError("%s: values of dtype %s do not fit uint8, uint16 or float32 exactly; parac computes "
                            "in those" % (who, dtype_name(a)))
    return cast


def nonzero(a):
    """The indices of a's nonzero elements, a tuple of arrays as np.nonzero, where a lives."""
    kind = _device.kind_of(a)
    if kind == "torch":
        import torch

        return torch.nonzero(a, as_tuple=True)
    if kind == "cupy":
        import cupy

        return cupy.nonzero(a)
    return np.nonzero(a)


def into(result, out, who=""):
    """Write result into out (returned) when out is given; out must live
    where result does."""
    if out is None:
        return result
    if _device.kind_of(out) != _device.kind_of(result):
        raise TypeError("%s: out must be a %s array like the input" % (who, _device.kind_of(result) or "NumPy"))
    out[...] = result
    return out


_LABEL_DTYPES = ("uint8", "uint16", "int32", "int64", "float32")


def label_input_dtype(name):
    """The dtype that label_input gives an array of dtype `name`."""
    if name in _LABEL_DTYPES or name == "bool":
        return name
    if name in ("int8", "int16"):
        return "int32"
    if name in ("uint32", "uint64"):
        return "int64"
    return "float32"


def label_input(a, who, nonzero_only=False):
    """An array the library labels as it is: uint8, uint16, int32, int64,
    float32 and bool (read as its bytes, 0 and 1) pass unchanged; the other
    types, where only nonzero counts, as uint8 of a != 0; else converted
    (label_input_dtype) where every value survives the conversion (else
    NotImplementedError). Where the array lives."""
    name = dtype_name(a)
    if name in _LABEL_DTYPES or name == "bool":
        return a
    kind = _device.kind_of(a)
    if nonzero_only:
        return to_type(a != 0, "uint8")
    target = label_input_dtype(name)
    b = to_type(a, target)
    if name in ("int8", "int16", "uint32"):
        return b  # every value survives
    # uint64 past 2^63 - 1 wraps to negative int64 (a round trip restores it)
    if (name == "uint64" and bool((b < 0).any())) or (name != "uint64" and not _equal(to_type(b, name), a, kind)):
        raise NotImplementedError("%s: %s values that %s does not hold exactly are not supported" % (who, name, target))
    return b


def bool_bytes(a):
    """A bool array's bytes (0 and 1) as a uint8 view, where it lives: no copy."""
    kind = _device.kind_of(a)
    if kind == "torch":
        import torch

        return a.view(torch.uint8)
    return a.view("uint8") if kind else np.asarray(a).view(np.uint8)


def as_bool(a):
    """A uint8 array of 0 and 1 seen as bool, where it lives: no copy."""
    kind = _device.kind_of(a)
    if kind == "torch":
        import torch

        return a.view(torch.bool)
    return a.view("bool") if kind else a.view(np.bool_)
