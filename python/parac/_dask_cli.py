"""parac-dask: parac's operations on images and volumes larger than one
machine, through Dask (docs/distributed.md).

    parac-dask OPERATION IN [IN2] OUT [--chunks N] [--scheduler ADDRESS] [operation options]

The operations and their options are the command line's (`parac OPERATION
--help`, from the operation registry); each result equals `parac OPERATION`
on the whole file bit for bit. IN and OUT are Zarr, OME-Zarr, (Big)TIFF or
NPY (python/parac/_dask_files.py), read and written chunk by chunk.
Exit status: 0 success, 1 bad arguments or input (nothing written), 2 an
internal error.
"""
import argparse
import contextlib
import sys
from functools import partial

import numpy as np

from ._dask_rounds import _xp
from ._registry import _DTYPES

# operations this command runs, and how many images each reads
_INPUTS = {"convert": 1, "gauss": 1, "convolve": 1, "reconstruct": 2, "fill-holes": 1, "h-maxima": 1, "h-minima": 1, "regional-maxima": 1,
           "regional-minima": 1, "clear-border": 1, "floodfill": 1, "label": 1, "remove-small-objects": 1,
           "remove-small-holes": 1, "opening-by-reconstruction": 1, "closing-by-reconstruction": 1,
           "regionprops": (1, 2), "fill": 1, "fill-label-holes": 1, "skeleton": 1, "lookup": 2}
# the input dtypes each operation takes, as the command line's
_TAKES = {"convert": ("u8", "u16", "i32", "f32", "f64", "i64"), "label": ("u8", "u16", "i32", "f32"),
          "regionprops": ("u8", "u16", "i32"), "fill": ("u8", "u16"),
          "remove-small-objects": ("u8", "u16", "i32"), "remove-small-holes": ("u8", "u16", "i32"),
          "fill-label-holes": ("u8", "u16", "i32"), "skeleton": ("u8", "u16", "i32"),
          "lookup": ("u8", "u16", "i32", "i64")}  # lookup: its INDEX (its TABLE: any dtype)
_TAKES_DEFAULT = ("u8", "u16", "f32")
_INTENSITY_TAKES = ("u8", "u16", "i32", "f32")  # regionprops' second image
_NAMES = {v: k for k, v in _DTYPES.items()}
# the operations that take images of 1-4 channels (each channel filtered on its own, or
# converted), as the command line's; the others take one channel
_CHANNELS = ("gauss", "convolve", "convert")
# tuning of one in-memory method, with no meaning chunk by chunk
_UNUSED = {"gauss": ("tolerance",), "reconstruct": ("heaps", "node_size", "heap_updates"), "fill": ("seeds",)}


class UsageError(Exception):
    pass


def _ops():
    from . import _parac

    return {op["name"]: op for op in _parac.ops() if op["name"] in _INPUTS}


def _value(p, text):
    """A registry parameter's value from its text (default or command line)."""
    t = p.get("type")
    if t == "bool":
        return text in (True, "1", "true", "yes")
    if t == "int":
        return int(text)
    if t == "float":
        return float(text)
    return text


def _parser(op):
    n = _INPUTS[op["name"]]
    if n == (1, 2):  # a table from one or two images
        ins, outs, nargs, what = "LABELS [INTENSITY]", "TABLE", "+", "Zarr, OME-Zarr, TIFF or NPY; TABLE .csv, .json or .npy"
    elif op["name"] == "lookup":
        ins, outs, nargs = "INDEX TABLE", "OUT", 3
        what = "Zarr, OME-Zarr, TIFF or NPY (TABLE, one row, is read whole)"
    else:
        ins, outs, nargs = "MARKER MASK" if n == 2 else "IN", "OUT", n + 1
        what = "Zarr, OME-Zarr, TIFF or NPY"
    ap = argparse.ArgumentParser(prog="parac-dask " + op["name"], usage="%(prog)s " + ins + " " + outs + " [options]",
                                 description=op.get("summary") or op["name"])
    ap.add_argument("files", nargs=nargs, metavar="FILE", help=ins + " " + outs + ": " + what)
    g = ap.add_argument_group("parameters (as `parac %s`)" % op["name"])
    for p in op["params"]:
        flag = "--" + p["name"]
        dest = p["name"].replace("-", "_")
        helptext = (p.get("help") or "").replace("%", "%%")
        if p.get("type") == "bool":
            g.add_argument(flag, dest=dest, action="store_true", default=None, help=helptext)
        elif p.get("type") == "list":
            g.add_argument(flag, dest=dest, action="append", help=helptext)
        else:
            g.add_argument(flag, dest=dest, metavar=p.get("type", "value"), help=helptext)
    _common(ap)
    return ap


