"""parac.lookup of a Dask array: table[index] block by block (a pixel's
result depends on its own index only, so any chunking gives the in-memory
result bit for bit). The table is one key of the graph, not a copy in every
task; each block is looked up where it lives (a NumPy block on the CPU, a
CuPy block on its GPU) unless device= says otherwise."""
import numpy as np

from ._device import array_module as _xp
from ._device import on_host as _host


def _first_miss(block, entries, start):
    """(value, global position) of the block's first index out of range, in raster order."""
    xp = _xp(block)
    bad = (block < 0) | (block >= entries)
    at = int(xp.argmax(bad.ravel()))
    local = np.unravel_index(at, block.shape)
    return int(block[local]), tuple(int(i) + s for i, s in zip(local, start))


def _lookup_block(block, table, device=None, method=None, block_info=None):
    from . import lookup

    xp = _xp(block)
    t = xp.asarray(table)
    try:
        return lookup(block, t, device=device or ("cpu" if xp is np else None), method=method)
    except ValueError as e:
        if "INDEX holds" not in str(e):
            raise
        start = [lo for lo, _hi in block_info[0]["array-location"]] if block_info else [0] * block.ndim
        v, pos = _first_miss(block, t.shape[-1], start)
        axes = ("x", "y", "z")
        where = ", ".join("%s %d" % (axes[k], pos[-1 - k]) for k in range(len(pos)))
        raise ValueError("lookup: INDEX holds %d at (%s), outside TABLE's %d entries (0..%d)"
                         % (v, where, t.shape[-1], t.shape[-1] - 1)) from None


def registry_call(index, table, device=None, method=None):
    """parac.lookup(index, table) with index a Dask array: a Dask array of
    index's chunks and table's dtype. The inputs are checked now, as the
    in-memory call checks them (a one-pixel call); an index out of range is
    found when the blocks are computed, and the error names a pixel of the
    first block that failed, in the whole array's coordinates."""
    import dask
    from dask.base import tokenize

    from . import lookup

    table = np.asarray(_host(table))
    if index.ndim not in (2, 3):
        raise ValueError("lookup: input 1 has %d dimensions; parac takes 2 (rows, columns) or 3 (slices, rows, "
                         "columns)" % index.ndim)
    dtype = lookup(np.zeros((1,) * index.ndim, index.dtype), table, device="cpu").dtype  # the registry's checks
    meta = _xp(index._meta).empty((0,) * index.ndim, dtype)
    t = dask.delayed(table, pure=True, name="parac-lookup-table-" + tokenize(table))
    return index.map_blocks(_lookup_block, t, device=device, method=method, dtype=dtype, meta=meta,
                            name="parac-lookup-" + tokenize(index, table, device, method))
