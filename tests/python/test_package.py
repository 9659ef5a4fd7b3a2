"""The Python package (python/parac, src/python/module.c), imported from the
build tree (PARAC_PYTHON_DIR, set by CTest): one function per registry
operation, results against scipy / scikit-image, views and strides, the
errors, threads. Skipped where the extension was not built."""
import os
import sys
import threading

import numpy as np
import pytest
import scipy.ndimage as ndi

_dir = os.environ.get("PARAC_PYTHON_DIR")
if _dir:
    sys.path.insert(0, _dir)
parac = pytest.importorskip("parac", reason="the parac extension was not built (Python development files)")
pndi = pytest.importorskip("parac.ndimage")


def rng(seed=0):
    return np.random.default_rng(seed)


def test_every_operation_is_a_function():
    names = {op["name"].replace("-", "_") for op in parac._parac.ops() if op["n_inputs"] > 0 and op["n_outputs"] > 0}
    assert names and names <= set(parac.__all__)
    for n in names:
        f = getattr(parac, n)
        assert f.__doc__ and "device" in f.__doc__


@pytest.mark.parametrize("shape", [(61, 77), (1, 33), (9, 40, 33)])
@pytest.mark.parametrize("mode", ["reflect", "mirror", "nearest", "wrap", "constant"])
def test_gaussian_filter_matches_scipy(shape, mode):
    a = rng(1).random(shape).astype(np.float32) * 100
    got = pndi.gaussian_filter(a, 1.7, mode=mode, cval=3.0, device="cpu")
    want = ndi.gaussian_filter(a, 1.7, mode=mode, cval=3.0)
    assert got.dtype == a.dtype and got.shape == a.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-4)


def test_gaussian_filter_sigma_per_axis_and_views():
    a = rng(2).random((64, 90)).astype(np.float32)
    for view in (a[::2, 1::3], a[::-1, :], a.T):
        got = pndi.gaussian_filter(view, (1.0, 2.5), device="cpu")
        want = ndi.gaussian_filter(view, (1.0, 2.5))
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-6)


def test_gaussian_filter_output_and_unsupported():
    a = rng(3).random((20, 21)).astype(np.float32)
    out = np.empty_like(a)
    assert pndi.gaussian_filter(a, 1.0, output=out, device="cpu") is out
    np.testing.assert_allclose(out, ndi.gaussian_filter(a, 1.0), atol=2e-6)
    with pytest.raises(NotImplementedError):
        pndi.gaussian_filter(a, 1.0, order=1)
    with pytest.raises(NotImplementedError):
        pndi.gaussian_filter(a, 1.0, axes=(0,))


def test_reconstruct_matches_skimage():
    from skimage.morphology import reconstruction
    mask = (ndi.gaussian_filter(rng(4).random((53, 67)), 2) * 255).astype(np.uint8)
    marker = np.maximum(mask.astype(int) - 20, 0).astype(np.uint8)
    want = reconstruction(marker, mask).astype(np.uint8)
    for method in ("hybrid", "downhill", "sequential"):
        got = parac.reconstruct(marker, mask, method=method, device="cpu")
        np.testing.assert_array_equal(got, want)


def test_errors_are_exceptions():
    a = np.zeros((8, 8), np.float32)
    with pytest.raises(TypeError):
        parac.gauss(a.astype(np.complex64), sigma=1.0, device="cpu")
    with pytest.raises(ValueError):
        parac.gauss(a, sigma=-1.0, device="cpu")
    with pytest.raises(ValueError):
        parac.gauss(np.zeros(8, np.float32), sigma=1.0, device="cpu")
    with pytest.raises(TypeError):
        parac.gauss(a, a, sigma=1.0)
    with pytest.raises(TypeError):
        parac.gauss(a, no_such_parameter=1)
    with pytest.raises(ValueError, match="above"):
        parac.reconstruct(np.full((5, 5), 9, np.uint8), np.zeros((5, 5), np.uint8), device="cpu")


def test_threads_get_their_own_results():
    imgs = [rng(10 + i).random((128, 131)).astype(np.float32) for i in range(6)]
    want = [ndi.gaussian_filter(x, 2.0) for x in imgs]
    got = [None] * len(imgs)

    def work(i):
        got[i] = pndi.gaussian_filter(imgs[i], 2.0, device="cpu")

    ts = [threading.Thread(target=work, args=(i,)) for i in range(len(imgs))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, atol=2e-6)


def test_floodfill_seeds_match_skimage():
    from skimage.segmentation import flood_fill
    img = (rng(5).random((41, 57)) * 4).astype(np.uint8)
    want = flood_fill(flood_fill(img, (3, 5), 9, connectivity=1), (30, 40), 9, connectivity=1)
    # x = column, y = row, as OpenCV's Point and the CLI's --seed X,Y
    got = parac.floodfill(img, seed=[(5, 3), (40, 30)], value=9, connectivity=4, device="cpu")
    np.testing.assert_array_equal(got, want)
    one = parac.floodfill(img, seed=(5, 3), value=9, connectivity=4, device="cpu")
    np.testing.assert_array_equal(one, flood_fill(img, (3, 5), 9, connectivity=1))


def test_type_stub_from_the_registry():
    import ast
    stub = os.path.join(os.path.dirname(parac.__file__), "__init__.pyi")
    assert os.path.exists(stub), stub
    text = open(stub).read()
    tree = ast.parse(text)
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert set(parac.__all__) <= set(defs)
    g = defs["gauss"]
    assert {a.arg for a in g.args.kwonlyargs} >= {"sigma", "sigma_y", "truncate", "border", "method", "device"}