def _common(ap):
    g = ap.add_argument_group("running")
    g.add_argument("--chunks", help="chunk size: N for every axis or N,M[,K] in array order (slices, rows, "
                                    "columns); default: the file's own chunks, at least 1024 (2D) or 128 (3D), "
                                    "or 4096 (2D) / 256 (3D) for TIFF and NPY")
    g.add_argument("--scheduler", help="threads (default), synchronous, or the address of a dask.distributed "
                                       "scheduler (tcp://host:8786) or its scheduler file (.json)")
    g.add_argument("--device", help="where each chunk is computed: auto (default), cpu, cuda, cuda:N")
    g.add_argument("--layout", choices=("auto", "hwc", "dhw"), default="auto",
                   help="how a 3-axis NPY or Zarr array is read, as `parac --layout`: rows, columns, channels "
                        "(hwc) or slices, rows, columns (dhw); auto (default): hwc when the last axis has 1-4 "
                        "entries")
    g.add_argument("--method", help="the operation's method for each chunk (default: its own choice; the "
                                    "Gaussian: separable, the method whose result does not depend on the chunk)")
    g.add_argument("--pyramid", type=int, default=0, metavar="N",
                   help="an OME-Zarr output (.ome.zarr) gets N more levels, each half the one before along y and x")
    g.add_argument("--downsample", choices=("nearest", "mean"), default="nearest",
                   help="how the pyramid's levels are made: every second pixel (default; labels and masks keep "
                        "their values) or the mean of each 2 x 2")
    g.add_argument("--progress", action="store_true", help="show a progress bar even when stderr is not a terminal")
    g.add_argument("-q", "--quiet", action="store_true", help="print only errors (and no progress bar)")


def _params(op, ns):
    """The operation's parameters: given ones parsed, the others at the registry's defaults."""
    out = {}
    for p in op["params"]:
        dest = p["name"].replace("-", "_")
        given = getattr(ns, dest)
        if given is None:
            out[dest] = _value(p, p["default"]) if p.get("default") is not None else None
            continue
        try:
            out[dest] = [_value(p, v) for v in given] if p.get("type") == "list" else _value(p, given)
        except ValueError:
            raise UsageError("--%s: not a valid %s: %r" % (p["name"], p.get("type"), given)) from None
        if p.get("type") == "choice" and p.get("choices") and out[dest] not in p["choices"]:
            raise UsageError("--%s: one of %s, got %r" % (p["name"], ", ".join(p["choices"]), given))
    for name in _UNUSED.get(op["name"], ()):
        if getattr(ns, name) is not None:
            raise UsageError("--%s tunes one in-memory method; parac-dask does not use it" % name.replace("_", "-"))
    return out


def _chunks(text, ndim):
    if text is None:
        return None
    try:
        v = tuple(int(t) for t in text.split(","))
    except ValueError:
        raise UsageError("--chunks: whole numbers, N or N,M[,K], got %r" % text) from None
    if len(v) not in (1, ndim) or any(c < 1 for c in v):
        raise UsageError("--chunks: one size >= 1 for every axis or one per axis (%d), got %r" % (ndim, text))
    return v[0] if len(v) == 1 else v


def _connectivity(p, ndim, default_face=False):
    """The --connectivity value for an image of ndim dimensions (checked)."""
    c = p.get("connectivity")
    if c is None:
        return (4 if ndim == 2 else 6) if default_face else (8 if ndim == 2 else 26)
    if c not in ((4, 8) if ndim == 2 else (6, 18, 26)):
        raise UsageError("--connectivity %d is not valid for a %dD image (%s)"
                         % (c, ndim, "4 or 8" if ndim == 2 else "6, 18 or 26"))
    return c


# ---- the operations: Dask arrays in, (Dask array, lines to print) out ----------

def _gauss(a, p, device, method):
    from . import _dask, gauss

    s = {"x": p["sigma"], "y": p["sigma_y"], "z": p["sigma_z"]}
    if s["x"] is None:
        raise UsageError("--sigma is required")
    for k in ("y", "z"):
        s[k] = s["x"] if s[k] is None else s[k]
    spatial, kw = _per_channel(a, p)
    axes = ("z", "y", "x")[-spatial:]
    depth = [0 if s[k] == 0 else p["radius"] if p["radius"] is not None else int(p["truncate"] * s[k] + 0.5)
             for k in axes] + [0] * (a.ndim - spatial)
    kw.update({k: p[k] for k in ("sigma", "sigma_y", "sigma_z", "truncate", "radius", "border", "dtype")
               if p[k] is not None})
    dtype = np.dtype(_DTYPES[p["dtype"]]) if p["dtype"] else a.dtype
    block = partial(_call, gauss, kw, device, method or "separable")
    return _dask.local(a, depth, p["border"].split(":")[0] == "wrap", block, dtype, device), []


