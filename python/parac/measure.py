"""scikit-image measure-compatible functions over parac: change the import,
keep the call."""
from . import label as _label
from . import _dask, _device, _table_columns
from ._registry import Records
from ._compat import connectivity as _conn, dtype_name as _dtype_name, label_input as _label_input, \
    label_input_dtype as _label_input_dtype, to_type as _to


def label(label_image, background=None, return_num=False, connectivity=None, *, device=None, method=None):
    """Regions of equal value, as ``skimage.measure.label``.

    Parameters
    ----------
    label_image : array
        2D or 3D; uint8, uint16, int32, float32 and bool go to the library as
        they are, other dtypes where every value survives the conversion;
        NumPy, CuPy or a PyTorch CUDA tensor.
        A Dask array gives a Dask array, chunk by chunk and equal to the
        in-memory call (docs/distributed.md).
    background : int or float, optional
        Pixels of this value are background (default 0).
    return_num : bool
        Return the count too.
    connectivity : int, optional
        1 (faces) .. ndim (every neighbour, the default).
    device, method : str, optional
        parac's device and method.

    Returns
    -------
    labels : array of int32
        Regions numbered 1..n in the raster order of their first pixel, as
        scikit-image numbers them (the same values; scikit-image's are int64),
        where the input lives; int64 for inputs of more than 2^31 - 1 pixels.
    n : int
        The number of regions (with ``return_num``).
    """
    import numpy as np

    who = "parac.measure.label"
    kind = _device.kind_of(label_image)
    a = label_image if kind or _dask.is_dask(label_image) else np.asarray(label_image)
    if a.ndim not in (2, 3):
        raise ValueError("%s: 2D or 3D input, got %d dimensions" % (who, a.ndim))
    conn = _conn(a.ndim, None, connectivity, who=who)
    bg = 0 if background is None else background
    from . import _dask_global

    if _dask.is_dask(a):
        # regions of equal value join across chunk faces where the two pixels' values are equal
        from functools import partial

        req = _dask_global.Request(partial(_dask_global.block_labels, kind="equal", conn=conn, background=bg,
                                           device=device, method=method), a.ndim, conn, values=True, firsts=True)
        labels, plan = _dask_global.components(a, req, "number", _dask_global.labels_of,
                                                   _dask_global.label_dtype(a.shape))
        return (labels, _dask_global.count(plan)) if return_num else labels
    labels, n = _label(_label_input(a, who), connectivity=conn, equal_values=True, background=float(bg),
                       dtype=_dask_global.label_dtype_name(a.shape), device=device, method=method)
    return (labels, n) if return_num else labels


# scikit-image's property -> parac's table columns (every property parac
# computes; the others raise)
_PROPS = {"label": ("label",), "area": ("area",), "num_pixels": ("area",), "bbox": ("bbox",),
          "centroid": ("centroid",), "intensity_min": ("intensity_min",), "intensity_max": ("intensity_max",),
          "intensity_mean": ("intensity_mean",)}
_INTEGER = ("label", "num_pixels", "bbox")


def regionprops_table(label_image, intensity_image=None, properties=("label", "bbox"), *, cache=True,
                      separator="-", extra_properties=None, spacing=None, offset=None, device=None, method=None):
    """Statistics of labelled regions, as ``skimage.measure.regionprops_table``.

    Parameters
    ----------
    label_image : array
        Labels (0: background), 2D or 3D; NumPy, CuPy or a PyTorch CUDA
        tensor. A Dask array (with a Dask or in-memory intensity image of
        its shape) is measured chunk by chunk and its parts merged
        (docs/distributed.md, "Statistics of regions"); the table is
        computed and returned as NumPy arrays.
    intensity_image : array, optional
        Values for the intensity properties, the labels' shape.
    properties : sequence of str
        Of ``label``, ``area``, ``num_pixels``, ``bbox``, ``centroid``,
        ``intensity_min``, ``intensity_max``, ``intensity_mean`` (the others
        raise NotImplementedError).
    separator : str
        Between a property's name and its index (``bbox-0``).
    cache, extra_properties, spacing, offset
        scikit-image's; extra properties, spacing and offset are not supported.
    device, method : str, optional
        parac's device and method.

    Returns
    -------
    dict of arrays
        One row per label present, in increasing order, named and typed as
        scikit-image's (label, num_pixels and bbox int64, the others float64),
        where the labels live. Centroids and the means of integer intensities
        equal scikit-image's bit for bit; float32 intensities are summed in
        float64.
    """
    import numpy as np

    from . import regionprops as _regionprops

    who = "parac.measure.regionprops_table"
    unknown = [p for p in properties if p not in _PROPS]
    if unknown:
        raise NotImplementedError("%s: %s not supported (parac computes %s)" % (
            who, ", ".join(map(repr, unknown)), ", ".join(_PROPS)))
    if extra_properties:
        raise NotImplementedError("%s: extra_properties are not supported" % who)
    if offset is not None:
        raise NotImplementedError("%s: offset is not supported" % who)
    if spacing is not None and any(float(v) != 1.0 for v in np.atleast_1d(spacing)):
        raise NotImplementedError("%s: spacing other than 1 is not supported" % who)
    if _dask.is_dask(label_image):
        return _select(_dask_table(label_image, intensity_image, properties, device, method, who), properties,
                       separator)
    kind = _device.kind_of(label_image)
    lab = label_image if kind else np.asarray(label_image)
    if lab.ndim not in (2, 3):
        raise ValueError("%s: 2D or 3D labels, got %d dimensions" % (who, lab.ndim))
    if any(p.startswith("intensity") for p in properties) and intensity_image is None:
        raise AttributeError("%s: the intensity properties need intensity_image" % who)
    name = _dtype_name(lab)
    if name.startswith("float"):
        raise TypeError("%s: non-integer label image (%s)" % (who, name))
    if name not in ("uint8", "uint16", "int32", "int64", "bool"):
        lab = _label_input(lab, who)
    args = (lab,) if intensity_image is None else (lab, _intensity(intensity_image, who))
    table, _n = _regionprops(*args, device=device, method=method, _records=True)
    if isinstance(table, Records):
        return _select_records(table, properties, separator)
    return _select(table, properties, separator)


