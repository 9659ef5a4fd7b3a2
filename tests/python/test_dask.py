"""Dask arrays through parac's local filters: gaussian_filter, correlate,
convolve and filters.gaussian on Dask arrays equal the same call on the
whole array in memory bit for bit, for every border mode and for chunkings
that cut everywhere (uneven chunks, chunks of one row or column, chunks
smaller than the kernel's radius), in 2D and 3D; the graph stays lazy and
keeps the input's chunks."""
import os
import sys
from unittest import mock

import numpy as np
import pytest

_dir = os.environ.get("PARAC_PYTHON_DIR")
if _dir:
    sys.path.insert(0, _dir)
parac = pytest.importorskip("parac", reason="the parac extension was not built (Python development files)")
da = pytest.importorskip("dask.array")
ndi = pytest.importorskip("scipy.ndimage")

from dask_cases import chunkings  # noqa: E402

MODES = ["reflect", "mirror", "nearest", "wrap", "constant", "grid-wrap"]


def image(shape, dtype, seed):
    r = np.random.default_rng(seed)
    hi = {np.uint8: 255, np.uint16: 60000}.get(dtype, 1.0)
    return (r.random(shape) * hi).astype(dtype)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32, np.float64])
def test_gaussian_filter_equals_the_whole_array(dtype):
    a = image((41, 67), dtype, 1)
    for k, chunks in enumerate(chunkings(a.shape, 2)):
        d = da.from_array(a, chunks=chunks)
        for mode in MODES:
            sigma = (1.5, 3.0) if k % 2 else 2.5
            got = parac.ndimage.gaussian_filter(d, sigma, mode=mode, cval=7)
            assert isinstance(got, da.Array) and got.chunks == d.chunks and got.dtype == a.dtype
            want = parac.ndimage.gaussian_filter(a, sigma, mode=mode, cval=7, method="separable")
            np.testing.assert_array_equal(got.compute(), want, err_msg="%s %s" % (chunks, mode))


def test_gaussian_filter_volumes_and_per_axis_sigma():
    v = image((9, 23, 17), np.float32, 3)
    for chunks in chunkings(v.shape, 4):
        d = da.from_array(v, chunks=chunks)
        for sigma in (1.2, (0, 2.0, 1.0), (2.5, 0.7, 3.1)):
            got = parac.ndimage.gaussian_filter(d, sigma, mode="nearest").compute()
            np.testing.assert_array_equal(got, parac.ndimage.gaussian_filter(v, sigma, mode="nearest",
                                                                             method="separable"))
    # and against scipy, as the in-memory call is
    got = parac.ndimage.gaussian_filter(da.from_array(v, chunks=(2, 5, 4)), 1.5).compute()
    np.testing.assert_allclose(got, ndi.gaussian_filter(v.astype(np.float64), 1.5), atol=2e-6)


def test_correlate_and_convolve_equal_the_whole_array():
    r = np.random.default_rng(5)
    a = image((37, 45), np.float32, 6)
    u = (image((37, 45), np.float32, 6) * 40).astype(np.uint8)
    for k in (r.random((3, 5)), r.random((4, 6)) - 0.3, np.round(r.random((2, 7)) * 3)):
        for chunks in chunkings(a.shape, 7):
            for mode in MODES:
                for f in (parac.ndimage.correlate, parac.ndimage.convolve):
                    img = u if k.max() > 1 else a
                    got = f(da.from_array(img, chunks=chunks), k, mode=mode, cval=2.0)
                    assert got.chunks == da.from_array(img, chunks=chunks).chunks
                    np.testing.assert_array_equal(got.compute(), f(img, k, mode=mode, cval=2.0),
                                                  err_msg="%s %s %s %s" % (f.__name__, k.shape, chunks, mode))
    vol = image((5, 19, 23), np.float32, 8)
    k = r.random((1, 3, 4))
    got = parac.ndimage.convolve(da.from_array(vol, chunks=(2, 4, 7)), k).compute()
    np.testing.assert_array_equal(got, parac.ndimage.convolve(vol, k))


