"""Curve skeletons of every label of a segmentation, one object at a time
(parac.morphology.skeletonize_pf_labels; docs/skeleton.md).

A segmentation's labels touch one another, and the potential field of one
object would feel the charges of its neighbours: each label is skeletonized
as if it were alone in the volume. Its voxels are cut out with a margin
(charge_distance + 2 voxels, clipped at the volume's border, so that the
charges around the object and the exterior layer they need lie inside the
cut) and skeletonized on their own; the field, critical points and
skeleton do not depend on where the cut lies, so each result equals the
skeleton of the volume holding that label alone, with the same method.

NumPy volumes are cut with scipy's find_objects and skeletonized one label
after another; Dask volumes (NumPy or CuPy chunks) take one task per label,
which Dask spreads over its workers: the bounding boxes come from every
chunk, merged in one small task, and each label's task reads only its box.
The result is a volume of the labels' dtype holding each label on its
skeleton's voxels, and on request the graph of each label (nodes and
segments in physical units of the whole volume).
"""
import numpy as np

from ._device import array_module as _xp
from ._device import on_host as _host

# the skeleton operation's messages for objects that have no skeleton
_NO_SKELETON = ("too thin", "no object voxels")


def _skeleton_of(crop, label, origin, kw, with_graph):
    """One label's skeleton in its cut: (label, voxel coordinates in the
    volume (N x 3, slices first), graph in the volume's physical units, or
    the reason it has none)."""
    from .morphology import skeletonize_pf

    obj = np.asarray(_host(crop)) == label
    try:
        res = skeletonize_pf(obj, return_graph=with_graph, **kw)
    except ValueError as e:
        if any(m in str(e) for m in _NO_SKELETON):
            return label, np.zeros((0, 3), np.int64), None, str(e)
        raise
    skel, graph = res if with_graph else (res, None)
    coords = np.argwhere(skel) + np.asarray(origin, np.int64)
    if graph is not None:
        sz, sy, sx = kw.get("spacing") or (1.0, 1.0, 1.0)
        shift = (origin[2] * sx, origin[1] * sy, origin[0] * sz)  # graph positions are x, y, z

        def moved(p):
            return [float(v) + s for v, s in zip(p, shift)]

        for node in graph.get("nodes", []):
            node["position"] = moved(node["position"])
        for seg in graph.get("segments", []):
            seg["points"] = [moved(p) for p in seg["points"]]
    return label, coords, graph, None


def _cut(box, shape, margin):
    return tuple(slice(max(s.start - margin, 0), min(s.stop + margin, n)) for s, n in zip(box, shape))


def _boxes_of_block(block, offset):
    """{label: (lo, hi) per axis} of a chunk's labels, in volume coordinates."""
    from scipy import ndimage as ndi

    b = np.asarray(_host(block))
    if b.size == 0 or b.max() <= 0:
        return {}
    if b.min() < 0:
        raise ValueError("parac.morphology.skeletonize_pf_labels: negative labels")
    out = {}
    for lab, sl in enumerate(ndi.find_objects(b.astype(np.int64, copy=False)), start=1):
        if sl is not None:
            out[lab] = tuple((s.start + o, s.stop + o) for s, o in zip(sl, offset))
    return out


def _merge_boxes(parts):
    boxes = {}
    for part in parts:
        for lab, box in part.items():
            old = boxes.get(lab)
            boxes[lab] = box if old is None else tuple((min(a[0], b[0]), max(a[1], b[1])) for a, b in zip(old, box))
    return {lab: tuple(slice(a, b) for a, b in box) for lab, box in sorted(boxes.items())}


def _paint(block, results, dtype, block_info=None):
    """A chunk of the output: each label on its skeleton's voxels inside the chunk."""
    loc = block_info[0]["array-location"]
    out = np.zeros(block.shape, dtype)
    lo = np.array([a for a, _ in loc])
    hi = np.array([b for _, b in loc])
    for label, coords, _graph, _why in results:
        inside = coords[np.all((coords >= lo) & (coords < hi), axis=1)] - lo
        out[tuple(inside.T)] = label
    return _xp(block).asarray(out)


def _check(labels, who):
    if labels.ndim != 3:
        raise ValueError("%s: a 3D label volume (slices, rows, columns), got %d dimensions" % (who, labels.ndim))
    if not np.issubdtype(np.dtype(labels.dtype), np.integer):
        raise TypeError("%s: an integer label volume, got %s" % (who, labels.dtype))


def skeletons_in_memory(labels, kw, margin, with_graphs, who):
    """(skeleton volume, {label: graph}, {label: reason}) of a NumPy volume."""
    from scipy import ndimage as ndi

    a = np.asarray(labels)
    _check(a, who)
    if a.size and a.min() < 0:
        raise ValueError("%s: negative labels" % who)
    out = np.zeros(a.shape, a.dtype)
    graphs, skipped = {}, {}
    for lab, box in enumerate(ndi.find_objects(a.astype(np.int64, copy=False)) if a.size else [], start=1):
        if box is None:
            continue
        cut = _cut(box, a.shape, margin)
        lab_, coords, graph, why = _skeleton_of(a[cut], lab, [s.start for s in cut], kw, with_graphs)
        out[tuple(coords.T)] = lab
        if why:
            skipped[lab] = why
        elif with_graphs:
            graphs[lab] = graph
    return out, graphs, skipped


def skeletons_dask(labels, kw, margin, with_graphs, who):
    """(lazy skeleton volume, delayed [(label, coords, graph, reason)]) of a
    Dask volume: one task per label (see the top). Computing the results
    runs the labels' tasks; the volume's chunks depend on them."""
    import itertools

    import dask

    _check(labels, who)
    starts = [np.cumsum((0,) + c[:-1]) for c in labels.chunks]
    blocks = labels.to_delayed(optimize_graph=False)
    parts = [dask.delayed(_boxes_of_block, pure=True)(blocks[idx], tuple(int(starts[i][k]) for i, k in enumerate(idx)))
             for idx in itertools.product(*[range(n) for n in labels.numblocks])]
    boxes = dask.delayed(_merge_boxes, pure=True)(parts).compute()
    results = []
    for lab, box in boxes.items():
        cut = _cut(box, labels.shape, margin)
        results.append(dask.delayed(_skeleton_of, pure=True)(labels[cut], lab, [s.start for s in cut], kw,
                                                             with_graphs))
    gathered = dask.delayed(list, pure=True)(results)
    skel = labels.map_blocks(_paint, gathered, labels.dtype, dtype=labels.dtype)
    return skel, gathered
