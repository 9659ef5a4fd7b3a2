"""Reconstruction of Dask arrays by rounds of border exchange.

Reconstruction by dilation (or erosion) spreads the marker under the mask
along paths of any length: no halo of fixed width makes it local. It runs in
rounds, Teodoro's tiled wavefront at the scale of chunks:

1. a chunk is reconstructed on its own (parac's in-memory reconstruction,
   on the chunk's device), with a 1-pixel halo of its neighbours' current
   values held fixed: the halo's values are sources, not pixels to change;
2. its rims (the faces, edges and corners its neighbours hold as halo) are
   compared with what they were: a neighbour is computed again only if a
   piece of its halo changed; when no rim changes anywhere, no chunk would
   change in another round, and the result is the fixed point of the whole
   array, bit for bit the in-memory call.

The chunks are in groups (_dask_rounds_grouped.py): under a distributed
client the chunks each worker thread holds, under dask's local schedulers
runs of chunks in raster order, one per thread. A group's rounds run inside
one task, in memory, each chunk from its neighbours' newest rims, until none
of its chunks changes; the caller's rounds are between groups. The rounds
are the chunk faces that the longest propagation path crosses, plus one. A
path that crosses faces many times (a serpentine) would take as many: after
max_rounds (by default, twice the chunks along every axis together) the
current values, already part of the way, are reconstructed in one task on
the whole array (its memory on one worker): exact too, since reconstruction
from any marker between the original and the result gives the result.

These functions compute (persist) the groups' rounds: they do not return a
lazy graph of unknown length. The result is a Dask array of persisted
chunks. Host (NumPy) chunks for one GPU (device "cuda" or "cuda:N") are
copied there once, before the first round, and stay there until the result
is copied back: a round moves only rims between groups.
"""
import numpy as np

_WORK = {"bool": "uint8", "uint8": "uint8", "uint16": "uint16", "float32": "float32"}


def work_dtype(dtype):
    """The dtype the chunks are reconstructed in: uint8, uint16 or float32
    (other types in float32, each chunk checked to hold its values exactly)."""
    return np.dtype(_WORK.get(str(dtype), "float32"))


def _to_work(block, dtype, who, gpu=None):
    """A block in the work dtype (a view where it is one already), moved to
    GPU gpu first when given (-1: the current one)."""
    if gpu is not None:
        from ._device import to_gpu

        block = to_gpu(block, gpu)
    xp = _xp(block)
    w = block.astype(dtype, copy=False)
    if str(block.dtype) not in _WORK and not bool(xp.all(w.astype(block.dtype) == block)):
        raise TypeError("%s: values of dtype %s do not fit float32 exactly; parac computes in uint8, uint16 or "
                        "float32" % (who, block.dtype))
    return w


def _xp(a):
    if type(a).__module__.split(".")[0] == "cupy":
        import cupy

        return cupy
    return np


def _piece(block, off):
    """The part of a neighbouring block that lies next to the block at offset
    off from it (-1: its last index on that axis, 1: its first, 0: all)."""
    # a copy: a view would carry its whole block with it to another worker
    return block[tuple(slice(-1, None) if o == -1 else slice(0, 1) if o == 1 else slice(None) for o in off)].copy()


def _expanded(center, pieces):
    """The block with a 1-pixel halo made of its neighbours' pieces, on the
    sides where it has neighbours; and the slice of the block inside it."""
    xp = _xp(center)
    lo = [int(any(off[i] == -1 for off in pieces)) for i in range(center.ndim)]
    hi = [int(any(off[i] == 1 for off in pieces)) for i in range(center.ndim)]
    out = xp.empty(tuple(n + a + b for n, a, b in zip(center.shape, lo, hi)), center.dtype)
    inner = tuple(slice(a, a + n) for a, n in zip(lo, center.shape))
    out[inner] = center
    for off, p in pieces.items():
        out[tuple(slice(0, 1) if o == -1 else slice(a + n, a + n + 1) if o == 1 else slice(a, a + n)
                  for o, a, n in zip(off, lo, center.shape))] = p
    return out, inner


def _round_block(cur, mask, rims, method, conn, device, algorithm):
    """One chunk's reconstruction with its halo held fixed (in the mask, the
    halo takes the current values, so it gives and never takes): the new
    chunk, the offsets of the neighbours whose halo it changed, and the new
    chunk's rims (_rims). rims: {offset of a neighbour: that neighbour's rim
    group holding the piece that lies next to this chunk}."""
    from . import reconstruct

    xp = _xp(cur)
    pieces = {off: group[off] for off, group in rims.items()}
    ec, inner = _expanded(cur, pieces)
    held = ec.copy()
    held[inner] = mask
    new = reconstruct(ec, held, mode=method, connectivity=conn, device=device, method=algorithm)[inner]
    groups = _rims(new, tuple(pieces))
    # the neighbour at offset d holds the piece of this chunk at offset -d
    changed = tuple(d for d in pieces
                    if bool(xp.any(groups[_group(_opposite(d))][_opposite(d)] != _piece(cur, _opposite(d)))))
    return (new, changed) + groups


