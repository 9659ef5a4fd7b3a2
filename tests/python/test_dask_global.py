"""Global operations on Dask arrays (one merge of face equivalences:
parac._dask_global): label (scipy's and scikit-image's), binary_fill_holes,
clear_border, flood / flood_fill, remove_small_objects / remove_small_holes.
Each equals the same call on the whole array in memory bit for bit, and the
scipy / scikit-image reference, for chunkings that cut everywhere; with the
inputs that are hard for chunked components: a spiral and stripes crossing
every chunk face, checkerboards whose components meet only across chunk
corners, one pixel per component, one component spanning every chunk,
holes spanning many chunks, objects that reach the border only through
another chunk. Then on a LocalCluster of worker processes."""
import os
import sys

import numpy as np
import pytest

_dir = os.environ.get("PARAC_PYTHON_DIR")
if _dir:
    sys.path.insert(0, _dir)
parac = pytest.importorskip("parac", reason="the parac extension was not built (Python development files)")
da = pytest.importorskip("dask.array")
ndi = pytest.importorskip("scipy.ndimage")
skm = pytest.importorskip("skimage.measure")
sks = pytest.importorskip("skimage.segmentation")

from dask_cases import chunkings, spiral  # noqa: E402
from sk_compat import sk_remove_holes, sk_remove_objects  # noqa: E402

STRUCTS_2D = [None, np.ones((3, 3), bool)]
STRUCTS_3D = [None, ndi.generate_binary_structure(3, 2), np.ones((3, 3, 3), bool)]


def hard_masks():
    yy, xx = np.mgrid[:29, :31]
    yield "spiral", spiral(41)
    yield "checkerboard", (yy + xx) % 2 == 0
    yield "specks", (yy % 2 == 0) & (xx % 2 == 0)
    yield "full", np.ones((29, 31), bool)
    yield "empty", np.zeros((29, 31), bool)
    yield "stripes", xx % 3 == 0
    yield "diagonals", (yy - xx) % 4 == 0
    rings = np.zeros((29, 31), bool)
    for r in (4, 8, 12):
        d = np.hypot(yy - 14, xx - 15)
        rings |= (d >= r) & (d < r + 1.5)
    yield "rings", rings


