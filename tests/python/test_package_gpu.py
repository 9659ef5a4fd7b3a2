"""The Python package with device arrays: CuPy arrays and PyTorch CUDA
tensors are used where they live (their device address handed to the
library, no host copy) and results come back as the same kind of array on
the same device. Needs a CUDA GPU and CuPy / PyTorch (skipped otherwise)."""
import os
import sys

import numpy as np
import pytest

_dir = os.environ.get("PARAC_PYTHON_DIR")
if _dir:
    sys.path.insert(0, _dir)
parac = pytest.importorskip("parac", reason="the parac extension was not built (Python development files)")
pndi = pytest.importorskip("parac.ndimage")
from parac import _parac  # noqa: E402

pytestmark = pytest.mark.gpu


def smooth(shape, dtype, seed=0):
    import scipy.ndimage as ndi

    a = ndi.gaussian_filter(np.random.default_rng(seed).random(shape) * 255, 2)
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("shape", [(301, 517), (9, 40, 33)])
def test_cupy_in_cupy_out_same_bits_as_numpy(dtype, shape):
    cupy = pytest.importorskip("cupy")
    host = smooth(shape, dtype)
    dev = cupy.asarray(host)
    got = parac.gauss(dev, sigma=2.0, device="cuda")
    assert isinstance(got, cupy.ndarray) and got.device.id == dev.device.id
    assert _parac.last_inputs()[0] == dev.data.ptr  # the CuPy buffer itself went to the library
    want = parac.gauss(host, sigma=2.0, device="cuda")
    np.testing.assert_array_equal(cupy.asnumpy(got), want)


def test_cupy_views_and_results_that_outlive_their_inputs():
    cupy = pytest.importorskip("cupy")
    host = smooth((200, 300), np.float32)
    dev = cupy.asarray(host)
    view = dev[10:150:2, 5:250]  # strided: used in place
    got = parac.gauss(view, sigma=1.5)
    assert _parac.last_inputs()[0] == view.data.ptr
    np.testing.assert_allclose(cupy.asnumpy(got), parac.gauss(np.ascontiguousarray(host[10:150:2, 5:250]),
                                                              sigma=1.5, device="cuda"), rtol=0, atol=0)
    t = parac.gauss(dev.T, sigma=1.5)  # transposed: copied once on the device
    np.testing.assert_array_equal(cupy.asnumpy(t), parac.gauss(np.ascontiguousarray(host.T), sigma=1.5,
                                                                device="cuda"))
    del dev, view
    cupy.get_default_memory_pool().free_all_blocks()
    assert float(got.sum()) > 0  # the result's memory belongs to the library, not to the inputs


def test_cupy_reconstruct_fill_and_several_inputs():
    cupy = pytest.importorskip("cupy")
    mask = smooth((257, 311), np.uint8)
    marker = np.maximum(mask.astype(int) - 20, 0).astype(np.uint8)
    got = parac.reconstruct(cupy.asarray(marker), cupy.asarray(mask), method="wavefront")
    assert isinstance(got, cupy.ndarray)
    np.testing.assert_array_equal(cupy.asnumpy(got), parac.reconstruct(marker, mask, method="hybrid", device="cpu"))
    contours = (np.random.default_rng(3).random((300, 400)) < 0.3).astype(np.uint8) * 255
    np.testing.assert_array_equal(cupy.asnumpy(parac.fill(cupy.asarray(contours))), parac.fill(contours, device="cpu"))


def test_gaussian_filter_on_cupy_matches_cupyx():
    cupy = pytest.importorskip("cupy")
    cndi = pytest.importorskip("cupyx.scipy.ndimage")
    a = cupy.asarray(np.random.default_rng(1).random((513, 767), dtype=np.float32))
    for mode in ["reflect", "nearest", "mirror", "constant", "wrap"]:
        got = pndi.gaussian_filter(a, 3.0, mode=mode)
        want = cndi.gaussian_filter(a, 3.0, mode=mode)
        assert isinstance(got, cupy.ndarray)
        np.testing.assert_allclose(cupy.asnumpy(got), cupy.asnumpy(want), rtol=0, atol=2e-5)
    out = cupy.empty_like(a)
    assert pndi.gaussian_filter(a, 2.0, output=out) is out
    np.testing.assert_allclose(cupy.asnumpy(out), cupy.asnumpy(cndi.gaussian_filter(a, 2.0)), atol=2e-5)
    d = a.astype(cupy.float64)
    assert pndi.gaussian_filter(d, 2.0).dtype == cupy.float64


