"""scikit-image-compatible morphology over parac (skimage.morphology names
and signatures). Results are exact: reconstruction is the same fix point
whatever the method or device. NumPy arrays are computed on the host (or
where ``device`` says); CuPy arrays and PyTorch CUDA tensors on their GPU,
returned as the same kind of array."""
from functools import partial

import numpy as np

from . import _dask, _dask_global, _device
from . import h_maxima as _h_maxima, h_minima as _h_minima, reconstruct as _reconstruct
from . import regional_maxima as _regional_maxima, regional_minima as _regional_minima
from ._compat import as_bool as _as_bool, bool_bytes as _bool_bytes, connectivity as _conn, dtype_name as _dtype_name
from ._compat import into as _into, label_input as _label_input, nonzero as _nonzero, to_type as _to
from ._compat import work_dtype as _work


def reconstruction(seed, mask, method="dilation", footprint=None, offset=None, *, device=None, algorithm=None):
    """skimage.morphology.reconstruction: float64 result, like scikit-image.

    ``algorithm`` picks parac's method (``"auto"``, ``"hybrid"``,
    ``"downhill"``, ``"wavefront"``, ...); ``method`` is scikit-image's
    (``"dilation"`` or ``"erosion"``). Dask arrays are reconstructed chunk
    by chunk in rounds of border exchange, computed before the call returns
    a Dask array of its chunks (docs/distributed.md)."""
    if offset is not None and np.any(np.asarray(offset) != 1):
        raise NotImplementedError("parac.morphology.reconstruction: only the centred footprint is supported")
    if method not in ("dilation", "erosion"):
        raise ValueError("parac.morphology.reconstruction: method must be 'dilation' or 'erosion', got %r" % (method,))
    if _dask.is_dask(seed) or _dask.is_dask(mask):
        return _reconstruction_dask(seed, mask, method, footprint, device, algorithm)
    s, m = _work(seed, mask, who="parac.morphology.reconstruction")
    conn = _conn(m.ndim, footprint, None, who="parac.morphology.reconstruction")
    out = _reconstruct(s, m, mode=method, connectivity=conn, device=device, method=algorithm)
    return _to(out, "float64")


def _reconstruction_dask(seed, mask, method, footprint, device, algorithm):
    """reconstruction of Dask arrays: chunk by chunk in rounds of border
    exchange until no chunk face changes (parac._dask_rounds); computed,
    returned as a Dask array of persisted chunks, float64 as scikit-image's."""
    import dask.array as da

    from ._dask_rounds import reconstruct_rounds

    who = "parac.morphology.reconstruction"
    seed = seed if _dask.is_dask(seed) else da.from_array(np.asarray(seed), chunks=mask.chunks)
    mask = mask if _dask.is_dask(mask) else da.from_array(np.asarray(mask), chunks=seed.chunks)
    if seed.ndim not in (2, 3):
        raise ValueError("%s: 2D or 3D input, got %d dimensions" % (who, seed.ndim))
    conn = _conn(seed.ndim, footprint, None, who=who)
    res, _rounds = reconstruct_rounds(seed, mask, method, conn, device, algorithm, who=who)
    return res.astype(np.float64)


def h_maxima(image, h, footprint=None, *, device=None, algorithm=None):
    """skimage.morphology.h_maxima: uint8, 1 on the maxima of height >= h.
    Dask arrays: by reconstruction in rounds (computed; docs/distributed.md)."""
    if _dask.is_dask(image):
        return _extrema_dask("h_maxima", image, footprint, None, device, algorithm, h=h)
    (im,) = _work(image, who="parac.morphology.h_maxima")
    conn = _conn(im.ndim, footprint, None, who="parac.morphology.h_maxima")
    return _to(_h_maxima(im, h=float(h), connectivity=conn, device=device, method=algorithm) > 0, "uint8")


def h_minima(image, h, footprint=None, *, device=None, algorithm=None):
    """skimage.morphology.h_minima: uint8, 1 on the minima of depth >= h.
    Dask arrays: by reconstruction in rounds (computed; docs/distributed.md)."""
    if _dask.is_dask(image):
        return _extrema_dask("h_minima", image, footprint, None, device, algorithm, h=h)
    (im,) = _work(image, who="parac.morphology.h_minima")
    conn = _conn(im.ndim, footprint, None, who="parac.morphology.h_minima")
    return _to(_h_minima(im, h=float(h), connectivity=conn, device=device, method=algorithm) > 0, "uint8")


