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
    # NaN where it has no meaning: in an image that extrema are ordered by, in a parameter
    import parac.morphology as pm

    noisy = rng(3).random((16, 17)).astype(np.float32)
    flat = np.zeros((16, 17), np.float32)
    for img in (noisy, flat):  # flat: the shortcut for an image without extrema must not hide it
        img[3, 4] = np.nan
        for f in (lambda: pm.h_maxima(img, 0.1, device="cpu"), lambda: pm.local_minima(img, device="cpu"),
                  lambda: pm.reconstruction(np.zeros_like(img), img, device="cpu")):
            with pytest.raises(ValueError, match="NaN"):
                f()
    with pytest.raises(ValueError, match="finite"):
        pndi.gaussian_filter(noisy, float("nan"), device="cpu")


class _Interface:
    """An object that exports __cuda_array_interface__ as it is given (host
    memory: these cases fail before anything would read it)."""

    def __init__(self, **cai):
        self.__cuda_array_interface__ = dict({"version": 3, "data": (0, False), "strides": None}, **cai)


def test_cuda_interface_is_checked_in_c():
    """call(), the package's path for CUDA arrays, reads the interface in C:
    a wrong one is the right exception, never a crash."""
    cases = [
        (_Interface(shape=(8,), typestr="<f4"), ValueError, "1 dimensions"),
        (_Interface(shape=(4, 5, 6, 7), typestr="<f4"), ValueError, "4 dimensions"),
        (_Interface(shape=(8, 8), typestr="|i1"), TypeError, "element type '[|]i1'"),
        (_Interface(shape=(0, 8), typestr="<f4"), ValueError, "empty"),
        (_Interface(shape=(8, 8), typestr="<f4", mask=object()), ValueError, "masked"),
        (_Interface(shape=(8, 8), typestr="<f4", strides=(4,)), ValueError, "strides"),
        (_Interface(shape=(8, 8)), ValueError, "typestr"),
        (object(), TypeError, "neither a host array"),
    ]
    for obj, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            parac._parac.call("gauss", (obj,), {"sigma": 1.0})
    # host arrays alone are not this path's: the general one takes them
    a = np.zeros((8, 8), np.float32)
    assert parac._parac.call("gauss", (a,), {"sigma": 1.0}) is NotImplemented
    with pytest.raises(TypeError, match="takes 1 input"):
        parac._parac.call("gauss", (a, a), {})


