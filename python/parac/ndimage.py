"""scipy.ndimage-compatible functions over parac: change the import, keep
the call. What parac does not support yet raises NotImplementedError."""
from functools import partial

import numpy as np

from . import fill as _fill
from . import gauss as _gauss
from . import _dask, _dask_global, _device, _registry
from ._compat import as_bool as _as_bool, bool_bytes as _bool_bytes, connectivity as _conn, dtype_name as _dtype_name
from ._compat import into as _into, to_type as _to

_MODES = {"reflect": "reflect", "grid-mirror": "reflect", "mirror": "reflect101", "nearest": "replicate",
          "wrap": "wrap", "grid-wrap": "wrap", "constant": "constant", "grid-constant": "constant"}


def gaussian_filter(input, sigma, order=0, mode="reflect", cval=0.0, truncate=4.0, output=None, axes=None,
                    *, radius=None, device=None, method=None):
    """Multi-dimensional Gaussian filter, as ``scipy.ndimage.gaussian_filter``.

    Parameters
    ----------
    input : array
        2D image or 3D volume (slices first); uint8, uint16, float32 or
        float64 (filtered in float32, returned as float64); NumPy, CuPy or a
        PyTorch CUDA tensor.
    sigma : float or sequence of floats
        Standard deviation, or one per axis (slices, rows, columns).
    order : 0
        Derivatives (order > 0) are not supported yet.
    mode : {'reflect', 'mirror', 'nearest', 'wrap', 'constant', 'grid-mirror', 'grid-wrap', 'grid-constant'}
        How the input is extended beyond its border; one mode for every axis.
    cval : float
        The value beyond the border with ``mode='constant'``.
    truncate : float
        The kernel's radius in standard deviations.
    output : array or dtype, optional
        An array to write into (a NumPy array of the result's dtype and shape
        is written by the library itself), or the result's dtype.
    axes : None
        Every axis is filtered.
    radius : int, optional
        The kernel's radius, overriding ``truncate``.
    device, method : str, optional
        parac's device and ``parac.gauss`` method.

    Returns
    -------
    array
        The input's dtype, where the input lives; equal to scipy's within
        float32 rounding.
    """
    if not (isinstance(order, int) and order == 0) and np.any(np.asarray(order) != 0):
        raise NotImplementedError("parac.ndimage.gaussian_filter: derivatives (order > 0) are not supported yet")
    if axes is not None:
        raise NotImplementedError("parac.ndimage.gaussian_filter: axes is not supported yet (every axis is filtered)")
    if not isinstance(mode, str) or mode not in _MODES:
        raise NotImplementedError("parac.ndimage.gaussian_filter: mode %r is not supported (one of %s)" % (
            mode, ", ".join(sorted(_MODES))))
    if _dask.is_dask(input):
        return _gaussian_dask(input, sigma, mode, cval, truncate, output, radius, device, method)
    kind = _device.kind_of(input)
    a = input if kind else np.asarray(input)
    if a.ndim not in (2, 3):
        raise ValueError("parac.ndimage.gaussian_filter: 2D or 3D input, got %d dimensions" % a.ndim)
    if isinstance(sigma, (int, float)):  # the common call, without NumPy's broadcasting
        s = (float(sigma),) * a.ndim
    else:
        s = np.broadcast_to(np.asarray(sigma, dtype=float), (a.ndim,))
    border = _MODES[mode] + (":%r" % float(cval) if _MODES[mode] == "constant" else "")
    if kind:  # CuPy array or CUDA tensor: filtered where it lives, returned as the same kind
        return _gaussian_device(a, kind, s, border, truncate, output, radius, device, method)
    work = a.astype(np.float32) if a.dtype == np.float64 else a
    if isinstance(output, np.ndarray) and output.dtype == work.dtype and output.shape == work.shape:
        # the library writes the result into output itself
        return _gauss(work, device=device, method=method, out=output, **_gauss_args(s, truncate, border, radius))
    res = _gauss(work, device=device, method=method, **_gauss_args(s, truncate, border, radius))
    res = res.astype(a.dtype) if res.dtype != a.dtype else res
    if output is not None:
        out = output if isinstance(output, np.ndarray) else None
        if out is None:
            return res.astype(output)
        out[...] = res
        return out
    return res


