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
chunks those tasks, not the filter, were the time.) Blocks worked on a
GPU go in groups of neighbours (group_runs; up to 1 GiB, less on a small
GPU, or what the Dask config key parac.local-group-bytes says: see
_group_bytes), one task a group, whose padded extent is assembled and
filtered at once, each block a view of the group's result. The graph
stays lazy: nothing runs until the caller computes it.
Blocks may be NumPy or CuPy arrays; each is computed where it lives, with
the function's own ``device`` rule.

The result equals the same call on the whole array in memory bit for bit
when both use one method: ``gaussian_filter`` on Dask arrays uses the FIR
method ``separable`` unless told otherwise (``auto`` may choose by size, and
blocks differ in size from the whole).
"""
import contextlib
import itertools
import operator
import sys

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
    its padded result never exist in host memory). Blocks go in groups of
    neighbours (group_runs) where _group_bytes says: one task a group."""
    from ._dask_global import host_chunks_gpu

    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    # an axis shorter than its halo is taken whole: the block then holds the
    # array's two edges on it, and parac's border mode does the rest
    whole = {i: -1 for i, d in enumerate(depth) if d >= a.shape[i] and len(a.chunks[i]) > 1}
    src = a.rechunk(whole) if whole else a
    halos = [0 if d >= a.shape[i] else int(d) for i, d in enumerate(depth)]
    gpu = host_chunks_gpu(device, a)
    itemsize = max(np.dtype(dtype).itemsize, src.dtype.itemsize)
    budget = _group_bytes(_worked_on_gpu(src, gpu))
    runs = group_runs(src.chunks, itemsize, budget, _min_groups() if budget else 1)
    axes = [_axis_pieces(c, h, wrap, r) for c, h, r in zip(src.chunks, halos, runs)]
    name = "parac-local-" + tokenize(src.name, halos, wrap, block_fn, np.dtype(dtype).str, gpu, runs)
    group = "parac-local-group-" + tokenize(name)
    dsk = {}
    for gidx in np.ndindex(*[len(r) for r in runs]):
        per_axis = [axes[i][k] for i, k in enumerate(gidx)]  # (pieces, trim) of each axis
        keys = [(src.name,) + tuple(p[0] for p in combo) for combo in itertools.product(*[pa[0] for pa in per_axis])]
        task = (_gather_apply, block_fn, [pa[0] for pa in per_axis], [pa[1] for pa in per_axis], keys, gpu)
        members = [range(*runs[i][k]) for i, k in enumerate(gidx)]
        if all(len(m) == 1 for m in members):
            dsk[(name,) + tuple(m[0] for m in members)] = task
            continue
        # the group's result, then each block a view of it
        dsk[(group,) + gidx] = task
        _add_views(dsk, name, (group,) + gidx, gidx, runs, src.chunks)
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[src])
    res = da.Array(graph, name, src.chunks, dtype=dtype, meta=_meta(a, dtype))
    return res if res.chunks == a.chunks else res.rechunk(a.chunks)


# Groups of blocks are bounded by the Dask config key parac.local-group-bytes
# (bytes, or a string such as "1 GiB"; the largest of what a pixel takes:
# input, output, labels); 0: every block alone. Unset, blocks worked on a
# GPU (CuPy blocks, or host blocks with device="cuda") go in groups of up to
# 1 GiB, and host blocks stay alone (a CPU block's work dwarfs its task): a
# Dask task costs about 1.6 ms of a worker's time, twice a GPU's filter of
# an 8192^2 f32 block, and on one H100 groups made label 1.3-1.5x faster,
# fill-holes 1.1-1.4x and the Gaussian of CuPy chunks 14 % (bench/RESULTS.md).
# A group's labelling holds a few times its bytes on the GPU, and a worker
# may work several groups at once: on a GPU of less than 16 GiB the bound
# is a sixteenth of its memory.
GPU_GROUP_BYTES = 1 << 30


def _gpu_memory():
    """The current GPU's memory in bytes (CuPy's view of it), or None."""
    try:
        import cupy

        rt = cupy.cuda.runtime
        return int(rt.getDeviceProperties(rt.getDevice())["totalGlobalMem"])
    except Exception:  # no CuPy, no GPU here (a client apart from its GPU workers)
        return None


