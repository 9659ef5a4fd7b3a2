"""Files for parac-dask: Zarr, OME-Zarr, (Big)TIFF and NPY opened as lazy
Dask arrays, and results written to them without partly written output.

Reading is lazy and works on any scheduler: a chunk is read by the task that
needs it, which opens the file itself (a TIFF's tiles through tifffile's
Zarr view, an NPY through a memory map), so nothing but the path travels to
the workers. Writing goes through a Zarr store under a temporary name next to
the output (one pass over the graph, each chunk written once, memory bounded
by the chunks in flight); a TIFF or NPY output is then copied from it band by
band; the finished output takes its name by one rename, so a failed run
leaves no output, and an earlier file of that name stays whole until then.
"""
import os
import shutil
import tempfile
import threading

import numpy as np


class FileError(Exception):
    """A file that cannot be read or written as asked (exit status 1)."""


def kind_of(path):
    """The format of path by its name (and, for directories, their contents)."""
    low = path.lower().rstrip("/")
    if low.endswith(".ome.zarr"):
        return "ome-zarr"
    if low.endswith(".zarr") or (os.path.isdir(path) and
                                 any(os.path.exists(os.path.join(path, f)) for f in (".zarray", ".zgroup"))):
        return "zarr"
    if low.endswith((".tif", ".tiff", ".btf", ".tf8")):
        return "tiff"
    if low.endswith(".npy"):
        return "npy"
    raise FileError("%s: unknown format (parac-dask reads and writes Zarr (.zarr), OME-Zarr (.ome.zarr), "
                    "TIFF / BigTIFF (.tif, .tiff) and NPY (.npy))" % path)


class _TiffChunks:
    """A TIFF's first image series as an array whose slices read only the
    tiles (strips) they cover; picklable (it holds the path)."""

    def __init__(self, path):
        import tifffile

        self.path = path
        try:
            with tifffile.TiffFile(path) as tf:
                series = tf.series[0]
                self.shape, self.dtype, axes = tuple(series.shape), np.dtype(series.dtype), series.axes
        except Exception as e:  # tifffile raises many kinds on corrupt files
            raise FileError("%s: not a readable TIFF (%s)" % (path, e)) from None
        if "S" in axes:
            raise FileError("%s: an image of %d channels (axes %s); parac-dask takes one channel"
                            % (path, self.shape[axes.index("S")], axes))
        keep = [i for i, a in enumerate(axes) if self.shape[i] != 1 or a in "YX"]
        self._squeeze = tuple(i for i in range(len(self.shape)) if i not in keep)
        self.shape = tuple(self.shape[i] for i in keep)
        self.ndim = len(self.shape)

    def __getitem__(self, index):
        z, lock = _open_tiff(self.path)
        full = [slice(None)] * len(z.shape)
        it = iter(index if isinstance(index, tuple) else (index,))
        for i in range(len(z.shape)):
            full[i] = 0 if i in self._squeeze else next(it, slice(None))
        with lock:  # one file handle per process: its reads one at a time
            return np.asarray(z[tuple(full)])

    def __dask_tokenize__(self):
        return ("parac-read", _token(self.path))


_TIFFS = {}
_TIFFS_LOCK = threading.Lock()


def _open_tiff(path):
    """The Zarr view of a TIFF's first series and its lock, opened once per
    process and file version (parsing a volume's thousands of pages for
    every chunk would cost more than reading it)."""
    import tifffile
    import zarr

    st = os.stat(path)
    key = (os.path.abspath(path), st.st_size, st.st_mtime_ns)
    with _TIFFS_LOCK:
        got = _TIFFS.get(key)
        if got is None:
            for old in [k for k in _TIFFS if k[0] == key[0]]:  # an older version of the file
                _TIFFS.pop(old)[2].close()
            store = tifffile.imread(path, aszarr=True, series=0, level=0)
            got = _TIFFS[key] = (zarr.open(store, mode="r"), threading.Lock(), store)
    return got[0], got[1]


