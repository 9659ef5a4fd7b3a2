"""Global operations on Dask arrays by one merge of face equivalences.

Connected components (``label``), the fill of holes, the removal of objects
that touch the border or are small, and the seeded flood are global: a
pixel's result may depend on pixels in any chunk. They run in one round,
the seed-and-union-find scheme of region filling at the scale of chunks:

1. each block is labelled on its own (parac's labelling, on the block's
   device): local labels 1..n_b, and what the operation needs of each label
   (its first pixel in raster order, its area, whether it reaches the
   array's border or holds the seed);
2. the 1-pixel faces between neighbouring blocks (both sides of every plane
   where chunks meet, across the whole array, so that neighbours across a
   block's corner or edge meet too) give the pairs of labels that touch
   under the connectivity; one task joins them with a union-find (scipy's
   connected components over the face labels only: small beside the image)
   and decides every component: whether it is kept, or its final number (for
   label the ranking of first pixels is spread over one task per band of
   blocks: see "numbering" below);
3. each block is relabelled through its slice of that decision (a table
   lookup on the block's device).

The graph is lazy (nothing runs until the caller computes). On the CPU a
block's labels are computed once and kept from step 1 to step 3; on a GPU
they are computed again in step 3 (about a millisecond for 8192²) rather
than kept (4 bytes a pixel), and a host block is worked on there, copied
once a step, so that its labels never cross the link. Results equal the
same call on the whole array in memory bit for bit: components are
numbered by the raster order of their first pixel, as scipy and
scikit-image number them, whatever the chunking.
"""
import itertools
import operator

import numpy as np

from ._device import array_module as _xp
from ._device import on_host as _host
from ._registry import _DTYPES




def _host_all(arrays):
    """Arrays of one dtype in host memory; from a GPU in one copy (a copy
    waits for the GPU: a block's 2 x ndim faces took as many waits)."""
    if not arrays or _xp(arrays[0]) is np:
        return [np.asarray(a) for a in arrays]
    xp = _xp(arrays[0])
    flat = _host(xp.concatenate([a.ravel() for a in arrays]))
    ends = np.cumsum([a.size for a in arrays])
    return [p.reshape(a.shape) for p, a in zip(np.split(flat, ends[:-1]), arrays)]


def _blocks(a):
    """(block index, first pixel, shape) of every block of a, in raster order of blocks."""
    starts = [np.concatenate(([0], np.cumsum(c)[:-1])).astype(int) for c in a.chunks]
    for idx in itertools.product(*[range(len(c)) for c in a.chunks]):
        yield idx, tuple(int(starts[i][k]) for i, k in enumerate(idx)), tuple(
            int(a.chunks[i][k]) for i, k in enumerate(idx))


class Request:
    """What an operation asks of each block's labels (see the top).

    label(block, extra) -> (labels, n): the block's local labels (int32, 0:
    none); extra is the operation's value computed from the array (the
    seed's value of a flood), passed to every block.
    values: the faces carry the block's values too; labels join across a
    face only where the two pixels' values are equal (equal-value regions).
    firsts: number the components by their first pixel (label).
    areas: sum the components' pixel counts (sizes).
    zone: components with a pixel within this many pixels of the array's
    border are marked (fill: 1, clear-border: buffer + 1).
    seed: the component holding this pixel is marked (flood).
    more(block, labels, n, start, gshape) -> dict: further facts of the
    operation's own, added to the block's (small, on the host)."""

    def __init__(self, label, ndim, conn, values=False, firsts=False, areas=False, zone=0, seed=None, extra=None,
                 device=None, more=None):
        self.label, self.ndim, self.conn, self.extra = label, ndim, conn, extra
        self.values, self.firsts, self.areas, self.zone, self.seed = values, firsts, areas, zone, seed
        self.more = more
        # where the blocks are labelled: the label function's own device= unless given
        self.device = device if device is not None else getattr(label, "keywords", {}).get("device")


def _gpu_index(device):
    """The GPU that device names ("cuda": the current one, "cuda:N"), or None
    (the CPU, several GPUs, or parac's own choice)."""
    d = str(device) if device is not None else ""
    if d == "cuda":
        return -1
    if d.startswith("cuda:") and d[5:].isdigit():
        return int(d[5:])
    return None