def chunkings_all(shape, seed):
    yield from chunkings(shape, seed)
    yield tuple(max(1, n // 5) for n in shape)  # many small chunks


def test_label_equals_scipy_in_2d():
    r = np.random.default_rng(1)
    cases = [("noise%d" % int(p * 100), r.random((37, 53)) < p) for p in (0.3, 0.5, 0.7)] + list(hard_masks())
    for k, (name, a) in enumerate(cases):
        for chunks in chunkings_all(a.shape, k):
            d = da.from_array(a, chunks=chunks)
            for st in STRUCTS_2D:
                lab, n = parac.ndimage.label(d, st)
                assert isinstance(lab, da.Array) and lab.chunks == d.chunks and lab.dtype == np.int32
                got, got_n = da.compute(lab, n)
                want, want_n = ndi.label(a, st)
                assert int(got_n) == want_n, (name, chunks, st)
                np.testing.assert_array_equal(got, want, err_msg="%s %s %s" % (name, chunks, st))


def test_label_numbered_by_bands_of_random_chunkings():
    """The numbering is spread over bands of blocks (one task per index along the first axis, the
    labels that follow a leader in another band numbered after them): random sizes, densities and
    chunkings, chunks of one row (a band each), 2D and 3D, every connectivity, nonzero and equal-value
    labels, against scipy and scikit-image."""
    skm = pytest.importorskip("skimage.measure")
    r = np.random.default_rng(11)
    for trial in range(24):
        nd = 2 if trial % 3 else 3
        shape = tuple(int(v) for v in r.integers(5, 48 if nd == 2 else 14, nd))
        a = r.random(shape) < r.uniform(0.2, 0.8)
        if trial % 4 == 0:
            a = ndi.uniform_filter(r.random(shape), 3) > 0.5
        chunks = (1,) + shape[1:] if trial % 6 == 1 else tuple(int(r.integers(1, s + 1)) for s in shape)
        st = ndi.generate_binary_structure(nd, int(r.integers(1, nd + 1)))
        want, want_n = ndi.label(a, st)
        got, got_n = da.compute(*parac.ndimage.label(da.from_array(a, chunks=chunks), st))
        assert int(got_n) == want_n, (trial, shape, chunks)
        np.testing.assert_array_equal(got, want, err_msg="%s %s" % (shape, chunks))
        v = (r.random(shape) * 3).astype(np.uint8)
        conn = int(r.integers(1, nd + 1))
        np.testing.assert_array_equal(
            parac.measure.label(da.from_array(v, chunks=chunks), background=1, connectivity=conn).compute(),
            skm.label(v, background=1, connectivity=conn), err_msg="equal values %s %s" % (shape, chunks))


def test_label_dtype_follows_the_pixel_count():
    """Labels are int32, or int64 where an array's pixels outnumber int32's positive values (a lazy
    graph's dtype cannot wait for the count; the in-memory call follows the same rule); the int64
    numbering of the merge equals the int32 one on every chunking."""
    from functools import partial

    from parac import _dask_global as g

    assert g.label_dtype((46341, 46341)) == np.int64 and g.label_dtype((46340, 46340)) == np.int32
    assert g.label_dtype((2, 1 << 30)) == np.int64 and g.label_dtype((1, 1 << 31)) == np.int64
    assert g.label_dtype((1, (1 << 31) - 1)) == np.int32 and g.label_dtype_name((3, 1 << 30)) == "i64"
    r = np.random.default_rng(5)
    for k, a in enumerate([r.random((37, 53)) < 0.4, spiral(41), r.random((9, 13, 11)) < 0.2]):
        want, want_n = ndi.label(a)
        for chunks in chunkings_all(a.shape, k):
            d = da.from_array(a, chunks=chunks)
            req = g.Request(partial(g.block_labels, kind="nonzero", conn=2 * a.ndim), a.ndim, 2 * a.ndim,
                            firsts=True)
            lab, plan = g.components(d, req, "number", g.labels_of, np.dtype(np.int64))
            got, n = da.compute(lab, g.count(plan))
            assert got.dtype == np.int64 and int(n) == want_n
            np.testing.assert_array_equal(got, want, err_msg=str(chunks))


def test_label_equals_scipy_in_3d():
    r = np.random.default_rng(2)
    for k, p in enumerate((0.25, 0.5)):
        a = (r.random((9, 13, 11)) < p).astype(np.uint8) * 7
        for chunks in chunkings_all(a.shape, 10 + k):
            d = da.from_array(a, chunks=chunks)
            for st in STRUCTS_3D:
                lab, n = parac.ndimage.label(d, st)
                got, got_n = da.compute(lab, n)
                want, want_n = ndi.label(a, st)
                assert int(got_n) == want_n
                np.testing.assert_array_equal(got, want, err_msg="%s %s" % (chunks, None if st is None else st.sum()))


def test_label_of_every_input_dtype_equals_the_in_memory_call():
    r = np.random.default_rng(3)
    base = r.random((21, 26)) < 0.5
    for dt in (np.uint8, np.uint16, np.int32, np.int64, np.float32, np.float64):
        a = (base * r.integers(1, 100, base.shape)).astype(dt)
        d = da.from_array(a, chunks=(5, 7))
        got, n = parac.ndimage.label(d, np.ones((3, 3)))
        want, wn = parac.ndimage.label(a, np.ones((3, 3)))
        assert int(n.compute()) == wn
        np.testing.assert_array_equal(got.compute(), want)


def test_measure_label_equal_values_equals_scikit_image():
    r = np.random.default_rng(4)
    for k, (shape, conns) in enumerate((((33, 47), (1, 2)), ((7, 12, 10), (1, 2, 3)))):
        for dt in (np.uint8, np.int32, np.float32):
            a = (r.random(shape) * 3).astype(np.uint8).astype(dt)
            for j, chunks in enumerate(chunkings_all(shape, 20 + k)):
                d = da.from_array(a, chunks=chunks)
                for conn in conns:
                    for bg in ((None, 1, 7)[j % 3],):
                        lab, n = parac.measure.label(d, background=bg, connectivity=conn, return_num=True)
                        got, got_n = da.compute(lab, n)
                        want, want_n = skm.label(a, background=bg, connectivity=conn, return_num=True)
                        assert int(got_n) == want_n
                        np.testing.assert_array_equal(got, want, err_msg="%s %s %s %s" % (dt, chunks, conn, bg))
    got = parac.measure.label(da.from_array(a, chunks=3))
    assert isinstance(got, da.Array)


def test_binary_fill_holes_equals_scipy():
    r = np.random.default_rng(5)
    cases = [("noise", r.random((37, 41)) < 0.55)] + [c for c in hard_masks() if c[0] in ("spiral", "rings",
                                                                                          "checkerboard", "full")]
    # an object around a hole that touches the border only through another chunk: a frame whose gap to
    # the border is at the far side of the array
    frame = np.zeros((30, 30), bool)
    frame[3:27, 3:27] = True
    frame[6:24, 6:24] = False
    frame[14:16, 0:7] = False
    cases.append(("frame-with-channel", frame))
    for k, (name, a) in enumerate(cases):
        for chunks in chunkings_all(a.shape, 30 + k):
            d = da.from_array(a, chunks=chunks)
            for st in STRUCTS_2D:
                got = parac.ndimage.binary_fill_holes(d, st)
                assert got.dtype == bool and got.chunks == d.chunks
                np.testing.assert_array_equal(got.compute(), ndi.binary_fill_holes(a, st),
                                              err_msg="%s %s %s" % (name, chunks, st))
    v = r.random((10, 14, 12)) < 0.6
    for chunks in chunkings_all(v.shape, 40):
        for st in STRUCTS_3D:
            got = parac.ndimage.binary_fill_holes(da.from_array(v, chunks=chunks), st).compute()
            np.testing.assert_array_equal(got, ndi.binary_fill_holes(v, st))


def test_clear_border_equals_the_in_memory_call_and_scikit_image():
    r = np.random.default_rng(6)
    a = r.random((31, 43)) < 0.35
    lab = skm.label(a, connectivity=2).astype(np.uint16)  # objects that do not touch each other
    v = r.random((8, 11, 13)) < 0.3
    for img in (a, lab, v):
        for chunks in chunkings_all(img.shape, 50):
            d = da.from_array(img, chunks=chunks)
            for buf in (0, 1, 3):
                got = parac.segmentation.clear_border(d, buffer_size=buf)
                assert got.dtype == img.dtype
                got = got.compute()
                np.testing.assert_array_equal(got, parac.segmentation.clear_border(img, buffer_size=buf))
                np.testing.assert_array_equal(got, sks.clear_border(img, buffer_size=buf),
                                              err_msg="%s %s %s" % (img.dtype, chunks, buf))


def test_flood_and_flood_fill_equal_scikit_image():
    r = np.random.default_rng(7)
    u8 = (r.random((27, 35)) * 4).astype(np.uint8)
    u16 = (u8.astype(np.uint16) * 1000)
    f32 = r.random((27, 35)).astype(np.float32)
    vol = (r.random((6, 9, 10)) * 3).astype(np.uint8)
    for img, tols, seeds in ((u8, (None, 1), ((13, 17), (0, 0), (-1, -1))), (u16, (None, 1000), ((5, 30),)),
                             (f32, (0.3,), ((10, 10),)), (u8 > 1, (None,), ((2, 3),)),
                             (vol, (None, 1), ((3, 4, 5), (0, -1, 0)))):
        # every chunking, with the tolerances, seeds and connectivities in turn
        for k, chunks in enumerate(chunkings_all(img.shape, 60)):
            d = da.from_array(img, chunks=chunks)
            tol, seed = tols[k % len(tols)], seeds[k % len(seeds)]
            conn = 1 + k % img.ndim
            want = sks.flood(img, seed, connectivity=conn, tolerance=tol)
            got = parac.segmentation.flood(d, seed, connectivity=conn, tolerance=tol)
            assert got.dtype == bool
            np.testing.assert_array_equal(got.compute(), want, err_msg="%s %s %s %s" % (img.dtype, chunks, tol, seed))
            if img.dtype == bool:
                continue
            got = parac.segmentation.flood_fill(d, seed, 99, connectivity=conn, tolerance=tol)
            assert got.dtype == img.dtype
            np.testing.assert_array_equal(got.compute(),
                                          sks.flood_fill(img, seed, 99, connectivity=conn, tolerance=tol))


def test_remove_small_objects_and_holes_equal_scikit_image():
    r = np.random.default_rng(8)
    a = r.random((41, 37)) < 0.5
    lab = (r.random((41, 37)) * 40).astype(np.int32) * (r.random((41, 37)) < 0.6)
    v = r.random((9, 12, 10)) < 0.5
    for img in (a, lab, v):
        for j, chunks in enumerate(chunkings_all(img.shape, 70)):
            d = da.from_array(img, chunks=chunks)
            for size in ((1, 4, 20)[j % 3],):
                for conn in range(1, img.ndim + 1):
                    got = parac.morphology.remove_small_objects(d, size, connectivity=conn)
                    assert got.dtype == img.dtype
                    np.testing.assert_array_equal(got.compute(), sk_remove_objects(img, size, conn),
                                                  err_msg="objects %s %s %s %s" % (img.dtype, chunks, size, conn))
                    if img.dtype != bool:
                        continue
                    got = parac.morphology.remove_small_holes(d, size, connectivity=conn)
                    np.testing.assert_array_equal(got.compute(), sk_remove_holes(img, size, conn),
                                                  err_msg="holes %s %s %s" % (chunks, size, conn))


def test_lazy_until_computed_and_refusals():
    calls = []

    def count(block):
        calls.append(block.shape)
        return block

    a = da.from_array(np.random.default_rng(9).random((30, 40)) < 0.5, chunks=(10, 10))
    a = a.map_blocks(count, dtype=bool)
    calls.clear()
    graphs = [parac.ndimage.label(a), parac.ndimage.binary_fill_holes(a), parac.segmentation.clear_border(a),
              parac.segmentation.flood(a, (3, 4)), parac.morphology.remove_small_objects(a, 5)]
    assert all(0 in s for s in calls)  # dask may probe with empty blocks, nothing more
    lab, n = graphs[0]
    assert isinstance(n, da.Array) and n.shape == ()
    lab.compute()
    assert sum(s == (10, 10) for s in calls) == 12  # each block once
    with pytest.raises(NotImplementedError):
        parac.ndimage.label(a, output=np.empty((30, 40), np.int32))
    with pytest.raises(NotImplementedError):
        parac.ndimage.binary_fill_holes(a, output=np.empty((30, 40), bool))
    with pytest.raises(ValueError):
        parac.ndimage.label(da.zeros((4, 4, 4, 4), chunks=2))


def spotted_labels(shape, seed, dtype=np.int32):
    """Labelled blobs with one pixel in ten cleared: holes of one label, and
    cavities beside several labels, some enclosed by a label around them."""
    r = np.random.default_rng(seed)
    lab = ndi.label(r.random(shape) < 0.55, ndi.generate_binary_structure(len(shape), len(shape)))[0]
    lab[r.random(shape) < 0.1] = 0
    return (lab % int(np.iinfo(dtype).max) if dtype != np.int32 else lab).astype(dtype)


def nested_labels():
    """A hole of 3 holding a ring of 7 with a hole of its own; two touching
    cells with a gap that only both close (no label's hole)."""
    a = np.zeros((40, 60), np.uint16)
    a[5:35, 5:35] = 3
    a[10:30, 10:30] = 0
    a[15:25, 15:25] = 7
    a[18:22, 18:22] = 0
    a[5:15, 40:50] = 1
    a[15:25, 40:50] = 2
    a[14:16, 44:46] = 0
    return a


def test_boxes_holding_cavities_found_by_cells():
    """fill_label_holes' match of label boxes to the cavity boxes they
    strictly hold (by cells of the array) against all pairs, 2D and 3D."""
    from parac._dask_label_holes import _held

    r = np.random.default_rng(5)
    for _ in range(200):
        shape = tuple(int(n) for n in r.integers(1, 40, int(r.integers(2, 4))))

        def boxes(n, reach):
            lo = np.stack([r.integers(0, s, n) for s in shape], 1).astype(np.int64).reshape(n, len(shape))
            hi = np.stack([np.minimum(s - 1, lo[:, k] + r.integers(0, reach or s, n))
                           for k, s in enumerate(shape)], 1).astype(np.int64).reshape(n, len(shape))
            return lo, hi

        clo, chi = boxes(int(r.integers(0, 30)), 4)
        blo, bhi = boxes(int(r.integers(0, 30)), 0)
        i, c = _held(clo, chi, blo, bhi, shape)
        want = [(a, b) for a in range(len(blo)) for b in range(len(clo))
                if np.all(clo[b] > blo[a]) and np.all(chi[b] < bhi[a])]
        assert sorted(zip(i.tolist(), c.tolist())) == want and list(i) == sorted(i)


@pytest.mark.parametrize("box_limit", [None, 0])
def test_fill_label_holes_equals_the_in_memory_call(box_limit, monkeypatch):
    """parac.fill_label_holes of Dask arrays: every label's holes, nested
    labels (the innermost box fills), cavities beside several labels settled
    by one task per enclosing label's box (box_limit None) or, every box
    being larger than a task may hold (0), by the chunked labelling of each
    box, every chunking, 2D and 3D."""
    from parac import _dask_label_holes

    monkeypatch.setattr(_dask_label_holes, "BOX_PIXELS_IN_ONE_TASK", box_limit)
    cases = [(nested_labels(), (4, 8))]
    for seed in range(3):
        cases.append((spotted_labels((47, 61), seed, (np.int32, np.uint16, np.uint8)[seed]), (4, 8)))
        cases.append((spotted_labels((9, 13, 11), seed), (6, 18, 26)))
    for k, (a, conns) in enumerate(cases):
        for conn in conns:
            want, n = parac.fill_label_holes(a, connectivity=conn, device="cpu")
            for chunks in chunkings_all(a.shape, k):
                got, m = parac.fill_label_holes(da.from_array(a, chunks=chunks), connectivity=conn, device="cpu")
                got, m = da.compute(got, m)
                assert got.dtype == a.dtype and int(m) == n
                np.testing.assert_array_equal(got, want, err_msg="case %d conn %d chunks %s" % (k, conn, chunks))
    with pytest.raises(ValueError, match="negative"):
        da.compute(*parac.fill_label_holes(da.from_array(np.array([[1, -1], [0, 2]], np.int32), chunks=1)))
    with pytest.raises(ValueError, match="float32"):
        parac.fill_label_holes(da.from_array(np.zeros((4, 4), np.float32), chunks=2))


def test_on_a_local_cluster_of_worker_processes():
    """A real scheduler and real transfers: two worker processes, each
    importing parac (from PARAC_PYTHON_DIR when the build tree is tested)."""
    distributed = pytest.importorskip("distributed")
    if _dir:
        os.environ["PYTHONPATH"] = os.pathsep.join([_dir] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    r = np.random.default_rng(10)
    a = r.random((64, 80)) < 0.5
    v = (r.random((12, 20, 18)) < 0.4).astype(np.uint8)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl:
        with distributed.Client(cl) as client:
            # the input persisted on the workers first, as a pipeline's intermediate result is
            d = client.persist(da.from_array(a, chunks=(17, 23)).map_blocks(np.asarray, dtype=bool))
            distributed.wait(d)
            lab, n = parac.ndimage.label(d, np.ones((3, 3)))
            got, got_n = client.compute([lab, n], sync=True)
            want, want_n = ndi.label(a, np.ones((3, 3)))
            assert int(got_n) == want_n
            np.testing.assert_array_equal(got, want)
            filled = parac.ndimage.binary_fill_holes(da.from_array(v, chunks=(5, 7, 6))).compute()
            np.testing.assert_array_equal(filled, ndi.binary_fill_holes(v))
            smooth = parac.ndimage.gaussian_filter(da.from_array(a.astype(np.float32), chunks=(17, 23)), 2).compute()
            np.testing.assert_array_equal(smooth, parac.ndimage.gaussian_filter(a.astype(np.float32), 2,
                                                                                method="separable"))
            # reconstruction in rounds: the top row spreads down through the set pixels
            under = (a * 90 + 10).astype(np.uint8)
            marker = np.zeros_like(under)
            marker[0] = under[0]
            rec = parac.morphology.reconstruction(da.from_array(marker, chunks=(17, 23)), da.from_array(
                under, chunks=(17, 23)))
            np.testing.assert_array_equal(rec.compute(), parac.morphology.reconstruction(marker, under))
            small = parac.morphology.remove_small_objects(d.astype(np.int32) * 3, 40)
            np.testing.assert_array_equal(small.compute(), parac.morphology.remove_small_objects(a * 3, 40))
            assert len(client.scheduler_info()["workers"]) == 2


REGION_PROPS = ("label", "area", "num_pixels", "bbox", "centroid", "intensity_min", "intensity_max",
                "intensity_mean")


@pytest.mark.parametrize("shape", [(57, 83), (11, 19, 14)])
def test_regionprops_table_of_dask_arrays(shape):
    """Regions measured chunk by chunk and merged: scikit-image's table (bit for
    bit with integer intensities; float32 means to 1e-12, as in memory), equal
    to the in-memory call, for chunkings that cut every region."""
    r = np.random.default_rng(sum(shape))
    lab = skm.label(ndi.uniform_filter(r.random(shape), 3) > 0.5, connectivity=1)
    for vdtype in (np.uint8, np.int32, np.float32):
        vals = (r.random(shape) * 1000 - (300 if vdtype != np.uint8 else 0)).astype(vdtype)
        want = skm.regionprops_table(lab, vals, properties=REGION_PROPS)
        if vdtype == np.float32:
            want["intensity_mean"] = np.asarray(ndi.mean(vals.astype(np.float64), lab, want["label"]), np.float64)
        mem = parac.measure.regionprops_table(lab, vals, properties=REGION_PROPS, device="cpu")
        for chunks in chunkings(shape, 5, random=1):
            got = parac.measure.regionprops_table(da.from_array(lab, chunks=chunks), da.from_array(vals, chunks=chunks),
                                                  properties=REGION_PROPS, device="cpu")
            assert list(got) == list(want)
            for k in want:
                assert got[k].dtype == want[k].dtype, k
                if vdtype == np.float32 and k == "intensity_mean":
                    np.testing.assert_allclose(got[k], want[k], rtol=1e-12, err_msg=k)
                    np.testing.assert_allclose(got[k], mem[k], rtol=1e-15, err_msg=k)
                else:
                    np.testing.assert_array_equal(got[k], want[k], err_msg=(k, chunks))
    # bool and int64 labels, an in-memory intensity image, properties chosen, another separator
    got = parac.measure.regionprops_table(da.from_array(lab > 0, chunks=7), properties=("label", "area", "bbox"),
                                          separator="_")
    want = skm.regionprops_table((lab > 0).astype(np.uint8), properties=("label", "area", "bbox"), separator="_")
    assert list(got) == list(want)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])
    big = lab.astype(np.int64) * 1000
    got = parac.measure.regionprops_table(da.from_array(big, chunks=9), vals, properties=("label", "centroid"))
    want = skm.regionprops_table(big, vals, properties=("label", "centroid"))
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])
    with pytest.raises(ValueError, match="shape"):
        parac.measure.regionprops_table(da.from_array(lab, chunks=9), vals[:5], properties=("intensity_max",))
    with pytest.raises(AttributeError, match="intensity_image"):
        parac.measure.regionprops_table(da.from_array(lab, chunks=9), properties=("intensity_max",))