class _NpyChunks:
    """An NPY file as an array whose slices read through a memory map; picklable."""

    def __init__(self, path):
        self.path = path
        try:
            m = np.load(path, mmap_mode="r")
        except Exception as e:
            raise FileError("%s: not a readable NPY file (%s)" % (path, e)) from None
        self.shape, self.dtype, self.ndim = m.shape, m.dtype, m.ndim

    def __getitem__(self, index):
        return np.array(np.load(self.path, mmap_mode="r")[index])

    def __dask_tokenize__(self):
        return ("parac-read", _token(self.path))


class _ZarrChunks:
    """A Zarr array (an OME-Zarr's full resolution, its time and channel
    axes dropped) whose slices read the chunks they cover. Tokenized by its
    path: an open zarr array is tokenized anew by every graph, and a
    distributed scheduler warns (one key, two definitions) when a second
    graph reads the same store."""

    def __init__(self, path, kind):
        self.path = path
        self.z, self._drop = _zarr_array(path, kind)
        keep = [i for i in range(self.z.ndim) if i not in self._drop]
        self.shape = tuple(self.z.shape[i] for i in keep)
        self.chunks = tuple(self.z.chunks[i] for i in keep)
        self.dtype, self.ndim = self.z.dtype, len(keep)

    def __getitem__(self, index):
        it = iter(index if isinstance(index, tuple) else (index,))
        full = tuple(0 if i in self._drop else next(it, slice(None)) for i in range(self.z.ndim))
        return self.z[full]

    def __dask_tokenize__(self):
        return ("parac-read", _token(self.path))


def _zarr_array(path, kind):
    """The Zarr array of a Zarr or OME-Zarr path (an OME-Zarr's full
    resolution; leading axes of length 1, time and channel, dropped)."""
    import zarr

    try:
        node = zarr.open(path, mode="r")
    except Exception as e:
        raise FileError("%s: not a readable Zarr store (%s)" % (path, e)) from None
    if isinstance(node, zarr.Array):
        return node, ()
    ms = node.attrs.get("multiscales")
    if not ms:
        names = sorted(k for k, _ in node.arrays())
        raise FileError("%s: a Zarr group without OME-Zarr 'multiscales' metadata (arrays: %s); give the array's "
                        "path" % (path, ", ".join(names) or "none"))
    try:
        arr = node[ms[0]["datasets"][0]["path"]]
    except Exception as e:
        raise FileError("%s: OME-Zarr metadata names no readable full-resolution array (%s)" % (path, e)) from None
    axes = [str(a["name"] if isinstance(a, dict) else a).lower() for a in ms[0].get("axes", [])]
    if len(axes) != arr.ndim:  # no (or inconsistent) axes: the trailing three are space
        axes = ["?"] * max(arr.ndim - 3, 0) + ["z", "y", "x"][-min(arr.ndim, 3):]
    drop = tuple(i for i, a in enumerate(axes) if a not in ("z", "y", "x"))
    for i in drop:
        if arr.shape[i] != 1:
            raise FileError("%s: axis %r has length %d; parac-dask takes one time point and one channel"
                            % (path, axes[i], arr.shape[i]))
    return arr, drop


def open_array(path, chunks=None):
    """A lazy Dask array of the image or volume in path (2D or 3D), chunked
    by chunks (an int per axis, or one for every axis; None: the file's own
    chunks, at least 1024 pixels a side in 2D and 128 in 3D)."""
    import dask.array as da

    if not os.path.exists(path):
        raise FileError("%s: no such file or directory" % path)
    kind = kind_of(path)
    if kind in ("zarr", "ome-zarr"):
        src = _ZarrChunks(path, kind)
        own = src.chunks
    else:
        src = _TiffChunks(path) if kind == "tiff" else _NpyChunks(path)
        own = None
    shape = src.shape
    if len(shape) not in (2, 3):
        raise FileError("%s: shape %s; parac-dask takes a 2D image or a 3D volume" % (path, shape))
    if any(n == 0 for n in shape):
        raise FileError("%s: an empty image (shape %s)" % (path, shape))
    if chunks is None:
        least = 1024 if len(shape) == 2 else 128
        chunks = tuple(max(c, least) for c in own) if own else (4096 if len(shape) == 2 else 256)
    # a store is read in its own chunks, then cut as asked
    a = da.from_array(src, chunks=own or chunks, lock=False, asarray=True, meta=np.empty((0,) * len(shape), src.dtype),
                      name="parac-read-" + _token(path), inline_array=True)
    return a.rechunk(chunks) if own else a