def test_out_of_memory_frees_other_libraries_caches_once():
    """A call on a GPU that runs out of memory while CuPy's or PyTorch's
    caching allocator holds unused blocks there frees them and runs once
    more; with nothing to free (or off the GPU) the MemoryError stands."""
    from unittest import mock

    from parac import _device, _registry

    a = rng(3).random((20, 30)).astype(np.float32)
    want = parac.gauss(a, sigma=1.5, device="cpu")
    real_run, calls, freed_on = parac._parac.run, [], []

    def run_out_first(*args):
        calls.append(args[3])
        if len(calls) == 1:
            raise MemoryError("gauss: cudaMalloc failed: out of memory")
        return real_run(*args[:3], "cpu", *args[4:])

    for device, cached, gpu in (("cuda:1", 1 << 20, 1), ("cuda:1", 0, 1), ("cpu", 1 << 20, None)):
        calls.clear(), freed_on.clear()
        with mock.patch.object(_registry._parac, "run", run_out_first), \
                mock.patch.object(_device, "release_cached", lambda g, c=cached: freed_on.append(g) or c):
            if cached and gpu is not None:
                np.testing.assert_array_equal(parac.gauss(a, sigma=1.5, device=device), want)
                assert calls == [device, device] and freed_on == [gpu]
            else:
                with pytest.raises(MemoryError, match="out of memory"):
                    parac.gauss(a, sigma=1.5, device=device)
                assert calls == [device] and freed_on == ([gpu] if gpu is not None else [])
    assert _device.gpu_of("cuda:3") == 3 and _device.gpu_of("cpu") is None and _device.gpu_of(None) is None

    # the path of CUDA arrays (call()), its device from the array
    class Dev:
        id = 2

    class Arr:
        device = Dev()

    outcomes = [MemoryError("out of memory"), ()]

    def call_out_first(*args):
        o = outcomes.pop(0)
        if isinstance(o, Exception):
            raise o
        return o

    freed_on.clear()
    with mock.patch.object(_registry._parac, "call", call_out_first), \
            mock.patch.object(_device, "release_cached", lambda g: freed_on.append(g) or 1):
        assert _registry.call_device("gauss", (Arr(),), "cupy", {"sigma": 1.0}) == ()
    assert freed_on == [2] and not outcomes

    # release_cached frees CuPy's pool on that GPU (a stand-in module: the real one needs a GPU)
    import contextlib
    import types

    done = []
    pool = types.SimpleNamespace(free_bytes=lambda: 5 << 20, free_all_blocks=lambda: done.append("freed"))
    fake = types.SimpleNamespace(get_default_memory_pool=lambda: pool,
                                 cuda=types.SimpleNamespace(Device=lambda g: done.append(g) or contextlib.nullcontext()))
    with mock.patch.dict(sys.modules, {"cupy": fake, "torch": None}):
        assert _device.release_cached(1) == 5 << 20 and done == [1, "freed"]
    # and PyTorch's on that GPU, not on the current one
    done = []
    cuda = types.SimpleNamespace(is_initialized=lambda: True, memory_reserved=lambda g: 9 << 20,
                                 memory_allocated=lambda g: 2 << 20,
                                 device=lambda g: done.append(g) or contextlib.nullcontext(),
                                 empty_cache=lambda: done.append("emptied"))
    with mock.patch.dict(sys.modules, {"cupy": None, "torch": types.SimpleNamespace(cuda=cuda)}):
        assert _device.release_cached(1) == 7 << 20 and done == [1, "emptied"]


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


# ---- scipy / scikit-image names ----------------------------------------------
def smooth_u8(shape, seed, sigma=2):
    return (ndi.gaussian_filter(rng(seed).random(shape), sigma) * 255).astype(np.uint8)


@pytest.mark.parametrize("shape", [(53, 67), (9, 31, 27)])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_morphology_reconstruction_matches_skimage(shape, dtype):
    from skimage import morphology as skm
    pm = pytest.importorskip("parac.morphology")
    mask = smooth_u8(shape, 6).astype(dtype)
    seed = np.maximum(mask.astype(np.float64) - 25, 0).astype(dtype)
    for method in ("dilation", "erosion"):
        s, m = (seed, mask) if method == "dilation" else (mask.astype(np.float64) + 25, mask)
        s = np.asarray(s).astype(dtype) if method == "dilation" else np.minimum(s, 255).astype(dtype)
        if method == "erosion":
            s = np.maximum(s, m)
        fp = np.ones((3,) * len(shape), bool)
        want = skm.reconstruction(s, m, method=method, footprint=fp)
        got = pm.reconstruction(s, m, method=method, device="cpu")
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape", [(61, 59), (11, 23, 19)])
def test_morphology_extrema_match_skimage(shape):
    from skimage import morphology as skm
    pm = pytest.importorskip("parac.morphology")
    img = smooth_u8(shape, 7)
    for conn in (1, len(shape)):
        fp = ndi.generate_binary_structure(len(shape), conn)
        np.testing.assert_array_equal(pm.h_maxima(img, 10, footprint=fp, device="cpu"), skm.h_maxima(img, 10, footprint=fp))
        np.testing.assert_array_equal(pm.h_minima(img, 10, footprint=fp, device="cpu"), skm.h_minima(img, 10, footprint=fp))
        np.testing.assert_array_equal(pm.local_maxima(img, connectivity=conn, device="cpu"),
                                      skm.local_maxima(img, connectivity=conn))
        np.testing.assert_array_equal(pm.local_minima(img, connectivity=conn, device="cpu"),
                                      skm.local_minima(img, connectivity=conn))
    want = skm.local_maxima(img, indices=True)
    got = pm.local_maxima(img, indices=True, device="cpu")
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    with pytest.raises(NotImplementedError):
        pm.local_maxima(img, allow_borders=False)


