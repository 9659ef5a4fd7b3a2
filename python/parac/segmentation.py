"""scikit-image-compatible segmentation helpers over parac (NumPy arrays,
or CuPy arrays / PyTorch CUDA tensors computed on their GPU)."""
from functools import partial

import numpy as np

from . import clear_border as _clear_border, floodfill as _floodfill
from . import _dask, _dask_global, _device
from ._compat import as_bool as _as_bool, bool_bytes as _bool_bytes, connectivity as _conn
from ._compat import dtype_name as _dtype_name, into as _into, to_type as _to, work_dtype as _work


def flood(image, seed_point, *, footprint=None, connectivity=None, tolerance=None, device=None):
    """The region connected to a seed, as ``skimage.segmentation.flood``.

    Parameters
    ----------
    image : array
        2D image or 3D volume (slices first); uint8, uint16, float32 or bool;
        NumPy, CuPy or a PyTorch CUDA tensor.
        A Dask array gives a Dask array, chunk by chunk and equal to the
        in-memory call (docs/distributed.md).
    seed_point : tuple of int
        (row, column[, ...]), slices first for volumes; negative indices
        count from the end.
    footprint : array, optional
        3x3 (3x3x3) neighbourhood: the faces, edges or every neighbour.
    connectivity : int, optional
        1 (faces, the default) .. ndim (every neighbour).
    tolerance : float, optional
        Pixels whose values lie within it of the seed's value join (None:
        equal values only). On integer images scikit-image truncates the
        interval's ends to integers, so a fractional tolerance reaches one
        value lower there than here; whole tolerances agree.
    device : str, optional
        parac's device.

    Returns
    -------
    array of bool
        True on the region, where the image lives (a view of the library's
        mask: no conversion pass).
    """
    a, sp, conn = _flood_args(image, seed_point, footprint, connectivity, "parac.segmentation.flood")
    if _dask.is_dask(a):
        return _flood_dask(a, sp, conn, tolerance, _dask_global.marked, np.bool_, device)
    return _as_bool(_floodfill(a, seed=[tuple(reversed(sp))], mask=True, tolerance=float(tolerance or 0),
                               connectivity=conn, device=device))


def _flood_args(image, seed_point, footprint, connectivity, who):
    """The image parac floods (bool as its bytes), the seed and the neighbour count."""
    a = image if _device.kind_of(image) or _dask.is_dask(image) else np.asarray(image)
    name = _dtype_name(a)
    if name == "bool":
        a = a.astype(np.uint8) if _dask.is_dask(a) else _bool_bytes(a)
    elif name not in ("uint8", "uint16", "float32"):
        raise TypeError("%s: uint8, uint16, float32 or bool images, got %s" % (who, name))
    seed = np.atleast_1d(seed_point)
    if seed.ndim != 1 or len(seed) != a.ndim:
        raise ValueError("%s: seed_point needs %d coordinates" % (who, a.ndim))
    sp = tuple(int(v) % n for v, n in zip(seed, a.shape))
    return a, sp, _conn(a.ndim, footprint, connectivity, who=who)


def _flood_dask(a, seed, conn, tolerance, finish, dtype, device):
    """A flood of a Dask array: the components of the pixels within the
    tolerance of the seed's value (computed from the array, in the graph),
    the one holding the seed marked."""
    req = _dask_global.Request(partial(_dask_global.block_labels, kind="within", conn=conn,
                                       background=float(tolerance or 0), device=device),
                               a.ndim, conn, seed=seed, extra=a[seed])
    return _dask_global.components(a, req, "marked", finish, dtype)[0]