def _gaussian_dask(a, sigma, mode, cval, truncate, output, radius, device, method):
    """gaussian_filter of a Dask array, block by block with halos of the
    kernel's radius (parac._dask): bit for bit the in-memory call with the
    same method (``separable`` unless told)."""
    if output is not None:
        raise NotImplementedError("parac.ndimage.gaussian_filter: output= is not supported for Dask arrays "
                                  "(the result is a Dask array)")
    if a.ndim not in (2, 3):
        raise ValueError("parac.ndimage.gaussian_filter: 2D or 3D input, got %d dimensions" % a.ndim)
    s = np.broadcast_to(np.asarray(sigma, dtype=float), (a.ndim,))
    depth = [0 if v == 0 else int(radius) if radius is not None else int(float(truncate) * v + 0.5) for v in s]
    sig = tuple(float(v) for v in s)

    def block(b):
        return gaussian_filter(b, sig, mode=mode, cval=cval, truncate=truncate, radius=radius, device=device,
                               method=method or "separable")

    return _dask.local(a, depth, mode in ("wrap", "grid-wrap"), block, a.dtype, device)


def _gauss_args(s, truncate, border, radius, method=None):
    """parac.gauss's parameters from sigma per axis (slices first), truncate, border, radius (and method)."""
    kw = {"sigma": float(s[-1]), "sigma_y": float(s[-2]), "truncate": float(truncate), "border": border}
    if len(s) == 3:
        kw["sigma_z"] = float(s[0])
    if radius is not None:
        kw["radius"] = int(radius)
    if method is not None:
        kw["method"] = method
    return kw


def _gaussian_device(a, kind, s, border, truncate, output, radius, device, method):
    """gaussian_filter of a CuPy array or CUDA tensor, on its device (float64 filtered in float32)."""
    f64 = _device.is_float64(a, kind)
    if not f64 and output is None and device is None:  # the common call: straight to the extension
        res = _registry.call_device("gauss", (a,), kind, _gauss_args(s, truncate, border, radius, method))
        if res is not NotImplemented:
            return res[0]
    work = _device.astype(a, kind, "float32") if f64 else a
    if (output is not None and not f64 and _device.kind_of(output) == kind and output.dtype == work.dtype
            and tuple(output.shape) == tuple(work.shape)):
        # the library writes the result into output itself, on the device
        return _gauss(work, device=device, method=method, out=output, **_gauss_args(s, truncate, border, radius))
    res = _gauss(work, device=device, method=method, **_gauss_args(s, truncate, border, radius))
    if f64:
        res = _device.astype(res, kind, "float64")
    if output is None:
        return res
    if _device.kind_of(output) != kind:
        raise TypeError("parac.ndimage.gaussian_filter: output= for a %s input must be a %s array" % (kind, kind))
    output[...] = res
    return output


def binary_fill_holes(input, structure=None, output=None, origin=0, *, axes=None, device=None, method=None):
    """The objects with their holes filled, as ``scipy.ndimage.binary_fill_holes``.

    Parameters
    ----------
    input : array
        The objects: the nonzero pixels; 2D or 3D; bool, uint8 and uint16 go
        to the library as they are; NumPy, CuPy or a PyTorch CUDA tensor.
        A Dask array gives a Dask array, chunk by chunk and equal to the
        in-memory call (docs/distributed.md).
    structure : array, optional
        The background's connectivity as scipy's: the cross (default: 4 / 6
        neighbours) or the full 3x3 (3x3x3) block (8 / 26).
    output : array or dtype, optional
        An array to write into, or the result's dtype (NumPy inputs).
    origin : 0
        Only the centred structure is supported.
    axes : None
        Every axis is filled.
    device, method : str, optional
        parac's device and ``parac.fill`` method.

    Returns
    -------
    array of bool
        Where the input lives (a view of the library's bytes: no conversion
        pass).
    """
    if _moved(origin) or axes is not None:
        raise NotImplementedError("parac.ndimage.binary_fill_holes: origin and axes are not supported")
    kind = _device.kind_of(input)
    a = input if kind or _dask.is_dask(input) else np.asarray(input)
    if a.ndim not in (2, 3):
        raise ValueError("parac.ndimage.binary_fill_holes: 2D or 3D input, got %d dimensions" % a.ndim)
    conn = _conn(a.ndim, structure, 1 if structure is None else None, who="parac.ndimage.binary_fill_holes")
    if _dask.is_dask(a):
        # the background's components that reach the array's border are outside; the rest is filled
        if output is not None:
            raise NotImplementedError("parac.ndimage.binary_fill_holes: output= is not supported for Dask arrays")
        req = _dask_global.Request(partial(_dask_global.block_labels, kind="zero", conn=conn, device=device),
                                   a.ndim, conn, zone=1)
        return _dask_global.components(a, req, "marked", _dask_global.not_marked, np.bool_)[0]
    # the objects are the nonzero pixels: bool arrays go as their bytes, uint8
    # and uint16 as they are (threshold 1), and the result (inside 1, outside
    # 0) is seen as bool: no conversion pass on either side
    name = _dtype_name(a)
    if a.ndim == 3 and a.shape[0] == 1:
        # a volume of one slice: every pixel lies on its border (the library would see a 2D image)
        res = a != 0
        return res if output is None else res.astype(output) if kind is None and not isinstance(
            output, np.ndarray) else _into(res, output, who="parac.ndimage.binary_fill_holes")
    work = _bool_bytes(a) if name == "bool" else a if name in ("uint8", "uint16") else _to(a != 0, "uint8")
    res = _as_bool(_fill(work, connectivity=conn, threshold=1, inside_value=1, outside_value=0, device=device,
                         method=method))
    if output is None:
        return res
    if kind is None and not isinstance(output, np.ndarray):
        return res.astype(output)  # scipy's output=dtype
    return _into(res, output, who="parac.ndimage.binary_fill_holes")