def host_chunks_gpu(device, *arrays):
    """The GPU that host (NumPy) chunks of these Dask arrays should be worked
    on, moved there once, when device names one GPU and CuPy is installed:
    its index (-1: the current one) or None (keep them where they are)."""
    gpu = _gpu_index(device)
    if gpu is None or any(not isinstance(getattr(a, "_meta", None), np.ndarray) for a in arrays):
        return None
    try:
        import cupy  # noqa: F401
    except ImportError:
        return None
    return gpu


def _on_gpu(block, req):
    """A host block whose work goes to one GPU, copied there once (CuPy,
    where it is installed); else None. Every step of the block then runs on
    the GPU, and only the facts (small) and the result come back to the
    host: a host block's labels (4 bytes a pixel) never cross the link."""
    gpu = _gpu_index(req.device)
    if gpu is None or _xp(block) is not np:
        return None
    try:
        import cupy  # noqa: F401
    except ImportError:  # parac's own copies then: the labels come back to the host
        return None
    from ._device import to_gpu

    return to_gpu(block, gpu)


def _rank(ndim, conn):
    """How many axes a neighbour may differ on (1: faces .. ndim: every neighbour)."""
    return {4: 1, 8: 2, 6: 1, 18: 2, 26: 3}[conn] if ndim in (2, 3) else 1


def _local(block, req, start, gshape, extra):
    """Step 1 on one block: (kept, facts) with the facts small and on the host.
    kept is what step 3 starts from: the block's labels where they are on
    the host (labelling again would cost as much as the first time); on a
    GPU, where labelling is cheap beside keeping 4 bytes a pixel, the block's
    copy on the GPU (a host block) or nothing (a CuPy block): step 3 labels
    it again, with the same result."""
    moved = _on_gpu(block, req)
    if moved is not None:
        block = moved
    labels, n = req.label(block, extra)
    n = int(n)
    nd = labels.ndim
    facts = {"n": n, "faces": [], "values": []}
    sides = [tuple((0 if s == 0 else -1) if i == ax else slice(None) for i in range(nd))
             for ax in range(nd) for s in (0, 1)]
    faces = _host_all([labels[sl] for sl in sides])
    values = _host_all([block[sl] for sl in sides]) if req.values else None
    for ax in range(nd):
        facts["faces"].append((faces[2 * ax], faces[2 * ax + 1]))
        if req.values:
            facts["values"].append((values[2 * ax], values[2 * ax + 1]))
    xp = _xp(labels)
    if req.firsts:
        facts["firsts"] = _first_pixels(labels, n, start, gshape)
    if req.areas:
        facts["areas"] = _host(xp.bincount(labels.ravel(), minlength=n + 1)).astype(np.int64)
    marked = []
    if req.zone:
        for ax in range(nd):
            size, s0 = labels.shape[ax], start[ax]
            for side, (a, b) in enumerate(((0, req.zone - s0), (gshape[ax] - req.zone - s0, size))):
                a, b = max(a, 0), min(b, size)
                if a < b and b - a == 1 and (a, b) == ((0, 1), (size - 1, size))[side]:
                    marked.append(np.unique(facts["faces"][ax][side]))  # a face, already on the host
                elif a < b:
                    sl = tuple(slice(a, b) if i == ax else slice(None) for i in range(nd))
                    marked.append(np.unique(_host(labels[sl])))
    if req.seed is not None:
        local = [s - s0 for s, s0 in zip(req.seed, start)]
        if all(0 <= v < size for v, size in zip(local, labels.shape)):
            marked.append(np.array([int(labels[tuple(local)])]))
    if req.zone or req.seed is not None:
        m = np.unique(np.concatenate(marked)) if marked else np.zeros(0, np.int64)
        facts["marked"] = m[m > 0].astype(np.int64)
    if req.more is not None:
        facts.update(req.more(block, labels, n, start, gshape))
    if xp is np:
        return ("labels", labels), facts
    return ("gpu", moved), facts