@pytest.mark.parametrize("shape", [(64, 80), (7, 40, 33)])
def test_binary_fill_holes_matches_scipy(shape):
    a = rng(8).random(shape) < 0.4
    values = (a * rng(9).integers(1, 300, shape))  # nonzero values of every size: all objects
    for structure in (None, np.ones((3,) * len(shape), bool)):
        want = ndi.binary_fill_holes(a, structure=structure)
        for arr in (a, values.astype(np.uint8) | a, values.astype(np.uint16), values, values.astype(np.float32)):
            got = pndi.binary_fill_holes(arr, structure=structure, device="cpu")
            assert got.dtype == np.bool_
            np.testing.assert_array_equal(got, want, err_msg=str(arr.dtype))


def test_flood_fill_and_clear_border_match_skimage():
    from skimage import segmentation as sks
    from skimage.measure import label
    ps = pytest.importorskip("parac.segmentation")
    img = (rng(9).random((45, 52)) * 3).astype(np.uint8)
    for conn in (None, 1):
        for seed in ((4, 7), (-1, -1), (20, 30)):
            np.testing.assert_array_equal(ps.flood_fill(img, seed, 9, connectivity=conn, device="cpu"),
                                          sks.flood_fill(img, seed, 9, connectivity=conn))
    f = rng(10).random((40, 50)).astype(np.float32)
    np.testing.assert_array_equal(ps.flood_fill(f, (5, 5), 2.0, tolerance=0.3, device="cpu"),
                                  sks.flood_fill(f, (5, 5), 2.0, tolerance=0.3))
    b = (rng(11).random((50, 60)) < 0.3).astype(np.uint8)
    for buf in (0, 2):
        np.testing.assert_array_equal(ps.clear_border(b, buffer_size=buf, device="cpu"), sks.clear_border(b, buffer_size=buf))
    lab = label(b)
    np.testing.assert_array_equal(ps.clear_border(lab.astype(np.uint16), device="cpu") > 0, sks.clear_border(lab) > 0)


def test_compatible_names_take_views():
    """Every scipy / scikit-image name on reversed, strided and transposed
    views (negative and non-unit strides, 2D and 3D) gives its peer's result
    on the same view."""
    import parac.morphology as pm
    import parac.segmentation as ps
    import skimage.morphology as skm
    import skimage.segmentation as sks

    img = (ndi.gaussian_filter(rng(7).random((70, 91)), 2) * 255).astype(np.uint8)
    vol = (ndi.gaussian_filter(rng(8).random((9, 30, 41)), 2) * 255).astype(np.uint8)
    views = [img[::-1], img[:, ::2], img[5:60:3, ::-2], img.T, vol[::-1, :, ::3], vol.transpose(1, 0, 2)]
    for v in views:
        marker = np.maximum(v.astype(int) - 20, 0).astype(np.uint8)
        np.testing.assert_array_equal(pm.reconstruction(marker, v, device="cpu"), skm.reconstruction(marker, v))
        np.testing.assert_array_equal(pm.h_maxima(v, 10, device="cpu"), skm.h_maxima(v, 10))
        np.testing.assert_array_equal(pm.h_minima(v, 10, device="cpu"), skm.h_minima(v, 10))
        np.testing.assert_array_equal(pm.local_maxima(v, device="cpu"), skm.local_maxima(v))
        np.testing.assert_array_equal(pm.local_minima(v, device="cpu"), skm.local_minima(v))
        np.testing.assert_array_equal(pndi.binary_fill_holes(v > 128, device="cpu"), ndi.binary_fill_holes(v > 128))
        seed = (1,) * v.ndim
        np.testing.assert_array_equal(ps.flood_fill(v, seed, 9, tolerance=4, device="cpu"),
                                      sks.flood_fill(v, seed, 9, tolerance=4))
        np.testing.assert_array_equal(ps.clear_border(v > 128, device="cpu"), sks.clear_border(v > 128))
        np.testing.assert_allclose(pndi.gaussian_filter(v.astype(np.float32), 1.5, device="cpu"),
                                   ndi.gaussian_filter(v.astype(np.float32), 1.5), atol=2e-4)