def flood_fill(image, seed_point, new_value, *, footprint=None, connectivity=None, tolerance=None, in_place=False,
               device=None):
    """The region connected to a seed set to a value, as ``skimage.segmentation.flood_fill``.

    Parameters
    ----------
    image : array
        2D image or 3D volume (slices first); uint8, uint16 or float32; NumPy,
        CuPy or a PyTorch CUDA tensor.
        A Dask array gives a Dask array, chunk by chunk and equal to the
        in-memory call (docs/distributed.md).
    seed_point : tuple of int
        (row, column[, ...]), slices first for volumes; negative indices count
        from the end.
    new_value : number
        The region's new value.
    footprint : array, optional
        3x3 (3x3x3) neighbourhood: the faces, edges or every neighbour.
    connectivity : int, optional
        1 (faces) .. ndim (every neighbour, the default).
    tolerance : float, optional
        Pixels whose values lie within it of the seed's value join (None:
        equal values only).
    in_place : bool
        Write into ``image`` and return it.
    device : str, optional
        parac's device.

    Returns
    -------
    array
        The image's dtype, where it lives.
    """
    if _dtype_name(image) == "bool":
        raise TypeError("parac.segmentation.flood_fill: uint8, uint16 or float32 images, got bool")
    a, sp, conn = _flood_args(image, seed_point, footprint, connectivity, "parac.segmentation.flood_fill")
    if _dask.is_dask(a):
        if in_place:
            raise NotImplementedError("parac.segmentation.flood_fill: in_place is not supported for Dask arrays")
        # the new value as the library converts it to the image's dtype (a flood of one pixel)
        one = _floodfill(np.zeros((1, 1), a.dtype), seed=[(0, 0)], value=float(new_value), device="cpu")[0, 0]
        return _flood_dask(a, sp, conn, tolerance, partial(_dask_global.set_marked, one), a.dtype, device)
    res = _floodfill(a, seed=[tuple(reversed(sp))], value=float(new_value), tolerance=float(tolerance or 0),
                     connectivity=conn, device=device)
    if in_place:
        image[...] = res
        return image
    return res


def clear_border(labels, buffer_size=0, bgval=0, mask=None, *, out=None, device=None):
    """Objects touching the border removed, as ``skimage.segmentation.clear_border``.

    Parameters
    ----------
    labels : array
        A binary image (bool too) or a label image whose objects do not touch
        each other (any integer type whose labels fit uint16); the objects are
        the 8- / 26-connected components of the nonzero pixels. A Dask array
        gives a Dask array, chunk by chunk and equal to the in-memory call
        (docs/distributed.md).
    buffer_size : int
        Objects within this many pixels of the border are removed too.
    bgval : 0
        Only 0 is supported.
    mask : None
        Not supported.
    out : array, optional
        Where to write the result.
    device : str, optional
        parac's device.

    Returns
    -------
    array
        The input's dtype, where it lives.
    """
    if bgval != 0 or mask is not None:
        raise NotImplementedError("parac.segmentation.clear_border: bgval and mask are not supported")
    a = labels if _device.kind_of(labels) or _dask.is_dask(labels) else np.asarray(labels)
    conn = _conn(a.ndim, None, None, who="parac.segmentation.clear_border")
    if _dask.is_dask(a):
        # objects with a pixel within buffer_size of the array's border are marked and cleared
        if out is not None:
            raise NotImplementedError("parac.segmentation.clear_border: out= is not supported for Dask arrays")
        if int(buffer_size) < 0:
            raise ValueError("parac.segmentation.clear_border: buffer_size must be non-negative")
        req = _dask_global.Request(partial(_dask_global.block_labels, kind="nonzero", conn=conn, device=device),
                                   a.ndim, conn, zone=int(buffer_size) + 1)
        return _dask_global.components(a, req, "marked", _dask_global.where_not, a.dtype)[0]
    if a.ndim == 3 and a.shape[0] == 1:
        # a volume of one slice: every object touches its border (the library would see a 2D image)
        return _into(a * 0 if _dtype_name(a) != "bool" else a & False, out, who="parac.segmentation.clear_border")
    (work,) = _work(a, who="parac.segmentation.clear_border")  # bool and int64 labels computed in u8 / u16
    res = _clear_border(work, buffer=int(buffer_size), connectivity=conn, device=device)
    return _into(_to(res, _dtype_name(a)), out, who="parac.segmentation.clear_border")
