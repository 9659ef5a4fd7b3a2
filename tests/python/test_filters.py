"""The filter and flood wrappers against their references:
parac.filters.gaussian against skimage.filters.gaussian (dtype rules,
preserve_range, modes, channel_axis, volumes), parac.ndimage.correlate /
convolve against scipy's (every mode, odd and even kernels, integer
truncation, volumes slice by slice), parac.segmentation.flood against
skimage's; the CLI's floodfill --mask. On the CPU and (marked gpu) on CUDA
with CuPy arrays."""
import os
import subprocess
import sys

import numpy as np
import pytest

_dir = os.environ.get("PARAC_PYTHON_DIR")
if _dir:
    sys.path.insert(0, _dir)
parac = pytest.importorskip("parac", reason="the parac extension was not built (Python development files)")
ndi = pytest.importorskip("scipy.ndimage")

PARAC = os.environ.get("PARAC_BIN", "parac")
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]
MODES = ["reflect", "mirror", "nearest", "wrap", "constant"]


def image(shape, dtype, seed):
    r = np.random.default_rng(seed)
    if dtype == np.bool_:
        return r.random(shape) < 0.5
    hi = {np.uint8: 255, np.uint16: 60000}.get(dtype, 1.0)
    return (r.random(shape) * hi).astype(dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32, np.float64, np.bool_])
@pytest.mark.parametrize("preserve_range", [False, True])
def test_gaussian_like_skimage(device, dtype, preserve_range):
    skf = pytest.importorskip("skimage.filters")
    a = image((53, 67), dtype, 1)
    for mode in MODES:
        want = skf.gaussian(a, sigma=1.7, mode=mode, cval=0.25, preserve_range=preserve_range)
        got = parac.filters.gaussian(a, sigma=1.7, mode=mode, cval=0.25, preserve_range=preserve_range,
                                     device=device)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-6 * max(1.0, np.abs(want).max()), err_msg=mode)


@pytest.mark.parametrize("device", DEVICES)
def test_gaussian_channels_volumes_and_out(device):
    skf = pytest.importorskip("skimage.filters")
    rgb = image((31, 22, 3), np.uint8, 2)
    want = skf.gaussian(rgb, sigma=2, channel_axis=-1)
    np.testing.assert_allclose(parac.filters.gaussian(rgb, sigma=2, channel_axis=-1, device=device), want, atol=1e-6)
    first = np.moveaxis(rgb, -1, 0).copy()
    want0 = skf.gaussian(first, sigma=(0, 1.5, 2.5), channel_axis=0)
    got0 = parac.filters.gaussian(first, sigma=(0, 1.5, 2.5), channel_axis=0, device=device)
    np.testing.assert_allclose(got0, want0, atol=1e-6)
    vol = image((9, 20, 17), np.float32, 3)
    want = skf.gaussian(vol, sigma=(1, 2, 1.5))
    out = np.empty_like(want)
    got = parac.filters.gaussian(vol, sigma=(1, 2, 1.5), out=out, device=device)
    assert got is out
    np.testing.assert_allclose(out, want, atol=1e-6)
    with pytest.raises(ValueError):
        parac.filters.gaussian(rgb, sigma=(1, 1, 1, 1), channel_axis=-1)
    with pytest.raises(ValueError):
        parac.filters.gaussian(rgb, sigma=(1, 1, 1), channel_axis=-1)  # the channel axis is not filtered
    with pytest.raises(TypeError):
        parac.filters.gaussian(np.zeros((4, 4), np.int64))
    with pytest.raises(ValueError):
        parac.filters.gaussian(rgb[..., 0], mode="edge")


def kernel_cases():
    r = np.random.default_rng(4)
    return [r.random((3, 5)), r.random((4, 6)) - 0.3, np.array([[1.0, 2, 3, 4]]), np.array([[1.0], [2], [1], [5]]),
            r.integers(0, 3, (5, 2)).astype(float)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32, np.float64])