def test_inputs_are_used_in_place():
    a = rng(12).random((70, 90)).astype(np.float32)
    views = {"contiguous": a, "strided": a[3::2, 5:80:3], "reversed": a[::-1], "transposed": a.T}
    for kind, v in views.items():
        parac.gauss(v, sigma=1.0, device="cpu")
        (addr,) = parac._parac.last_inputs()
        if kind in ("contiguous", "strided"):
            assert addr == v.ctypes.data, kind  # the array's own memory, no copy
        else:
            assert addr != v.ctypes.data, kind  # copied once (rows must run forwards)
    m = smooth_u8((40, 41), 13)
    k = np.maximum(m.astype(int) - 9, 0).astype(np.uint8)
    parac.reconstruct(k, m, device="cpu")
    assert parac._parac.last_inputs() == (k.ctypes.data, m.ctypes.data)


def test_outputs_are_the_library_images():
    """An output is a view of the image the library made (no copy into a new
    buffer): writable, with the library's row pitch, alive after its input."""
    a = rng(9).random((37, 53), dtype=np.float32)
    r = parac.gauss(a, sigma=2.0, device="cpu")
    assert type(r.base.obj).__name__ == "Image" and not r.flags.owndata and r.flags.writeable
    assert r.strides[0] >= 53 * 4
    want = ndi.gaussian_filter(a, 2.0, mode="mirror", truncate=4.0)
    del a
    np.testing.assert_allclose(r, want, atol=1e-5)
    r[0, 0] = -1.0
    assert r[0, 0] == -1.0
    vol = parac.gauss(rng(10).random((5, 9, 11), dtype=np.float32), sigma=1.0, device="cpu")
    assert vol.shape == (5, 9, 11) and type(vol.base.obj).__name__ == "Image"


def test_out_is_written_by_the_library():
    """out= (and gaussian_filter's output=): the library writes the result into the
    caller's array, computed there when it fits, else copied in (a strided view,
    the input itself); a wrong dtype or shape, a read-only array or the wrong count
    is an exception and the array stays as it was."""
    a = rng(11).random((41, 59), dtype=np.float32)
    want = parac.gauss(a, sigma=1.5, device="cpu")
    out = np.full_like(a, 7.0)
    assert parac.gauss(a, sigma=1.5, device="cpu", out=out) is out
    np.testing.assert_array_equal(out, want)
    big = np.zeros((41, 80), np.float32)
    view = big[:, 10:69]
    assert parac.gauss(a, sigma=1.5, device="cpu", out=view) is view
    np.testing.assert_array_equal(view, want)
    assert not big[:, :10].any() and not big[:, 69:].any()
    b = a.copy()
    parac.gauss(b, sigma=1.5, device="cpu", out=b)  # in place on its own input
    np.testing.assert_array_equal(b, want)
    vol = rng(12).random((4, 9, 13), dtype=np.float32)
    vout = np.empty_like(vol)
    parac.gauss(vol, sigma=1.0, device="cpu", out=vout)
    np.testing.assert_array_equal(vout, parac.gauss(vol, sigma=1.0, device="cpu"))
    m = (a * 200).astype(np.uint8)
    mk = np.maximum(m.astype(int) - 20, 0).astype(np.uint8)
    r = np.empty_like(m)
    assert parac.reconstruct(mk, m, out=r) is r  # an operation without the in-place path: copied in
    np.testing.assert_array_equal(r, parac.reconstruct(mk, m))
    g = np.empty_like(a)
    assert pndi.gaussian_filter(a, 1.5, output=g, device="cpu") is g
    np.testing.assert_allclose(g, ndi.gaussian_filter(a, 1.5), atol=2e-6)
    untouched = np.zeros((41, 59), np.uint8)
    with pytest.raises(ValueError, match="output 1 is 59x41x1 u8"):
        parac.gauss(a, sigma=1.5, out=untouched)
    assert not untouched.any()
    with pytest.raises(ValueError, match="output 1"):
        parac.gauss(a, sigma=1.5, out=np.zeros((5, 5), np.float32))
    ro = np.zeros_like(a)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        parac.gauss(a, sigma=1.5, out=ro)
    with pytest.raises(TypeError, match="1 array"):
        parac.gauss(a, sigma=1.5, out=(out, out))
    with pytest.raises(TypeError, match="NumPy arrays"):
        parac.gauss(a, sigma=1.5, out=[[0.0]])


