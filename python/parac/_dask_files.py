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


class _Axes:
    """A file's array seen as parac's image: its spatial axes in the file's
    order, then its channels (1-4 interleaved, as parac's images hold them)
    last; axes of length 1 that are not spatial (time, one channel) dropped.
    Subclasses set path, file_shape, dtype and call _arrange(labels), where
    labels names each file axis: "s" spatial, "c" channels, "-" dropped
    (length 1 only)."""

    def _arrange(self, labels):
        shape = self.file_shape
        chans = [i for i, a in enumerate(labels) if a == "c" and shape[i] != 1]
        if len(chans) > 1 or (chans and not 1 <= shape[chans[0]] <= 4):
            raise FileError("%s: %s channels (axes %s); parac takes 1-4 interleaved channels"
                            % (self.path, " x ".join(str(shape[i]) for i in chans), "".join(labels)))
        self._drop = tuple(i for i, a in enumerate(labels) if a != "s" and i not in chans)
        kept = [i for i in range(len(shape)) if i not in self._drop]
        self._channel_at = kept.index(chans[0]) if chans else None
        order = [i for i in kept if i not in chans] + chans
        self.shape = tuple(shape[i] for i in order)
        self.channels = shape[chans[0]] if chans else 0
        self.ndim = len(self.shape)

    def _file_index(self, index):
        """The file's index for an index in image order (channels last)."""
        idx = list(index if isinstance(index, tuple) else (index,))
        idx += [slice(None)] * (self.ndim - len(idx))
        if self._channel_at is not None:  # back to the file's order
            idx.insert(self._channel_at, idx.pop())
        it = iter(idx)
        return tuple(0 if i in self._drop else next(it) for i in range(len(self.file_shape)))

    def _image_order(self, block):
        return block if self._channel_at is None else np.moveaxis(block, self._channel_at, -1)


def _labels_of_plain(path, shape, layout):
    """The axes of an array with no names (NPY, a Zarr array), as `parac`
    reads an NPY: (rows, columns); with three axes (rows, columns, channels)
    when the last has 1-4 entries, else (slices, rows, columns) (--layout hwc
    or dhw says which); with four, (slices, rows, columns, channels)."""
    if len(shape) == 3 and (layout == "hwc" or (layout == "auto" and 1 <= shape[2] <= 4)):
        if not 1 <= shape[2] <= 4:
            raise FileError("%s: shape %s read as (rows, columns, channels) has %d channels; 1-4 are possible"
                            % (path, shape, shape[2]))
        return "ssc"
    if len(shape) == 4:
        return "sssc"
    return "s" * len(shape)


class _TiffChunks(_Axes):
    """A TIFF's first image series as an array whose slices read only the
    tiles (strips) they cover; picklable (it holds the path). Its samples
    (RGB, RGBA) or channel axis are the channels."""

    def __init__(self, path):
        import tifffile

        self.path = path
        try:
            with tifffile.TiffFile(path) as tf:
                series = tf.series[0]
                self.file_shape, self.dtype, axes = tuple(series.shape), np.dtype(series.dtype), series.axes
        except Exception as e:  # tifffile raises many kinds on corrupt files
            raise FileError("%s: not a readable TIFF (%s)" % (path, e)) from None
        self._arrange(["c" if a in "SC" else "s" if n != 1 or a in "YX" else "-"
                       for a, n in zip(axes, self.file_shape)])

    def __getitem__(self, index):
        z, lock = _open_tiff(self.path)
        with lock:  # one file handle per process: its reads one at a time
            return self._image_order(np.asarray(z[self._file_index(index)]))

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


_NPYS = {}
_NPYS_LOCK = threading.Lock()


def _open_npy(path):
    """The memory map of an NPY file, opened once per process and file
    version. np.load parses the header with ast.literal_eval, and CPython
    3.11's AST construction is not safe in several threads at once (it fails
    with "AST constructor recursion depth mismatch", CPython gh-106905):
    chunks read in parallel must not each open the file. The key holds the
    file's first bytes (its header) beside its size and times: a file
    rewritten in place within one tick of the clock keeps its times."""
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        key = (os.path.abspath(path), st.st_ino, st.st_size, st.st_mtime_ns, f.read(4096))
    with _NPYS_LOCK:
        got = _NPYS.get(key)
        if got is None:
            for old in [k for k in _NPYS if k[0] == key[0]]:  # an older version of the file
                del _NPYS[old]
            while len(_NPYS) >= 64:  # a map keeps its file's pages, deleted or not
                del _NPYS[next(iter(_NPYS))]
            got = _NPYS[key] = np.load(path, mmap_mode="r")
    return got