def _first_pixels(labels, n, start, gshape):
    """The global raster index of each local label's first pixel. Labels
    1..n are numbered in the block's raster order (which the global raster
    index keeps within a block), so the labels that first appear in a row
    are those above the largest label of the rows before it: only their
    pixels in that row are searched, a small fraction of the block."""
    if n == 0:
        return np.zeros(0, np.int64)
    xp = _xp(labels)
    rows = labels.reshape(-1, labels.shape[-1])
    before = np.maximum.accumulate(_host(rows.max(axis=1)))
    before = np.concatenate(([0], before[:-1])).astype(labels.dtype)
    pos = xp.flatnonzero(rows > xp.asarray(before)[:, None])
    if xp is not np and n < 1 << 31 and pos.size < 1 << 32:
        return _first_pixels_gpu(xp, rows.ravel()[pos], pos, n, labels.shape, start, gshape)
    v = _host(rows.ravel()[pos])
    pos = _host(pos)
    new = np.empty(v.size, bool)
    new[0] = True
    np.greater(v[1:], np.maximum.accumulate(v)[:-1], out=new[1:])
    pos = pos[new]
    if pos.size != n:
        raise RuntimeError("parac: a block's labels are not numbered 1..%d in raster order" % n)
    coords = np.unravel_index(pos, labels.shape)
    return np.ravel_multi_index(tuple(c + s for c, s in zip(coords, start)), gshape).astype(np.int64)


def _first_pixels_gpu(xp, v, pos, n, shape, start, gshape):
    """_first_pixels' last steps on the GPU, where the candidates (labels v
    at raster positions pos, in raster order) lie: each label's first
    candidate by one sort of (label, order) keys, not a running maximum on
    the host (which took three quarters of an 8192² block's 14 ms). Labels
    below 2^31 and fewer than 2^32 candidates: a key holds both."""
    key = xp.sort((v.astype(xp.int64) << 32) | xp.arange(pos.size, dtype=xp.int64))
    lab = key >> 32
    head = xp.empty(key.size, bool)
    head[0] = True
    head[1:] = lab[1:] != lab[:-1]
    first = pos[key[head] & 0xFFFFFFFF]
    if first.size != n or int(lab[-1]) != n or int(lab[0]) != 1:
        raise RuntimeError("parac: a block's labels are not numbered 1..%d in raster order" % n)
    coords = xp.unravel_index(first, shape)
    g = xp.ravel_multi_index(tuple(c + s for c, s in zip(coords, start)), gshape)
    return _host(g).astype(np.int64)


def face_shifts(shape, rank):
    """(s0, s1) for two planes of `shape` on either side of a face: the
    slices that put pixels that touch under the connectivity side by side
    (offsets of -1..1 along the face's axes, at most rank - 1 of them
    nonzero)."""
    for off in itertools.product((-1, 0, 1), repeat=len(shape)):
        if 1 + sum(o != 0 for o in off) > rank:
            continue
        yield (tuple(slice(max(0, -o), n - max(0, o)) for o, n in zip(off, shape)),
               tuple(slice(max(0, o), n - max(0, -o)) for o, n in zip(off, shape)))


def _pairs(p0, p1, v0, v1, rank):
    """The pairs of global labels (p0 on one side of a face, p1 on the
    other) that touch under the connectivity."""
    out = []
    for s0, s1 in face_shifts(p0.shape, rank):
        a, b = p0[s0], p1[s1]
        keep = (a > 0) & (b > 0)
        if v0 is not None:
            keep &= v0[s0] == v1[s1]
        out.append(np.stack((a[keep], b[keep])))
    return np.concatenate(out, axis=1) if out else np.zeros((2, 0), np.int64)


def face_planes(facts, layout, req):
    """Every plane where chunks meet, across the whole array: (axis, (labels,
    values) of the side before, (labels, values) of the side after), the
    labels global (each block's offset added), values None unless asked."""
    idx_of, grid, gshape = layout
    offsets = np.concatenate(([0], np.cumsum([f["n"] for f in facts])[:-1])).astype(np.int64)
    for ax in range(req.ndim):
        for j in range(1, grid[ax]):
            planes = []
            for side, bj in ((1, j - 1), (0, j)):
                shape = tuple(n for i, n in enumerate(gshape) if i != ax)
                lab = np.zeros(shape, np.int64)
                val = None
                for b, (idx, start) in enumerate(idx_of):
                    if idx[ax] != bj:
                        continue
                    f = facts[b]["faces"][ax][side].astype(np.int64)
                    f[f > 0] += offsets[b]
                    sl = tuple(slice(s, s + n) for s, n in zip(
                        [s for i, s in enumerate(start) if i != ax], f.shape))
                    lab[sl] = f
                    if req.values:
                        v = facts[b]["values"][ax][side]
                        if val is None:
                            val = np.zeros(shape, v.dtype)
                        val[sl] = v
                planes.append((lab, val))
            yield ax, planes[0], planes[1]