def test_channel_axis_reads_interleaved_channels():
    """channel_axis=-1: the last axis holds 1-4 channels, as the command line
    reads an (H, W, C) file; the operations that take one channel refuse more."""
    r = rng(31)
    rgb = (r.random((23, 17, 3)) * 255).astype(np.uint8)
    got = parac.gauss(rgb, sigma=1.5, method="separable", channel_axis=-1)
    assert got.shape == rgb.shape
    for c in range(3):  # channels are filtered each on its own
        np.testing.assert_array_equal(got[..., c], parac.gauss(np.ascontiguousarray(rgb[..., c]), sigma=1.5,
                                                               method="separable"))
    grey = parac.convert(rgb, channels=1, channel_axis=-1)
    assert grey.shape == rgb.shape[:2]
    want = rgb.astype(np.float64) @ np.array([0.299, 0.587, 0.114])
    assert np.abs(grey - want).max() <= 0.5 + 1e-9
    vol = (r.random((1, 9, 8, 4)) * 1000).astype(np.uint16)  # a volume of one slice keeps its axis
    assert parac.gauss(vol, sigma=1.0, channel_axis=3).shape == vol.shape
    with pytest.raises(TypeError, match="3 channels; one is needed"):
        parac.label(rgb, channel_axis=-1)
    with pytest.raises(ValueError, match="last axis"):
        parac.gauss(rgb, sigma=1.0, channel_axis=0)
    with pytest.raises(ValueError, match="1-4 adjacent channels"):
        parac.gauss(np.zeros((5, 6, 7), np.uint8), sigma=1.0, channel_axis=-1)
    view = rgb[:, :, ::-2]  # channels apart in memory: read from a copy
    np.testing.assert_array_equal(parac.gauss(view, sigma=1.5, method="separable", channel_axis=-1),
                                  got[:, :, ::-2])


def test_copy_bytes_refuses_bad_arguments():
    """The Dask layer's staged copy (parac._parac.copy_bytes): no device address, a read-only host buffer
    to write into, a non-contiguous host buffer: clear errors, no crash (on any machine, with or without a GPU)."""
    from parac import _parac

    a = np.zeros((4, 5), np.float32)
    with pytest.raises(ValueError, match="address of 0"):
        _parac.copy_bytes(a, 0, 0, True)
    ro = np.zeros(8, np.uint8)
    ro.flags.writeable = False
    with pytest.raises((BufferError, TypeError, ValueError)):
        _parac.copy_bytes(ro, 4096, 0, False)
    with pytest.raises((BufferError, TypeError, ValueError)):
        _parac.copy_bytes(a[:, ::2], 4096, 0, True)