def _per_channel(a, p):
    """(spatial axes, keywords) of a local filter's call on a's blocks: with
    channels, the last axis is theirs (no halo) and each is filtered alone."""
    return a.ndim - (p["_channels"] > 0), ({"channel_axis": -1} if p["_channels"] else {})


def _call(fn, kw, device, method, block):
    return fn(block, device=device, method=method, **kw)


_NOMINAL_MAX = {"uint8": 255.0, "uint16": 65535.0, "int32": 2147483647.0}  # others (floats): 1


def _stretch(block, a, b, dtype, kw, device, method):
    """a v + b in float64, as parac's convert computes it, stored to dtype by
    parac's own conversion (scale none: the same rounding and clamping)."""
    from . import convert

    xp = _xp(block)
    return convert(block.astype(xp.float64) * a + b, dtype=dtype, scale="none", device=device, method=method, **kw)


def _convert(a, p, device, method):
    """Pixel by pixel, so each chunk on its own; minmax first takes the whole
    array's range (NaN skipped, as parac's statistics do)."""
    import dask
    import dask.array as da

    from . import convert

    nch = p["_channels"]
    cin = nch or 1
    cout = cin if p["channels"] is None else p["channels"]
    if not 1 <= cout <= 4:
        raise UsageError("--channels: 1 to 4, got %d" % cout)
    p["_out_channels"] = cout if cout > 1 else 0
    chan = {"channels": cout} if cout != cin else {}
    if nch:
        chan["channel_axis"] = -1
    # the output's chunks: the input's spatial ones, then its channels (if more than one)
    spatial = a.chunks[:a.ndim - (nch > 0)]
    shape = {"chunks": spatial + (((cout,),) if cout > 1 else ())}
    if nch and cout == 1:
        shape["drop_axis"] = [a.ndim - 1]
    elif not nch and cout > 1:
        shape["new_axis"] = [a.ndim]
    dtype = np.dtype(_DTYPES[p["dtype"]]) if p["dtype"] else a.dtype
    if p["scale"] == "minmax" and dtype == np.int64:
        raise UsageError("--scale minmax to i64, which has no nominal range (i64 values are kept: --scale none)")
    if p["scale"] == "minmax":
        lo, hi = (float(v) for v in dask.compute(da.nanmin(a), da.nanmax(a)))
        scale = _NOMINAL_MAX.get(str(dtype), 1.0) / (hi - lo) if hi > lo else 0.0
        name = _NAMES[str(dtype)]
        return a.map_blocks(_stretch, scale, -lo * scale, name, chan, device, method, dtype=dtype, **shape), []
    kw = dict({k: p[k] for k in ("dtype", "scale") if p[k] is not None}, **chan)
    return a.map_blocks(partial(_call, convert, kw, device, method), dtype=dtype, **shape), []


def _kernel_rows(text, who):
    """The rows of a --kernel / --kernel-x / --kernel-y value, as the command
    line reads it: a .npy file, a text file, or inline rows "1,2,1;2,4,2"."""
    import os

    try:
        if text.endswith(".npy"):
            k = np.load(text)
            return np.atleast_2d(k).astype(np.float64)
        if os.path.exists(text):
            with open(text) as f:
                lines = [ln.split("#")[0] for ln in f]
        else:
            lines = text.split(";")
        rows = [[float(v) for v in ln.replace(",", " ").split()] for ln in lines]
        rows = [r for r in rows if r]
        if not rows or len({len(r) for r in rows}) != 1:
            raise ValueError("rows of different lengths")
        return np.array(rows)
    except (OSError, ValueError) as e:
        raise UsageError("%s: not a kernel (%s)" % (who, e)) from None


