"""scikit-image measure-compatible functions over parac: change the import,
keep the call."""
from . import label as _label
from . import _device
from ._compat import connectivity as _conn, label_input as _label_input


def label(label_image, background=None, return_num=False, connectivity=None, *, device=None, method=None):
    """skimage.measure.label: the regions of equal value that differ from
    ``background`` (default 0), numbered 1..n in the raster order of their
    first pixel, as scikit-image numbers them (the same values, as int32).
    ``connectivity``: 1 (faces) .. ndim (every neighbour, the default).
    Returns the labels, and n too with ``return_num``. NumPy, CuPy and CUDA
    tensors; labels where the input lives."""
    import numpy as np

    who = "parac.measure.label"
    kind = _device.kind_of(label_image)
    a = label_image if kind else np.asarray(label_image)
    if a.ndim not in (2, 3):
        raise ValueError("%s: 2D or 3D input, got %d dimensions" % (who, a.ndim))
    conn = _conn(a.ndim, None, connectivity, who=who)
    bg = 0 if background is None else background
    labels, n = _label(_label_input(a, who), connectivity=conn, equal_values=True, background=float(bg),
                       device=device, method=method)
    return (labels, n) if return_num else labels