class _NpyChunks(_Axes):
    """An NPY file as an array whose slices read through a memory map; picklable."""

    def __init__(self, path, layout="auto"):
        self.path = path
        try:
            m = _open_npy(path)
        except Exception as e:
            raise FileError("%s: not a readable NPY file (%s)" % (path, e)) from None
        self.file_shape, self.dtype = m.shape, m.dtype
        self._arrange(_labels_of_plain(path, m.shape, layout))

    def __getitem__(self, index):
        return np.array(_open_npy(self.path)[self._file_index(index)])

    def __dask_tokenize__(self):
        return ("parac-read", _token(self.path))


class _ZarrChunks(_Axes):
    """A Zarr array (an OME-Zarr's full resolution: its channel axis last,
    a time axis of one point dropped) whose slices read the chunks they
    cover. Tokenized by its path: an open zarr array is tokenized anew by
    every graph, and a distributed scheduler warns (one key, two
    definitions) when a second graph reads the same store."""

    def __init__(self, path, kind, layout="auto"):
        self.path = path
        self.z, labels = _zarr_array(path, kind)
        self.file_shape, self.dtype = tuple(self.z.shape), self.z.dtype
        self._arrange(labels or _labels_of_plain(path, self.file_shape, layout))
        kept = [i for i in range(self.z.ndim) if i not in self._drop]
        chunks = [self.z.chunks[i] for i in kept]
        if self._channel_at is not None:
            chunks.append(chunks.pop(self._channel_at))
        self.chunks = tuple(chunks)

    def __getitem__(self, index):
        return self._image_order(self.z[self._file_index(index)])

    def __dask_tokenize__(self):
        return ("parac-read", _token(self.path))


def _zarr_array(path, kind):
    """The Zarr array of a Zarr or OME-Zarr path and, for an OME-Zarr, the
    labels of its axes (see _Axes; None for a plain array)."""
    import zarr

    try:
        node = zarr.open(path, mode="r")
    except Exception as e:
        raise FileError("%s: not a readable Zarr store (%s)" % (path, e)) from None
    if isinstance(node, zarr.Array):
        return node, None
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
    for i, a in enumerate(axes):
        if a not in ("z", "y", "x", "c") and arr.shape[i] != 1:
            raise FileError("%s: axis %r has length %d; parac-dask takes one time point"
                            % (path, a, arr.shape[i]))
    return arr, ["s" if a in ("z", "y", "x") else "c" if a == "c" else "-" for a in axes]


def open_array(path, chunks=None, layout="auto", row=False):
    """(a, channels): a lazy Dask array of the image or volume in path (2D
    or 3D) and its number of channels (0: none; 2-4: a's last axis, never cut
    into chunks), chunked by chunks along the spatial axes (an int per axis,
    or one for every axis; None: the file's own chunks, at least 1024 pixels
    a side in 2D and 128 in 3D). layout: how a 3-axis NPY or Zarr array is
    read (auto, hwc, dhw), as `parac --layout`. row: a 1-axis array is taken
    too, as one row (an operation's table of entries)."""
    import dask.array as da

    if not os.path.exists(path):
        raise FileError("%s: no such file or directory" % path)
    if layout not in ("auto", "hwc", "dhw"):
        raise FileError("--layout: auto, hwc or dhw, got %r" % (layout,))
    kind = kind_of(path)
    if kind in ("zarr", "ome-zarr"):
        src = _ZarrChunks(path, kind, layout)
    else:
        src = _TiffChunks(path) if kind == "tiff" else _NpyChunks(path, layout)
    nch = src.channels
    shape = src.shape[:-1] if nch else src.shape
    if len(shape) not in (2, 3) and not (row and len(shape) == 1 and not nch):
        raise FileError("%s: shape %s; parac-dask takes %s2D image or a 3D volume%s"
                        % (path, src.shape, "a row of entries, a " if row else "a ",
                           " of 1-4 channels" if nch else ""))
    if any(n == 0 for n in src.shape):
        raise FileError("%s: an empty image (shape %s)" % (path, src.shape))
    own = getattr(src, "chunks", None)
    if chunks is None:
        least = 128 if len(shape) == 3 else 1024
        chunks = tuple(max(c, least) for c in own[:len(shape)]) if own else (256 if len(shape) == 3 else 4096)
    if nch:
        chunks = (tuple(chunks) if isinstance(chunks, tuple) else (chunks,) * len(shape)) + (nch,)
    # a store is read in its own chunks, then cut as asked
    a = da.from_array(src, chunks=own or chunks, lock=False, asarray=True,
                      meta=np.empty((0,) * len(src.shape), src.dtype), name="parac-read-" + _token(path),
                      inline_array=True)
    return (a.rechunk(chunks) if own else a), nch


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