def _convolve(a, p, device, method):
    """A local filter: halos of the kernel's reach (its anchor at width/2,
    height/2); a volume's slices are filtered each on its own."""
    from . import _dask, convolve

    if p["kernel"] is not None:
        k = _kernel_rows(p["kernel"], "--kernel")
        h, w = k.shape
    elif p["kernel_x"] is not None and p["kernel_y"] is not None:
        w = _kernel_rows(p["kernel_x"], "--kernel-x").size
        h = _kernel_rows(p["kernel_y"], "--kernel-y").size
    else:
        raise UsageError("--kernel, or --kernel-x with --kernel-y, is required")
    spatial, kw = _per_channel(a, p)
    depth = ([h // 2, w // 2] if spatial == 2 else [0, h // 2, w // 2]) + [0] * (a.ndim - spatial)
    kw.update({k: p[k] for k in ("kernel", "kernel_x", "kernel_y", "border", "dtype") if p[k] is not None})
    dtype = np.dtype(_DTYPES[p["dtype"]]) if p["dtype"] else a.dtype
    block = partial(_call, convolve, kw, device, method)
    return _dask.local(a, depth, p["border"].split(":")[0] == "wrap", block, dtype, device), []


def _floodfill(a, p, device, method):
    """Each seed's region by one merge of faces (the pixels within the
    tolerance of that seed's value, the component holding the seed), set to
    the value, or a mask of 1 in the regions."""
    from . import _dask_global

    if not p["seed"]:
        raise UsageError("--seed X,Y (or X,Y,Z) is required")
    seeds = []
    for text in p["seed"]:
        try:
            xyz = [int(v) for v in text.split(",")]
        except ValueError:
            raise UsageError("--seed %s: whole numbers X,Y or X,Y,Z" % text) from None
        if len(xyz) != a.ndim:
            raise UsageError("--seed %s: %d coordinates for a %dD image" % (text, a.ndim, a.ndim))
        pt = tuple(reversed(xyz))  # array order: slices, rows, columns
        if any(not 0 <= v < n for v, n in zip(pt, a.shape)):
            raise UsageError("--seed %s lies outside the image (%s)" % (text, " x ".join(map(str, a.shape[::-1]))))
        seeds.append(pt)
    conn = _connectivity(p, a.ndim, default_face=True)
    if a.ndim == 3 and conn in (4, 8):
        raise UsageError("--connectivity %d on a volume (within the seed's slice) is not run by parac-dask yet; "
                         "give 6, 18 or 26" % conn)
    tol = p["tolerance"]
    if tol < 0:
        raise UsageError("--tolerance must be >= 0")
    if not p["mask"]:
        v = p["value"]
        if v is None:
            raise UsageError("--value is required unless --mask")
        if a.dtype.kind != "f" and (v != int(v) or not np.iinfo(a.dtype).min <= v <= np.iinfo(a.dtype).max):
            raise UsageError("value %g does not fit a %s image (%d..%d, whole)" % (
                v, a.dtype, np.iinfo(a.dtype).min, np.iinfo(a.dtype).max))
    regions = None
    for pt in seeds:
        req = _dask_global.Request(partial(_dask_global.block_labels, kind="within", conn=conn, background=float(tol),
                                           device=device, method=method), a.ndim, conn, seed=pt, extra=a[pt])
        r = _dask_global.components(a, req, "marked", _dask_global.marked, np.bool_)[0]
        regions = r if regions is None else regions | r
    if p["mask"]:
        return regions.astype(np.uint8), []
    return a.map_blocks(_set_where, regions, p["value"], dtype=a.dtype), []


def _set_where(block, where, value):
    return _xp(block).where(where, block.dtype.type(value), block)


def _reconstruct(marker, mask, p, device, method):
    from ._dask_rounds import reconstruct_rounds

    if marker.shape != mask.shape or marker.dtype != mask.dtype:
        raise UsageError("MARKER and MASK differ: %s %s and %s %s" % (marker.shape, marker.dtype, mask.shape,
                                                                     mask.dtype))
    if p["clip"]:
        marker = (np.minimum if p["mode"] == "dilation" else np.maximum)(marker, mask)
    res, _rounds = reconstruct_rounds(marker, mask.rechunk(marker.chunks), p["mode"], _connectivity(p, marker.ndim),
                                      device, method, who="parac-dask reconstruct")
    return res, []


def _square_extremum(block, radius, closing):
    """The minimum (opening) or maximum (closing) over a square of side
    2 radius + 1 (a cube in 3D) clipped to the array, as parac's: a window
    that leaves the array sees the operation's identity there. Blocks come
    with halos of the radius, so only the array's own edges meet the cval.
    The chunks of files are NumPy arrays."""
    import scipy.ndimage as ndi

    if block.dtype.kind == "f":
        ident = -np.inf if closing else np.inf
    else:
        ident = np.iinfo(block.dtype).min if closing else np.iinfo(block.dtype).max
    fn = ndi.maximum_filter if closing else ndi.minimum_filter
    return fn(block, size=2 * radius + 1, mode="constant", cval=ident)


def _by_reconstruction(closing, a, p, device, method):
    """Opening (closing) by reconstruction: the local minimum (maximum) over
    the square by halos of its radius, then the reconstruction by dilation
    under (erosion above) the image, in rounds of face exchange."""
    import dask
    import dask.array as da

    from . import _dask
    from ._dask_rounds import reconstruct_rounds

    name = "closing-by-reconstruction" if closing else "opening-by-reconstruction"
    if a.dtype.kind == "f" and dask.compute(da.isnan(a).any())[0]:
        raise UsageError("%s: the image has NaN values (NaN has no order; replace them first)" % name)
    r = p["radius"]
    marker = a if r == 0 else _dask.local(a, [r] * a.ndim, False, partial(_square_extremum, radius=r, closing=closing),
                                           a.dtype)
    res, _rounds = reconstruct_rounds(marker, a, "erosion" if closing else "dilation", _connectivity(p, a.ndim), device,
                                      method, who="parac-dask " + name)
    return res.astype(a.dtype), []


def _fill_holes(a, p, device, method):
    """Grey-level hole filling: reconstruction by erosion from the border, in
    rounds; a two-valued image (the usual mask) by one merge of faces."""
    import dask
    import dask.array as da

    from . import _dask_global
    from ._dask_rounds import reconstruct_rounds

    conn = _connectivity(p, a.ndim, default_face=True)
    lo, hi = dask.compute(a.min(), a.max())
    if lo == hi:
        return a, []
    if not dask.compute(((a != lo) & (a != hi)).any())[0]:
        req = _dask_global.Request(partial(_labels_of_value, value=lo, conn=conn, device=device, method=method),
                                   a.ndim, conn, zone=1)
        return _dask_global.components(a, req, "marked", partial(_fill_unmarked, lo, hi), a.dtype)[0], []
    top = np.inf if a.dtype.kind == "f" else np.iinfo(a.dtype).max
    inside = da.ones_like(a, dtype=bool, chunks=a.chunks)
    inside = inside.map_blocks(_inside, a.shape, dtype=bool)
    marker = da.where(inside, a.dtype.type(top), a)
    res, _rounds = reconstruct_rounds(marker, a, "erosion", conn, device, method, who="parac-dask fill-holes")
    return res, []


def _inside(block, shape, block_info=None):
    """True on the pixels of a chunk that are not on the whole array's border."""
    loc = block_info[0]["array-location"]
    out = np.ones(block.shape, bool)
    for ax, ((a, b), n) in enumerate(zip(loc, shape)):
        if a == 0:
            out[tuple(0 if i == ax else slice(None) for i in range(block.ndim))] = False
        if b == n:
            out[tuple(-1 if i == ax else slice(None) for i in range(block.ndim))] = False
    return out


def _fill(a, p, device, method):
    """Seedless region filling (docs/fill.md): the background (below the
    threshold) components that reach the array's border are outside, every
    other background pixel inside; one merge of faces."""
    from . import _dask_global

    if a.ndim == 3 and p.get("connectivity") in (4, 8):
        raise UsageError("fill --connectivity %d fills each slice of a volume on its own; parac-dask fills "
                         "volumes in 3D (6, 18 or 26)" % p["connectivity"])
    conn = _connectivity(p, a.ndim, default_face=True)
    t = p["threshold"]
    keep = p["contour"] == "keep"
    dtype = a.dtype if keep else np.dtype(np.uint8)
    req = _dask_global.Request(partial(_labels_below, threshold=t, conn=conn, device=device, method=method),
                               a.ndim, conn, zone=1)
    finish = partial(_fill_values, t, p["contour"], p["inside_value"], p["outside_value"], dtype)
    return _dask_global.components(a, req, "marked", finish, dtype)[0], []


def _labels_below(block, extra, threshold, conn, device, method):
    from . import _dask_global

    return _dask_global.block_labels(block < threshold, extra, "nonzero", conn, device=device, method=method)


def _fill_values(threshold, contour, inside, outside, dtype, block, decided):
    """finish of fill: background outside (marked) or inside, contour pixels by --contour."""
    xp = _xp(block)
    bg = xp.where(decided, dtype.type(outside), dtype.type(inside))
    edge = block.astype(dtype) if contour == "keep" else dtype.type(inside if contour == "inside" else outside)
    return xp.where(block < threshold, bg, edge).astype(dtype, copy=False)


def _labels_of_value(block, extra, value, conn, device, method):
    from . import _dask_global

    return _dask_global.block_labels(block == value, extra, "nonzero", conn, device=device, method=method)


def _fill_unmarked(lo, hi, block, decided):
    xp = _xp(block)
    return xp.where((block == lo) & ~decided, block.dtype.type(hi), block)


def _extrema(kind, a, p, device, method):
    from . import _dask_extrema

    conn = _connectivity(p, a.ndim)
    who = "parac-dask " + kind
    if kind.startswith("h-"):
        if p["h"] is None:
            raise UsageError("--h is required")
        return _dask_extrema.h_extrema(a, p["h"], kind == "h-minima", conn, device, method, scale=255, who=who), []
    return _dask_extrema.regional_extrema(a, kind == "regional-minima", conn, device, method, scale=255, who=who), []


def _clear_border(a, p, device, method):
    from . import _dask_global

    conn = _connectivity(p, a.ndim)
    if p["buffer"] < 0:
        raise UsageError("--buffer must be >= 0")
    req = _dask_global.Request(partial(_dask_global.block_labels, kind="nonzero", conn=conn, device=device,
                                       method=method), a.ndim, conn, zone=p["buffer"] + 1)
    return _dask_global.components(a, req, "marked", _dask_global.where_not, a.dtype)[0], []


def _label(a, p, device, method):
    from . import _dask_global

    conn = _connectivity(p, a.ndim)
    eq = bool(p["equal_values"])
    req = _dask_global.Request(partial(_dask_global.block_labels, kind="equal" if eq else "nonzero", conn=conn,
                                       background=p["background"], device=device, method=method),
                               a.ndim, conn, values=eq, firsts=True)
    labels, plan = _dask_global.components(a, req, "number", _dask_global.labels_of,
                                           _dask_global.label_dtype(a.shape))
    return labels, [("count: %d", _dask_global.count(plan))]


def _small_objects(a, p, device, method):
    from . import _dask_global

    size = p["min_size"]
    if size < 0:
        raise UsageError("--min-size must be >= 0")
    if p["labels"]:
        return _dask_global.remove_small_labels(a, size), []
    conn = _connectivity(p, a.ndim, default_face=True)
    req = _dask_global.Request(partial(_dask_global.block_labels, kind="nonzero", conn=conn, device=device,
                                       method=method), a.ndim, conn, areas=True)
    return _dask_global.components(a, req, ("smaller", size), _dask_global.where_not, a.dtype)[0], []


def _small_holes(a, p, device, method):
    from . import _dask_global

    size, fg = p["area_threshold"], p["foreground"]
    if size < 0:
        raise UsageError("--area-threshold must be >= 0")
    if not 1 <= fg <= 255:
        raise UsageError("--foreground must be in 1..255")
    conn = _connectivity(p, a.ndim, default_face=True)
    req = _dask_global.Request(partial(_dask_global.block_labels, kind="zero", conn=conn, device=device,
                                       method=method), a.ndim, conn, areas=True)
    return _dask_global.components(a, req, ("smaller", size), partial(_foreground, fg), np.uint8)[0], []


def _label_holes(a, p, device, method):
    from . import _dask_label_holes

    res, filled = _dask_label_holes.fill_label_holes(a, _connectivity(p, a.ndim, default_face=True), device, method)
    return res, [("filled: %d", filled)]


def _skeleton(a, p, device, method):
    """Every label's curve skeleton, one task per label
    (python/parac/_skeleton_labels.py): IN is a label volume (0: background),
    each label skeletonized as `parac skeleton` skeletonizes a volume that
    holds it alone, with the same --method (auto: chosen per label by the
    size of its cut); OUT holds each label on its skeleton's voxels, in the
    labels' dtype. A volume of one object (0 and one value, 255 for a mask)
    gives what `parac skeleton` writes. --graph FILE.json: every label's
    graph and the labels without a skeleton, with the reason."""
    import json
    import os

    from ._skeleton_labels import skeletons_dask

    who = "parac-dask skeleton"
    if a.ndim != 3:
        raise UsageError("skeleton: a volume (slices, rows, columns) of labels, got %d dimensions" % a.ndim)
    if p.get("threshold") is not None:
        raise UsageError("--threshold: parac-dask skeleton reads labels (each nonzero value is one object); "
                         "make a mask of one value first (parac-dask convert, or `parac skeleton` on one object)")
    graph = p.get("graph")
    if graph is not None:
        if os.path.splitext(graph)[1].lower() != ".json":
            raise UsageError("--graph %s: the graphs of several labels are written as .json" % graph)
        if not os.path.isdir(os.path.dirname(os.path.abspath(graph))):
            raise UsageError("--graph %s: no such directory" % graph)
    spacing = None
    if p.get("spacing") is not None:
        try:
            sx, sy, sz = (float(v) for v in str(p["spacing"]).split(","))
        except ValueError:
            raise UsageError("--spacing: SX,SY,SZ, three numbers, got %r" % p["spacing"]) from None
        if not all(v > 0 for v in (sx, sy, sz)):
            raise UsageError("--spacing: sizes > 0, got %r" % p["spacing"])
        spacing = (sz, sy, sx)
    kw = dict(field_strength=p["field_strength"], charge_distance=p["charge_distance"], divergence=p["divergence"],
              spacing=spacing, rules=p["rules"], device=device, method=method)
    skel, results = skeletons_dask(a, kw, int(p["charge_distance"]) + 2, graph is not None, who)

    def report(res):
        """The summary lines; the graphs written (atomically) where asked."""
        done = [lab for lab, _c, _g, why in res if not why]
        skipped = {int(lab): why for lab, _c, _g, why in res if why}
        if graph is not None:
            doc = {"labels": {str(int(lab)): g for lab, _c, g, why in res if not why},
                   "skipped": {str(lab): why for lab, why in skipped.items()}}
            tmp = graph + ".part"
            with open(tmp, "w") as f:
                json.dump(doc, f)
            os.replace(tmp, graph)
        lines = ["skeletons: %d of %d labels" % (len(done), len(res))]
        lines += ["label %d: no skeleton (%s)" % (lab, why) for lab, why in sorted(skipped.items())]
        return "\n".join(lines)

    return skel, [(report, results)]


def _lookup(index, table, device, method):
    """parac-dask lookup INDEX TABLE OUT: the table read whole (a row of
    entries), each block of INDEX through it (python/parac/_dask_lookup.py)."""
    from . import lookup

    return lookup(index, table.compute(), device=device, method=method), []


def _foreground(fg, block, decided):
    xp = _xp(block)
    return xp.where((block != 0) | decided, np.uint8(fg), np.uint8(0))


_RUN = {"skeleton": _skeleton, "fill": _fill, "convert": _convert, "gauss": _gauss, "convolve": _convolve, "floodfill": _floodfill, "fill-holes": _fill_holes, "clear-border": _clear_border, "label": _label,
        "remove-small-objects": _small_objects, "remove-small-holes": _small_holes, "fill-label-holes": _label_holes,
        "h-maxima": partial(_extrema, "h-maxima"), "h-minima": partial(_extrema, "h-minima"),
        "regional-maxima": partial(_extrema, "regional-maxima"),
        "regional-minima": partial(_extrema, "regional-minima"),
        "opening-by-reconstruction": partial(_by_reconstruction, False),
        "closing-by-reconstruction": partial(_by_reconstruction, True)}


def _usage(ops):
    lines = ["usage: parac-dask OPERATION IN OUT [--chunks N] [--scheduler ADDRESS] [operation options]",
             "       parac-dask OPERATION --help", "",
             "parac's operations on Zarr, OME-Zarr, (Big)TIFF and NPY files too large for one machine, chunk by",
             "chunk through Dask; each result equals `parac OPERATION` on the whole file bit for bit.", "",
             "Operations:"]
    for name in _INPUTS:
        if name in ops:
            lines.append("  %-24s %s" % (name, ops[name].get("summary", "")))
    lines += ["", "Exit status: 0 success, 1 bad arguments or input (nothing written), 2 internal error."]
    return "\n".join(lines)


def _client(address):
    """The scheduler: a context manager (dask config or a distributed Client)."""
    import contextlib

    import dask

    if address in (None, "threads", "synchronous"):
        return dask.config.set(scheduler=address or "threads"), None
    from distributed import Client

    try:
        client = Client(scheduler_file=address) if address.endswith(".json") else Client(address, timeout="20s")
    except Exception as e:
        raise UsageError("--scheduler %s: cannot connect (%s)" % (address, e)) from None
    return contextlib.closing(client), client


@contextlib.contextmanager
def _running(ns):
    """The --scheduler, with the progress bar asked for: yields compute(graphs) -> their values.
    Graphs are built inside: the operations that run in rounds compute as they build."""
    import dask

    sched, client = _client(ns.scheduler)
    show = not ns.quiet and (ns.progress or sys.stderr.isatty())
    with sched:
        bar = contextlib.nullcontext()
        if show and client is None:
            from dask.diagnostics import ProgressBar

            bar = ProgressBar(out=sys.stderr)
        with bar:
            def compute(graphs):
                if client is not None and show:
                    from distributed import progress

                    fut = client.compute(graphs)
                    progress(fut)
                    return client.gather(fut)
                return dask.compute(*graphs)

            yield compute


def run(argv):
    """The command; returns the exit status (see the top)."""
    from . import _dask_files

    ops = _ops()
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage(ops))
        return 0 if argv else 1
    name = argv[0]
    if name not in ops:
        raise UsageError("unknown or unsupported operation %r (parac-dask --help lists them)" % name)
    op = ops[name]
    ns = _parser(op).parse_args(argv[1:])
    p = _params(op, ns)
    *ins, out = ns.files
    if name == "regionprops":
        return _regionprops(ins, out, ns)
    _dask_files.prepare(out)
    first, nch = _dask_files.open_array(ins[0], layout=ns.layout)
    spatial = first.ndim - (nch > 0)
    if nch and name not in _CHANNELS:
        raise UsageError("%s: %s: an image of %d channels; %s takes one (`parac-dask convert IN OUT --channels 1` "
                         "makes it grey)" % (name, ins[0], nch, name))
    _dask_files.check_pyramid(out, first.shape[:spatial], ns.pyramid, ns.downsample)
    chunks = _chunks(ns.chunks, spatial) or first.chunksize[:spatial]
    # a row of entries (lookup's TABLE) is read whole: it keeps its own chunks
    rows, moved = ops[name]["row_inputs"], ops[name]["moved_inputs"]
    opened = [_dask_files.open_array(f, None if rows >> i & 1 else chunks, ns.layout, row=bool(rows >> i & 1))
              for i, f in enumerate(ins)]
    for f, (_a, n) in zip(ins[1:], opened[1:]):
        if n:
            raise UsageError("%s: %s: an image of %d channels; %s takes one" % (name, f, n, name))
    arrays = [a for a, _n in opened]
    p["_channels"] = nch
    takes = _TAKES.get(name, _TAKES_DEFAULT)
    for i, (f, a) in enumerate(zip(ins, arrays)):
        if moved >> i & 1:
            continue  # elements only moved (lookup's TABLE): any dtype
        dt = _NAMES.get(str(a.dtype), str(a.dtype))
        if dt not in takes:
            raise UsageError("%s: %s: dtype %s is not supported (%s; see 'parac-dask convert')"
                             % (name, f, dt, ", ".join(takes)))
    with _running(ns) as compute:
        if name == "reconstruct":
            res, extra = _reconstruct(arrays[0], arrays[1], p, ns.device, ns.method)
        elif name == "lookup":
            res, extra = _lookup(arrays[0], arrays[1], ns.device, ns.method)
        else:
            res, extra = _RUN[name](arrays[0], p, ns.device, ns.method)
        store, finish = _dask_files.store_graph(res, out, ns.pyramid, ns.downsample, p.get("_out_channels", nch))
        try:
            values = compute([store] + [v for _f, v in extra])[1:]
            # a line to print: fmt % value, or fmt(value) (which may write a side file first)
            lines = [fmt(v) if callable(fmt) else fmt % v for (fmt, _v), v in zip(extra, values)]
        except BaseException:
            finish.abandon()
            raise
        finish()
    if not ns.quiet:
        for line in lines:
            print(line)
    return 0


def _regionprops(ins, out, ns):
    """parac-dask regionprops LABELS [INTENSITY] TABLE: one row per label (python/parac/_dask_regions.py)."""
    import os

    from . import _dask_files, _dask_regions, _parac

    if len(ins) not in (1, 2):
        raise UsageError("regionprops: LABELS [INTENSITY] TABLE, got %d files" % (len(ins) + 1))
    if ns.pyramid:
        raise UsageError("regionprops: --pyramid is for images written as OME-Zarr; a table has no levels")
    if os.path.splitext(out)[1].lower() not in (".csv", ".json", ".npy"):
        raise UsageError("%s: the table is written as .csv, .json or .npy" % out)
    if not os.path.isdir(os.path.dirname(os.path.abspath(out))):
        raise UsageError("%s: no such directory" % os.path.dirname(os.path.abspath(out)))
    first, n = _dask_files.open_array(ins[0], layout=ns.layout)
    chunks = (_chunks(ns.chunks, first.ndim) or first.chunksize) if not n else None
    opened = [_dask_files.open_array(f, chunks, ns.layout) for f in ins]
    for f, (_a, n) in zip(ins, opened):
        if n:
            raise UsageError("regionprops: %s: an image of %d channels; regionprops takes one" % (f, n))
    arrays = [a for a, _n in opened]
    first = arrays[0]
    for f, a, takes in zip(ins, arrays, (_TAKES["regionprops"], _INTENSITY_TAKES)):
        dt = _NAMES.get(str(a.dtype), str(a.dtype))
        if dt not in takes:
            raise UsageError("regionprops: %s: dtype %s is not supported (%s)" % (f, dt, ", ".join(takes)))
    if len(arrays) == 2 and arrays[1].shape != first.shape:
        raise UsageError("regionprops: %s has shape %s, %s has %s: the intensity must match the labels"
                         % (ins[1], arrays[1].shape, ins[0], first.shape))
    intensity = arrays[1] if len(arrays) == 2 else None
    with _running(ns) as compute:
        (rows,) = compute([_dask_regions.table(first, intensity, ns.device, ns.method)])
    _parac.write_table(out, rows, _dask_regions.columns(first.ndim, intensity is not None))
    if not ns.quiet:
        print("count: %d" % rows.shape[0])
    return 0


def main(argv=None):
    from ._dask_files import FileError

    argv = sys.argv[1:] if argv is None else argv
    try:
        return run(argv)
    except (UsageError, FileError) as e:
        print("parac-dask: error: %s" % e, file=sys.stderr)
        return 1
    except (ValueError, TypeError, OverflowError, NotImplementedError) as e:
        # bad input found while computing (NaN, values that do not fit, a marker above its mask)
        print("parac-dask: error: %s" % e, file=sys.stderr)
        return 1
    except MemoryError:
        print("parac-dask: error: out of memory", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # a defect of parac's, not of the input: say what, exit 2
        print("parac-dask: internal error: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
