"""Every label's holes filled with that label (`fill-label-holes`) on Dask
arrays: the CPU method's steps (src/label/label_holes_cpu.c) at the scale
of chunks, equal to the whole array's result bit for bit.

1. Each block's zero regions (cavities) are labelled and joined across the
   faces between blocks as the other global operations join their
   components (parac._dask_global). Of every cavity the blocks report
   whether it touches the array's border, the smallest and largest label
   beside it (inside the block, and across its faces from the face planes'
   values), its box and its first pixel; of every label, its box.
2. One task merges them: a cavity off the border with one label beside it
   is that label's hole.
3. A cavity with several labels beside it is a hole of label v when it is
   not connected to the outside of v's box through pixels other than v. One
   task per label whose box strictly holds such a cavity reads that box
   and labels its pixels other than v, the box padded by one pixel of
   outside; a box of more pixels than BOX_PIXELS_IN_ONE_TASK (default: four
   of the array's largest chunks) is labelled as a Dask array of its own
   chunks instead, by the chunked labelling, so that no worker holds more
   than chunks. Of the labels that enclose a cavity the innermost
   (smallest box, then smallest label) fills it.
4. Each block's zero pixels take their cavity's label (lazy).

Steps 1-3 run when the function is called (step 3's tasks depend on what
step 2 found); step 4 is a Dask graph.
"""
import itertools
from functools import partial

import numpy as np

from . import _dask_global as G
from ._device import on_host as _host


def _boxes(labels, n, start):
    """(lo, hi) of labels 1..n of an integer block, global coordinates (n x ndim; empty labels lo > hi)."""
    import scipy.ndimage as ndi

    nd = labels.ndim
    lo = np.full((n, nd), np.iinfo(np.int64).max, np.int64)
    hi = np.full((n, nd), -1, np.int64)
    objects = ndi.find_objects(labels, max_label=n)
    # one flat list and one conversion: a block of spotted labels holds
    # hundreds of thousands of objects, and a row assignment each took seconds
    present = np.fromiter((sl is not None for sl in objects), bool, count=len(objects))
    ends = np.array([e for sl in objects if sl is not None for s in sl for e in (s.start, s.stop)],
                    np.int64).reshape(-1, nd, 2)
    if ends.size:
        lo[present] = ends[:, :, 0] + np.asarray(start, np.int64)
        hi[present] = ends[:, :, 1] - 1 + np.asarray(start, np.int64)
    return lo, hi