def _extrema_dask(name, image, footprint, connectivity, device, algorithm, h=None):
    """h-maxima, h-minima, local maxima or minima of a Dask array (0/1 uint8)."""
    from . import _dask_extrema

    who = "parac.morphology." + name
    if image.ndim not in (2, 3):
        raise ValueError("%s: 2D or 3D input, got %d dimensions" % (who, image.ndim))
    conn = _conn(image.ndim, footprint, connectivity, who=who)
    minima = name.endswith("minima")
    if h is not None:
        return _dask_extrema.h_extrema(image, h, minima, conn, device, algorithm, who=who)
    return _dask_extrema.regional_extrema(image, minima, conn, device, algorithm, who=who)


def _local(fn, who, image, footprint, connectivity, indices, allow_borders, device, algorithm):
    if not allow_borders:
        raise NotImplementedError("%s: allow_borders=False is not supported (border pixels count)" % who)
    if _dask.is_dask(image):
        res = _extrema_dask(who.rsplit(".", 1)[1], image, footprint, connectivity, device, algorithm) > 0
        if indices:
            import dask.array as da

            return da.nonzero(res)
        return res
    (im,) = _work(image, who=who)
    conn = _conn(im.ndim, footprint, connectivity, who=who)
    res = fn(im, connectivity=conn, device=device, method=algorithm) > 0
    return _nonzero(res) if indices else res


def local_maxima(image, footprint=None, connectivity=None, indices=False, allow_borders=True, *, device=None,
                 algorithm=None):
    """skimage.morphology.local_maxima: bool, True on every regional maximum
    (a plateau whose neighbours are all lower; border pixels count)."""
    return _local(_regional_maxima, "parac.morphology.local_maxima", image, footprint, connectivity, indices,
                  allow_borders, device, algorithm)


def local_minima(image, footprint=None, connectivity=None, indices=False, allow_borders=True, *, device=None,
                 algorithm=None):
    """skimage.morphology.local_minima: bool, True on every regional minimum."""
    return _local(_regional_minima, "parac.morphology.local_minima", image, footprint, connectivity, indices,
                  allow_borders, device, algorithm)


def skeletonize_pf(image, *, threshold=None, field_strength=6, charge_distance=1, divergence=0.5, spacing=None,
                   rules="paper", return_graph=False, device=None, method=None):
    """The curve skeleton of every object of a 3D volume by the potential-field
    method (parac's ``skeleton`` operation; docs/skeleton.md): bool, True on
    the skeleton, 26-connected and thin, one connected skeleton per object.

    The object is the voxels ``>= threshold`` (default: every nonzero voxel).
    ``spacing`` is the voxel size in array order (slices, rows, columns).
    ``field_strength``, ``charge_distance``, ``divergence`` and ``rules`` are
    the operation's parameters. With ``return_graph=True`` the result is
    ``(skeleton, graph)``, the graph a dict of nodes and segments in physical
    units (the operation's JSON graph)."""
    import json
    import os
    import tempfile

    from . import skeleton as _skeleton

    a = np.asarray(image)
    if a.ndim != 3:
        raise ValueError("parac.morphology.skeletonize_pf: a 3D volume (slices, rows, columns), got %d dimensions"
                         % a.ndim)
    if a.dtype == np.bool_:
        a = a.astype(np.uint8)
    elif a.dtype not in (np.uint8, np.uint16, np.float32):
        (a,) = _work(a, who="parac.morphology.skeletonize_pf")
    kw = dict(field_strength=int(field_strength), charge_distance=int(charge_distance),
              divergence=float(divergence), rules=rules, device=device, method=method)
    if threshold is not None:
        kw["threshold"] = float(threshold)
    if spacing is not None:
        sz, sy, sx = (float(s) for s in spacing)
        kw["spacing"] = "%r,%r,%r" % (sx, sy, sz)
    if not return_graph:
        return _skeleton(a, **kw) > 0
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "skeleton.json")
        skel = _skeleton(a, graph=path, **kw) > 0
        with open(path) as f:
            return skel, json.load(f)


