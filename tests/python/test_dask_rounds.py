"""Reconstruction of Dask arrays by rounds of border exchange
(parac._dask_rounds): equal to the in-memory call and to scikit-image bit
for bit, by dilation and erosion, 2D and 3D, every connectivity, dtypes
u8 / u16 / f32 / f64, chunkings that cut everywhere; a spiral whose one
path crosses chunk faces many times, there and back, with the fall-back to
one task after a bound on the rounds."""
import os
import sys

import numpy as np
import pytest

_dir = os.environ.get("PARAC_PYTHON_DIR")
if _dir:
    sys.path.insert(0, _dir)
parac = pytest.importorskip("parac", reason="the parac extension was not built (Python development files)")
da = pytest.importorskip("dask.array")
skmorph = pytest.importorskip("skimage.morphology")

from dask_cases import chunkings, spiral  # noqa: E402


def domes(shape, dtype, seed):
    """An image and its h-dome marker (image - h), as h-maxima reconstructs."""
    r = np.random.default_rng(seed)
    hi = {np.uint8: 200, np.uint16: 50000}.get(dtype, 1.0)
    img = (r.random(shape) * hi).astype(dtype)
    h = dtype(hi * 0.2)
    marker = np.where(img > h, img - h, 0).astype(dtype)
    if dtype == np.float64:  # float64 values that float32 holds, as parac computes in float32
        return marker.astype(np.float32).astype(dtype), img.astype(np.float32).astype(dtype)
    return marker, img


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32, np.float64])
def test_reconstruction_equals_the_whole_array(dtype):
    marker, img = domes((37, 43), dtype, 1)
    above = np.minimum(img.astype(np.float64) * 1.5 + 1, {np.uint8: 255, np.uint16: 65535}.get(dtype, 9.0)
                       ).astype(np.float32).astype(dtype)
    for k, chunks in enumerate(chunkings(img.shape, 2)):
        for fp in ((None, np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]]))[k % 2],):
            got = parac.morphology.reconstruction(da.from_array(marker, chunks=chunks),
                                                  da.from_array(img, chunks=chunks), footprint=fp)
            assert isinstance(got, da.Array) and got.dtype == np.float64
            np.testing.assert_array_equal(got.compute(), skmorph.reconstruction(marker, img, footprint=fp),
                                          err_msg="%s %s" % (chunks, fp))
        got = parac.morphology.reconstruction(da.from_array(above, chunks=chunks), img, method="erosion")
        np.testing.assert_array_equal(got.compute(), skmorph.reconstruction(above, img, method="erosion"))


def test_reconstruction_of_volumes():
    marker, img = domes((9, 14, 11), np.uint8, 3)
    for k, chunks in enumerate(chunkings(img.shape, 4)):
        for fp in ((None, np.ones((3, 3, 3)), skmorph.ball(1))[k % 3],):
            got = parac.morphology.reconstruction(da.from_array(marker, chunks=chunks),
                                                  da.from_array(img, chunks=chunks), footprint=fp).compute()
            np.testing.assert_array_equal(got, parac.morphology.reconstruction(marker, img, footprint=fp))


def test_a_spiral_crosses_every_face_and_the_rounds_are_bounded():
    from parac._dask_rounds import reconstruct_rounds

    mask = spiral(41).astype(np.uint8) * 200
    seed = np.zeros_like(mask)
    seed[0, 0] = 200  # the spiral's outer end: the path winds through every chunk many times
    want = skmorph.reconstruction(seed, mask).astype(np.uint8)
    d, m = da.from_array(seed, chunks=(9, 9)), da.from_array(mask, chunks=(7, 11))
    got, rounds = reconstruct_rounds(d, m, "dilation", 4)
    np.testing.assert_array_equal(got.compute(), want)
    assert rounds > 10  # it took the rounds the path needs, and no bound stopped it
    got, rounds = reconstruct_rounds(d, m, "dilation", 4, max_rounds=3)
    assert rounds == 4  # three rounds, then the rest in one task
    np.testing.assert_array_equal(got.compute(), want)


def test_refusals():
    a = da.zeros((10, 10), chunks=5, dtype=np.uint8)
    with pytest.raises(ValueError):
        parac.morphology.reconstruction(a, da.zeros((10, 11), chunks=5, dtype=np.uint8))
    with pytest.raises(TypeError):
        big = da.from_array(np.array([[2 ** 40 + 1, 1]], np.int64), chunks=1)
        parac.morphology.reconstruction(big, big).compute()


@pytest.mark.parametrize("workers,threads", [(2, 1), (1, 2), (1, 1)])
def test_rounds_between_groups_of_chunks_on_a_cluster(workers, threads):
    """Under a distributed client each worker thread's chunks are a group
    whose rounds run in one task: the spiral (with one group, it meets the
    bound inside the group's task), its bound on the rounds, h-dome markers
    in 2D and 3D, against scikit-image."""
    distributed = pytest.importorskip("distributed")
    from parac._dask_rounds import reconstruct_rounds

    with distributed.LocalCluster(n_workers=workers, threads_per_worker=threads, processes=True,
                                  dashboard_address=None) as cl, distributed.Client(cl):
        mask = spiral(41).astype(np.uint8) * 200
        seed = np.zeros_like(mask)
        seed[0, 0] = 200
        want = skmorph.reconstruction(seed, mask).astype(np.uint8)
        d, m = da.from_array(seed, chunks=(9, 9)), da.from_array(mask, chunks=(7, 11))
        got, rounds = reconstruct_rounds(d, m, "dilation", 4)
        np.testing.assert_array_equal(got.compute(), want)
        got, rounds = reconstruct_rounds(d, m, "dilation", 4, max_rounds=1)
        assert rounds == 2  # one round of the groups, then the rest in one task
        np.testing.assert_array_equal(got.compute(), want)
        for shape, chunks, fp in (((37, 43), (5, 8), None), ((37, 43), (13, 13), np.ones((3, 3))),
                                  ((9, 14, 11), (4, 5, 3), None), ((9, 14, 11), (3, 7, 4), np.ones((3, 3, 3)))):
            for dtype in (np.uint8, np.float32):
                marker, img = domes(shape, dtype, 7)
                got = parac.morphology.reconstruction(da.from_array(marker, chunks=chunks),
                                                      da.from_array(img, chunks=chunks), footprint=fp).compute()
                np.testing.assert_array_equal(got, skmorph.reconstruction(marker, img, footprint=fp),
                                              err_msg="%s %s %s" % (shape, chunks, dtype))
        above = np.minimum(img.astype(np.float32) * 1.5 + 1, 9.0).astype(np.float32)
        got = parac.morphology.reconstruction(da.from_array(above, chunks=(4, 4, 4)), img, method="erosion")
        np.testing.assert_array_equal(got.compute(), skmorph.reconstruction(above, img, method="erosion"))