def _group(off):
    """Which of a chunk's rim groups holds the piece at offset off: the axis
    of a face (0..ndim-1), or ndim for the edges and corners."""
    moved = [i for i, o in enumerate(off) if o]
    return moved[0] if len(moved) == 1 else len(off)


def _rims(block, neighbours):
    """The pieces of block that its neighbours (their offsets from it) hold
    as halo, in ndim + 1 groups (_group: the two faces across each axis, then
    the edges and corners), each a dict keyed by the offset of block from
    the neighbour that reads it. A neighbour is sent the one group it reads
    from: a face it does not need at most, never the chunk."""
    groups = tuple({} for _ in range(block.ndim + 1))
    for d in neighbours:
        e = _opposite(d)
        groups[_group(e)][e] = _piece(block, e)
    return groups


def _opposite(off):
    return tuple(-o for o in off)


def _whole(cur, mask, method, conn, device, algorithm):
    from . import reconstruct

    return reconstruct(cur, mask, mode=method, connectivity=conn, device=device, method=algorithm)


def _neighbours(idx, grid):
    import itertools

    for off in itertools.product((-1, 0, 1), repeat=len(grid)):
        n = tuple(i + o for i, o in zip(idx, off))
        if any(off) and all(0 <= v < g for v, g in zip(n, grid)):
            yield off, n


def reconstruct_rounds(marker, mask, method, conn, device=None, algorithm=None, max_rounds=None, who="parac"):
    """The reconstruction of Dask arrays marker under mask (see the top), in
    the work dtype; returns (result, rounds: the chunk rounds along the
    longest chain of groups' rounds, plus one where the rest ran in one
    task). A round recomputes only the chunks next to one whose faces
    changed."""
    import dask

    if marker.shape != mask.shape:
        raise ValueError("%s: the seed and the mask differ in shape: %s and %s" % (who, marker.shape, mask.shape))
    from ._dask_global import host_chunks_gpu

    dt = work_dtype(np.result_type(marker.dtype, mask.dtype))
    # host chunks for one GPU go there once and stay for every round; the
    # result comes back to the host at the end
    gpu = host_chunks_gpu(device, marker, mask)
    kw = {"dtype": dt}
    if gpu is not None:
        import cupy

        kw["meta"] = cupy.empty((0,) * marker.ndim, dt)
    cur = marker.map_blocks(_to_work, dt, who, gpu, **kw)
    mask = mask.rechunk(marker.chunks).map_blocks(_to_work, dt, who, gpu, **kw)
    cur, mask = dask.persist(cur, mask)
    grid = cur.numblocks
    if max_rounds is None:
        max_rounds = 2 * sum(grid) + 2
    meta = cur._meta
    from . import _dask_rounds_grouped as G

    client = _client()
    groups = G.worker_groups(client, cur, grid) if client is not None else G.local_groups(grid)
    blocks, rounds, done = G.grouped_rounds(groups, cur, mask, method, conn, device, algorithm, max_rounds)
    if done:
        return _back(_assemble(blocks, cur, dt, meta), gpu), rounds
    return _back(_rest_in_one_task(blocks, cur, mask, dt, meta, method, conn, device, algorithm), gpu), rounds


def _rest_in_one_task(cur_b, cur, mask, dt, meta, method, conn, device, algorithm):
    """The rest of the way in one task, from the values reached so far."""
    import dask
    import dask.array as da

    whole = _assemble(cur_b, cur, dt, meta)
    res = dask.delayed(_whole, pure=True)(whole, mask, method, conn, device, algorithm)
    (out,) = dask.persist(da.from_delayed(res, shape=cur.shape, dtype=dt, meta=meta).rechunk(cur.chunks))
    return out


def _client():
    """The distributed client that runs dask's computations now, or None
    (dask's local schedulers)."""
    try:
        from distributed import default_client
    except ImportError:
        return None
    try:
        c = default_client()
    except ValueError:
        return None
    from dask.base import get_scheduler

    return c if get_scheduler() == c.get else None


def to_gpu_chunks(a, gpu):
    """a's host chunks copied to GPU gpu (-1: the current one), lazily."""
    import cupy

    from ._device import to_gpu

    return a.map_blocks(to_gpu, gpu, dtype=a.dtype, meta=cupy.empty((0,) * a.ndim, a.dtype))


def _back(a, gpu):
    """a's chunks copied back to the host where they came from there (gpu given)."""
    if gpu is None:
        return a
    from ._device import on_host as _host

    return a.map_blocks(_host, dtype=a.dtype, meta=np.empty((0,) * a.ndim, a.dtype))


def _assemble(blocks, like, dt, meta):
    """The Dask array of the chunks blocks (delayed, persisted), chunked as like."""
    import dask.array as da

    out = np.empty(like.numblocks, dtype=object)
    for idx, b in blocks.items():
        shape = tuple(like.chunks[i][k] for i, k in enumerate(idx))
        out[idx] = da.from_delayed(b, shape=shape, dtype=dt, meta=meta)
    return da.block(out.tolist())