def _select_records(rec, properties, separator):
    """The asked properties of the library's records, named and typed as
    scikit-image's: on CuPy arrays cut in one launch (_table_columns),
    elsewhere the integer columns in one cast copy and the others in one
    copy (each spanning the asked columns, first to last); then a view per
    asked column, so that the arrays made are the ones returned."""
    plan, _integers = _selection(rec.names, tuple(properties), separator)
    a = rec.array
    if (_device.kind_of(a) == "cupy" and max(len(plan), len(rec.names)) <= _table_columns.MAX_COLUMNS
            and a.dtype == "float64" and a.flags.c_contiguous):
        return _table_columns.cut(a, plan)
    blocks = {}
    for integer in (True, False):
        idx = [i for _, i, is_int in plan if is_int == integer]
        if idx:
            lo = min(idx)
            blocks[integer] = (lo, _device.transposed_copy(a[:, lo:max(idx) + 1], "int64" if integer else None))
    out = {}
    for name, i, integer in plan:
        lo, block = blocks[integer]
        out[name] = block[i - lo]
    return out


def _select(table, properties, separator):
    """The asked properties of a table of parac's columns, named and typed as scikit-image's."""
    plan, integers = _selection(tuple(table), tuple(properties), separator)
    cols = list(table.values())
    ints = None
    if integers:
        # the integer columns converted at once: one cast of the whole table
        # where its columns are the rows of one array
        block = getattr(table, "block", None)
        if block is not None:
            ints = _to(block, "int64")
    out = {}
    for name, i, integer in plan:
        if not integer:
            out[name] = cols[i]
        else:
            out[name] = ints[i] if ints is not None else _contiguous(_to(cols[i], "int64"))
    return out


_selections = {}


def _selection(names, properties, separator):
    """Which of a table's columns (names) give which properties' columns:
    [(the column's name in scikit-image's table, its index, integer)], and
    whether any is an integer column; worked out once per table layout,
    properties and separator."""
    key = (names, properties, separator)
    found = _selections.get(key)
    if found is None:
        plan = []
        for p in properties:
            for col in _PROPS[p]:
                for i, k in enumerate(names):
                    if k == col or k.startswith(col + "-"):
                        plan.append(((p + k[len(col):]).replace("-", separator), i, p in _INTEGER))
        found = (plan, any(integer for _, _, integer in plan))
        if len(_selections) < 1024:
            _selections[key] = found
    return found


def _dask_table(labels, intensity, properties, device, method, who):
    """parac's columns of a Dask label image's regions (python/parac/_dask_regions.py), on the host."""
    import dask.array as da
    import numpy as np

    from . import _dask_regions

    if labels.ndim not in (2, 3):
        raise ValueError("%s: 2D or 3D labels, got %d dimensions" % (who, labels.ndim))
    if any(p.startswith("intensity") for p in properties) and intensity is None:
        raise AttributeError("%s: the intensity properties need intensity_image" % who)
    name = str(labels.dtype)
    if name.startswith("float"):
        raise TypeError("%s: non-integer label image (%s)" % (who, name))
    if name not in ("uint8", "uint16", "int32", "int64", "bool"):
        labels = labels.map_blocks(_label_input, who, dtype=_label_input_dtype(name))
    elif name == "bool":
        labels = labels.astype(np.uint8)
    if intensity is not None:
        if not _dask.is_dask(intensity):
            intensity = da.from_array(intensity, chunks=labels.chunks)
        if intensity.shape != labels.shape:
            raise ValueError("%s: intensity_image has shape %s, the labels %s" % (who, intensity.shape,
                                                                                 labels.shape))
        idt = _intensity(np.zeros(1, intensity.dtype), who).dtype
        intensity = intensity.map_blocks(_intensity, who, dtype=idt)
    cols = np.ascontiguousarray(_dask_regions.table(labels, intensity, device, method).compute().T)
    from ._registry import Table

    return Table({k: cols[i] for i, k in enumerate(_dask_regions.columns(labels.ndim, intensity is not None))}, cols)


def _intensity(a, who):
    """The intensity image in a dtype parac reads (uint8, uint16, int32,
    float32), converted where every value survives, else TypeError."""
    name = _dtype_name(a)
    if name in ("uint8", "uint16", "int32", "float32"):
        return a
    if name == "bool":
        return _to(a, "uint8")
    if name in ("int8", "int16"):
        return _to(a, "int32")
    if name == "float64" or name.startswith("float"):
        raise TypeError("%s: %s intensities are not supported (float32 is; parac sums in float64)" % (who, name))
    return _label_input(a, who)


def _contiguous(v):
    kind = _device.kind_of(v)
    if kind == "torch":
        return v.contiguous()
    if kind == "cupy":
        import cupy

        return cupy.ascontiguousarray(v)
    import numpy as np

    return np.ascontiguousarray(v)