def test_filters_gaussian_on_dask():
    rgb = image((31, 22, 3), np.uint8, 9)
    for chunks in ((31, 22, 3), (4, 5, 1), (7, 22, 2)):
        d = da.from_array(rgb, chunks=chunks)
        got = parac.filters.gaussian(d, sigma=2, channel_axis=-1)
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got.compute(), parac.filters.gaussian(rgb, sigma=2, channel_axis=-1,
                                                                            method="separable"))
    f = image((40, 33), np.float32, 10)
    got = parac.filters.gaussian(da.from_array(f, chunks=(3, 11)), sigma=(1, 2.5), mode="wrap")
    np.testing.assert_array_equal(got.compute(), parac.filters.gaussian(f, sigma=(1, 2.5), mode="wrap",
                                                                        method="separable"))


def test_lazy_until_computed_and_refusals():
    calls = []

    def count(block):
        calls.append(block.shape)
        return block

    a = da.from_array(image((30, 40), np.float32, 11), chunks=(10, 10)).map_blocks(count, dtype=np.float32)
    calls.clear()
    g = parac.ndimage.gaussian_filter(a, 2)
    assert calls == [] or all(0 in s or len(s) != 2 for s in calls)  # dask may probe with empty meta blocks
    g.compute()
    assert any(s == (10, 10) for s in calls)
    with pytest.raises(NotImplementedError):
        parac.ndimage.gaussian_filter(a, 2, output=np.empty((30, 40), np.float32))
    with pytest.raises(NotImplementedError):
        parac.ndimage.correlate(a, np.ones((3, 3)), output=np.empty((30, 40), np.float32))


def test_one_task_per_block():
    """The filter adds one task per output block (its neighbours' pieces are
    gathered inside it), whatever the halo: not a slice per neighbour, a
    concatenation and a trim as map_overlap would (blocks alone, the
    default for host blocks: test_blocks_in_groups has the groups)."""
    dask = pytest.importorskip("dask")
    a = image((61, 47), np.float32, 12)
    with dask.config.set({"parac.local-group-bytes": 0}):
        one_task_per_block(a)


def one_task_per_block(a):
    for chunks, sigma in (((10, 9), 1.5), ((3, 4), 4.0), ((61, 47), 2.0)):
        d = da.from_array(a, chunks=chunks)
        for mode in ("reflect", "wrap"):
            g = parac.ndimage.gaussian_filter(d, sigma, mode=mode)
            added = len(dict(g.__dask_graph__())) - len(dict(d.__dask_graph__()))
            assert added == d.npartitions, (chunks, mode, added)
            np.testing.assert_array_equal(g.compute(), parac.ndimage.gaussian_filter(a, sigma, mode=mode,
                                                                                     method="separable"))