def label(input, structure=None, output=None, *, device=None, method=None):
    """Connected components of the nonzero pixels, as ``scipy.ndimage.label``.

    Parameters
    ----------
    input : array
        2D or 3D, any dtype (nonzero counts; bool, uint8, uint16, int32 and
        float32 go to the library as they are); NumPy, CuPy or a PyTorch CUDA
        tensor.
        A Dask array gives a Dask array, chunk by chunk and equal to the
        in-memory call (docs/distributed.md).
    structure : array, optional
        scipy's: the cross (default: 4 / 6 neighbours), or 3x3 (3x3x3) blocks
        of the edges or of every neighbour (8, 18 or 26).
    output : array or dtype, optional
        An array to write the labels into (then only ``n`` is returned), or
        the labels' dtype (NumPy inputs).
    device, method : str, optional
        parac's device and method.

    Returns
    -------
    labels : array of int32
        Components numbered 1..n in the raster order of their first pixel, as
        scipy numbers them (bit for bit), where the input lives; int64 for
        inputs of more than 2^31 - 1 pixels.
    n : int
        The number of components (a 0-d Dask array for a Dask input).
    """
    from . import label as _label
    from ._compat import label_input

    who = "parac.ndimage.label"
    kind = _device.kind_of(input)
    a = input if kind or _dask.is_dask(input) else np.asarray(input)
    if a.ndim not in (2, 3):
        raise ValueError("%s: 2D or 3D input, got %d dimensions" % (who, a.ndim))
    conn = _conn(a.ndim, structure, 1 if structure is None else None, who=who)
    if _dask.is_dask(a):
        # labels of Dask arrays: a Dask array of labels (label_dtype) and the count as a 0-d Dask array
        if output is not None:
            raise NotImplementedError("%s: output= is not supported for Dask arrays" % who)
        req = _dask_global.Request(partial(_dask_global.block_labels, kind="nonzero", conn=conn, device=device,
                                           method=method), a.ndim, conn, firsts=True)
        labels, plan = _dask_global.components(a, req, "number", _dask_global.labels_of,
                                                   _dask_global.label_dtype(a.shape))
        return labels, _dask_global.count(plan)
    labels, n = _label(label_input(a, who, nonzero_only=True), connectivity=conn,
                       dtype=_dask_global.label_dtype_name(a.shape), device=device, method=method)
    if output is None:
        return labels, n
    if kind is None and not isinstance(output, np.ndarray):
        return labels.astype(output), n  # scipy's output=dtype
    _into(labels, output, who=who)
    return n


def correlate(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *, axes=None, device=None,
              method=None):
    """Multi-dimensional correlation, as ``scipy.ndimage.correlate``.

    Parameters
    ----------
    input : array
        2D image, or 3D volume (slices first) filtered slice by slice.
        uint8, uint16, float32 or float64; NumPy, CuPy or a PyTorch CUDA
        tensor.
    weights : array
        2D kernel, or for a volume a 3D kernel of one slice. Its centre is
        at ``shape // 2``, as scipy's.
    output : array or dtype, optional
        Where to write the result, or its dtype (NumPy inputs).
    mode : {'reflect', 'mirror', 'nearest', 'wrap', 'constant', 'grid-mirror', 'grid-wrap', 'grid-constant'}
        How the input is extended beyond its border.
    cval : float
        The value beyond the border with ``mode='constant'``.
    origin : 0
        Only the centred kernel is supported.
    axes : None
        The kernel spans the input's axes.
    device, method : str, optional
        parac's device and ``parac.convolve`` method.

    Returns
    -------
    array
        The input's dtype, where the input lives: integer results truncated
        toward zero as scipy's (computed in float32; float64 inputs too).
    """
    return _correlate(input, weights, output, mode, cval, origin, axes, device, method, flip=False,
                      who="parac.ndimage.correlate")


