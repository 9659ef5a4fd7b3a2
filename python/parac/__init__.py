"""parac: GPU and multi-core image processing, from Python.

Every operation of parac's registry is a function of this module, made from
the registry's own description (parameters, defaults, help), so the CLI, the
C API and these functions always agree::

    import numpy as np, parac
    out = parac.gauss(img, sigma=2.0)                  # border="reflect101", method="auto", ...
    filled = parac.fill(contours, connectivity=8)
    rec = parac.reconstruct(marker, mask, method="hybrid")

Arrays: 2D arrays are images (rows, columns), 3D arrays volumes (slices,
rows, columns); uint8, uint16, int32, float32, float64 and int64 as each operation
allows. An input is used in place through its strides (any slicing with
positive steps); a view with negative strides or transposed axes is copied
once. Each output is a NumPy view of the image the library made (no copy;
rows may be padded). ``device`` is ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or
``"auto"`` (the default: the ``PARAC_DEVICE`` environment variable, else the
best device). The GIL is released while an operation runs.

``parac.ndimage``, ``parac.filters``, ``parac.morphology``, ``parac.measure`` and
``parac.segmentation`` hold scipy- and scikit-image-compatible functions
(loaded on first use).

``parac.compile`` builds ParaC source into functions on NumPy arrays.
``parac.imread`` and ``parac.imwrite`` read and write PNG, JPEG, TIFF
(multi-page volumes), PGM/PPM, .npy and NRRD through the library.

Errors are exceptions with the library's message: ValueError (bad
arguments), TypeError (unsupported element types), MemoryError, OSError,
RuntimeError (device failures).
"""
from ._registry import make_functions as _make_functions
from . import _parac
from ._compile import compile
from ._io import imread, imwrite
from ._parac import memory_trim

__version__ = _parac.version
__all__ = _make_functions(globals()) + ["compile", "imread", "imwrite", "memory_trim"]

_SUBMODULES = ("filters", "measure", "morphology", "ndimage", "segmentation")


def __getattr__(name):
    """parac.ndimage, parac.measure, ... on first use, without importing them
    (as scipy and scikit-image load theirs)."""
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError("module 'parac' has no attribute %r" % name)