@pytest.mark.parametrize("budget", [300, 2000, 10 ** 9])
def test_blocks_in_groups(budget):
    """Blocks in groups (parac.local-group-bytes: parac._dask.coarsen and
    split): each group one block of the steps, the result split back
    into the input's chunks; every operation equal to the whole array."""
    dask = pytest.importorskip("dask")
    r = np.random.default_rng(21)
    mask = r.random((47, 53)) < 0.45
    vol = r.random((11, 13, 17)) < 0.35
    values = (r.random((31, 37)) * 3).astype(np.uint8)
    from parac import _dask

    seen = set()
    with dask.config.set({"parac.local-group-bytes": budget}):
        for chunks in ((5, 7), (47, 4), (16, 53), (3, 3)):
            d = da.from_array(mask, chunks=chunks)
            lab, n = parac.ndimage.label(d, np.ones((3, 3)))
            assert lab.chunks == d.chunks
            keys = [k[0] if isinstance(k, tuple) else k for k in dict(lab.__dask_graph__())]
            grouped = _dask.groups_for(d, 4) is not None  # int32 labels: 4 bytes a pixel
            assert any(str(k).startswith("parac-group-") for k in keys) == grouped
            seen.add(grouped)
            want, wn = ndi.label(mask, np.ones((3, 3)))
            np.testing.assert_array_equal(lab.compute(), want, err_msg=str(chunks))
            assert int(n.compute()) == wn
            np.testing.assert_array_equal(parac.ndimage.binary_fill_holes(d).compute(), ndi.binary_fill_holes(mask))
            np.testing.assert_array_equal(parac.segmentation.clear_border(d, buffer_size=2).compute(),
                                          parac.segmentation.clear_border(mask, buffer_size=2))
            np.testing.assert_array_equal(parac.segmentation.flood(d, (20, 30), connectivity=1).compute(),
                                          parac.segmentation.flood(mask, (20, 30), connectivity=1))
            np.testing.assert_array_equal(parac.morphology.remove_small_objects(d, 5).compute(),
                                          parac.morphology.remove_small_objects(mask, 5))
        dv = da.from_array(values, chunks=(4, 9))
        np.testing.assert_array_equal(parac.measure.label(dv, background=1).compute(),
                                      parac.measure.label(values, background=1))
        for st in STRUCTS_3D:
            d = da.from_array(vol, chunks=(3, 5, 4))
            np.testing.assert_array_equal(parac.ndimage.label(d, st)[0].compute(), ndi.label(vol, st)[0])
            np.testing.assert_array_equal(parac.ndimage.binary_fill_holes(d, st).compute(),
                                          ndi.binary_fill_holes(vol, st))
    assert True in seen