def test_blocks_in_groups():
    """Blocks in groups (parac.local-group-bytes): one task a group, each block
    a view of its group's result; equal to the whole array for every border
    mode, group bound and chunking, including groups of uneven runs and
    halos wider than a block."""
    dask = pytest.importorskip("dask")
    from parac import _dask

    a = image((61, 47), np.float32, 13)
    vol = image((9, 23, 17), np.float32, 14)
    for budget in (1, 700, 5000, 10 ** 9):
        with dask.config.set({"parac.local-group-bytes": budget}):
            for chunks in ((10, 9), (3, 4), (61, 47), (7, 47), (20, 5)):
                d = da.from_array(a, chunks=chunks)
                for mode in ("reflect", "wrap", "constant"):
                    g = parac.ndimage.gaussian_filter(d, 4.0, mode=mode, cval=1)
                    assert g.chunks == d.chunks
                    np.testing.assert_array_equal(g.compute(), parac.ndimage.gaussian_filter(
                        a, 4.0, mode=mode, cval=1, method="separable"), err_msg="%s %s %s" % (budget, chunks, mode))
                runs = _dask.group_runs(d.chunks, 4, budget)
                groups = [len(r) for r in runs]
                added = len(dict(g.__dask_graph__())) - len(dict(d.__dask_graph__()))
                singles = int(np.prod(groups)) == d.npartitions
                assert added == d.npartitions + (0 if singles else int(np.prod(groups))), (budget, chunks, added)
            k = np.arange(12, dtype=np.float64).reshape(3, 4) / 66
            got = parac.ndimage.correlate(da.from_array(a, chunks=(8, 6)), k, mode="mirror").compute()
            np.testing.assert_array_equal(got, parac.ndimage.correlate(a, k, mode="mirror"))
            got = parac.ndimage.gaussian_filter(da.from_array(vol, chunks=(2, 5, 4)), (1.0, 2.0, 1.5)).compute()
            np.testing.assert_array_equal(got, parac.ndimage.gaussian_filter(vol, (1.0, 2.0, 1.5),
                                                                             method="separable"))


def test_group_bytes_by_default():
    """Unset, the bound of a group is 1 GiB for blocks worked on a GPU (a
    sixteenth of a smaller GPU's memory) and 0 (every block alone) for host
    blocks; a value set stands for both."""
    dask = pytest.importorskip("dask")
    from parac import _dask

    with dask.config.set({"parac.local-group-bytes": None}):
        gpu = _dask._gpu_memory()
        want = 1 << 30 if gpu is None else min(1 << 30, gpu // 16)
        assert _dask._group_bytes(True) == want and _dask._group_bytes(False) == 0
    with dask.config.set({"parac.local-group-bytes": 0}):
        assert _dask._group_bytes(True) == 0
    # a GPU of 4 GiB: groups of a sixteenth of it; of 80 GB: 1 GiB
    for mem, want in ((4 << 30, 256 << 20), (80 * 10 ** 9, 1 << 30)):
        with dask.config.set({"parac.local-group-bytes": None}), mock.patch.object(_dask, "_gpu_memory",
                                                                                   lambda m=mem: m):
            assert _dask._group_bytes(True) == want
    with dask.config.set({"parac.local-group-bytes": "2 MiB"}):
        assert _dask._group_bytes(False) == 2 << 20
    d = da.from_array(image((30, 40), np.uint8, 1), chunks=(10, 10))
    assert not _dask._worked_on_gpu(d, None) and _dask._worked_on_gpu(d, 0)
    with dask.config.set({"parac.local-group-bytes": None}):
        assert _dask.groups_for(d, 4) is None


def test_group_runs():
    """Groups lengthen along the last axis first, stay within the bound and
    leave at least the asked count of groups, as evenly as they can."""
    from parac import _dask

    c = ((8192,) * 4, (8192,) * 4)
    assert _dask.group_runs(c, 4, 1 << 30) == [[(0, 1), (1, 2), (2, 3), (3, 4)], [(0, 4)]]
    assert _dask.group_runs(c, 4, 1 << 30, 8) == [[(0, 1), (1, 2), (2, 3), (3, 4)], [(0, 2), (2, 4)]]
    assert _dask.group_runs(c, 4, 0) == [[(0, 1), (1, 2), (2, 3), (3, 4)]] * 2
    assert _dask.group_runs(c, 4, 1 << 40) == [[(0, 4)], [(0, 4)]]
    assert _dask.group_runs(((5,) * 7,), 1, 15) == [[(0, 2), (2, 5), (5, 7)]]
    for runs in (_dask.group_runs(((5,) * 7,), 1, 15)[0], _dask.group_runs(((3,) * 10, (2,) * 9), 8, 200)[1]):
        assert runs[0][0] == 0 and all(a[1] == b[0] for a, b in zip(runs, runs[1:]))