def convolve(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *, axes=None, device=None,
             method=None):
    """Multi-dimensional convolution, as ``scipy.ndimage.convolve``: the
    correlation with the kernel mirrored about its centre (for an even size
    the centre moves as scipy's does). Parameters and result as
    :func:`correlate`."""
    return _correlate(input, weights, output, mode, cval, origin, axes, device, method, flip=True,
                      who="parac.ndimage.convolve")


def _moved(origin):
    """Whether an origin (a number or one per axis) is not the centre. A
    plain 0 is tested without NumPy: np.any of a scalar took 5 µs a call."""
    return origin != 0 if type(origin) is int else bool(np.any(np.asarray(origin) != 0))


def _correlate(input, weights, output, mode, cval, origin, axes, device, method, flip, who):
    from . import convolve as _convolve

    if _moved(origin) or axes is not None:
        raise NotImplementedError("%s: origin and axes are not supported" % who)
    if not isinstance(mode, str) or mode not in _MODES:
        raise NotImplementedError("%s: mode %r is not supported (one of %s)" % (who, mode, ", ".join(sorted(_MODES))))
    if _dask.is_dask(input):
        if output is not None:
            raise NotImplementedError("%s: output= is not supported for Dask arrays (the result is a Dask array)" % who)
        shape = np.shape(weights)

        def block(b):
            return _correlate(b, weights, None, mode, cval, origin, axes, device, method, flip, who)

        # a halo of half the kernel and one more (the convolution's centre moves for even sizes)
        depth = [0] * (input.ndim - len(shape[-2:])) + [n // 2 + 1 for n in shape[-2:]]
        return _dask.local(input, depth, mode in ("wrap", "grid-wrap"), block, input.dtype, device)
    kind = _device.kind_of(input)
    a = input if kind else np.asarray(input)
    name = _dtype_name(a)
    if name not in ("uint8", "uint16", "float32", "float64"):
        raise TypeError("%s: uint8, uint16, float32 or float64 input, got %s" % (who, name))
    w = weights if type(weights) is np.ndarray and weights.dtype == np.float64 else np.asarray(
        weights.get() if hasattr(weights, "get") else weights.cpu() if hasattr(weights, "cpu") else weights,
        dtype=np.float64)
    if a.ndim not in (2, 3) or w.ndim != a.ndim:
        raise ValueError("%s: a 2D input and kernel, or a 3D input and kernel, got %d and %d dimensions" % (
            who, a.ndim, w.ndim))
    if a.ndim == 3 and w.shape[0] != 1:
        raise NotImplementedError("%s: volumes are filtered slice by slice: the kernel needs one slice" % who)
    kernel = _kernel_text(w.reshape(w.shape[-2:]), flip)
    border = _MODES[mode] + (":%r" % float(cval) if _MODES[mode] == "constant" else "")
    kw = {"kernel": kernel, "border": border, "device": device}
    if method is not None:
        kw["method"] = method
    if name == "float32":
        res = _convolve(a, **kw)
    elif name == "float64":
        res = _to(_convolve(_to(a, "float32"), **kw), "float64")
    else:  # scipy's integer results: truncated toward zero
        res = _to(_convolve(a, dtype="f32", **kw), name)
    if output is None:
        return res
    if kind is None and not isinstance(output, np.ndarray):
        return res.astype(output)
    return _into(res, output, who=who)


_KERNEL_TEXTS = {}


def _kernel_text(w, flip):
    """parac.convolve's kernel text for 2D weights (mirrored for a
    convolution, with scipy's centre for even sizes: a zero row / column
    before), remembered for the kernels used last: a call with the same
    weights formats nothing."""
    key = (w.shape, w.tobytes(), flip)
    text = _KERNEL_TEXTS.get(key)
    if text is None:
        if flip:
            w = np.pad(w[::-1, ::-1], [(1 - n % 2, 0) for n in w.shape])
        text = ";".join(",".join(repr(float(v)) for v in row) for row in w)
        if len(_KERNEL_TEXTS) >= 64:
            _KERNEL_TEXTS.clear()
        _KERNEL_TEXTS[key] = text
    return text