def test_cupy_on_its_stream():
    cupy = pytest.importorskip("cupy")
    a = cupy.asarray(smooth((400, 500), np.float32))
    with cupy.cuda.Stream(non_blocking=True) as s:
        got = parac.gauss(a, sigma=2.0)
        total = got.sum()  # queued after parac's kernels on the same stream
    s.synchronize()
    assert abs(float(total) - float(parac.gauss(cupy.asnumpy(a), sigma=2.0, device="cuda").sum())) < 1e-2 * float(total)


@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_torch_tensor_in_tensor_out(dtype):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device for PyTorch")
    host = smooth((123, 457), getattr(np, dtype))
    t = torch.from_numpy(host).cuda()
    got = parac.gauss(t, sigma=2.0)
    assert isinstance(got, torch.Tensor) and got.is_cuda and got.dtype == t.dtype
    assert _parac.last_inputs()[0] == t.data_ptr()
    np.testing.assert_array_equal(got.cpu().numpy(), parac.gauss(host, sigma=2.0, device="cuda"))
    g = pndi.gaussian_filter(t.float(), 2.0)
    assert isinstance(g, torch.Tensor) and g.is_cuda


def test_cuda_arrays_take_the_c_path():
    """A CuPy array with keyword arguments goes through call() (read in C, no
    Python before the launch) and gives the bits of the general path; what
    that path cannot take it leaves to the general one."""
    cupy = pytest.importorskip("cupy")
    host = smooth((211, 333), np.float32)
    dev = cupy.asarray(host)
    outs = _parac.call("gauss", (dev,), {"sigma": 2.0, "sigma_y": 1.5, "border": "reflect"})
    assert outs[0][0] == "cuda" and _parac.last_inputs()[0] == dev.data.ptr
    general = parac.gauss(dev, sigma=2.0, sigma_y=1.5, border="reflect", device="cuda")  # the general path
    np.testing.assert_array_equal(cupy.asnumpy(parac.gauss(dev, sigma=2.0, sigma_y=1.5, border="reflect")),
                                  cupy.asnumpy(general))
    assert _parac.call("gauss", (dev[::-1],), {"sigma": 2.0}) is NotImplemented  # copied by the package
    np.testing.assert_array_equal(cupy.asnumpy(parac.gauss(dev[::-1], sigma=2.0)),
                                  parac.gauss(np.ascontiguousarray(host[::-1]), sigma=2.0, device="cuda"))
    seeds = cupy.asarray((host > 0.5).astype(np.uint8) * 255)
    assert _parac.call("floodfill", (seeds,), {"seed": [(3, 4), (5, 6)], "value": 9}) is NotImplemented  # a list
    with pytest.raises(TypeError, match="unexpected keyword argument 'sigmax'"):
        parac.gauss(dev, sigmax=1.0)
    with pytest.raises(ValueError, match="unknown method 'x'"):
        parac.gauss(dev, sigma=1.0, method="x")
    with pytest.raises(TypeError, match="names must be str"):
        _parac.call("gauss", (dev,), {1: 2.0})
    with pytest.raises(ValueError, match="sigma"):
        parac.gauss(dev, sigma=-1.0)
    got = parac.gauss(dev, sigma=2.0, method="separable")
    np.testing.assert_array_equal(cupy.asnumpy(got), parac.gauss(host, sigma=2.0, device="cuda", method="separable"))


