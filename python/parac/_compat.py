"""Shared helpers of the scipy / scikit-image compatible wrappers."""
import numpy as np


def connectivity(ndim, footprint=None, connectivity=None, default_full=True, who=""):
    """parac's neighbour count from a scikit-image footprint / connectivity
    (squared distance from the centre), or from a scipy structure."""
    face, full = (4, 8) if ndim == 2 else (6, 26)
    if footprint is not None:
        fp = np.asarray(footprint, dtype=bool)
        if fp.shape != (3,) * ndim:
            raise NotImplementedError("%s: only 3x3 (3x3x3) footprints are supported" % who)
        grid = np.indices(fp.shape) - 1
        dist = (grid ** 2).sum(axis=0)
        for c, n in ((1, face), (2, 8 if ndim == 2 else 18), (ndim, full)):
            if np.array_equal(fp, dist <= c):
                return n
        raise NotImplementedError("%s: only the face, edge or full neighbourhood is supported" % who)
    if connectivity is None:
        return full if default_full else face
    c = int(connectivity)
    if c < 1:
        raise ValueError("%s: connectivity must be at least 1" % who)
    if c == 1:
        return face
    if c == 2 and ndim == 3:
        return 18
    return full


def work_dtype(*arrays, who=""):
    """The dtype parac computes in for these arrays (uint8, uint16, float32),
    and the arrays cast to it. Values that would change in the cast raise."""
    dt = np.result_type(*arrays)
    if dt == np.bool_:
        dt = np.dtype(np.uint8)
    if dt in (np.uint8, np.uint16, np.float32):
        return [np.asarray(a, dtype=dt) for a in arrays]
    if np.issubdtype(dt, np.integer):
        lo = min(int(np.min(a)) for a in arrays)
        hi = max(int(np.max(a)) for a in arrays)
        target = np.uint8 if 0 <= lo and hi <= 255 else np.uint16 if 0 <= lo and hi <= 65535 else np.float32
    else:
        target = np.float32
    cast = [np.asarray(a).astype(target) for a in arrays]
    for a, c in zip(arrays, cast):
        if not np.array_equal(np.asarray(a), c.astype(np.asarray(a).dtype)):
            raise TypeError("%s: values of dtype %s do not fit uint8, uint16 or float32 exactly; parac computes "
                            "in those" % (who, np.asarray(a).dtype))
    return cast


def into(result, out):
    """Write result into out (returned) when out is given."""
    if out is None:
        return result
    out[...] = result
    return out