def neighbour_offsets(ndim, rank):
    """The offsets (-1..1 per axis) of a pixel's neighbours under the connectivity."""
    return [o for o in itertools.product((-1, 0, 1), repeat=ndim) if 0 < sum(v != 0 for v in o) <= rank]


def join(facts, layout, req):
    """The union-find over the faces (step 2's first half): (offsets of each
    block's labels, their total, the labels on faces, their components, the
    components' count, every global label's component: ids 0..total are
    labels on no face, total + 1 + k component k of the faces)."""
    offsets, total, ids, comp, ncomp = _face_components(facts, layout, req)
    # every global label's component: its own for labels on no face
    root = np.arange(total + 1, dtype=np.int64)
    root[ids] = total + 1 + comp
    return offsets, total, ids, comp, ncomp, root


def _face_components(facts, layout, req):
    """(offsets of each block's labels, their total, the global labels that
    meet a label of another block on a face (sorted), the component of each
    of them, the components' count). Its work grows with the faces' pixels,
    not with the labels' total (millions of labels that touch no face)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    ns = np.array([f["n"] for f in facts], dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(ns)[:-1]))
    total = int(ns.sum())
    rank = _rank(req.ndim, req.conn)
    pairs = [_pairs(p0, p1, v0, v1, rank) for _ax, (p0, v0), (p1, v1) in face_planes(facts, layout, req)]
    pairs = np.concatenate(pairs, axis=1) if pairs else np.zeros((2, 0), np.int64)
    # the labels on faces, block by block: sorted, as the blocks' offsets rise
    on_face = np.concatenate([np.zeros(0, np.int64)] + [_on_faces(f) + o for f, o in zip(facts, offsets)])
    # the union-find over those of them that meet another block's label,
    # numbered densely by their places among the labels on faces
    at = np.searchsorted(on_face, pairs)
    present = np.zeros(on_face.size, bool)
    present[at.ravel()] = True
    ids = on_face[present]
    inv = (np.cumsum(present, dtype=np.int64) - 1)[at]
    m = ids.size
    graph = coo_matrix((np.ones(inv.shape[1], np.int8), (inv[0], inv[1])), shape=(m, m))
    ncomp, comp = connected_components(graph, directed=False) if m else (0, np.zeros(0, np.int64))
    return offsets, total, ids, comp, ncomp


def _on_faces(f):
    """A block's labels on its faces, sorted, 0 left out (local)."""
    u = np.unique(np.concatenate([np.zeros(1, np.int64)] + [np.asarray(s).ravel().astype(np.int64)
                                                          for pair in f["faces"] for s in pair]))
    return u[1:]


def _plan(facts, layout, req, what):
    """Step 2 of the marking operations: the union-find over the faces and
    each block's table of kept / marked flags (a list, one per block). A
    marking's tables are sparse, ("true", n, the local labels flagged):
    its marked labels are few (those of a zone or a seed and the components
    they reach across faces), and its work grows with those and the faces
    (dense tables of every label took 0.17 s for 13.6 million labels)."""
    ns = np.array([f["n"] for f in facts], dtype=np.int64)
    offsets, total, ids, comp, ncomp = _face_components(facts, layout, req)
    cut = np.searchsorted(ids, np.concatenate((offsets + 1, [total + 1])), side="left")
    if what == "marked":
        # a face component is marked where one of its labels is
        hit = np.zeros(ncomp, bool)
        for o, f in zip(offsets, facts):
            g = f["marked"].astype(np.int64) + o
            at = np.searchsorted(ids, g)
            on = at < ids.size
            on[on] = ids[at[on]] == g[on]
            hit[comp[at[on]]] = True
        tables = []
        for b, (o, f) in enumerate(zip(offsets, facts)):
            mine = ids[cut[b]:cut[b + 1]]
            flagged = np.union1d(f["marked"].astype(np.int64), mine[hit[comp[cut[b]:cut[b + 1]]]] - o)
            tables.append(("true", int(ns[b]), flagged))
        return {"tables": tables}
    # ("smaller", size): components of fewer pixels; a face component's
    # area is its labels' sum
    areas = np.zeros(ncomp, np.int64)
    for b, f in enumerate(facts):
        np.add.at(areas, comp[cut[b]:cut[b + 1]], f["areas"][ids[cut[b]:cut[b + 1]] - offsets[b]])
    tables = []
    for b, f in enumerate(facts):
        flag = f["areas"][:ns[b] + 1] < what[1]
        flag[ids[cut[b]:cut[b + 1]] - offsets[b]] = areas[comp[cut[b]:cut[b + 1]]] < what[1]
        flag[0] = False
        tables.append(flag)
    return {"tables": tables}


