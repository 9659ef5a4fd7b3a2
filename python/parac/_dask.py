"""Dask arrays through parac's scipy- and scikit-image-named functions.

Local operations (the Gaussian, correlation and convolution) run block by
block with halos of the kernel's radius, so every output pixel sees exactly
the neighbours it sees in the whole array: ``map_overlap`` with no boundary
of its own (``boundary='none'``), the whole array's border mode applied by
parac to the blocks that hold the array's edges, and ``'periodic'`` halos
for the wrap mode, whose neighbours lie on the array's other side. Blocks
smaller than a halo are merged first (dask's ``allow_rechunk``) and the
result is cut back to the input's chunks. The graph stays lazy: nothing
runs until the caller computes it. Blocks may be NumPy or CuPy arrays; each
is computed where it lives, with the function's own ``device`` rule.

The result equals the same call on the whole array in memory bit for bit
when both use one method: ``gaussian_filter`` on Dask arrays uses the FIR
method ``separable`` unless told otherwise (``auto`` may choose by size, and
blocks differ in size from the whole).
"""


def is_dask(a):
    """Whether a is a Dask array (without importing Dask)."""
    return type(a).__module__.split(".")[0] == "dask" and hasattr(a, "map_overlap")


def local(a, depth, wrap, block_fn, dtype):
    """block_fn over a's blocks with halos of depth[i] pixels along axis i
    (see the top); a Dask array of dtype, chunked as a."""
    # an axis shorter than its halo is taken whole: the block then holds the
    # array's two edges on it, and parac's border mode does the rest
    whole = {i: -1 for i, d in enumerate(depth) if d >= a.shape[i] and len(a.chunks[i]) > 1}
    src = a.rechunk(whole) if whole else a
    halos = {i: 0 if d >= a.shape[i] else int(d) for i, d in enumerate(depth)}
    res = src.map_overlap(block_fn, depth=halos, boundary="periodic" if wrap else "none", trim=True,
                          allow_rechunk=True, dtype=dtype, meta=_meta(a, dtype))
    return res if res.chunks == a.chunks else res.rechunk(a.chunks)


def _meta(a, dtype):
    """An empty array of the blocks' kind (NumPy or CuPy) and dtype."""
    meta = getattr(a, "_meta", None)
    return meta.astype(dtype)[(slice(0, 0),) * a.ndim] if meta is not None else None
