"""scipy.ndimage-compatible functions over parac: change the import, keep
the call. What parac does not support yet raises NotImplementedError."""
import numpy as np

from . import gauss as _gauss

_MODES = {"reflect": "reflect", "grid-mirror": "reflect", "mirror": "reflect101", "nearest": "replicate",
          "wrap": "wrap", "grid-wrap": "wrap", "constant": "constant", "grid-constant": "constant"}


def gaussian_filter(input, sigma, order=0, mode="reflect", cval=0.0, truncate=4.0, output=None, axes=None,
                    *, radius=None, device=None, method=None):
    """scipy.ndimage.gaussian_filter on parac (2D images, 3D volumes).

    Same semantics as scipy for uint8, uint16 and float32 inputs (float64 is
    filtered in float32 and returned as float64). ``sigma`` is a number or
    one per axis (rows, columns[, slices first for volumes]). ``output``: an
    array to write into (returned). ``device`` and ``method`` pass through to
    ``parac.gauss``. Not supported: ``order`` > 0, ``axes``, a mode per axis.
    """
    if np.any(np.asarray(order) != 0):
        raise NotImplementedError("parac.ndimage.gaussian_filter: derivatives (order > 0) are not supported yet")
    if axes is not None:
        raise NotImplementedError("parac.ndimage.gaussian_filter: axes is not supported yet (every axis is filtered)")
    if not isinstance(mode, str) or mode not in _MODES:
        raise NotImplementedError("parac.ndimage.gaussian_filter: mode %r is not supported (one of %s)" % (
            mode, ", ".join(sorted(_MODES))))
    a = np.asarray(input)
    if a.ndim not in (2, 3):
        raise ValueError("parac.ndimage.gaussian_filter: 2D or 3D input, got %d dimensions" % a.ndim)
    s = np.broadcast_to(np.asarray(sigma, dtype=float), (a.ndim,))
    border = _MODES[mode] + (":%r" % float(cval) if _MODES[mode] == "constant" else "")
    work = a.astype(np.float32) if a.dtype == np.float64 else a
    kw = dict(sigma=float(s[-1]), sigma_y=float(s[-2]), truncate=float(truncate), border=border)
    if a.ndim == 3:
        kw["sigma_z"] = float(s[0])
    if radius is not None:
        kw["radius"] = int(radius)
    res = _gauss(work, device=device, method=method, **kw)
    res = res.astype(a.dtype) if res.dtype != a.dtype else res
    if output is not None:
        out = output if isinstance(output, np.ndarray) else None
        if out is None:
            return res.astype(output)
        out[...] = res
        return out
    return res
