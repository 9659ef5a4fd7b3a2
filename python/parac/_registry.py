"""Python functions made from parac's operation registry (_parac.ops())."""
import keyword

from . import _dask, _device, _parac

# numpy is imported where arrays are handled, so that the build can write the
# type stub with an interpreter that has no numpy
_DTYPES = {"u8": "uint8", "u16": "uint16", "i32": "int32", "f32": "float32", "f64": "float64",
           "i64": "int64"}


def py_name(name):
    """The Python name of a registry name ("h-maxima" -> "h_maxima")."""
    n = name.replace("-", "_")
    return n + "_" if keyword.iskeyword(n) else n


def _text(value, ptype=None):
    """A parameter value as the registry's text. A list parameter takes one
    value or several; a value that is a tuple (a point such as a seed
    (x, y)) is written "x,y", several values are joined with ";"."""
    if ptype == "list":
        many = isinstance(value, list) or (isinstance(value, tuple) and value and isinstance(value[0], (list, tuple)))
        items = value if many else [value]
        return ";".join(",".join(_text(c) for c in v) if isinstance(v, (list, tuple)) else _text(v) for v in items)
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (list, tuple)):
        return ",".join(_text(v) for v in value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _as_input(a):
    """The array itself when the library can read it in place (rows one
    after another, pixels within a row, slices after rows: any slicing with
    positive steps, elements aligned to their size), else a C-contiguous
    copy (negative strides, transposes, a view at an odd byte offset)."""
    import numpy as np

    arr = np.asarray(a)
    st, sh = arr.strides, arr.shape
    in_place = arr.flags.aligned and all(s > 0 for s in st) and st[-1] >= arr.itemsize
    if in_place and arr.ndim >= 2:
        in_place = st[-1] * sh[-1] <= st[-2]
    if in_place and arr.ndim == 3:
        in_place = st[-2] * sh[-2] <= st[0]
    return arr if in_place else arr.copy(order="C")  # a new array: C order, aligned


# the library's element type of each size, for elements it only moves (an
# operation's moved_inputs): the caller's bool, int8, int16, uint32, uint64 or
# float16 travel as these and come back as themselves
_MOVED_AS = {1: "uint8", 2: "uint16", 4: "int32", 8: "int64"}
_LIBRARY_TYPES = frozenset(_DTYPES.values())


def _moved_view(a):
    """(a view of a in the library's type of its element size, a's element
    type) where the library lacks a's type and may move its bits; else
    (a, None). NumPy and CuPy arrays and PyTorch tensors."""
    dt = getattr(a, "dtype", None)
    if dt is None:
        return a, None
    if type(a).__module__.split(".")[0] == "torch":
        import torch

        if dt.is_complex or dt.itemsize not in _MOVED_AS or str(dt)[6:] in _LIBRARY_TYPES:
            return a, None
        return a.view(getattr(torch, _MOVED_AS[dt.itemsize])), dt
    if getattr(dt, "kind", "") not in "biuf" or dt.name in _LIBRARY_TYPES or dt.itemsize not in _MOVED_AS:
        return a, None
    return a.view(_MOVED_AS[dt.itemsize]), dt


def _rows_and_moved(arrays, out, row_inputs, moved_inputs):
    """The inputs as the library takes them (operations with row or moved
    inputs, see op.h): a 1-D row input as one row (1, N), a moved input of a
    type the library lacks as a view of its bits; out= likewise. Returns
    (arrays, out, the element type output 0 is given back as or None, the
    caller's own output 0 where out= gave one that is viewed)."""
    arrays, back, mine = list(arrays), None, None
    for k, a in enumerate(arrays):
        if row_inputs >> k & 1 and len(getattr(a, "shape", ())) == 1:
            a = a.reshape(1, -1)
        if moved_inputs >> k & 1:
            a, dt = _moved_view(a)
            back = back if dt is None else dt
        arrays[k] = a
    if back is not None and out is not None:
        first = out[0] if isinstance(out, (tuple, list)) else out
        view, dt = _moved_view(first)
        if dt is not None:
            out, mine = (view,) + tuple(out[1:]) if isinstance(out, (tuple, list)) else view, first
    return tuple(arrays), out, back, mine


def _given_outputs(out, n_out, who):
    """out= as the extension takes it: None, or a tuple with one writable
    NumPy array (or None) per output. The library computes into an array
    that fits the result (dtype, shape, rows of pixels one after another) and
    copies into one that does not; a different dtype or shape is an error."""
    if out is None:
        return None
    import numpy as np

    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    if len(outs) != n_out:
        raise TypeError("%s(): out= needs %d array(s), got %d" % (who, n_out, len(outs)))
    for o in outs:
        if o is not None and not isinstance(o, np.ndarray):
            raise TypeError("%s(): out= takes NumPy arrays, got %s" % (who, type(o).__name__))
        if o is not None and not o.flags.writeable:
            raise ValueError("%s(): out= must be writable" % who)
    return outs


def _given_device_outputs(out, n_out, kind, who):
    """out= for device inputs: None, or per output (array, descriptor) of
    arrays of the inputs' kind, which the library writes in place (an
    array the library cannot write in place, a reversed view for one, is
    refused rather than filled through a hidden copy)."""
    if out is None:
        return None
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    if len(outs) != n_out:
        raise TypeError("%s(): out= needs %d array(s), got %d" % (who, n_out, len(outs)))
    given = []
    for o in outs:
        if _device.kind_of(o) != kind:
            raise TypeError("%s(): out= must be a %s array like the input, got %s" % (who, kind, type(o).__name__))
        a, d = _device.describe(o, kind)
        if a is not o:
            raise ValueError("%s(): out= must be an array the library can write in place (rows and columns "
                             "with positive strides)" % who)
        given.append((o, d))
    return tuple(given)


def _host_as(out, kind, like):
    """A host output (an operation that ran on the CPU) as the caller's kind of array."""
    import numpy as np

    buf, shape, dt = out
    a = np.asarray(buf)
    if kind == "torch":
        import torch

        return torch.from_numpy(a.copy()).to(like.device)
    import cupy

    return cupy.asarray(a)


def _freeing_caches(fn, gpu, *args):
    """fn(*args), the extension's run or call. Where a GPU ran out of memory
    while CuPy or PyTorch held unused blocks there, those are freed and the
    call made once more (the library frees its own pool's blocks before it
    reports); gpu() names that GPU (None: the call was not on one), asked
    only then."""
    try:
        return fn(*args)
    except MemoryError:
        g = gpu()
        if g is None or not _device.release_cached(g):
            raise
        return fn(*args)


def call_device(name, arrays, kind, kwargs):
    """The outputs (a tuple, the operation's numbers after its arrays) of
    registry operation `name` on CUDA arrays of one kind, through the
    extension's call(): the arrays read in C, the keyword arguments by their
    Python names, nothing in Python before the launch; NotImplemented where
    call() leaves the work to the general path."""
    stream = _device.stream_of(arrays[0], kind) if kind == "torch" else None
    outs = _freeing_caches(_parac.call, lambda: _device.device_index(arrays[0], kind), name, arrays, kwargs, stream)
    if outs is NotImplemented:
        return outs
    return tuple(o if not isinstance(o, tuple) else _device.wrap_output(o, kind, stream) if o[0] == "cuda"
                 else _host_as(o, kind, arrays[0]) for o in outs)


class Table(dict):
    """A table's columns by name; `block` is the array whose rows they are
    (None where they are not rows of one array)."""

    def __init__(self, columns, block=None):
        super().__init__(columns)
        self.block = block


class Records:
    """A table as the library wrote it: `array`, a record (row) per item,
    with the columns `names`. Wrappers that build their own columns take
    this form (an operation's `_records=True`) and so make only the arrays
    they return."""

    def __init__(self, array, names):
        self.array = array
        self.names = tuple(names)


def _tables(op, res, numbers, ndim, n_given, records=False):
    """Outputs that are tables (regionprops) as dicts of columns: the table's
    first numbers[0] rows (the operation's first number counts them), one
    array per column, named as the registry names them; arrays of the
    inputs' kind. With records, as Records where the table's columns are
    the volume's or the image's own."""
    out = list(res)
    for k, by in enumerate(op["tables"]):
        if by is not None and out[k] is not None:
            names = by[(3 if ndim == 3 else 2, n_given)]
            if records and len(names) == out[k].shape[-1]:
                out[k] = Records(out[k][: int(numbers[0])], names)
                continue
            # one copy makes every column contiguous (rows are records)
            cols = _device.transposed_copy(out[k][: int(numbers[0])])
            flat = by[(2, n_given)]
            if ndim == 3 and len(cols) == len(flat) != len(names):
                out[k] = Table(_one_slice_table({name: cols[c] for c, name in enumerate(flat)}, names))
            else:
                out[k] = Table({name: cols[c] for c, name in enumerate(names)}, cols)
    return out


def _one_slice_table(flat, names):
    """A volume of one slice is measured as a 2D image: its table in the
    volume's columns, every region in slice 0 (z from 0 to 1, centroid 0)."""
    zero = flat["label"] * 0
    out = {}
    for name in names:
        axis, _, j = name.rpartition("-")
        if axis == "bbox":  # lo z, y, x then hi z, y, x
            j = int(j)
            out[name] = zero if j == 0 else zero + 1 if j == 3 else flat["bbox-%d" % (j - 1 if j < 3 else j - 2)]
        elif axis == "centroid":
            out[name] = zero if j == "0" else flat["centroid-%d" % (int(j) - 1)]
        else:
            out[name] = flat[name]
    return out


def _one_slice(res, like, channels=False):
    """The results of a volume of one slice keep its leading axis: the
    library sees a 2D image and returns 2D images (views, reshaped: no copy).
    With channels, like's last axis holds them (and a result's, where it has
    more than one)."""
    shape = tuple(getattr(like, "shape", ()))
    spatial = shape[:-1] if channels else shape
    if len(spatial) != 3 or spatial[0] != 1:
        return res
    return [r.reshape((1,) + tuple(r.shape)) if len(getattr(r, "shape", ())) in ((2, 3) if channels else (2,)) else r
            for r in res]


def _adjacent_channels(a):
    """A host array whose channels (last axis) are adjacent in memory, as the
    library reads them: a itself, or a copy."""
    import numpy as np

    a = np.asarray(a)
    return a if a.ndim and a.strides[-1] == a.itemsize else np.ascontiguousarray(a)


def _channels_last(channel_axis, first, who):
    """Whether the arrays' last axis holds channels (channel_axis -1 or the
    last axis' index; None: no channel axis)."""
    if channel_axis is None:
        return False
    nd = len(getattr(first, "shape", ()))
    if isinstance(channel_axis, bool) or channel_axis not in (-1, nd - 1):
        raise ValueError("%s(): channel_axis must be the last axis (-1) or None, got %r" % (who, channel_axis))
    return True


_PLANE_CONNECTIVITY = {6: 4, 18: 8, 26: 8}


def _plane_connectivity(kwargs, first):
    """A volume's connectivity (6, 18, 26) for a volume of one slice, which
    the library sees as a 2D image: the neighbours within the slice (4, 8)."""
    c = kwargs.get("connectivity")
    if c in _PLANE_CONNECTIVITY and tuple(getattr(first, "shape", ()))[:1] == (1,) and len(first.shape) == 3:
        kwargs["connectivity"] = _PLANE_CONNECTIVITY[c]


def _returned(res, numbers, n_out):
    """What a generated function returns: its one array, or a tuple of its
    arrays, followed by the operation's numbers (label: (labels, count))."""
    if numbers:
        return tuple(res) + tuple(numbers)
    return res[0] if n_out == 1 else tuple(res)


def _python_default(p):
    d = p["default"]
    if d is None:
        return None
    t = p["type"]
    try:
        if t == "bool":
            return d.lower() in ("1", "true", "yes", "on")
        if t == "int":
            return int(d)
        if t == "float":
            return float(d)
    except ValueError:
        pass
    return d


def _input_names(op):
    words = [w.strip("[]").lower().replace("-", "_") for w in (op["usage"] or "").split() if w.isupper()]
    names = [py_name(w) for w in words if w not in ("out", "out_dir")][: op["n_inputs"]]
    while len(names) < op["n_inputs"]:
        names.append("input%d" % (len(names) + 1))
    return names


def _doc(op, inputs, params):
    lines = [op["summary"] or op["name"], ""]
    if op["description"]:
        lines += [op["description"], ""]
    lines.append("Parameters")
    lines.append("----------")
    n_least = len(inputs) - op["n_optional_inputs"]
    for i, n in enumerate(inputs):
        lines.append("%s : numpy.ndarray%s" % (n, ", optional" if i >= n_least else ""))
    for p in params:
        d = _python_default(p)
        extra = "" if d is None else ", default %r" % (d,)
        if p["choices"]:
            extra += ", one of %s" % p["choices"].replace("|", ", ")
        lines.append("%s : %s%s" % (py_name(p["name"]), p["type"], extra))
        if p["help"]:
            lines.append("    " + p["help"])
    if op["methods"]:
        lines.append("method : str, default 'auto'")
        lines.append("    " + ", ".join("%s (%s)" % (m["name"], m["backend"]) for m in op["methods"]))
    lines.append("device : str, default 'auto'")
    lines.append("    'cpu', 'cuda', 'cuda:N' or 'auto'")
    lines.append("channel_axis : int or None, default None")
    lines.append("    -1: the arrays' last axis holds 1-4 interleaved channels (operations that take one")
    lines.append("    channel refuse more); a result keeps that axis where it has more than one channel")
    lines.append("out : array%s, optional" % ("" if op["n_outputs"] == 1 else " or tuple"))
    lines.append("    written with the result and returned, of the inputs' kind (NumPy, CuPy or a CUDA")
    lines.append("    tensor): computed in place where the operation can, else copied in by the library")
    return "\n".join(lines)


def _dask_fill_label_holes(*arrays, **kwargs):
    from . import _dask_label_holes

    return _dask_label_holes.registry_call(*arrays, **kwargs)


def _dask_lookup(*arrays, **kwargs):
    from . import _dask_lookup

    return _dask_lookup.registry_call(*arrays, **kwargs)


# the registry functions that take Dask arrays (the others are reached through
# parac.ndimage, parac.morphology, ...; docs/distributed.md)
_DASK = {"fill-label-holes": _dask_fill_label_holes, "lookup": _dask_lookup}


def _make(op):
    name = op["name"]
    inputs = _input_names(op)
    params = list(op["params"])
    by_py = {py_name(p["name"]): p for p in params}
    n_out = op["n_outputs"]

    n_in = len(inputs)
    n_least = n_in - op["n_optional_inputs"]
    has_tables = any(t is not None for t in op["tables"])
    row_inputs, moved_inputs = op["row_inputs"], op["moved_inputs"]

    def fn(*arrays, device=None, method=None, out=None, channel_axis=None, **kwargs):
        records = kwargs.pop("_records", False) if has_tables else False
        while len(arrays) > n_least and arrays[-1] is None:
            arrays = arrays[:-1]  # optional inputs left out
        if name in _DASK and arrays and _dask.is_dask(arrays[0]):
            if out is not None or channel_axis is not None:
                raise NotImplementedError("%s: out= and channel_axis= are not supported for Dask arrays" % py_name(name))
            return _DASK[name](*arrays, device=device, method=method, **kwargs)
        back = mine = None
        if row_inputs | moved_inputs:
            arrays, out, back, mine = _rows_and_moved(arrays, out, row_inputs, moved_inputs)
        channels = _channels_last(channel_axis, arrays[0], py_name(name)) if arrays else False
        if arrays and "connectivity" in kwargs and not channels:
            _plane_connectivity(kwargs, arrays[0])

        def finish(res, numbers):
            if has_tables:
                res = _tables(op, res, numbers, len(getattr(arrays[0], "shape", ())), len(arrays), records)
            else:
                res = _one_slice(res, arrays[0], channels)
            if back is not None:  # the caller's element type again (their own out= itself)
                res = [res[0].view(back) if mine is None else mine] + list(res[1:])
            return _returned(res, numbers, n_out)

        if out is None and device is None and not channels and n_least <= len(arrays) <= n_in:
            # CUDA arrays: read, checked and launched in C, nothing in Python before the launch
            kind = _device.kind_of(arrays[0])
            if kind is not None and (n_in == 1 or all(_device.kind_of(a) == kind for a in arrays[1:])):
                if method is not None:
                    kwargs["method"] = method
                res = call_device(name, arrays, kind, kwargs)
                if res is not NotImplemented:
                    return finish(res[:n_out], res[n_out:])
                kwargs.pop("method", None)  # the general path below takes what call() leaves to it
        if not n_least <= len(arrays) <= n_in:
            raise TypeError("%s() takes %s array%s (%s), %d given" % (
                py_name(name), n_in if n_least == n_in else "%d to %d" % (n_least, n_in),
                "" if n_in == 1 else "s", ", ".join(inputs), len(arrays)))
        text = {}
        for k, v in kwargs.items():
            p = by_py.get(k)
            if p is None:
                raise TypeError("%s() got an unexpected keyword argument %r (parameters: %s)" % (
                    py_name(name), k, ", ".join(sorted(by_py))))
            if v is not None:
                text[p["name"]] = _text(v, p["type"])
        if method is not None:
            if not op["methods"]:
                raise TypeError("%s() has no methods to choose from" % py_name(name))
            text["method"] = str(method)
        kinds = [_device.kind_of(a) for a in arrays]
        kind = next((k for k in kinds if k), None)
        if kind is None:
            arrs = tuple(_as_input(_adjacent_channels(a) if channels else a) for a in arrays)
            given = _given_outputs(out, n_out, py_name(name))
            outs, _why = _freeing_caches(_parac.run, lambda: _device.gpu_of(device), name, arrs, text,
                                         None if device in (None, "auto") else str(device), 0, False, given, False,
                                         channels)
            import numpy as np

            # views of the library's images (no copy), or the arrays given in out, written by the library
            res = [g if o is None else np.asarray(o[0]) for o, g in zip(outs[:n_out], given or (None,) * n_out)]
            return finish(res, outs[n_out:])
        # device arrays: used where they live, results stay there
        first = arrays[kinds.index(kind)]
        given = _given_device_outputs(out, n_out, kind, py_name(name))
        keep, arrs = [], []
        for a, k in zip(arrays, kinds):
            if k:
                a, d = _device.describe(a, k)
                keep.append(a)
                arrs.append(d)
            else:
                arrs.append(_as_input(a))
        if device in (None, "auto"):
            device = "cuda:%d" % _device.device_index(first, kind)
        stream = _device.stream_of(first, kind)
        outs, _why = _freeing_caches(_parac.run, lambda: _device.gpu_of(device), name, tuple(arrs), text, str(device),
                                     stream, True, given and tuple(d for _, d in given), False, channels)
        del keep
        res = [g[0] if o is None else _device.wrap_output(o, kind, stream) if o[0] == "cuda" else _host_as(o, kind, first)
               for o, g in zip(outs[:n_out], given or (None,) * n_out)]
        return finish(res, outs[n_out:])

    fn.__name__ = fn.__qualname__ = py_name(name)
    fn.__doc__ = _doc(op, inputs, params)
    return fn


def make_functions(namespace):
    """Put one function per registry operation into namespace; return their names."""
    names = []
    for op in _parac.ops():
        if op["n_inputs"] < 1 or op["n_outputs"] < 1:
            continue  # operations that read or write files only (the CLI has them)
        f = _make(op)
        namespace[f.__name__] = f
        names.append(f.__name__)
    return names


_PY_TYPES = {"bool": "bool", "int": "int", "float": "float", "str": "str", "choice": "str", "path": "str",
             "list": "object"}


def stub_text():
    """The type stub (__init__.pyi) of the generated functions, from the same registry."""
    out = ['"""Type stub of parac, generated from its operation registry (parac/_registry.py)."""',
           "from typing import Optional", "", "import numpy as np", "", "__version__: str", ""]
    for op in _parac.ops():
        if op["n_inputs"] < 1 or op["n_outputs"] < 1:
            continue
        names = _input_names(op)
        n_least = len(names) - op["n_optional_inputs"]
        args = ["%s: np.ndarray" % n if i < n_least else "%s: Optional[np.ndarray] = None" % n
                for i, n in enumerate(names)] + ["/", "*"]
        for p in op["params"]:
            t = _PY_TYPES[p["type"]]
            d = _python_default(p)
            args.append("%s: Optional[%s] = %s" % (py_name(p["name"]), t, repr(d)))
        if op["methods"]:
            args.append("method: Optional[str] = None")
        args.append("device: Optional[str] = None")
        args.append("channel_axis: Optional[int] = None")
        args.append("out: Optional[object] = None")
        kinds = ["dict" if t is not None else "np.ndarray" for t in op["tables"]]
        ret = kinds[0] if op["n_outputs"] == 1 and not op["results"] else "tuple[%s]" % ", ".join(
            kinds + ["int"] * len(op["results"]))
        out.append("def %s(%s) -> %s:" % (py_name(op["name"]), ", ".join(args), ret))
        out.append('    """%s"""' % (op["summary"] or op["name"]).replace('"""', "'''"))
        out.append("")
    out += ["def imread(path: str, *, layout: Optional[str] = None) -> np.ndarray:",
            '    """Read an image file (PNG, JPEG, TIFF, PGM/PPM, .npy, NRRD) into an array."""', "",
            "def imwrite(path: str, image: np.ndarray, *, format: Optional[str] = None, quality: Optional[int] = None,",
            "            compression: Optional[object] = None, channels: Optional[int] = None) -> None:",
            '    """Write an array to an image file, atomically."""', ""]
    out += ["def compile(source: str, target: str = 'c', *, flags: tuple = (), cc: Optional[str] = None) -> object:",
            '    """Compile ParaC source (text or a .pc path) into functions on NumPy arrays."""', ""]
    out += ["def memory_trim() -> None:",
            '    """Free the memory the library keeps cached (the CUDA pool, the CPU methods\' scratch blocks)."""', ""]
    return "\n".join(out)


def write_stub(path):
    """Write the type stub to path, through a temporary name in its directory
    (a build stopped midway leaves no partial stub). The build calls it as
    ``python -c "import sys, parac._registry as r; r.write_stub(sys.argv[1])" OUT``:
    ``python -m parac._registry`` would run this module a second time beside
    the copy that ``import parac`` has already loaded."""
    import os
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=".stub-", suffix=".pyi", dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(fd, "w") as f:
            f.write(stub_text())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's file is private: give it an ordinary file's mode
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