def _group_bytes(on_gpu):
    import dask

    v = dask.config.get("parac.local-group-bytes", None)
    if v is not None:
        return int(dask.utils.parse_bytes(v) if isinstance(v, str) else v)
    if not on_gpu:
        return 0
    mem = _gpu_memory()
    return GPU_GROUP_BYTES if mem is None else min(GPU_GROUP_BYTES, mem // 16)


def _worked_on_gpu(a, gpu):
    """Whether a's blocks are worked on a GPU: CuPy blocks, or host blocks
    going to GPU gpu (host_chunks_gpu)."""
    return gpu is not None or type(getattr(a, "_meta", None)).__module__.split(".")[0] == "cupy"


def _min_groups():
    """At least as many groups as the current distributed client's worker
    threads, so that every thread has one (1 without a client)."""
    if "distributed" not in sys.modules:
        return 1
    try:
        from distributed import default_client

        return max(1, sum(default_client().nthreads().values()))
    except Exception:  # no client (ValueError), or its scheduler is gone
        return 1


def group_runs(chunks, itemsize, budget, min_groups=1):
    """Groups of neighbouring blocks, as runs of consecutive block indices
    along each axis ((first, stop) pairs): runs lengthen along the last axis
    first (a group's padded copy then adds the fewest halo pixels per
    pixel), then along the others, while a group's bytes (of the largest
    blocks) stay within budget and there remain at least min_groups groups.
    A budget of 0 leaves every block alone."""
    nb = [len(c) for c in chunks]
    k = [1] * len(nb)
    big = [max(c) for c in chunks]

    def fits(k):
        groups = int(np.prod([-(-n // m) for n, m in zip(nb, k)]))
        return int(np.prod([b * m for b, m in zip(big, k)])) * itemsize <= budget and groups >= min_groups

    for ax in reversed(range(len(nb))):
        while k[ax] < nb[ax] and fits(k[:ax] + [k[ax] + 1] + k[ax + 1:]):
            k[ax] += 1
        if k[ax] < nb[ax]:
            break
    runs = []
    for n, m in zip(nb, k):
        # as even as the count of groups allows
        edges = np.linspace(0, n, -(-n // m) + 1).round().astype(int)
        runs.append([(int(s), int(e)) for s, e in zip(edges[:-1], edges[1:])])
    return runs


def _add_views(dsk, name, src, gidx, runs, chunks):
    """Tasks (name, *idx) in dsk for the blocks of group gidx (runs:
    group_runs; chunks: the blocks'), each a view of the group's array, the
    value of key src."""
    members = [range(*runs[i][k]) for i, k in enumerate(gidx)]
    # offsets of the group's blocks from its first along each axis
    offsets = [np.concatenate([[0], np.cumsum(chunks[i][m.start:m.stop])]).astype(int)
               for i, m in enumerate(members)]
    for idx in itertools.product(*members):
        view = tuple(slice(o[j - m.start], o[j - m.start] + chunks[i][j])
                     for i, (j, m, o) in enumerate(zip(idx, members, offsets)))
        dsk[(name,) + idx] = (operator.getitem, src, view)


def _axis_pieces(chunks, halo, wrap, runs):
    """For each run of blocks along one axis (a group's, group_runs): the
    pieces of the input blocks that make its padded extent, in order, as
    (block index, slice in that block), and the slice of the padded extent
    that is the run itself. The padded extent stops at the array's edges, or
    continues on the other side for wrap."""
    n = sum(chunks)
    starts = np.concatenate([[0], np.cumsum(chunks)]).astype(int)
    out = []
    for first, stop in runs:
        lo, hi = starts[first] - halo, starts[stop] + halo
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
        before = halo if wrap else starts[first] - max(lo, 0)
        out.append((pieces, slice(before, before + starts[stop] - starts[first])))
    return out


def _gather_apply(block_fn, pieces, trim, blocks, gpu=None):
    """One output block (or a group's): the padded input assembled from its
    neighbours' pieces (on the blocks' device, or on GPU gpu for host
    blocks), block_fn applied, the halo cut off; back to the host from gpu."""
    res = block_fn(_assemble(pieces, blocks, gpu))[tuple(trim)]
    if gpu is not None:
        from ._device import to_host

        return to_host(res)
    return res


def _assemble(pieces, blocks, gpu=None):
    """The array that the pieces of blocks make (pieces: per axis, as
    _axis_pieces gives; blocks in the order of their product), on the
    blocks' device, or on GPU gpu for host blocks (only the parts of each
    block that it holds cross the link)."""
    if gpu is not None:
        from ._device import to_gpu

        combos = list(itertools.product(*[range(len(p)) for p in pieces]))
        moved = [to_gpu(b[tuple(p[m][1] for p, m in zip(pieces, combo))], gpu) for b, combo in zip(blocks, combos)]
        return _assemble([[(0, slice(0, s.stop - s.start)) for _b, s in p] for p in pieces], moved)
    if len(blocks) == 1 and all(len(p) == 1 for p in pieces):
        return blocks[0][tuple(p[0][1] for p in pieces)]
    first = blocks[0]
    shape = tuple(sum(s.stop - s.start for _b, s in p) for p in pieces)
    with _on_device_of(first):
        whole = _empty_like(first, shape)
        ends = [np.cumsum([0] + [s.stop - s.start for _b, s in p]) for p in pieces]
        for j, combo in enumerate(itertools.product(*[range(len(p)) for p in pieces])):
            dst = tuple(slice(e[m], e[m + 1]) for e, m in zip(ends, combo))
            whole[dst] = blocks[j][tuple(p[m][1] for p, m in zip(pieces, combo))]
    return whole


def groups_for(a, itemsize, gpu=None):
    """The groups (group_runs) that a's blocks go in for an operation whose
    blocks take itemsize bytes a pixel at most (gpu: host_chunks_gpu), or
    None where every block stays alone."""
    budget = _group_bytes(_worked_on_gpu(a, gpu))
    runs = group_runs(a.chunks, itemsize, budget, _min_groups() if budget else 1)
    return runs if any(len(r) < len(c) for r, c in zip(runs, a.chunks)) else None


def coarsen(a, runs, gpu=None):
    """a with each group of blocks (runs: group_runs) as one block, assembled
    where the blocks are, or on GPU gpu (CuPy) for host blocks: the blocks
    of a global operation's steps, that split() takes back apart."""
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    axes = [_axis_pieces(c, 0, False, r) for c, r in zip(a.chunks, runs)]
    name = "parac-group-" + tokenize(a.name, runs, gpu)
    dsk = {}
    for gidx in np.ndindex(*[len(r) for r in runs]):
        pieces = [axes[i][k][0] for i, k in enumerate(gidx)]
        keys = [(a.name,) + tuple(p[0] for p in combo) for combo in itertools.product(*pieces)]
        dsk[(name,) + gidx] = (_assemble, pieces, keys, gpu)
    chunks = tuple(tuple(int(sum(c[s:e])) for s, e in r) for c, r in zip(a.chunks, runs))
    meta = _meta(a, a.dtype)
    if gpu is not None:
        import cupy

        meta = cupy.empty((0,) * a.ndim, a.dtype)
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[a])
    return da.Array(graph, name, chunks, dtype=a.dtype, meta=meta)


def split(res, runs, chunks, to_host=False):
    """A coarsened array's result (coarsen) in the blocks of chunks again:
    each block a view of its group's block (copied to the host first, once
    a group, with to_host)."""
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    name = "parac-split-" + tokenize(res.name, runs, to_host)
    host = "parac-to-host-" + tokenize(name)
    dsk = {}
    for gidx in np.ndindex(*[len(r) for r in runs]):
        src = (res.name,) + gidx
        if to_host:
            dsk[(host,) + gidx] = (_to_host, src)
            src = (host,) + gidx
        _add_views(dsk, name, src, gidx, runs, chunks)
    meta = _meta(res, res.dtype)
    if to_host:
        meta = np.empty((0,) * res.ndim, res.dtype)
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[res])
    return da.Array(graph, name, chunks, dtype=res.dtype, meta=meta)


def _to_host(block):
    """A CuPy block's copy in host memory (parac's staged copies)."""
    from ._device import to_host

    return to_host(block)


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
