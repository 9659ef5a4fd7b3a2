"""Dask arrays through parac's scipy- and scikit-image-named functions.

Local operations (the Gaussian, correlation and convolution) run block by
block with halos of the kernel's radius, so every output pixel sees exactly
the neighbours it sees in the whole array. Each output block is one task
that takes the input blocks its halo reaches (however many: chunks may be
smaller than the halo), assembles the padded block where the blocks are
(host or GPU), applies parac and cuts the halo off: no padding of its own at
the array's edges, where parac applies the whole array's border mode to the
blocks that hold them, and halos from the array's other side for the wrap
mode. (dask's ``map_overlap`` makes the same arrays with about ten tasks a
block: slices of every neighbour, a concatenation, the call, a trim; on GPU
chunks those tasks, not the filter, were the time.) The graph stays lazy: nothing
runs until the caller computes it. Blocks may be NumPy or CuPy arrays; each
is computed where it lives, with the function's own ``device`` rule.

The result equals the same call on the whole array in memory bit for bit
when both use one method: ``gaussian_filter`` on Dask arrays uses the FIR
method ``separable`` unless told otherwise (``auto`` may choose by size, and
blocks differ in size from the whole).
"""
import contextlib
import itertools

import numpy as np


def is_dask(a):
    """Whether a is a Dask array (without importing Dask)."""
    return type(a).__module__.split(".")[0] == "dask" and hasattr(a, "map_overlap")


def local(a, depth, wrap, block_fn, dtype, device=None):
    """block_fn over a's blocks with halos of depth[i] pixels along axis i
    (see the top); a Dask array of dtype, chunked as a. With device naming
    one GPU ("cuda", "cuda:N"), host blocks are assembled on that GPU (each
    piece copied once) and block_fn gets the padded block there; the result
    comes back to the host without its halo (a host block's padded copy and
    its padded result never exist in host memory)."""
    from ._dask_global import host_chunks_gpu

    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    # an axis shorter than its halo is taken whole: the block then holds the
    # array's two edges on it, and parac's border mode does the rest
    whole = {i: -1 for i, d in enumerate(depth) if d >= a.shape[i] and len(a.chunks[i]) > 1}
    src = a.rechunk(whole) if whole else a
    halos = [0 if d >= a.shape[i] else int(d) for i, d in enumerate(depth)]
    axes = [_axis_pieces(c, h, wrap) for c, h in zip(src.chunks, halos)]
    gpu = host_chunks_gpu(device, a)
    name = "parac-local-" + tokenize(src.name, halos, wrap, block_fn, np.dtype(dtype).str, gpu)
    dsk = {}
    for idx in np.ndindex(*src.numblocks):
        per_axis = [axes[i][k] for i, k in enumerate(idx)]  # (pieces, trim) of each axis
        keys = [(src.name,) + tuple(p[0] for p in combo) for combo in itertools.product(*[pa[0] for pa in per_axis])]
        dsk[(name,) + idx] = (_gather_apply, block_fn, [pa[0] for pa in per_axis], [pa[1] for pa in per_axis], keys,
                              gpu)
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[src])
    res = da.Array(graph, name, src.chunks, dtype=dtype, meta=_meta(a, dtype))
    return res if res.chunks == a.chunks else res.rechunk(a.chunks)


def _axis_pieces(chunks, halo, wrap):
    """For each block along one axis: the pieces of the input blocks that make
    its padded extent, in order, as (block index, slice in that block), and
    the slice of the padded extent that is the block itself. The padded extent
    stops at the array's edges, or continues on the other side for wrap."""
    n = sum(chunks)
    starts = np.concatenate([[0], np.cumsum(chunks)]).astype(int)
    out = []
    for k, c in enumerate(chunks):
        lo, hi = starts[k] - halo, starts[k + 1] + halo
        if wrap:
            spans = [(lo + n, n)] if lo < 0 else []
            spans += [(max(lo, 0), min(hi, n))]
            spans += [(0, hi - n)] if hi > n else []
        else:
            spans = [(max(lo, 0), min(hi, n))]
        pieces = []
        for s0, s1 in spans:
            for b in range(np.searchsorted(starts, s0, "right") - 1, len(chunks)):
                if starts[b] >= s1:
                    break
                pieces.append((b, slice(max(s0, starts[b]) - starts[b], min(s1, starts[b + 1]) - starts[b])))
        before = halo if wrap else starts[k] - max(lo, 0)
        out.append((pieces, slice(before, before + c)))
    return out


def _gather_apply(block_fn, pieces, trim, blocks, gpu=None):
    """One output block: the padded input assembled from its neighbours'
    pieces (on the blocks' device, or on GPU gpu for host blocks), block_fn
    applied, the halo cut off."""
    if gpu is not None:
        from ._device import to_gpu, to_host

        # only the parts of each block that the padded block holds cross the link
        combos = list(itertools.product(*[range(len(p)) for p in pieces]))
        moved = [to_gpu(b[tuple(p[m][1] for p, m in zip(pieces, combo))], gpu) for b, combo in zip(blocks, combos)]
        whole = [[(0, slice(0, s.stop - s.start)) for _b, s in p] for p in pieces]
        return to_host(_gather_apply(block_fn, whole, trim, moved))
    if len(blocks) == 1 and all(len(p) == 1 for p in pieces):
        padded = blocks[0][tuple(p[0][1] for p in pieces)]
    else:
        first = blocks[0]
        shape = tuple(sum(s.stop - s.start for _b, s in p) for p in pieces)
        with _on_device_of(first):
            padded = _empty_like(first, shape)
            ends = [np.cumsum([0] + [s.stop - s.start for _b, s in p]) for p in pieces]
            for j, combo in enumerate(itertools.product(*[range(len(p)) for p in pieces])):
                dst = tuple(slice(e[m], e[m + 1]) for e, m in zip(ends, combo))
                padded[dst] = blocks[j][tuple(p[m][1] for p, m in zip(pieces, combo))]
    return block_fn(padded)[tuple(trim)]


def _empty_like(block, shape):
    """An uninitialised array of block's kind (NumPy or CuPy) and dtype."""
    if type(block).__module__.split(".")[0] == "cupy":
        import cupy

        return cupy.empty(shape, dtype=block.dtype)
    return np.empty(shape, dtype=block.dtype)


def _on_device_of(block):
    """A context on the GPU that holds block (nothing for host arrays)."""
    dev = getattr(block, "device", None)
    if type(block).__module__.split(".")[0] == "cupy" and dev is not None:
        return dev
    return contextlib.nullcontext()


def _meta(a, dtype):
    """An empty array of the blocks' kind (NumPy or CuPy) and dtype."""
    meta = getattr(a, "_meta", None)
    return meta.astype(dtype)[(slice(0, 0),) * a.ndim] if meta is not None else None
