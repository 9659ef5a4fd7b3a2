"""Statistics of labelled regions over chunks: ``parac regionprops`` of a
label image larger than memory.

Each block's regions are measured where the block is (parac's regionprops):
a region's area, bounding box, coordinate sums and, with an intensity
image, its minimum, maximum and sum. A region that crosses chunks has a
part in each; one task adds the parts of every label (areas, sums), takes
the extremes (boxes, minimum and maximum) and divides at the end, as the
whole-array call divides. Coordinate sums and integer intensity sums are
exact 64-bit integers (a block's sum is recovered from its mean times its
area, exact below 2^51), so those columns equal the whole-array call bit for
bit; float intensities are summed in float64 in another order (the means
agree to about 1e-15, relative).
"""
import numpy as np


def columns(ndim, intensity):
    """The table's columns, in parac regionprops' order (axis 0 first)."""
    names = ["label", "area"] + ["bbox-%d" % k for k in range(2 * ndim)] + ["centroid-%d" % k for k in range(ndim)]
    return names + (["intensity_min", "intensity_max", "intensity_mean"] if intensity else [])


def _part(labels, intensity, start, device, method):
    """One block's regions: a dict of per-label arrays, coordinates global."""
    from . import regionprops
    from ._device import on_host as _host

    ins = (labels,) if intensity is None else (labels, intensity)
    cols, _n = regionprops(*ins, device=device, method=method)
    cols = {k: _host(v) for k, v in cols.items()}  # CuPy chunks: the few numbers per label to the host
    nd = labels.ndim
    area = np.rint(cols["area"]).astype(np.int64)
    off = np.asarray(start, np.int64)
    part = {
        "label": np.rint(cols["label"]).astype(np.int64),
        "area": area,
        "lo": np.rint(np.stack([cols["bbox-%d" % k] for k in range(nd)], axis=1)).astype(np.int64) + off,
        "hi": np.rint(np.stack([cols["bbox-%d" % (nd + k)] for k in range(nd)], axis=1)).astype(np.int64) + off,
        "sum": np.rint(np.stack([cols["centroid-%d" % k] for k in range(nd)], axis=1) * area[:, None]).astype(
            np.int64) + off * area[:, None],
    }
    if intensity is not None:
        part["min"], part["max"] = cols["intensity_min"], cols["intensity_max"]
        total = cols["intensity_mean"] * area
        part["isum"] = total if intensity.dtype.kind == "f" else np.rint(total).astype(np.int64)
    return part


def _merge(parts, ndim, intensity):
    """The table (float64, one row per label in increasing order) from every block's parts."""
    lab = np.concatenate([p["label"] for p in parts])
    labels, inv = np.unique(lab, return_inverse=True)
    m = labels.size

    def gather(key, init, how):
        vals = np.concatenate([p[key] for p in parts])
        out = np.full((m,) + vals.shape[1:], init, dtype=vals.dtype)
        how.at(out, inv, vals)
        return out

    big = np.iinfo(np.int64).max
    area = gather("area", 0, np.add)
    lo, hi = gather("lo", big, np.minimum), gather("hi", -big, np.maximum)
    sums = gather("sum", 0, np.add)
    a = area.astype(np.float64)
    cols = [labels.astype(np.float64), a] + [lo[:, k].astype(np.float64) for k in range(ndim)] + [
        hi[:, k].astype(np.float64) for k in range(ndim)] + [sums[:, k].astype(np.float64) / a for k in range(ndim)]
    if intensity:
        cols += [gather("min", np.inf, np.minimum), gather("max", -np.inf, np.maximum),
                 gather("isum", 0, np.add).astype(np.float64) / a]
    return np.ascontiguousarray(np.stack(cols, axis=1)) if m else np.zeros((0, len(cols)), np.float64)


def table(labels, intensity=None, device=None, method=None):
    """A delayed float64 table (rows x columns(labels.ndim, intensity)) of the
    regions of a Dask label array; intensity: a Dask array of its shape."""
    import dask

    from ._dask_global import _blocks

    if intensity is not None:
        intensity = intensity.rechunk(labels.chunks)
        ib = intensity.to_delayed(optimize_graph=False).ravel()
    lb = labels.to_delayed(optimize_graph=False).ravel()
    parts = [dask.delayed(_part, pure=True)(d, None if intensity is None else ib[i], start, device, method)
             for i, (d, (_idx, start, _shape)) in enumerate(zip(lb, _blocks(labels)))]
    return dask.delayed(_merge, pure=True)(parts, labels.ndim, intensity is not None)