# ---- numbering (label): step 2 spread over bands of blocks ----------------
#
# A component's number is the rank of its first pixel in raster order, and its
# leader the label that holds that pixel: every label on no face, and per
# component on faces its member with the smallest first pixel. Every first
# pixel of a band of blocks (the blocks of one index along the first axis)
# comes before every first pixel of the next band, so each band ranks its own
# leaders (a task per band, in parallel: the first pixels are most of step 1's
# facts) and a prefix sum of the bands' counts places them; one task joins the
# faces (small: the first pixels of labels on faces only) and, after the
# bands, gives the labels that follow another block's leader its number.

def _face_facts(facts):
    """Step 1's facts less the first pixels of labels on no face (most of
    them): what the join needs."""
    f = {k: v for k, v in facts.items() if k != "firsts"}
    on_face = np.unique(np.concatenate([np.zeros(1, np.int64)] + [np.asarray(s).ravel().astype(np.int64)
                                                                 for pair in facts["faces"] for s in pair]))
    on_face = on_face[on_face > 0]
    f["face_firsts"] = (on_face, facts["firsts"][on_face - 1])
    return f


def _number_join(facts, layout, req):
    """The union-find over the faces and each face component's leader: per
    block, its labels that follow a leader elsewhere ("drop", local, sorted)
    and its labels that lead a face component ("lead", local)."""
    offsets, total, ids, comp, ncomp = _face_components(facts, layout, req)
    nb = len(facts)
    if ids.size == 0:
        empty = [np.zeros(0, np.int64)] * nb
        return {"drop": empty, "lead": empty, "follow": (np.zeros(0, np.int64), np.zeros(0, np.int64)),
                "leaders": np.zeros(0, np.int64), "offsets": offsets}
    gid = np.concatenate([f["face_firsts"][0] + o for f, o in zip(facts, offsets)])
    gfirst = np.concatenate([f["face_firsts"][1] for f in facts])
    first = gfirst[np.searchsorted(gid, ids)]
    by_comp = np.lexsort((first, comp))
    heads = by_comp[np.concatenate(([True], comp[by_comp][1:] != comp[by_comp][:-1]))]
    leader_of = np.empty(ncomp, np.int64)
    leader_of[comp[heads]] = ids[heads]
    follows = ids != leader_of[comp]
    # the labels of block b: offsets[b] < label <= offsets[b] + n_b (ids are sorted)
    cut = np.searchsorted(ids, np.concatenate((offsets + 1, [total + 1])), side="left")
    drop, lead = [], []
    for b in range(nb):
        mine, f = ids[cut[b]:cut[b + 1]] - offsets[b], follows[cut[b]:cut[b + 1]]
        drop.append(mine[f])
        lead.append(mine[~f])
    return {"drop": drop, "lead": lead, "follow": (ids[follows], comp[follows]), "leaders": leader_of,
            "offsets": offsets}


def _band_ranks(firsts, drops, leads, dtype):
    """One band's leaders ranked by first pixel (1..m): per block of the band
    (in raster order of blocks) the rank of each local label (0: not a
    leader, dtype: the labels'), the ranks of its face leaders, and m."""
    keep = []
    for f, d in zip(firsts, drops):
        k = np.ones(f.size, bool)
        k[d - 1] = False
        keep.append(k)
    if len(keep) == 1:
        # a band of one block (a group as wide as the array, or chunks that
        # are): its labels are numbered in raster order of their first
        # pixels already, so a kept label's rank is its place among the kept
        r = np.zeros(keep[0].size + 1, dtype)
        np.cumsum(keep[0], dtype=dtype, out=r[1:])
        r[1:] *= keep[0]
        return {"ranks": [r], "lead_ranks": [r[leads[0]]], "m": int(keep[0].sum())}
    lf = np.concatenate([f[k] for f, k in zip(firsts, keep)]) if keep else np.zeros(0, np.int64)
    rank = np.empty(lf.size, dtype)
    # each block's run is sorted already: the stable sort merges them
    rank[np.argsort(lf, kind="stable")] = np.arange(1, lf.size + 1, dtype=dtype)
    ranks, lead_ranks, at = [], [], 0
    for k, ld in zip(keep, leads):
        r = np.zeros(k.size + 1, dtype)
        n = int(k.sum())
        r[1:][k] = rank[at:at + n]
        at += n
        ranks.append(r)
        lead_ranks.append(r[ld])
    return {"ranks": ranks, "lead_ranks": lead_ranks, "m": int(lf.size)}


