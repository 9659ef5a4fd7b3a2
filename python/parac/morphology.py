"""scikit-image-compatible morphology over parac (skimage.morphology names
and signatures). Results are exact: reconstruction is the same fix point
whatever the method or device."""
import numpy as np

from . import h_maxima as _h_maxima, h_minima as _h_minima, reconstruct as _reconstruct
from . import regional_maxima as _regional_maxima, regional_minima as _regional_minima
from ._compat import connectivity as _conn, work_dtype as _work


def reconstruction(seed, mask, method="dilation", footprint=None, offset=None, *, device=None, algorithm=None):
    """skimage.morphology.reconstruction: float64 result, like scikit-image.

    ``algorithm`` picks parac's method (``"auto"``, ``"hybrid"``,
    ``"downhill"``, ``"wavefront"``, ...); ``method`` is scikit-image's
    (``"dilation"`` or ``"erosion"``)."""
    if offset is not None and np.any(np.asarray(offset) != 1):
        raise NotImplementedError("parac.morphology.reconstruction: only the centred footprint is supported")
    if method not in ("dilation", "erosion"):
        raise ValueError("parac.morphology.reconstruction: method must be 'dilation' or 'erosion', got %r" % (method,))
    s, m = _work(seed, mask, who="parac.morphology.reconstruction")
    conn = _conn(m.ndim, footprint, None, who="parac.morphology.reconstruction")
    out = _reconstruct(s, m, mode=method, connectivity=conn, device=device, method=algorithm)
    return out.astype(np.float64)


def h_maxima(image, h, footprint=None, *, device=None, algorithm=None):
    """skimage.morphology.h_maxima: uint8, 1 on the maxima of height >= h."""
    (im,) = _work(image, who="parac.morphology.h_maxima")
    conn = _conn(im.ndim, footprint, None, who="parac.morphology.h_maxima")
    return (_h_maxima(im, h=float(h), connectivity=conn, device=device, method=algorithm) > 0).astype(np.uint8)


def h_minima(image, h, footprint=None, *, device=None, algorithm=None):
    """skimage.morphology.h_minima: uint8, 1 on the minima of depth >= h."""
    (im,) = _work(image, who="parac.morphology.h_minima")
    conn = _conn(im.ndim, footprint, None, who="parac.morphology.h_minima")
    return (_h_minima(im, h=float(h), connectivity=conn, device=device, method=algorithm) > 0).astype(np.uint8)


def _local(fn, who, image, footprint, connectivity, indices, allow_borders, device, algorithm):
    if not allow_borders:
        raise NotImplementedError("%s: allow_borders=False is not supported (border pixels count)" % who)
    (im,) = _work(image, who=who)
    conn = _conn(im.ndim, footprint, connectivity, who=who)
    res = fn(im, connectivity=conn, device=device, method=algorithm) > 0
    return np.nonzero(res) if indices else res


def local_maxima(image, footprint=None, connectivity=None, indices=False, allow_borders=True, *, device=None,
                 algorithm=None):
    """skimage.morphology.local_maxima: bool, True on every regional maximum
    (a plateau whose neighbours are all lower; border pixels count)."""
    return _local(_regional_maxima, "parac.morphology.local_maxima", image, footprint, connectivity, indices,
                  allow_borders, device, algorithm)


def local_minima(image, footprint=None, connectivity=None, indices=False, allow_borders=True, *, device=None,
                 algorithm=None):
    """skimage.morphology.local_minima: bool, True on every regional minimum."""
    return _local(_regional_minima, "parac.morphology.local_minima", image, footprint, connectivity, indices,
                  allow_borders, device, algorithm)
