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
graph on the persisted chunks. Host chunks for one GPU (device "cuda",
"cuda:N") are copied there once, before the range: every step then runs
on the GPU and only the uint8 result comes back to the host.
"""
import math

import numpy as np

from ._dask_rounds import _back, _xp

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
    w = block.astype(dt, copy=False)
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
    return _saturated_step(block, int(h), minima)


def _saturated_step(block, h, up):
    """block + h (up) or block - h, saturating at the integer dtype's ends,
    in the block's own dtype (no wider copy of a whole chunk)."""
    xp = _xp(block)
    top = _MAX[block.dtype.name]
    t = block.dtype.type
    if h >= top:
        return xp.full(block.shape, top if up else 0, block.dtype)
    if up:
        return xp.where(block < t(top - h), block + t(h), t(top))
    return xp.where(block > t(h), block - t(h), t(0))


def _marker_pred(block, minima):
    """Every pixel's next value down (maxima) or up (minima), saturating."""
    xp = _xp(block)
    if block.dtype == np.float32:
        return xp.nextafter(block, np.float32(np.inf if minima else -np.inf))
    return _saturated_step(block, 1, minima)


def _h_extent(image, rec, h, minima, scale):
    """Where the reconstruction lies at least h below (above) the image."""
    xp = _xp(image)
    if image.dtype.kind in "ub" and rec.dtype == image.dtype:
        # integers: the reconstruction never crosses the image (below it for
        # maxima, above for minima), so the difference is exact in the dtype
        d = rec - image if minima else image - rec
        hit = d >= h
    else:
        d = rec.astype(np.float64) - image.astype(np.float64) if minima else \
            image.astype(np.float64) - rec.astype(np.float64)
        hit = d >= h
    return xp.where(hit, np.uint8(scale), np.uint8(0))


def _regional(image, rec, minima, scale):
    """Where the image lies above (below) its reconstruction from the next value."""
    return _xp(image).where((image < rec) if minima else (image > rec), np.uint8(scale), np.uint8(0))


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
    src, gpu = _on_device(image, device)
    lo, hi = _range(src, who)
    dt = _computing_dtype(image.dtype, lo, hi)
    if dt != np.float32:
        h = math.ceil(h)  # integer images: whole steps, as scikit-image
    if h > hi - lo:  # no extremum that deep: all false, as scikit-image
        return _zeros(image)
    im = _working_image(src, dt, gpu, who)
    marker = im.map_blocks(_marker_sub_h, h, minima, dtype=dt)
    rec, _rounds = reconstruct_rounds(marker, im, "erosion" if minima else "dilation", conn, device, algorithm,
                                      who=who)
    return _back(im.map_blocks(_h_extent, rec, h, minima, scale, dtype=np.uint8), gpu)


def regional_extrema(image, minima, conn, device=None, algorithm=None, scale=1, who="parac"):
    """Regional maxima (minima) of the Dask array image: a Dask array of
    uint8, scale on every plateau whose neighbours are all lower (higher)."""
    from ._dask_rounds import reconstruct_rounds

    src, gpu = _on_device(image, device)
    lo, hi = _range(src, who)
    if lo == hi:  # a flat image has none, as scikit-image
        return _zeros(image)
    dt = _computing_dtype(image.dtype, lo, hi)
    im = _working_image(src, dt, gpu, who)
    marker = im.map_blocks(_marker_pred, minima, dtype=dt)
    rec, _rounds = reconstruct_rounds(marker, im, "erosion" if minima else "dilation", conn, device, algorithm,
                                      who=who)
    return _back(im.map_blocks(_regional, rec, minima, scale, dtype=np.uint8), gpu)


def _on_device(image, device):
    """(the image's chunks where they are worked on, the GPU its host chunks
    went to or None). Host chunks for one GPU are copied there once and kept
    (persisted): the range, the marker, the rounds and the last comparison
    all read them there, and only the uint8 result comes back."""
    from ._dask_global import host_chunks_gpu
    from ._dask_rounds import to_gpu_chunks

    gpu = host_chunks_gpu(device, image)
    if gpu is None:
        return image, None
    return to_gpu_chunks(image, gpu).persist(), gpu


def _working_image(src, dt, gpu, who):
    """The image in the computing dtype (kept, for chunks on a GPU)."""
    im = src.map_blocks(_cast, dt, who, dtype=dt)
    return im.persist() if gpu is not None else im
