"""scikit-image-compatible segmentation helpers over parac (NumPy arrays,
or CuPy arrays / PyTorch CUDA tensors computed on their GPU)."""
import numpy as np

from . import clear_border as _clear_border, floodfill as _floodfill
from . import _device
from ._compat import connectivity as _conn, dtype_name as _dtype_name, into as _into, to_type as _to, \
    work_dtype as _work


def flood_fill(image, seed_point, new_value, *, footprint=None, connectivity=None, tolerance=None, in_place=False,
               device=None):
    """skimage.segmentation.flood_fill: seed_point is (row, column[, ...]),
    slices first for volumes; the region connected to it whose values lie
    within tolerance of its value (equal when None) takes new_value."""
    a = image if _device.kind_of(image) else np.asarray(image)
    if _dtype_name(a) not in ("uint8", "uint16", "float32"):
        raise TypeError("parac.segmentation.flood_fill: uint8, uint16 or float32 images, got %s" % _dtype_name(a))
    sp = tuple(int(v) % n for v, n in zip(np.atleast_1d(seed_point), a.shape))
    if len(sp) != a.ndim:
        raise ValueError("parac.segmentation.flood_fill: seed_point needs %d coordinates" % a.ndim)
    conn = _conn(a.ndim, footprint, connectivity, who="parac.segmentation.flood_fill")
    res = _floodfill(a, seed=[tuple(reversed(sp))], value=float(new_value), tolerance=float(tolerance or 0),
                     connectivity=conn, device=device)
    if in_place:
        image[...] = res
        return image
    return res


def clear_border(labels, buffer_size=0, bgval=0, mask=None, *, out=None, device=None):
    """skimage.segmentation.clear_border for binary images and label images
    whose objects do not touch each other (parac's objects are the connected
    components of nonzero pixels, 8- / 26-connected as skimage's label)."""
    if bgval != 0 or mask is not None:
        raise NotImplementedError("parac.segmentation.clear_border: bgval and mask are not supported")
    a = labels if _device.kind_of(labels) else np.asarray(labels)
    conn = _conn(a.ndim, None, None, who="parac.segmentation.clear_border")
    (work,) = _work(a, who="parac.segmentation.clear_border")  # bool and int64 labels computed in u8 / u16
    res = _clear_border(work, buffer=int(buffer_size), connectivity=conn, device=device)
    return _into(_to(res, _dtype_name(a)), out, who="parac.segmentation.clear_border")