def _held(clo, chi, blo, bhi, gshape):
    """The pairs (box i, cavity c) where box i strictly holds cavity c's box,
    as two index arrays ordered by i, in time linear in the pairs looked at
    rather than boxes x cavities: the cavities are bucketed by their lowest
    corner in cells of about one cavity each, and a box looks only at the
    cells its interior meets."""
    nd = len(gshape)
    none = (np.zeros(0, np.int64),) * 2
    if len(clo) == 0 or len(blo) == 0:
        return none
    big = np.flatnonzero(np.all(bhi - blo >= 2, axis=1))  # a pixel inside on every axis
    if big.size == 0:
        return none
    cell = max(1, int(np.ceil((float(np.prod(gshape, dtype=np.float64)) / len(clo)) ** (1.0 / nd))))
    grid = tuple(int(-(-n // cell)) for n in gshape)
    at = np.ravel_multi_index(tuple((clo // cell).T), grid)
    order = np.argsort(at, kind="stable")
    bounds = np.searchsorted(at[order], np.arange(int(np.prod(grid)) + 1))
    a, b = (blo[big] + 1) // cell, (bhi[big] - 1) // cell
    ext = b - a + 1
    ncell = np.prod(ext, axis=1)
    box = np.repeat(np.arange(big.size), ncell)
    t = np.arange(int(ncell.sum())) - np.repeat(np.cumsum(ncell) - ncell, ncell)
    coords = [None] * nd
    for k in reversed(range(nd)):  # each box's cells, the last axis fastest
        coords[k] = a[box, k] + t % ext[box, k]
        t = t // ext[box, k]
    cells = np.ravel_multi_index(tuple(coords), grid)
    count = bounds[cells + 1] - bounds[cells]
    pos = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count) + np.repeat(bounds[cells], count)
    cav, i = order[pos], big[np.repeat(box, count)]
    keep = np.all((clo[cav] > blo[i]) & (chi[cav] < bhi[i]), axis=1)
    return i[keep], cav[keep]


def _label_boxes(values, start):
    """The labels present in a block and their boxes: (ids, lo, hi)."""
    ids = np.unique(values)
    ids = ids[ids != 0].astype(np.int64)
    if ids.size == 0:
        return ids, np.zeros((0, values.ndim), np.int64), np.zeros((0, values.ndim), np.int64)
    # find_objects' list is as long as the largest label: a block of a big
    # image holds a few labels of millions, so they are renumbered 1..k first
    if int(ids[-1]) <= 2 * ids.size + 1024:
        lo, hi = _boxes(values.astype(np.intp, copy=False), int(ids[-1]), start)
        return ids, lo[ids - 1], hi[ids - 1]
    dense = np.searchsorted(ids, values) + 1
    dense[values == 0] = 0
    lo, hi = _boxes(dense, ids.size, start)
    return ids, lo, hi


def _beside(zero, values, rank):
    """Pairs (cavity label, value) of the nonzero pixels beside a cavity's
    pixels under the connectivity, over every offset: zero and values are
    arrays of one shape (a block, or the two sides of a face)."""
    zs, vs = [], []
    for off in G.neighbour_offsets(zero.ndim, rank):
        s0 = tuple(slice(max(0, -o), n - max(0, o)) for o, n in zip(off, zero.shape))
        s1 = tuple(slice(max(0, o), n - max(0, -o)) for o, n in zip(off, zero.shape))
        z, v = zero[s0], values[s1]
        keep = (z > 0) & (v != 0)
        zs.append(z[keep].astype(np.int64))
        vs.append(v[keep].astype(np.int64))
    return (np.concatenate(zs), np.concatenate(vs)) if zs else (np.zeros(0, np.int64),) * 2


def _across(p, v, rank):
    """Pairs (cavity label on one side of a face, value on the other) under
    the connectivity."""
    zs, vs = [], []
    for s0, s1 in G.face_shifts(p.shape, rank):
        z, w = p[s0], v[s1]
        keep = (z > 0) & (w != 0)
        zs.append(z[keep])
        vs.append(w[keep].astype(np.int64))
    return (np.concatenate(zs), np.concatenate(vs)) if zs else (np.zeros(0, np.int64),) * 2


def _more(rank, block, labels, n, start, gshape):
    """Step 1's facts of the operation's own (see the top)."""
    values, zero = _host(block), _host(labels)
    if values.size and values.dtype.kind == "i" and int(values.min()) < 0:
        raise ValueError("fill-label-holes: negative labels are not supported")
    z, v = _beside(zero, values, rank)
    lo_nb = np.full(n + 1, np.iinfo(np.int64).max, np.int64)
    hi_nb = np.zeros(n + 1, np.int64)
    np.minimum.at(lo_nb, z, v)
    np.maximum.at(hi_nb, z, v)
    clo, chi = _boxes(zero, n, start)
    ids, llo, lhi = _label_boxes(values, start)
    return {"nb_min": lo_nb, "nb_max": hi_nb, "cav_lo": clo, "cav_hi": chi, "label_ids": ids, "label_lo": llo,
            "label_hi": lhi}


def _plan(facts, layout, req, rank):
    """Step 2 (see the top): each block's cavities' components, the fill of
    every component decided so far, the ambiguous cavities and the boxes of
    the labels that may enclose them."""
    offsets, total, _ids, _comp, ncomp, root = G.join(facts, layout, req)
    size = total + 1 + ncomp
    nd = req.ndim
    big = np.iinfo(np.int64).max
    nb_min, nb_max = np.full(size, big, np.int64), np.zeros(size, np.int64)
    lo, hi = np.full((size, nd), big, np.int64), np.full((size, nd), -1, np.int64)
    first, border = np.full(size, big, np.int64), np.zeros(size, bool)
    for o, f in zip(offsets, facts):
        r = root[o + 1:o + 1 + f["n"]]
        np.minimum.at(nb_min, r, f["nb_min"][1:])
        np.maximum.at(nb_max, r, f["nb_max"][1:])
        np.minimum.at(first, r, f["firsts"])
        for k in range(nd):
            np.minimum.at(lo[:, k], r, f["cav_lo"][:, k])
            np.maximum.at(hi[:, k], r, f["cav_hi"][:, k])
        border[root[f["marked"] + o]] = True
    for _ax, (p0, v0), (p1, v1) in G.face_planes(facts, layout, req):
        for p, v in ((p0, v1), (p1, v0)):
            z, w = _across(p, v, rank)
            np.minimum.at(nb_min, root[z], w)
            np.maximum.at(nb_max, root[z], w)
    inside = ~border & (nb_max > 0)
    fill = np.where(inside & (nb_min == nb_max), nb_max, 0)
    ambiguous = np.flatnonzero(inside & (nb_min != nb_max))
    ids = np.concatenate([f["label_ids"] for f in facts])
    llo = np.concatenate([f["label_lo"] for f in facts])
    lhi = np.concatenate([f["label_hi"] for f in facts])
    labels = np.unique(ids)
    where = np.searchsorted(labels, ids)
    box_lo = np.full((labels.size, nd), big, np.int64)
    box_hi = np.full((labels.size, nd), -1, np.int64)
    for k in range(nd):
        np.minimum.at(box_lo[:, k], where, llo[:, k])
        np.maximum.at(box_hi[:, k], where, lhi[:, k])
    # the labels whose box strictly holds an ambiguous cavity's box, and those cavities
    i, k = _held(lo[ambiguous], hi[ambiguous], box_lo, box_hi, layout[2])
    order = np.lexsort((ambiguous[k], i))
    i, cav = i[order], ambiguous[k][order]
    starts = np.flatnonzero(np.r_[True, i[1:] != i[:-1]]) if i.size else np.zeros(0, np.int64)
    jobs = [(int(labels[i[s]]), box_lo[i[s]], box_hi[i[s]], cs, first[cs])
            for s, cs in zip(starts, np.split(cav, starts[1:]))]
    return {"root": [root[o:o + 1 + f["n"]] for o, f in zip(offsets, facts)], "fill": fill, "jobs": jobs}


def _enclosed(crop, v, lo, hi, cavities, firsts, gshape, conn, device):
    """Step 3 for label v: [(cavity, v, box volume)] of the cavities its box
    holds that it encloses."""
    from . import label as _label

    mask = np.pad(_host(crop) != v, 1, constant_values=True)  # the padding: the box's outside
    regions = np.asarray(_label(mask.astype(np.uint8), connectivity=conn, device=device)[0])
    faces = [regions[tuple(i if a == ax else slice(None) for a in range(regions.ndim))]
             for ax in range(regions.ndim) for i in (0, -1)]
    outside = np.unique(np.concatenate([f.ravel() for f in faces]))
    coords = np.stack(np.unravel_index(firsts, gshape), axis=1) - lo + 1
    at = regions[tuple(coords.T)]
    volume = int(np.prod(hi - lo + 1))
    return [(int(c), v, volume) for c, r in zip(cavities, at) if not np.isin(r, outside)]


# step 3: the most pixels of a label's box read by one task (None: four of the array's largest chunks)
BOX_PIXELS_IN_ONE_TASK = None


def _enclosed_chunked(a, v, lo, hi, firsts, gshape, conn, device):
    """Step 3 for label v whose box is too large for one task: the box as a
    Dask array of a's chunks, its pixels other than v labelled by the chunked
    labelling, padded by one pixel of outside. The padding is one component
    (a ring, a shell: connected in every connectivity), so the outside's
    label is the corner's. (corner label, labels at the cavities' first
    pixels) as Dask arrays."""
    import dask.array as da

    crop = a[tuple(slice(int(l), int(h) + 1) for l, h in zip(lo, hi))]
    mask = da.pad(crop != v, 1, mode="constant", constant_values=True)
    req = G.Request(partial(G.block_labels, kind="nonzero", conn=conn, device=device), mask.ndim, conn, firsts=True)
    labels, _plan = G.components(mask, req, "number", G.labels_of, G.label_dtype(mask.shape))
    coords = np.stack(np.unravel_index(firsts, gshape), axis=1) - lo + 1
    return labels[(0,) * mask.ndim], labels.vindex[tuple(coords.T)]


def _fill(block, decided):
    """finish: the cavities' pixels take their decided labels."""
    xp = G._xp(block)
    return xp.where(decided != 0, decided, block)


def _filled(block, decided_block):
    return np.array([int((_host(decided_block) != _host(block)).sum())], np.int64)


def fill_label_holes(a, conn, device=None, method=None):
    """(the filled Dask array, a 0-d Dask array of the count of filled
    pixels) of a Dask label array a of u8/u16/i32/i64 (see the top)."""
    import dask
    import dask.array as da

    if a.dtype not in (np.uint8, np.uint16, np.int32, np.int64):
        raise ValueError("fill-label-holes: labels of %s are not supported (u8, u16, i32 or i64)" % a.dtype)
    rank = G._rank(a.ndim, conn)
    req = G.Request(partial(G.block_labels, kind="zero", conn=conn, device=device, method=method), a.ndim, conn,
                    values=True, firsts=True, zone=1, more=partial(_more, rank))
    blocks = list(G._blocks(a))
    delayed = a.to_delayed(optimize_graph=False).ravel()
    gshape = tuple(int(n) for n in a.shape)
    facts = [dask.delayed(G._local, nout=2, pure=True)(d, req, start, gshape, None)[1]
             for d, (_idx, start, _shape) in zip(delayed, blocks)]
    layout = ([(idx, start) for idx, start, _ in blocks], tuple(len(c) for c in a.chunks), gshape)
    plan = dask.delayed(_plan, pure=True)(facts, layout, req, rank).compute()
    fill = plan["fill"].copy()
    if plan["jobs"]:
        limit = BOX_PIXELS_IN_ONE_TASK
        if limit is None:
            limit = 4 * int(np.prod([max(c) for c in a.chunks]))
        small, large = [], []
        for j in plan["jobs"]:
            (large if np.prod(j[2] - j[1] + 1) > limit else small).append(j)
        tasks = [dask.delayed(_enclosed, pure=True)(
            a[tuple(slice(int(l), int(h) + 1) for l, h in zip(lo, hi))], v, lo, hi, cav, firsts, gshape, conn,
            device) for v, lo, hi, cav, firsts in small]
        tasks += [_enclosed_chunked(a, v, lo, hi, firsts, gshape, conn, device) for v, lo, hi, _c, firsts in large]
        done = dask.compute(*tasks)
        found = list(done[:len(small)])
        for (v, lo, hi, cav, _f), (corner, at) in zip(large, done[len(small):]):
            volume = int(np.prod(hi - lo + 1))
            found.append([(int(c), v, volume) for c, r in zip(cav, np.asarray(at)) if r != corner])
        best = {}
        for c, v, volume in itertools.chain.from_iterable(found):
            if c not in best or (volume, v) < best[c]:
                best[c] = (volume, v)
        for c, (_volume, v) in best.items():
            fill[c] = v
    fill = fill.astype(a.dtype)
    meta = getattr(a, "_meta", None)
    out = np.empty(tuple(len(c) for c in a.chunks), dtype=object)
    counts = []
    for d, r, (idx, _start, shape) in zip(delayed, plan["root"], blocks):
        table = fill[r]
        table[0] = 0
        res = dask.delayed(G._apply, pure=True)(("relabel", None), d, table, _fill, req, None)
        out[idx] = da.from_delayed(res, shape=shape, dtype=a.dtype, meta=meta)
        counts.append(dask.delayed(_filled, pure=True)(d, res))
    total = da.from_delayed(dask.delayed(lambda cs: int(np.sum(cs)), pure=True)(counts), shape=(), dtype=np.int64)
    return da.block(out.tolist()), total


def registry_call(labels, connectivity=None, device=None, method=None):
    """parac.fill_label_holes of a Dask array: (the filled array, the count
    of filled pixels as a 0-d Dask array); connectivity of the holes as the
    registry's (default 4 / 6)."""
    conn = connectivity or (4 if labels.ndim == 2 else 6)
    if conn not in ((4, 8) if labels.ndim == 2 else (6, 18, 26)):
        raise ValueError("fill_label_holes: connectivity %s is not valid for a %dD array" % (conn, labels.ndim))
    return fill_label_holes(labels, conn, device=device, method=method)