def _number_finish(joined, counts, lead_ranks, bands, dtype):
    """After the bands: the count of components, each band's first number,
    and per block the numbers (of dtype, the labels') of its labels that
    follow a leader elsewhere."""
    counts = np.array(counts, np.int64)
    n = int(counts.sum())
    if n > np.iinfo(dtype).max:  # not reached: label_dtype holds every pixel's number
        raise OverflowError("parac: %d components do not fit %s labels" % (n, np.dtype(dtype).name))
    start = np.concatenate(([0], np.cumsum(counts)[:-1]))
    band_of = np.empty(len(joined["drop"]), np.int64)
    place = {}
    for j, members in enumerate(bands):
        for k, b in enumerate(members):
            band_of[b] = j
            place[b] = (j, k)
    offsets = joined["offsets"]
    # the number of each face component: its leader's band start and rank there
    leaders = joined["leaders"]
    number = np.zeros(leaders.size, np.int64)
    order = np.argsort(leaders)
    ordered = leaders[order]
    cut = np.searchsorted(ordered, np.concatenate((offsets + 1, [np.iinfo(np.int64).max])), side="left")
    for b in range(len(offsets)):
        if cut[b] == cut[b + 1]:
            continue
        j, k = place[b]
        # lead[b] holds this block's face leaders, sorted as ordered[cut[b]:cut[b + 1]] are
        number[order[cut[b]:cut[b + 1]]] = start[j] + lead_ranks[j][k].astype(np.int64)
    ids, comps = joined["follow"]
    blocks = []
    for b, d in enumerate(joined["drop"]):
        gl = d + offsets[b]
        blocks.append((int(start[band_of[b]]), d, number[comps[np.searchsorted(ids, gl)]].astype(dtype)))
    return {"n": n, "blocks": blocks}


def _number_table(ranks, fin):
    """A block's table: local label -> final number."""
    start, drop, numbers = fin
    t = ranks.copy()
    t[t > 0] += t.dtype.type(start)
    t[drop] = numbers
    return t


def _numbered(t, facts, blocks, layout, req, dtype):
    """Step 2 for "number" as tasks of t (_Tasks; facts: each block's facts'
    key): (each block's table of dtype, the plan holding "n"), as keys."""
    from dask.core import quote

    def get(key, item):
        return t(operator.getitem, key, item)

    joined = t(_number_join, [t(_face_facts, f) for f in facts], quote(layout), quote(req))
    drop, lead = get(joined, "drop"), get(joined, "lead")
    bands = {}
    for b, (idx, _start, _shape) in enumerate(blocks):
        bands.setdefault(idx[0], []).append(b)
    members = [bands[j] for j in sorted(bands)]
    out = [t(_band_ranks, [get(facts[b], "firsts") for b in m], [get(drop, b) for b in m],
             [get(lead, b) for b in m], quote(dtype)) for m in members]
    fin = t(_number_finish, joined, [get(o, "m") for o in out], [get(o, "lead_ranks") for o in out],
            quote(members), quote(dtype))
    fins = get(fin, "blocks")
    tables = [None] * len(blocks)
    for j, m in enumerate(members):
        ranks = get(out[j], "ranks")
        for k, b in enumerate(m):
            tables[b] = t(_number_table, get(ranks, k), get(fins, b))
    return tables, fin


class _Tasks:
    """The tasks of one low-level graph, added in time linear in their
    number: dask.delayed merges its arguments' graphs at every call, which
    made the graph of n blocks cost O(n^2) to build (1600 blocks: 100 s).
    A task's key names its step ("parac-local-<token>", "parac-number-join-
    <token>", ...), so that Dask's dashboard and task stream tell the steps
    apart."""

    def __init__(self, token):
        self.token, self.dsk, self.n = token, {}, 0

    def __call__(self, func, *args):
        """The key of a new task func(*args): args are keys, lists of keys
        and values (lists, dicts and tasks among them quoted)."""
        step = func.__name__.strip("_").replace("_", "-")
        key = ("parac-%s-%s" % (step, self.token), self.n)
        self.n += 1
        self.dsk[key] = (func,) + args
        return key