def skeletonize_pf_labels(labels, *, field_strength=6, charge_distance=1, divergence=0.5, spacing=None,
                          rules="paper", return_graphs=False, device=None, method=None):
    """The curve skeleton of every label of a segmentation, each label as if
    alone in the volume (Kimimaro's use; docs/skeleton.md): a volume of the
    labels' dtype holding each label on its skeleton's voxels.

    ``labels``: a 3D volume of non-negative integers (0: background), NumPy
    or Dask (one task per label, spread over Dask's workers; the bounding
    boxes are computed first, the skeletons lazily). The parameters are
    skeletonize_pf's; ``method`` (default ``auto``) is chosen per label by
    its cut's size: the exact field up to 2^20 voxels on the CPU and 2^25 on
    a GPU, the approximate one above; name one to have every label alike.
    Labels too thin for a field get no skeleton; they are listed (and a
    warning says how many, for NumPy volumes).

    With ``return_graphs=True`` the result is ``(skeleton, graphs, skipped)``:
    ``graphs`` maps each label to its graph (nodes and segments in the
    volume's physical units), ``skipped`` each label without a skeleton to
    the reason. For a Dask volume, graphs and skipped are computed with it."""
    from . import _skeleton_labels

    who = "parac.morphology.skeletonize_pf_labels"
    kw = dict(field_strength=field_strength, charge_distance=charge_distance, divergence=divergence,
              spacing=spacing, rules=rules, device=device, method=method)
    if int(charge_distance) < 0:
        raise ValueError("%s: charge_distance must be >= 0" % who)
    margin = int(charge_distance) + 2
    if _dask.is_dask(labels):
        skel, results = _skeleton_labels.skeletons_dask(labels, kw, margin, return_graphs, who)
        if not return_graphs:
            return skel
        import dask

        skel, res = dask.persist(skel, results)
        res = res.compute()
        graphs = {lab: g for lab, _c, g, why in res if not why}
        skipped = {lab: why for lab, _c, _g, why in res if why}
        return skel, graphs, skipped
    skel, graphs, skipped = _skeleton_labels.skeletons_in_memory(labels, kw, margin, return_graphs, who)
    if skipped and not return_graphs:
        import warnings

        warnings.warn("%s: %d label(s) too thin for a field have no skeleton (%s); return_graphs=True lists them"
                      % (who, len(skipped), ", ".join(str(k) for k in list(skipped)[:5]) +
                         (", ..." if len(skipped) > 5 else "")), stacklevel=2)
    return (skel, graphs, skipped) if return_graphs else skel


def _small_input(ar, who):
    """ar as the library reads it, and whether it is bool: bool arrays as
    their bytes (no copy), integer label images as uint8 / uint16 / int32 /
    int64 (others converted where every label survives)."""
    kind = _device.kind_of(ar)
    a = ar if kind else np.asarray(ar)
    if a.ndim not in (2, 3):
        raise ValueError("%s: 2D or 3D input, got %d dimensions" % (who, a.ndim))
    name = _dtype_name(a)
    if name == "bool":
        return _bool_bytes(a), True
    if not (name.startswith("int") or name.startswith("uint")):
        raise TypeError("%s: only bool or integer images are supported, got %s" % (who, name))
    if name in ("uint8", "uint16", "int32", "int64"):
        return a, False
    return _label_input(a, who), False


def _size_and_connectivity(a, below, max_size, connectivity, who):
    """The library's size (sizes below it go: scikit-image's min_size /
    area_threshold, or max_size + 1) and neighbour count."""
    size = int(max_size) + 1 if max_size is not None else int(below)
    if size < 0:
        raise ValueError("%s: the size must be non-negative" % who)
    return size, _conn(a.ndim, None, connectivity, who=who)