def _token(path):
    import hashlib

    st = os.stat(path)
    return hashlib.sha1(("%s %d %d" % (os.path.abspath(path), st.st_size, st.st_mtime_ns)).encode()).hexdigest()[:16]


def _regular(a):
    """a with chunks that Zarr can store (equal along each axis but the last)."""
    if all(len(set(c[:-1])) <= 1 and (len(c) < 2 or c[-1] <= c[0]) for c in a.chunks):
        return a
    return a.rechunk(tuple(max(c) for c in a.chunks))


def prepare(path):
    """Checks that path can be written (its folder exists) before any work."""
    kind = kind_of(path)
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise FileError("%s: the folder %s does not exist" % (path, parent))
    if not os.access(parent, os.W_OK):
        raise FileError("%s: the folder %s is not writable" % (path, parent))
    return kind


def check_pyramid(path, shape, pyramid, downsample="nearest"):
    """The output's kind, once the pyramid asked for is known to fit (see store_graph)."""
    kind = prepare(path)
    if pyramid and kind != "ome-zarr":
        raise FileError("%s: the levels of a pyramid are written to OME-Zarr (.ome.zarr) only" % path)
    if downsample not in ("nearest", "mean"):
        raise FileError("downsample: nearest or mean, got %r" % (downsample,))
    # level k halves level k-1, which must then be at least 2 pixels along y and x
    if pyramid < 0 or any(-(-n // 2 ** (k - 1)) < 2 for k in range(1, pyramid + 1) for n in shape[-2:]):
        raise FileError("%s: %d levels below an image of %s pixels do not fit (each halves y and x)"
                        % (path, pyramid, " x ".join(map(str, shape))))
    return kind


def store_graph(a, path, pyramid=0, downsample="nearest"):
    """(delayed store of a into a temporary Zarr next to path, finish):
    compute the first (with anything else in the same pass), then call
    finish() to put the output in place, or abandon() on failure.
    pyramid: for an OME-Zarr output, that many more levels, each half the
    one before along y and x (a volume's z kept), written by finish() from
    the level before as stored (the operation is not computed again);
    downsample: "nearest" (every second pixel: labels and masks keep their
    values) or "mean" (of each 2 x 2, the last row or column repeated on an
    odd size; integers rounded half up)."""
    import zarr

    kind = check_pyramid(path, a.shape, pyramid, downsample)
    parent = os.path.dirname(os.path.abspath(path))
    tmp = tempfile.mkdtemp(prefix="." + os.path.basename(path.rstrip("/")) + ".", suffix=".tmp", dir=parent)
    a = _regular(a)
    try:
        # Zarr format 2 (OME-Zarr 0.4's) with zarr 2 and zarr 3 alike
        fmt = {"zarr_format": 2} if int(zarr.__version__.split(".")[0]) >= 3 else {}
        if kind == "ome-zarr":
            group = zarr.open_group(tmp, mode="w", **fmt)
            z = zarr.open_array(os.path.join(tmp, "0"), mode="w", shape=a.shape, chunks=a.chunksize, dtype=a.dtype,
                                **fmt)
            group.attrs["multiscales"] = [_ome_multiscales(a.ndim, pyramid)]
        else:
            z = zarr.open_array(os.path.join(tmp, "data.zarr") if kind in ("tiff", "npy") else tmp, mode="w",
                                shape=a.shape, chunks=a.chunksize, dtype=a.dtype, **fmt)
        store = a.store(z, lock=False, compute=False)
    except Exception:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return store, _Finish(tmp, path, kind, z, pyramid, downsample)


def _ome_multiscales(ndim, levels=0):
    names = ["z", "y", "x"][-ndim:]
    return {"version": "0.4", "name": "parac",
            "axes": [{"name": n, "type": "space"} for n in names],
            "datasets": [{"path": str(k), "coordinateTransformations": [
                {"type": "scale", "scale": [1.0] * (ndim - 2) + [float(2 ** k)] * 2}]} for k in range(levels + 1)]}


def _half(a, downsample):
    """A Dask array half of a along its last two axes (see store_graph)."""
    import dask.array as da

    if downsample == "nearest":
        return a[(Ellipsis, slice(None, None, 2), slice(None, None, 2))]
    pad = [(0, 0)] * (a.ndim - 2) + [(0, n % 2) for n in a.shape[-2:]]
    if any(p[1] for p in pad):
        a = da.pad(a, pad, mode="edge")
    m = da.coarsen(np.mean, a.astype(np.float64), {a.ndim - 2: 2, a.ndim - 1: 2})
    if a.dtype.kind in "ui":
        return da.floor(m + 0.5).astype(a.dtype)
    return m.astype(a.dtype)


def _write_levels(tmp, z, levels, downsample):
    """Levels 1..levels of an OME-Zarr pyramid in tmp, each from the one before as stored."""
    import dask
    import dask.array as da
    import zarr

    fmt = {"zarr_format": 2} if int(zarr.__version__.split(".")[0]) >= 3 else {}
    prev = z
    for k in range(1, levels + 1):
        src = da.from_zarr(prev, inline_array=True)
        half = _half(src, downsample)
        chunks = tuple(min(c, n) for c, n in zip(z.chunks, half.shape))
        half = half.rechunk(chunks)
        nxt = zarr.open_array(os.path.join(tmp, str(k)), mode="w", shape=half.shape, chunks=chunks,
                              dtype=z.dtype, **fmt)
        dask.compute(half.store(nxt, lock=False, compute=False))
        prev = nxt


class _Finish:
    def __init__(self, tmp, path, kind, z, pyramid=0, downsample="nearest"):
        self.tmp, self.path, self.kind, self.z = tmp, path, kind, z
        self.pyramid, self.downsample = pyramid, downsample

    def abandon(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __call__(self):
        try:
            if self.pyramid:
                _write_levels(self.tmp, self.z, self.pyramid, self.downsample)
            if self.kind in ("zarr", "ome-zarr"):
                _into_place(self.tmp, self.path)
                return
            fd, part = tempfile.mkstemp(prefix="." + os.path.basename(self.path) + ".", suffix=".part",
                                        dir=os.path.dirname(os.path.abspath(self.path)))
            os.close(fd)
            try:
                (_write_tiff if self.kind == "tiff" else _write_npy)(self.z, part)
                os.chmod(part, 0o666 & ~_umask())
                os.replace(part, self.path)
            except BaseException:
                os.unlink(part)
                raise
        finally:
            self.abandon()


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _into_place(tmp, path):
    """Renames the finished directory tmp to path (an earlier path removed
    only once tmp is complete), with the permissions a new folder gets."""
    os.chmod(tmp, 0o777 & ~_umask())
    if os.path.isdir(path) and not os.path.islink(path):
        old = tmp + ".old"
        os.rename(path, old)
        os.rename(tmp, path)
        shutil.rmtree(old, ignore_errors=True)
    else:
        if os.path.lexists(path):
            os.unlink(path)
        os.rename(tmp, path)


def _bands(z, tile):
    """Every tile of z (a 2D image or each slice of a volume), in TIFF's order,
    read from z one band of rows at a time."""
    h, w = z.shape[-2:]
    for plane in range(z.shape[0] if z.ndim == 3 else 1):
        for y in range(0, h, tile):
            band = np.asarray(z[plane, y:y + tile] if z.ndim == 3 else z[y:y + tile])
            for x in range(0, w, tile):
                t = band[:, x:x + tile]
                if t.shape != (tile, tile):
                    t = np.pad(t, ((0, tile - t.shape[0]), (0, tile - t.shape[1])))
                yield t


def _write_tiff(z, path, tile=256):
    """A tiled BigTIFF of z (a volume's slices as pages), written band by band."""
    import tifffile

    with tifffile.TiffWriter(path, bigtiff=True) as tw:
        tw.write(_bands(z, tile), shape=z.shape, dtype=z.dtype, tile=(tile, tile), photometric="minisblack",
                 metadata={"axes": "ZYX" if z.ndim == 3 else "YX"})


def _write_npy(z, path):
    out = np.lib.format.open_memmap(path, mode="w+", dtype=z.dtype, shape=z.shape)
    step = z.chunks[0]
    for i in range(0, z.shape[0], step):
        out[i:i + step] = z[i:i + step]
    out.flush()
    del out