def _apply(kept, block, table, finish, req, extra):
    """Step 3 on one block: finish(block, table[labels]) where step 1 worked
    (kept: see _local); a host block's result comes back to the host."""
    how, value = kept
    if how == "labels":
        labels, work = value, block
    else:
        work = value if value is not None else block
        labels = req.label(work, extra)[0]
    xp = _xp(labels)
    if isinstance(table, tuple):  # ("true", n, the labels flagged): a marking's sparse table
        dense = xp.zeros(table[1] + 1, bool)
        dense[xp.asarray(table[2])] = True
        table = dense
    res = finish(work, _take(table, labels))
    return _host(res) if work is not block else res


def _take(table, labels):
    """table[labels]: on the host by parac's lookup (on every core, into the
    blocks the library keeps: numpy.take took as long as the labelling, most
    of it in the new result's first touch of its pages); on a GPU by take (a
    third faster than indexing)."""
    xp = _xp(labels)
    t = xp.asarray(table)
    if xp is np and labels.ndim in (2, 3) and labels.dtype.name in ("uint8", "uint16", "int32", "int64"):
        entries = t.view(np.uint8) if t.dtype == bool else t
        if entries.dtype.name in _DTYPES.values():
            from . import lookup

            res = lookup(labels, entries.reshape(1, -1), device="cpu")
            return res.view(bool) if t.dtype == bool else res
    return xp.take(t, labels)


def components(a, req, what, finish, dtype):
    """The Dask array of finish(block, decision of each pixel's component)
    per block, and the plan's delayed result (see _components). Where
    parac._dask._group_bytes says (blocks worked on a GPU, unless the Dask
    config key parac.local-group-bytes says otherwise), blocks go in groups of
    neighbours, each group one block of the steps (parac._dask.coarsen:
    assembled where the blocks are, or on the GPU for host blocks worked
    there, one task a step), the result split back into a's blocks (views;
    host blocks worked on a GPU come back to the host once a group). Results
    do not depend on the blocks, so the groups change the tasks and their
    costs, not a pixel."""
    from . import _dask

    gpu = host_chunks_gpu(req.device, a)
    itemsize = max(a.dtype.itemsize, np.dtype(dtype).itemsize, np.dtype(label_dtype(a.shape)).itemsize)
    runs = _dask.groups_for(a, itemsize, gpu)
    if runs is None:
        return _components(a, req, what, finish, dtype)
    res, plan = _components(_dask.coarsen(a, runs, gpu), req, what, finish, dtype)
    return _dask.split(res, runs, a.chunks, to_host=gpu is not None), plan


def _components(a, req, what, finish, dtype):
    """The Dask array of finish(block, decision of each pixel's component)
    per block (see the top), and the plan's delayed result (its "n" for
    what="number"). what: "number" (final labels), "marked" (components
    marked by zone or seed) or ("smaller", size) (components of fewer
    pixels). One low-level graph (_Tasks) of a fixed number of tasks per
    block."""
    import dask.array as da
    from dask.base import tokenize
    from dask.core import quote
    from dask.delayed import Delayed
    from dask.highlevelgraph import HighLevelGraph

    blocks = list(_blocks(a))
    gshape = tuple(int(n) for n in a.shape)
    token = tokenize(a.name, req, what, finish, np.dtype(dtype).str)
    name = "parac-components-" + token
    t = _Tasks(token)
    local = [t(_local, (a.name,) + idx, quote(req), start, gshape, quote(req.extra)) for idx, start, _ in blocks]
    kept = [t(operator.getitem, k, 0) for k in local]
    facts = [t(operator.getitem, k, 1) for k in local]
    layout = ([(idx, start) for idx, start, _ in blocks], tuple(len(c) for c in a.chunks), gshape)
    if what == "number":
        tables, plan = _numbered(t, facts, blocks, layout, req, np.dtype(dtype))
    else:
        plan = t(_plan, facts, quote(layout), quote(req), quote(what))
        all_tables = t(operator.getitem, plan, "tables")
        tables = [t(operator.getitem, all_tables, b) for b in range(len(blocks))]
    for b, (idx, _start, _shape) in enumerate(blocks):
        t.dsk[(name,) + idx] = (_apply, kept[b], (a.name,) + idx, tables[b], quote(finish), quote(req),
                                quote(req.extra))
    graph = HighLevelGraph.from_collections(name, t.dsk, dependencies=[a])
    meta = getattr(a, "_meta", None)
    meta = meta.astype(dtype)[(slice(0, 0),) * a.ndim] if meta is not None else None
    return da.Array(graph, name, chunks=a.chunks, dtype=dtype, meta=meta), Delayed(plan, graph, layer=name)


