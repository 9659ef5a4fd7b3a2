"""h-maxima, h-minima and regional extrema of Dask arrays, by reconstruction
in rounds of border exchange (parac._dask_rounds).

Each is the in-memory operation's own recipe (src/morph/morph_op.c), done
on chunks so that the result equals the in-memory call bit for bit:

- the whole array's minimum and maximum first (one pass over the chunks):
  they decide the dtype parac computes in, as for an in-memory array (an
  int32 image of values 0..200 is computed as uint8), the empty answers
  (h above the range, a flat image) and NaN is refused;
- the marker by a pixel-wise rule, in the computing dtype: the image less h
  for h-maxima (h rounded up to whole steps on integer images, saturating at
  0), the image's next lower value for regional maxima; the duals for the
  minima;
- the reconstruction of the marker under the image by rounds (dilation for
  maxima, erosion for minima);
- a pixel-wise comparison of the image with the reconstruction.

The reconstruction computes (persists) its rounds; the last step is a lazy
graph on the persisted chunks.
"""
import math

import numpy as np

from ._dask_rounds import _xp

_MAX = {"uint8": 255, "uint16": 65535}


def _range(a, who):
    """The whole array's minimum and maximum (Python numbers), NaN refused."""
    import dask
    import dask.array as da

    if a.dtype.kind == "f":
        lo, hi, nan = dask.compute(a.min(), a.max(), da.isnan(a).any())
        if bool(nan):
            raise ValueError("%s: the image holds NaN, which has no order" % who)
    else:
        lo, hi = dask.compute(a.min(), a.max())
    return lo.item() if hasattr(lo, "item") else lo, hi.item() if hasattr(hi, "item") else hi


def _computing_dtype(dtype, lo, hi):
    """The dtype parac computes in for an array of dtype with values lo..hi,
    as parac._compat.work_dtype decides for an in-memory array."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return np.dtype(np.uint8)
    if dt in (np.uint8, np.uint16, np.float32):
        return dt
    if np.issubdtype(dt, np.integer):
        if 0 <= lo and hi <= 255:
            return np.dtype(np.uint8)
        if 0 <= lo and hi <= 65535:
            return np.dtype(np.uint16)
    return np.dtype(np.float32)


def _cast(block, dt, who):
    """A chunk in the computing dtype; values that would change are refused."""
    xp = _xp(block)
    w = block.astype(dt)
    if block.dtype != dt and block.dtype != np.bool_ and not bool(xp.all(w.astype(block.dtype) == block)):
        raise TypeError("%s: values of dtype %s do not fit uint8, uint16 or float32 exactly; parac computes in "
                        "those" % (who, block.dtype))
    return w


def _marker_sub_h(block, h, minima):
    """The image less h (maxima) or plus h (minima), saturating at the
    dtype's ends on integer images (src/morph/recon_engine.inc's rule)."""
    xp = _xp(block)
    if block.dtype == np.float32:
        return block + np.float32(h) if minima else block - np.float32(h)
    top = _MAX[block.dtype.name]
    wide = block.astype(np.int64)
    out = xp.minimum(wide + int(h), top) if minima else xp.maximum(wide - int(h), 0)
    return out.astype(block.dtype)


def _marker_pred(block, minima):
    """Every pixel's next value down (maxima) or up (minima), saturating."""
    xp = _xp(block)
    if block.dtype == np.float32:
        return xp.nextafter(block, np.float32(np.inf if minima else -np.inf))
    top = _MAX[block.dtype.name]
    wide = block.astype(np.int64)
    out = xp.minimum(wide + 1, top) if minima else xp.maximum(wide - 1, 0)
    return out.astype(block.dtype)


def _h_extent(image, rec, h, minima, scale):
    """Where the reconstruction lies at least h below (above) the image."""
    d = rec.astype(np.float64) - image.astype(np.float64) if minima else \
        image.astype(np.float64) - rec.astype(np.float64)
    return (d >= h).astype(np.uint8) * np.uint8(scale)


def _regional(image, rec, minima, scale):
    """Where the image lies above (below) its reconstruction from the next value."""
    return ((image < rec) if minima else (image > rec)).astype(np.uint8) * np.uint8(scale)


def _zero_block(block):
    return _xp(block).zeros(block.shape, np.uint8)


def _zeros(a):
    """All false, chunked as a."""
    return a.map_blocks(_zero_block, dtype=np.uint8)


def h_extrema(image, h, minima, conn, device=None, algorithm=None, scale=1, who="parac"):
    """h-maxima (h-minima with minima) of the Dask array image: a Dask
    array of uint8, scale on the extrema of height (depth) at least h, 0
    elsewhere (scale 1 as scikit-image, 255 as parac's command line)."""
    from ._dask_rounds import reconstruct_rounds

    h = float(h)
    if not h > 0:
        raise ValueError("%s: h must be > 0 (h = 0 gives every regional extremum: use regional %s)"
                         % (who, "minima" if minima else "maxima"))
    lo, hi = _range(image, who)
    dt = _computing_dtype(image.dtype, lo, hi)
    if dt != np.float32:
        h = math.ceil(h)  # integer images: whole steps, as scikit-image
    if h > hi - lo:  # no extremum that deep: all false, as scikit-image
        return _zeros(image)
    im = image.map_blocks(_cast, dt, who, dtype=dt)
    marker = im.map_blocks(_marker_sub_h, h, minima, dtype=dt)
    rec, _rounds = reconstruct_rounds(marker, im, "erosion" if minima else "dilation", conn, device, algorithm,
                                      who=who)
    return im.map_blocks(_h_extent, rec, h, minima, scale, dtype=np.uint8)


def regional_extrema(image, minima, conn, device=None, algorithm=None, scale=1, who="parac"):
    """Regional maxima (minima) of the Dask array image: a Dask array of
    uint8, scale on every plateau whose neighbours are all lower (higher)."""
    from ._dask_rounds import reconstruct_rounds

    lo, hi = _range(image, who)
    if lo == hi:  # a flat image has none, as scikit-image
        return _zeros(image)
    dt = _computing_dtype(image.dtype, lo, hi)
    im = image.map_blocks(_cast, dt, who, dtype=dt)
    marker = im.map_blocks(_marker_pred, minima, dtype=dt)
    rec, _rounds = reconstruct_rounds(marker, im, "erosion" if minima else "dilation", conn, device, algorithm,
                                      who=who)
    return im.map_blocks(_regional, rec, minima, scale, dtype=np.uint8)
