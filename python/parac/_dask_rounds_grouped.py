"""Rounds of border exchange between groups of chunks (_dask_rounds):
under a distributed cluster the chunks a worker thread holds are a group,
under dask's local schedulers a run of chunks in raster order per thread;
a group's rounds run inside one task, in memory (no scheduler between them).

Each round of every chunk as a graph of its own, sent and waited for, cost
more than the rounds on a GPU worker, where a chunk's round takes
milliseconds (2.2 s for an h-maxima of 32768^2 in 16 chunks on one worker,
0.6 s of it computing). Here a group's task repeats rounds over its own
chunks until none of them changes (each chunk from the newest rims of its
neighbours), holding the rims of other groups' chunks fixed as halo; a
round of the caller runs the groups whose halo changed in the one before.
The fixed point is the same (reconstruction is monotone: any order of the
chunks' steps reaches it), and with one worker thread one round of the
caller does the whole reconstruction.
"""
import numpy as np

from . import _dask_rounds as R


def worker_groups(client, cur, grid):
    """The chunks of the persisted Dask array cur in groups, one per worker
    thread that holds them: a list of sorted lists of chunk indices."""
    import distributed

    distributed.wait(cur)
    holders = client.who_has(distributed.futures_of(cur))
    threads = client.nthreads()
    by_worker = {}
    for idx in np.ndindex(*grid):
        w = holders.get((cur.name,) + idx) or ("",)  # ("": a chunk no worker reports, grouped apart)
        by_worker.setdefault(sorted(w)[0], []).append(idx)
    groups = []
    for w, idxs in sorted(by_worker.items()):
        # a worker's threads each take a run of its chunks in raster order
        for part in np.array_split(np.arange(len(idxs)), max(1, min(threads.get(w, 1), len(idxs)))):
            groups.append([idxs[i] for i in part])
    return groups


def local_groups(grid):
    """The chunks in groups for dask's local schedulers: runs of chunks in
    raster order (slabs), one per thread of the scheduler's pool (one for
    the synchronous scheduler)."""
    import dask
    from dask.base import get_scheduler
    from dask.local import get_sync
    from dask.system import CPU_COUNT

    threads = 1 if get_scheduler() is get_sync else (dask.config.get("num_workers", None) or CPU_COUNT)
    idxs = list(np.ndindex(*grid))
    return [[idxs[i] for i in part] for part in np.array_split(np.arange(len(idxs)), max(1, min(threads, len(idxs))))]


def _group_rounds(prev, first, mask, ext, start, near, method, conn, device, algorithm, max_local):
    """A group's rounds in memory. prev: the group's state from its last
    global round (None in the first: the chunks are first); mask: its
    chunks' mask; ext: dicts of other chunks' rim groups (their groups'
    newest); start: the chunks to compute first. Returns the state: the
    chunks, their rims, "out" (other groups' chunks whose halo changed),
    "left" (chunks still to compute when max_local rounds ran out) and
    "rounds" (the rounds it ran)."""
    chunks = dict(prev["chunks"]) if prev is not None else dict(first)
    rims = dict(prev["rims"]) if prev is not None else {i: R._rims(b, tuple(near[i])) for i, b in chunks.items()}
    outside = {}
    for e in ext:
        outside.update(e)
    active, out, rounds = set(start), set(), 0
    while active and rounds < max_local:
        rounds += 1
        nxt = set()
        for idx in sorted(active):
            halo = {off: (rims[n] if n in chunks else outside[n])[R._group(off)] for off, n in near[idx].items()}
            res = R._round_block(chunks[idx], mask[idx], halo, method, conn, device, algorithm)
            chunks[idx], rims[idx] = res[0], res[2:]
            for d in res[1]:
                n = tuple(i + o for i, o in zip(idx, d))
                (nxt if n in chunks else out).add(n)
        active = nxt
    return {"chunks": chunks, "rims": rims, "out": out, "left": active, "rounds": rounds}


def _flags(state):
    return state["out"], state["left"], state["rounds"]


def _rims_of(state):
    return state["rims"]


def _chunk_of(state, idx):
    return state["chunks"][idx]


def grouped_rounds(groups, cur, mask, method, conn, device, algorithm, max_rounds):
    """The reconstruction (R.reconstruct_rounds' contract) by rounds of the
    groups: (chunks, rounds, done), chunks a dict of delayed values by chunk
    index: the result (done), or the values reached when max_rounds chunk
    rounds did not reach the end (the caller finishes in one task); rounds
    the chunk rounds along the longest chain, plus one for that task."""
    import dask

    grid = cur.numblocks
    cur_b = dict(zip(np.ndindex(*grid), cur.to_delayed(optimize_graph=False).ravel()))
    mask_b = dict(zip(np.ndindex(*grid), mask.to_delayed(optimize_graph=False).ravel()))
    near = {idx: dict(R._neighbours(idx, grid)) for idx in cur_b}
    group_of = {idx: g for g, idxs in enumerate(groups) for idx in idxs}
    # the chunks of other groups next to each group, and their first rims
    across = [sorted({n for i in idxs for n in near[i].values() if group_of[n] != g}) for g, idxs in enumerate(groups)]
    need = sorted({n for a in across for n in a})
    first_rims = dict(zip(need, dask.persist(*[dask.delayed(R._rims, pure=True)(cur_b[n], tuple(near[n])) for n in need])))
    state = [None] * len(groups)
    start = [set(idxs) for idxs in groups]
    # max_rounds bounds the chunk rounds along any chain of groups' rounds
    # (a serpentine within one group runs out of them as it would between
    # groups), then the rest runs in one task
    used = 0
    while any(start):
        if used >= max_rounds:
            for g, s in enumerate(state):
                if s is not None:
                    for idx in groups[g]:
                        cur_b[idx] = dask.delayed(_chunk_of, pure=True)(s, idx)
            return cur_b, used + 1, False
        keys = [g for g in range(len(groups)) if start[g]]
        new = []
        for g in keys:
            idxs = groups[g]
            # every group runs in the first round: then its neighbours' first
            # rims, afterwards their groups' newest
            if state[g] is None:
                ext = [{n: first_rims[n] for n in across[g]}]
            else:
                ext = [dask.delayed(_rims_of, pure=True)(state[h]) for h in sorted({group_of[n] for n in across[g]})]
            new.append(dask.delayed(_group_rounds, pure=True)(
                state[g], {i: cur_b[i] for i in idxs} if state[g] is None else None, {i: mask_b[i] for i in idxs},
                ext, sorted(start[g]), {i: near[i] for i in idxs}, method, conn, device, algorithm,
                max_rounds - used))
        new = dask.persist(*new)
        flags = dask.compute(*[dask.delayed(_flags, pure=True)(s) for s in new])
        used += max(f[2] for f in flags)
        start = [set() for _ in groups]
        for g, s, (out, left, _n) in zip(keys, new, flags):
            state[g] = s
            start[g] |= set(left)
            for n in out:
                start[group_of[n]].add(n)
    res = {idx: dask.delayed(_chunk_of, pure=True)(state[group_of[idx]], idx) for idx in cur_b}
    return dict(zip(res, dask.persist(*res.values()))), used, True
