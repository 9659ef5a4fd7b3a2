"""h-maxima, h-minima and local (regional) extrema of Dask arrays
(parac._dask_extrema): equal to the in-memory call bit for bit and to
scikit-image, for every dtype (integer images computed in uint8 / uint16 by
their values' range, as in memory; float32 and float64), fractional and
whole h, plateaus that span chunks, 2D and 3D, every connectivity, chunkings
that cut everywhere; the empty answers (h above the range, a flat image)
and NaN refused."""
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

M = parac.morphology


def terrain(shape, dtype, seed, levels=7):
    """Smooth hills quantised into plateaus (which then span chunks), in
    dtype; float values are float32 values, as parac computes in float32."""
    r = np.random.default_rng(seed)
    grids = np.meshgrid(*[np.linspace(0, 3 + r.random() * 3, n) for n in shape], indexing="ij")
    f = sum(np.sin(g * (1 + r.random()) + r.random() * 6) for g in grids) + 0.3 * r.random(shape)
    f = np.floor((f - f.min()) / np.ptp(f) * levels)
    if dtype == np.bool_:
        return f > levels // 2
    if np.dtype(dtype).kind == "f":
        return (f * 0.37 - 1.1).astype(np.float32).astype(dtype)
    base = {np.uint8: 3, np.uint16: 20000, np.int32: 10, np.int64: 70000}[dtype]
    return (f * {np.uint16: 300, np.int64: 9}.get(dtype, 17) + base).astype(dtype)


DTYPES = [np.uint8, np.uint16, np.int32, np.int64, np.float32, np.float64]


@pytest.mark.filterwarnings("ignore:possible precision loss")
@pytest.mark.parametrize("dtype", DTYPES)
def test_h_extrema_equal_the_whole_array(dtype):
    img = terrain((29, 41), dtype, 1)
    step = 0.37 if np.dtype(dtype).kind == "f" else {np.uint16: 300, np.int64: 9}.get(dtype, 17)
    for k, chunks in enumerate(chunkings(img.shape, 2)):
        h = (step * 1.5, step * 2, step)[k % 3]
        conn = (1, 2)[k % 2]
        for fn, sk in ((M.h_maxima, skmorph.h_maxima), (M.h_minima, skmorph.h_minima)):
            fp = np.ones((3, 3), bool) if conn == 2 else None
            got = fn(da.from_array(img, chunks=chunks), h, fp)
            assert isinstance(got, da.Array) and got.dtype == np.uint8
            got = got.compute()
            want = fn(img, h, fp)
            np.testing.assert_array_equal(got, want, err_msg="%s %s h=%r" % (fn.__name__, chunks, h))
            if np.dtype(dtype).kind != "f":  # float h-extrema: scikit-image adds its own tolerance
                np.testing.assert_array_equal(got, sk(img, h, fp), err_msg="%s %s vs skimage" % (fn.__name__, chunks))
            assert got.any() or not want.any()


@pytest.mark.parametrize("dtype", DTYPES + [np.bool_])
def test_local_extrema_equal_the_whole_array(dtype):
    img = terrain((31, 37), dtype, 5)
    for k, chunks in enumerate(chunkings(img.shape, 6)):
        conn = (1, 2)[k % 2]
        for fn, sk in ((M.local_maxima, skmorph.local_maxima), (M.local_minima, skmorph.local_minima)):
            got = fn(da.from_array(img, chunks=chunks), connectivity=conn)
            assert isinstance(got, da.Array) and got.dtype == np.bool_
            got = got.compute()
            np.testing.assert_array_equal(got, fn(img, connectivity=conn), err_msg="%s %s" % (fn.__name__, chunks))
            np.testing.assert_array_equal(got, sk(img, connectivity=conn), err_msg="%s vs skimage" % fn.__name__)
    got = M.local_maxima(da.from_array(img, chunks=(7, 9)), indices=True)
    want = M.local_maxima(img, indices=True)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.compute(), w)


def test_volumes_every_connectivity():
    img = terrain((9, 13, 11), np.uint8, 8, levels=5)
    for k, chunks in enumerate(chunkings(img.shape, 9)):
        conn = (1, 2, 3)[k % 3]
        got = M.local_maxima(da.from_array(img, chunks=chunks), connectivity=conn).compute()
        np.testing.assert_array_equal(got, skmorph.local_maxima(img, connectivity=conn), err_msg=str(chunks))
        fp = (None, np.ones((3, 3, 3), bool), skmorph.ball(1))[k % 3]
        got = M.h_minima(da.from_array(img, chunks=chunks), 17, fp).compute()
        np.testing.assert_array_equal(got, skmorph.h_minima(img, 17, fp), err_msg=str(chunks))


def test_a_plateau_along_a_spiral():
    """A maximum whose plateau is a spiral through every chunk, with a
    lower ramp beside it: the rounds carry its level all the way."""
    s = spiral(33)
    img = np.where(s, 50, (np.arange(33)[:, None] + np.arange(33)) % 40).astype(np.uint8)
    img[16, 16] = 51 if not s[16, 16] else 50
    for chunks in ((4, 4), (1, 33), (11, 3)):
        a = da.from_array(img, chunks=chunks)
        np.testing.assert_array_equal(M.local_maxima(a).compute(), skmorph.local_maxima(img))
        np.testing.assert_array_equal(M.h_maxima(a, 5).compute(), skmorph.h_maxima(img, 5))


def test_empty_answers_and_bad_input():
    img = terrain((12, 15), np.uint8, 3)
    a = da.from_array(img, chunks=5)
    assert not M.h_maxima(a, int(np.ptp(img)) + 1).compute().any()
    flat = da.full((10, 10), 7, dtype=np.uint16, chunks=3)
    assert not M.local_maxima(flat).compute().any() and not M.local_minima(flat).compute().any()
    with pytest.raises(ValueError, match="h must be > 0"):
        M.h_maxima(a, 0)
    bad = img.astype(np.float32)
    bad[3, 4] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        M.h_minima(da.from_array(bad, chunks=5), 1.0)
    with pytest.raises(TypeError, match="do not fit"):
        M.local_maxima(da.from_array(np.array([[1, 2], [3, 2**25 + 1]], np.int64), chunks=1)).compute()
