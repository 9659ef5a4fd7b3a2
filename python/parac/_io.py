"""parac.imread / parac.imwrite: the library's image readers and writers
(PNG, JPEG, TIFF with multi-page volumes, PGM/PPM, NumPy .npy, NRRD)."""
import os

from . import _parac
from ._registry import _DTYPES


def imread(path, *, layout=None):
    """Read an image file into a NumPy array.

    2D images come back as (rows, columns), colour as (rows, columns,
    channels), volumes (multi-page TIFF, NRRD, 3-axis .npy) as (slices, rows,
    columns). ``layout`` ('hwc' or 'dhw') says how to read a 3-axis .npy or
    NRRD whose last axis has 1-4 entries (default: channels). Formats are
    found from the file's bytes, then its extension; uint8, uint16, float32
    and the other dtypes the format holds are kept as they are."""
    import numpy as np

    buf, shape, dt = _parac.read(os.fspath(path), layout or "auto")
    return np.asarray(buf)  # a view of the library's image, no copy


def imwrite(path, image, *, format=None, quality=None, compression=None, channels=None):
    """Write a NumPy array to an image file, atomically (a temporary file is
    renamed over ``path`` once complete; a failed write leaves nothing).

    The format comes from the extension unless ``format`` ('png', 'jpeg',
    'tiff', 'pnm', 'npy', 'nrrd') is given. ``quality``: JPEG quality 1-100;
    ``compression``: the PNG level 0-9, or True to deflate TIFF strips or gzip
    NRRD data. A 3-axis array whose last axis has 1-4 entries is (rows,
    columns, channels), otherwise (slices, rows, columns); ``channels``
    overrides (0: no channel axis). Boolean arrays are written as uint8 0/255."""
    import numpy as np

    a = np.asarray(image)
    if a.dtype == np.bool_:
        a = a.astype(np.uint8) * np.uint8(255)
    if channels is None:
        channels = a.shape[-1] if a.ndim == 4 or (a.ndim == 3 and a.shape[-1] <= 4) else 0
    if any(s <= 0 for s in a.strides) or (channels and a.strides[-1] != a.itemsize) or not a.flags.aligned:
        a = a.copy(order="C")
    png = compression if isinstance(compression, int) and not isinstance(compression, bool) else -1
    deflate = bool(compression) if compression is not None else False
    _parac.write(os.fspath(path), a, int(channels), format, int(quality or 0), png, deflate, deflate)
