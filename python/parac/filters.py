"""scikit-image filters-compatible functions over parac (skimage.filters
names, signatures and dtype rules). NumPy arrays are computed on the host
(or where ``device`` says); CuPy arrays and PyTorch CUDA tensors on their
GPU, returned as the same kind of array."""
import numpy as np

from . import _dask, _device
from ._compat import dtype_name as _dtype_name

_MODES = {"reflect": "reflect", "mirror": "reflect101", "nearest": "replicate", "wrap": "wrap",
          "constant": "constant"}
_INTEGER_RANGES = {"uint8": 255.0, "uint16": 65535.0}


def gaussian(image, sigma=1, *, mode="nearest", cval=0, preserve_range=False, truncate=4.0, channel_axis=None,
             out=None, device=None, method=None):
    """Multi-dimensional Gaussian filter, as ``skimage.filters.gaussian``.

    Parameters
    ----------
    image : array
        2D image or 3D volume (slices first), with one more axis when
        ``channel_axis`` is given. uint8, uint16, bool, float32 or float64;
        NumPy, CuPy or a PyTorch CUDA tensor.
    sigma : float or sequence of floats
        Standard deviation per spatial axis (a scalar: every spatial axis).
        A sequence may also give the channel axis an entry, which must be 0.
    mode : {'reflect', 'mirror', 'nearest', 'wrap', 'constant'}
        How the image is extended beyond its border (scipy's names).
    cval : float
        The value beyond the border with ``mode='constant'``.
    preserve_range : bool
        Keep the input's values (else integers are scaled to [0, 1] first,
        as ``img_as_float`` does).
    truncate : float
        The kernel's radius in standard deviations.
    channel_axis : int or None
        The axis of channels, each filtered on its own.
    out : array, optional
        Where to write the result (the result's dtype and shape).
    device, method : str, optional
        parac's device and ``parac.gauss`` method.

    Returns
    -------
    array
        float64 for integer and bool inputs and for float64 (computed in
        float32), float32 for float32, where the input lives. Equal to
        scikit-image's within float32 rounding.
    """
    if mode not in _MODES:
        raise ValueError("parac.filters.gaussian: mode must be one of %s, got %r" % (", ".join(_MODES), mode))
    if _dask.is_dask(image):
        return _gaussian_dask(image, sigma, mode, cval, preserve_range, truncate, channel_axis, out, device, method)
    kind = _device.kind_of(image)
    a = image if kind else np.asarray(image)
    name = _dtype_name(a)
    if name == "bool":
        from ._compat import bool_bytes

        a, name, scale = bool_bytes(a), "uint8", 1.0
    elif name in _INTEGER_RANGES:
        scale = 1.0 if preserve_range else 1.0 / _INTEGER_RANGES[name]
    elif name in ("float32", "float64"):
        scale = None
    else:
        raise TypeError("parac.filters.gaussian: uint8, uint16, bool, float32 or float64 images, got %s" % name)
    ndim = a.ndim
    spatial = ndim - (channel_axis is not None)
    if spatial not in (2, 3):
        raise ValueError("parac.filters.gaussian: 2D or 3D images (plus a channel axis), got %d spatial axes" % spatial)
    axis = None if channel_axis is None else channel_axis % ndim
    sig = _sigmas(sigma, spatial, ndim, axis)
    # skimage's cval is a value of the scaled image: parac filters the raw values
    border = _MODES[mode] + (":%r" % (float(cval) / (scale or 1.0)) if mode == "constant" else "")
    channels = [a] if axis is None else [_take(a, axis, c) for c in range(a.shape[axis])]
    results = [_filter(ch, kind, name, scale, sig, border, truncate, device, method) for ch in channels]
    res = results[0] if axis is None else _stack(results, axis, kind)
    if out is None:
        return res
    if _device.kind_of(out) != kind:
        raise TypeError("parac.filters.gaussian: out must be a %s array like the image" % (kind or "NumPy"))
    out[...] = res
    return out


def _gaussian_dask(image, sigma, mode, cval, preserve_range, truncate, channel_axis, out, device, method):
    """gaussian of a Dask array, block by block with halos of the kernel's
    radius (parac._dask); channels are never split by a halo."""
    if out is not None:
        raise NotImplementedError("parac.filters.gaussian: out= is not supported for Dask arrays")
    ndim = image.ndim
    axis = None if channel_axis is None else channel_axis % ndim
    spatial = ndim - (axis is not None)
    sig = iter(_sigmas(sigma, spatial, ndim, axis))
    depth = [0 if i == axis else int(float(truncate) * next(sig) + 0.5) for i in range(ndim)]
    name = _dtype_name(image)
    dtype = np.float32 if name == "float32" else np.float64

    def block(b):
        return gaussian(b, sigma, mode=mode, cval=cval, preserve_range=preserve_range, truncate=truncate,
                        channel_axis=channel_axis, device=device, method=method or "separable")

    if axis is not None and len(image.chunks[axis]) > 1:
        image = image.rechunk({axis: -1})
    return _dask.local(image, depth, mode == "wrap", block, dtype, device)


def _sigmas(sigma, spatial, ndim, axis):
    """sigma per spatial axis (slices first)."""
    if np.ndim(sigma) == 0:
        return (float(sigma),) * spatial
    s = [float(v) for v in sigma]
    if axis is not None and len(s) == ndim:
        if s[axis] != 0:
            raise ValueError("parac.filters.gaussian: the channel axis is not filtered (its sigma must be 0)")
        del s[axis]
    if len(s) != spatial:
        raise ValueError("parac.filters.gaussian: sigma needs %d values, got %d" % (spatial, len(s)))
    if min(s) < 0:
        raise ValueError("parac.filters.gaussian: sigma must be >= 0")
    return tuple(s)


def _take(a, axis, c):
    """Channel c of a, a strided view (no copy)."""
    index = [slice(None)] * a.ndim
    index[axis] = c
    return a[tuple(index)]


def _stack(results, axis, kind):
    if kind == "torch":
        import torch

        return torch.stack(results, dim=axis)
    if kind == "cupy":
        import cupy

        return cupy.stack(results, axis=axis)
    return np.stack(results, axis=axis)


def _filter(a, kind, name, scale, sig, border, truncate, device, method):
    """One channel: parac.gauss in float32, then skimage's dtype."""
    from . import gauss as _gauss

    kw = {"sigma": sig[-1], "sigma_y": sig[-2], "truncate": float(truncate), "border": border}
    if len(sig) == 3:
        kw["sigma_z"] = sig[0]
    if method is not None:
        kw["method"] = method
    if name == "float64":
        work = _device.astype(a, kind, "float32") if kind else a.astype(np.float32)
        return _to_f64(_gauss(work, device=device, **kw), kind, 1.0)
    if name == "float32":
        return _gauss(a, device=device, **kw)
    # integers: filtered straight into float32 (no conversion pass), then
    # scaled into float64 in one pass
    return _to_f64(_gauss(a, device=device, dtype="f32", **kw), kind, scale)


def _to_f64(res, kind, scale):
    """res as float64 times scale, in one pass where it lives."""
    if kind == "torch":
        import torch

        r = res.to(torch.float64)
        return r.mul_(scale) if scale != 1.0 else r
    if kind == "cupy":
        import cupy

        return cupy.multiply(res, scale, dtype=cupy.float64)
    return np.multiply(res, scale, dtype=np.float64)