def label_dtype(shape):
    """The labels' dtype for an array of this shape: int32, or int64 where
    its pixels outnumber int32's positive values (a lazy graph's dtype cannot
    wait for the count; parac.ndimage.label and parac.measure.label follow
    the same rule in memory)."""
    return _I64 if _past_int32(shape) else _I32


_I32, _I64 = np.dtype(np.int32), np.dtype(np.int64)


def _past_int32(shape):
    """Whether an array of this shape has more pixels than int32's largest
    value (a product of Python ints: np.prod and np.iinfo cost each call
    microseconds)."""
    n = 1
    for s in shape:
        n *= int(s)
    return n > 2147483647


def label_dtype_name(shape):
    """label_dtype's name in parac: "i32" or "i64"."""
    return "i64" if _past_int32(shape) else "i32"


def count(plan):
    """The number of components of a "number" plan, as a 0-d Dask array."""
    import dask
    import dask.array as da

    return da.from_delayed(dask.delayed(operator.getitem, pure=True)(plan, "n"), shape=(), dtype=np.int64)


def block_labels(block, extra, kind, conn, background=0, device=None, method=None):
    """A block's components as the operations define them, by parac's
    labelling where the block lives: (labels int32, n).

    kind: "nonzero" (scipy's label), "equal" (regions of equal value other
    than background, scikit-image's), "zero" (the background's components:
    holes), "within" (pixels within background of the seed's value extra,
    compared in float64 as the flood compares)."""
    from . import label as _label
    from ._compat import label_input

    if kind == "equal":
        return _label(label_input(block, "parac"), connectivity=conn, equal_values=True,
                      background=float(background), device=device, method=method)
    if kind == "zero":
        block = block == 0
    elif kind == "within":
        v, seed = block.astype("float64"), float(extra)
        block = (v >= seed - background) & (v <= seed + background)
    return _label(label_input(block, "parac", nonzero_only=True), connectivity=conn, device=device, method=method)


def labels_of(block, decided):
    """finish: the final labels."""
    return decided


def where_not(block, decided):
    """finish: the marked pixels set to 0, the others kept."""
    return _xp(block).where(decided, block.dtype.type(0), block)


def not_marked(block, decided):
    """finish: True where the pixel's component is not marked (fill: objects and holes)."""
    return ~decided


def marked(block, decided):
    """finish: True where the pixel's component is marked."""
    return decided


def or_marked(block, decided):
    """finish: the block's nonzero pixels and the marked ones."""
    return (block != 0) | decided


def set_marked(value, block, decided):
    """finish (with functools.partial): the marked pixels set to value."""
    return _xp(block).where(decided, block.dtype.type(value), block)


def _value_counts(block):
    """The pixels of each value 0..max of a block of non-negative integers (host int64)."""
    xp = _xp(block)
    flat = block.ravel()
    if flat.size and int(flat.min()) < 0:
        raise ValueError("parac: negative labels are not supported")
    return _host(xp.bincount(flat.astype(xp.int64))) if flat.size else np.zeros(0, np.int64)


def _sum_counts(counts):
    total = np.zeros(max([c.size for c in counts] + [0]), np.int64)
    for c in counts:
        total[:c.size] += c
    return total


def _clear_small(block, sizes, size):
    """The block with the labels of fewer than size pixels 0: one lookup
    through a table of the labels, the small ones 0."""
    table = np.arange(sizes.size, dtype=block.dtype)
    table[sizes < size] = 0
    return _take(table, block)


def remove_small_labels(a, size):
    """A label image's labels of fewer than size pixels (over every chunk) set to 0."""
    import dask

    counts = [dask.delayed(_value_counts, pure=True)(d) for d in a.to_delayed(optimize_graph=False).ravel()]
    sizes = dask.delayed(_sum_counts, pure=True)(counts)
    return a.map_blocks(_clear_small, sizes, size, dtype=a.dtype)