def test_cuda_arrays_make_no_host_transfer():
    """Work on CuPy arrays and tensors moves no image between host and device
    (the library's count of its host <-> device image copies stays), while
    the same call on a NumPy array with device='cuda' moves two: the counter
    sees transfers where there are some."""
    cupy = pytest.importorskip("cupy")
    host = smooth((257, 311), np.uint8)
    marker = np.maximum(host.astype(int) - 20, 0).astype(np.uint8)
    dev, dmarker = cupy.asarray(host), cupy.asarray(marker)
    before = _parac.transfers()
    parac.gauss(dev, sigma=2.0)
    pndi.gaussian_filter(dev.astype(cupy.float32), 3.0, output=cupy.empty(dev.shape, cupy.float32))
    parac.reconstruct(dmarker, dev, method="wavefront")
    parac.fill((dev > 128).astype(cupy.uint8) * 255)
    cupy.cuda.get_current_stream().synchronize()
    assert _parac.transfers() == before
    parac.gauss(host, sigma=2.0, device="cuda")
    up, down, nbytes = (a - b for a, b in zip(_parac.transfers(), before))
    assert (up, down, nbytes) == (1, 1, 2 * host.size)


def test_device_array_errors():
    cupy = pytest.importorskip("cupy")
    with pytest.raises(TypeError, match="element type"):
        parac.gauss(cupy.zeros((8, 8), cupy.int8), sigma=1.0)
    with pytest.raises(ValueError, match="dimensions"):
        parac.gauss(cupy.zeros((8,), cupy.float32), sigma=1.0)


def _wrapper_cases(rng):
    """(name, call on arrays, host arrays) for every scipy / scikit-image compatible wrapper."""
    import parac.morphology as pm
    import parac.segmentation as ps

    mask = smooth((97, 131), np.uint8, seed=5)
    marker = np.maximum(mask.astype(int) - 25, 0).astype(np.uint8)
    vol = smooth((9, 30, 41), np.uint16, seed=6)
    blobs = np.zeros((64, 80), bool)
    blobs[0:9, 3:12] = blobs[20:40, 20:45] = blobs[50:64, 60:70] = True
    blobs[28:32, 30:35] = False  # a hole
    return [
        ("reconstruction", lambda m, k: pm.reconstruction(m, k), (marker, mask)),
        ("reconstruction erosion", lambda m, k: pm.reconstruction(m, k, method="erosion"),
         ((mask.astype(int) + 20).astype(np.uint16), mask.astype(np.uint16))),
        ("reconstruction int64 seed", lambda m, k: pm.reconstruction(m, k), (marker.astype(np.int64), mask)),
        ("h_maxima", lambda a: pm.h_maxima(a, 10), (mask,)),
        ("h_minima 3D", lambda a: pm.h_minima(a, 5), (vol,)),
        ("local_maxima", lambda a: pm.local_maxima(a), (mask,)),
        ("local_minima indices", lambda a: pm.local_minima(a, connectivity=1, indices=True), (mask,)),
        ("binary_fill_holes", lambda a: pndi.binary_fill_holes(a), (blobs,)),
        ("clear_border", lambda a: ps.clear_border(a, buffer_size=1), (blobs.astype(np.uint8),)),
        ("flood_fill", lambda a: ps.flood_fill(a, (25, 30), 7, tolerance=3), (mask,)),
    ]


@pytest.mark.parametrize("lib", ["cupy", "torch"])
def test_every_wrapper_on_device_arrays(lib):
    """Each scipy / scikit-image name takes CuPy arrays and CUDA tensors, computes on the GPU and
    returns the same kind of array, with the same values as for the NumPy input."""
    if lib == "cupy":
        cupy = pytest.importorskip("cupy")
        up, down, kind = cupy.asarray, cupy.asnumpy, cupy.ndarray
    else:
        torch = pytest.importorskip("torch")
        if not torch.cuda.is_available():
            pytest.skip("no CUDA device for PyTorch")
        up, down, kind = (lambda a: torch.from_numpy(np.ascontiguousarray(a)).cuda()), (lambda t: t.cpu().numpy()), torch.Tensor
    for name, call, arrays in _wrapper_cases(np.random.default_rng(0)):
        if lib == "torch" and any(a.dtype == np.uint16 for a in arrays):
            continue  # PyTorch implements few operations on uint16 tensors
        want = call(*arrays)
        got = call(*[up(a) for a in arrays])
        if isinstance(want, tuple):  # indices
            assert all(isinstance(g, kind) for g in got), name
            got, want = np.stack([down(g) for g in got]), np.stack(want)
        else:
            assert isinstance(got, kind), name
            got = down(got)
        assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want, err_msg=name)