def test_correlate_convolve_like_scipy(device, dtype):
    a = image((37, 41), dtype, 5) if dtype in (np.float32, np.float64) else (image((37, 41), np.float32, 5) * 40).astype(dtype)
    for k in kernel_cases():
        if dtype != np.float32 and dtype != np.float64:
            k = np.round(k * 3)  # integer kernels: exact in float32, so truncation agrees
        for mode in MODES + ["grid-wrap", "grid-constant"]:
            for ours, theirs in ((parac.ndimage.correlate, ndi.correlate), (parac.ndimage.convolve, ndi.convolve)):
                want = theirs(a, k, mode=mode, cval=2.0)
                got = ours(a, k, mode=mode, cval=2.0, device=device)
                assert got.dtype == want.dtype
                tol = 0 if dtype in (np.uint8, np.uint16) else 2e-6 * np.abs(want).max()
                np.testing.assert_allclose(got, want, rtol=0, atol=tol, err_msg="%s %s %s" % (
                    theirs.__name__, k.shape, mode))


def test_correlate_volumes_output_and_refusals():
    vol = image((5, 23, 19), np.float32, 6)
    k = np.random.default_rng(7).random((1, 3, 4))
    np.testing.assert_allclose(parac.ndimage.correlate(vol, k), ndi.correlate(vol, k), atol=1e-5)
    np.testing.assert_allclose(parac.ndimage.convolve(vol, k, mode="nearest"),
                               ndi.convolve(vol, k, mode="nearest"), atol=1e-5)
    a = vol[0]
    out = np.empty_like(a)
    assert parac.ndimage.correlate(a, k[0], output=out) is out
    np.testing.assert_allclose(out, ndi.correlate(a, k[0]), atol=1e-5)
    assert parac.ndimage.correlate(a, k[0], output=np.float64).dtype == np.float64
    with pytest.raises(NotImplementedError):
        parac.ndimage.correlate(vol, np.ones((3, 3, 3)))
    with pytest.raises(NotImplementedError):
        parac.ndimage.correlate(a, k[0], origin=1)
    with pytest.raises(ValueError):
        parac.ndimage.convolve(a, np.ones(3))
    with pytest.raises(TypeError):
        parac.ndimage.correlate(a.astype(np.int64), k[0])


@pytest.mark.parametrize("device", DEVICES)
def test_flood_like_skimage(device):
    seg = pytest.importorskip("skimage.segmentation")
    r = np.random.default_rng(8)
    img = (r.random((45, 61)) * 3).astype(np.uint8)
    fimg = r.random((30, 33)).astype(np.float32)
    vol = (r.random((7, 12, 15)) * 2).astype(np.uint16)
    cases = [(img, (5, 7)), (img, (-1, -2)), (img > 0, (10, 3)), (fimg, (4, 4)), (vol, (3, 5, 6))]
    for a, seed in cases:
        for c in range(1, a.ndim + 1):
            for tol in (None, 0.3, 1):
                if tol == 0.3 and a.dtype != np.float32:
                    continue  # scikit-image truncates seed - 0.3 to an integer: an interval one value wider
                want = seg.flood(a, seed, connectivity=c, tolerance=tol)
                got = parac.segmentation.flood(a, seed, connectivity=c, tolerance=tol, device=device)
                assert got.dtype == np.bool_
                np.testing.assert_array_equal(got, want, err_msg="%s %s %s" % (a.dtype, c, tol))
    fp = np.ones((3, 3), bool)
    np.testing.assert_array_equal(parac.segmentation.flood(img, (5, 7), footprint=fp, device=device),
                                  seg.flood(img, (5, 7), footprint=fp))
    with pytest.raises(ValueError):
        parac.segmentation.flood(img, (5, 7, 1))