def _remove_small_dask(ar, below, max_size, connectivity, out, device, method, holes, who):
    """remove_small_objects / remove_small_holes of a Dask array: each
    component's size summed over the chunks it spans (one merge of face
    equivalences), or for a label image each label's pixels counted over
    every chunk."""
    if out is not None:
        raise NotImplementedError("%s: out= is not supported for Dask arrays" % who)
    if ar.ndim not in (2, 3):
        raise ValueError("%s: 2D or 3D input, got %d dimensions" % (who, ar.ndim))
    name = str(ar.dtype)
    if name != "bool" and not (name.startswith("int") or name.startswith("uint")):
        raise TypeError("%s: only bool or integer images are supported, got %s" % (who, name))
    size, conn = _size_and_connectivity(ar, below, max_size, connectivity, who)
    if not holes and name != "bool":
        return _dask_global.remove_small_labels(ar, size)
    kind = "zero" if holes else "nonzero"
    req = _dask_global.Request(partial(_dask_global.block_labels, kind=kind, conn=conn, device=device, method=method),
                               ar.ndim, conn, areas=True)
    finish = _dask_global.or_marked if holes else _dask_global.where_not
    return _dask_global.components(ar, req, ("smaller", size), finish, np.bool_ if holes else ar.dtype)[0]


def remove_small_objects(ar, min_size=64, connectivity=1, *, max_size=None, out=None, device=None, method=None):
    """Objects smaller than a size removed, as ``skimage.morphology.remove_small_objects``.

    Parameters
    ----------
    ar : array
        bool (the objects are its connected components) or integer (a label
        image: the objects are its labels); 2D or 3D; NumPy, CuPy or a
        PyTorch CUDA tensor.
        A Dask array gives a Dask array, chunk by chunk and equal to the
        in-memory call (docs/distributed.md).
    min_size : int
        Objects of fewer pixels are removed (scikit-image before 0.26).
    connectivity : int
        1 (faces) .. ndim (every neighbour), for bool inputs.
    max_size : int, optional
        Objects of this many pixels or fewer are removed (scikit-image 0.26);
        overrides ``min_size``.
    out : array, optional
        Where to write the result.
    device, method : str, optional
        parac's device and method.

    Returns
    -------
    array
        The input's dtype, where the input lives (bool results are a view of
        the library's bytes: no conversion pass).
    """
    from . import remove_small_objects as _remove

    who = "parac.morphology.remove_small_objects"
    if _dask.is_dask(ar):
        return _remove_small_dask(ar, min_size, max_size, connectivity, out, device, method, holes=False, who=who)
    a, is_bool = _small_input(ar, who)
    size, conn = _size_and_connectivity(a, min_size, max_size, connectivity, who)
    res = _remove(a, min_size=size, connectivity=conn, labels=not is_bool, device=device, method=method)
    if is_bool:
        res = _as_bool(res)
    elif _dtype_name(res) != _dtype_name(ar):
        res = _to(res, _dtype_name(ar))
    return _into(res, out, who=who)


def remove_small_holes(ar, area_threshold=64, connectivity=1, *, max_size=None, out=None, device=None,
                       method=None):
    """Holes smaller than a size filled, as ``skimage.morphology.remove_small_holes``.

    Parameters
    ----------
    ar : array
        The objects: its nonzero pixels (bool or integer); 2D or 3D; NumPy,
        CuPy or a PyTorch CUDA tensor.
        A Dask array gives a Dask array, chunk by chunk and equal to the
        in-memory call (docs/distributed.md).
    area_threshold : int
        Holes (connected components of the zero pixels, touching the border or
        not, as scikit-image's) of fewer pixels are filled.
    connectivity : int
        1 (faces) .. ndim (every neighbour), of the holes.
    max_size : int, optional
        Holes of this many pixels or fewer are filled (scikit-image 0.26);
        overrides ``area_threshold``.
    out : array, optional
        Where to write the result.
    device, method : str, optional
        parac's device and method.

    Returns
    -------
    array of bool
        Where the input lives (a view of the library's bytes).
    """
    from . import remove_small_holes as _remove

    who = "parac.morphology.remove_small_holes"
    if _dask.is_dask(ar):
        return _remove_small_dask(ar, area_threshold, max_size, connectivity, out, device, method, holes=True, who=who)
    a, _is_bool = _small_input(ar, who)
    size, conn = _size_and_connectivity(a, area_threshold, max_size, connectivity, who)
    res = _as_bool(_remove(a, area_threshold=size, connectivity=conn, foreground=1, device=device, method=method))
    return _into(res, out, who=who)