def test_wrapper_outputs_and_mixed_kinds():
    cupy = pytest.importorskip("cupy")
    import parac.segmentation as ps

    a = cupy.asarray((np.random.default_rng(2).random((40, 50)) < 0.4).astype(np.uint8))
    out = cupy.empty_like(a)
    assert ps.clear_border(a, out=out) is out
    np.testing.assert_array_equal(cupy.asnumpy(out), ps.clear_border(cupy.asnumpy(a)))
    with pytest.raises(TypeError, match="out must be"):
        ps.clear_border(a, out=np.empty((40, 50), np.uint8))
    import parac.morphology as pm

    with pytest.raises(TypeError, match="all be NumPy or all of one device kind"):
        pm.reconstruction(cupy.asarray(np.zeros((8, 8), np.uint8)), np.zeros((8, 8), np.uint8))


@pytest.mark.parametrize("lib", ["cupy", "torch"])
def test_out_on_device_arrays_is_written_by_the_library(lib):
    """out= of the input's kind: gauss computes straight into it (its device
    address goes to the library), another operation's result is copied in on
    the device; the array itself comes back, with the values of a call without out=."""
    host = smooth((123, 205), np.float32, seed=3)
    if lib == "cupy":
        cupy = pytest.importorskip("cupy")
        dev, out, ptr = cupy.asarray(host), cupy.full(host.shape, -1, cupy.float32), None
        ptr = out.data.ptr
        as_numpy = cupy.asnumpy
    else:
        torch = pytest.importorskip("torch")
        if not torch.cuda.is_available():
            pytest.skip("no CUDA for PyTorch")
        dev, out = torch.from_numpy(host).cuda(), torch.full(host.shape, -1.0, device="cuda")
        ptr = out.data_ptr()
        as_numpy = lambda t: t.cpu().numpy()  # noqa: E731
    got = parac.gauss(dev, sigma=2.0, out=out)
    assert got is out
    np.testing.assert_array_equal(as_numpy(out), as_numpy(parac.gauss(dev, sigma=2.0)))
    assert (out.data.ptr if lib == "cupy" else out.data_ptr()) == ptr
    g = pndi.gaussian_filter(dev, 1.5, output=out)
    assert g is out
    np.testing.assert_array_equal(as_numpy(out), as_numpy(pndi.gaussian_filter(dev, 1.5)))
    mask = (host > host.mean()).astype(np.uint8)
    dmask = cupy.asarray(mask) if lib == "cupy" else torch.from_numpy(mask).cuda()
    filled = cupy.zeros_like(dmask) if lib == "cupy" else torch.zeros_like(dmask)
    assert parac.fill(dmask, out=filled) is filled  # copied in by the library, on the device
    np.testing.assert_array_equal(as_numpy(filled), parac.fill(mask))
    with pytest.raises(TypeError, match="out= must be"):
        parac.gauss(dev, sigma=2.0, out=np.empty(host.shape, np.float32))
    if lib == "cupy":
        with pytest.raises(ValueError, match="in place"):
            parac.gauss(dev, sigma=2.0, out=cupy.empty((host.shape[1], host.shape[0]), cupy.float32).T[::-1])


def test_cupy_channels():
    """channel_axis=-1 on CuPy arrays (the general path: the array's address,
    its channel axis last), and a result of several channels made from one
    keeps its channel axis on the device as on the host."""
    cupy = pytest.importorskip("cupy")
    rgb = (np.random.default_rng(5).random((61, 47, 3)) * 250).astype(np.uint8)
    dev = cupy.asarray(rgb)
    got = parac.gauss(dev, sigma=2.0, method="separable", channel_axis=-1)
    assert isinstance(got, cupy.ndarray) and got.shape == rgb.shape
    np.testing.assert_array_equal(cupy.asnumpy(got), parac.gauss(rgb, sigma=2.0, method="separable", channel_axis=-1,
                                                                 device="cpu"))
    grey = parac.convert(dev, channels=1, channel_axis=-1)
    np.testing.assert_array_equal(cupy.asnumpy(grey), parac.convert(rgb, channels=1, channel_axis=-1, device="cpu"))
    three = parac.convert(cupy.asarray(rgb[..., 0]), channels=3)
    assert three.shape == (61, 47, 3)
    np.testing.assert_array_equal(cupy.asnumpy(three), np.repeat(rgb[..., :1], 3, axis=2))