@pytest.mark.gpu
def test_cupy_arrays_stay_on_their_device():
    cupy = pytest.importorskip("cupy")
    skf = pytest.importorskip("skimage.filters")
    seg = pytest.importorskip("skimage.segmentation")
    a = image((300, 517), np.uint8, 9)
    d = cupy.asarray(a)
    g = parac.filters.gaussian(d, sigma=2.5)
    assert isinstance(g, cupy.ndarray) and g.dtype == cupy.float64
    np.testing.assert_allclose(cupy.asnumpy(g), skf.gaussian(a, sigma=2.5), atol=1e-6)
    rgb = cupy.asarray(image((64, 80, 3), np.uint8, 10))
    np.testing.assert_allclose(cupy.asnumpy(parac.filters.gaussian(rgb, sigma=1, channel_axis=-1)),
                               skf.gaussian(cupy.asnumpy(rgb), sigma=1, channel_axis=-1), atol=1e-6)
    k = np.arange(12, dtype=float).reshape(3, 4) / 20
    f = cupy.asarray(a.astype(np.float32))
    c = parac.ndimage.convolve(f, k, mode="mirror")
    assert isinstance(c, cupy.ndarray)
    np.testing.assert_allclose(cupy.asnumpy(c), ndi.convolve(a.astype(np.float32), k, mode="mirror"), atol=1e-3)
    m = parac.segmentation.flood(d, (10, 20), tolerance=40)
    assert isinstance(m, cupy.ndarray) and m.dtype == cupy.bool_
    np.testing.assert_array_equal(cupy.asnumpy(m), seg.flood(a, (10, 20), tolerance=40))


def test_cli_floodfill_mask(tmp_path):
    a = np.zeros((6, 9), np.uint16)
    a[1:4, 2:5] = 7
    a[5, 8] = 7
    src, dst = tmp_path / "a.npy", tmp_path / "m.npy"
    np.save(src, a)
    subprocess.run([PARAC, "--device", "cpu", "floodfill", str(src), str(dst), "--seed", "2,1", "--mask"], check=True)
    m = np.load(dst)
    assert m.dtype == np.uint8
    np.testing.assert_array_equal(m, (a == 7) & (np.arange(6)[:, None] < 5))
    r = subprocess.run([PARAC, "--device", "cpu", "floodfill", str(src), str(tmp_path / "x.npy"), "--seed", "2,1"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "--value is required" in r.stderr
    assert not (tmp_path / "x.npy").exists()


NUMPYDOC = ["ndimage.gaussian_filter", "ndimage.binary_fill_holes", "ndimage.label", "ndimage.correlate",
            "filters.gaussian", "measure.label", "measure.regionprops_table", "morphology.remove_small_objects",
            "morphology.remove_small_holes", "segmentation.flood", "segmentation.flood_fill",
            "segmentation.clear_border"]


@pytest.mark.parametrize("name", NUMPYDOC)
def test_wrappers_document_every_parameter_in_numpydoc(name):
    import inspect
    import re

    module, func = name.split(".")
    f = getattr(getattr(parac, module), func)
    doc = inspect.getdoc(f)
    assert "Parameters\n----------" in doc and "Returns\n-------" in doc, name
    section = doc.split("Parameters\n----------")[1].split("Returns\n-------")[0]
    documented = set()
    for line in section.splitlines():
        m = re.match(r"^([A-Za-z_][\w, ]*?) :", line) or re.match(r"^([A-Za-z_][\w, ]*)$", line)
        if m:
            documented.update(p.strip() for p in m.group(1).split(","))
    missing = [p for p in inspect.signature(f).parameters if p not in documented]
    assert not missing, "%s: %s undocumented" % (name, missing)


def test_one_slice_volumes_keep_their_shape():
    z = np.random.default_rng(12).random((1, 9, 11)).astype(np.float32)
    assert parac.gauss(z, sigma=1.0).shape == z.shape
    assert parac.ndimage.gaussian_filter(z, 1).shape == z.shape
    np.testing.assert_allclose(parac.ndimage.correlate(z, np.ones((1, 3, 3))), ndi.correlate(z, np.ones((1, 3, 3))),
                               atol=1e-5)