def store_graph(a, path, pyramid=0, downsample="nearest", channels=0):
    """(delayed store of a into a temporary Zarr next to path, finish):
    compute the first (with anything else in the same pass), then call
    finish() to put the output in place, or abandon() on failure.
    pyramid: for an OME-Zarr output, that many more levels, each half the
    one before along y and x (a volume's z kept), written by finish() from
    the level before as stored (the operation is not computed again);
    downsample: "nearest" (every second pixel: labels and masks keep their
    values) or "mean" (of each 2 x 2, the last row or column repeated on an
    odd size; integers rounded half up). channels: a's last axis holds that
    many channels (0: none): an OME-Zarr stores them as its c axis, before
    the spatial ones; a TIFF as samples of each pixel (RGB, RGBA)."""
    import dask.array as da
    import zarr

    kind = check_pyramid(path, a.shape[:-1] if channels else a.shape, pyramid, downsample)
    if channels and kind == "ome-zarr":
        a = da.moveaxis(a, -1, 0)
    elif not channels and kind in ("npy", "zarr") and a.ndim == 3 and a.shape[-1] <= 4:
        # a volume of 1-4 columns gets a trailing axis of one channel, as parac writes
        # it, so that it is not read back as an image of that many channels
        a = a[..., None]
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
            group.attrs["multiscales"] = [_ome_multiscales(a.ndim, pyramid, bool(channels))]
        else:
            z = zarr.open_array(os.path.join(tmp, "data.zarr") if kind in ("tiff", "npy") else tmp, mode="w",
                                shape=a.shape, chunks=a.chunksize, dtype=a.dtype, **fmt)
        store = a.store(z, lock=False, compute=False)
    except Exception:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return store, _Finish(tmp, path, kind, z, pyramid, downsample, channels)


def _ome_multiscales(ndim, levels=0, channels=False):
    """OME-Zarr 0.4's metadata of ndim axes (a first c axis with channels)."""
    names = ["z", "y", "x"][-(ndim - channels):]
    axes = [{"name": "c", "type": "channel"}] * channels + [{"name": n, "type": "space"} for n in names]
    return {"version": "0.4", "name": "parac", "axes": axes,
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
    def __init__(self, tmp, path, kind, z, pyramid=0, downsample="nearest", channels=0):
        self.tmp, self.path, self.kind, self.z = tmp, path, kind, z
        self.pyramid, self.downsample, self.channels = pyramid, downsample, channels

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
                if self.kind == "tiff":
                    _write_tiff(self.z, part, self.channels)
                else:
                    _write_npy(self.z, part)
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


def _bands(z, tile, channels=0):
    """Every tile of z (a 2D image or each slice of a volume, channels last
    where it has them), in TIFF's order, read from z one band of rows at a time."""
    spatial = z.ndim - (channels > 0)
    h, w = z.shape[spatial - 2:spatial]
    for plane in range(z.shape[0] if spatial == 3 else 1):
        for y in range(0, h, tile):
            band = np.asarray(z[plane, y:y + tile] if spatial == 3 else z[y:y + tile])
            for x in range(0, w, tile):
                t = band[:, x:x + tile]
                if t.shape[:2] != (tile, tile):
                    t = np.pad(t, ((0, tile - t.shape[0]), (0, tile - t.shape[1])) + ((0, 0),) * (t.ndim - 2))
                yield t


def _write_tiff(z, path, channels=0, tile=256):
    """A tiled BigTIFF of z (a volume's slices as pages; channels as the
    samples of each pixel: RGB, RGBA, or grey and an extra sample), written
    band by band."""
    import tifffile

    spatial = "ZYX" if z.ndim - (channels > 0) == 3 else "YX"
    kw = {"photometric": "minisblack"}
    if channels:
        kw = {"photometric": "rgb" if channels >= 3 else "minisblack", "planarconfig": "contig"}
        if channels in (2, 4):
            kw["extrasamples"] = ("unassalpha",)
    with tifffile.TiffWriter(path, bigtiff=True) as tw:
        tw.write(_bands(z, tile, channels), shape=z.shape, dtype=z.dtype, tile=(tile, tile),
                 metadata={"axes": spatial + ("S" if channels else "")}, **kw)


def _write_npy(z, path):
    out = np.lib.format.open_memmap(path, mode="w+", dtype=z.dtype, shape=z.shape)
    step = z.chunks[0]
    for i in range(0, z.shape[0], step):
        out[i:i + step] = z[i:i + step]
    out.flush()
    del out

