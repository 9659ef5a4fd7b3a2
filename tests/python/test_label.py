"""Labelling against scipy.ndimage.label, skimage.measure.label and
cv2.connectedComponents: the same labels bit for bit (raster order of the
first pixel), on the CPU and (marked gpu) on CUDA with NumPy and CuPy
arrays; the CLI's count and its refusals."""
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.ndimage as ndi

_dir = os.environ.get("PARAC_PYTHON_DIR")
if _dir:
    sys.path.insert(0, _dir)
parac = pytest.importorskip("parac", reason="the parac extension was not built (Python development files)")

PARAC = os.environ.get("PARAC_BIN", "parac")
STRUCT = {4: ndi.generate_binary_structure(2, 1), 8: ndi.generate_binary_structure(2, 2),
          6: ndi.generate_binary_structure(3, 1), 18: ndi.generate_binary_structure(3, 2),
          26: ndi.generate_binary_structure(3, 3)}
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


def noise(shape, density, seed, values=1, dtype=np.uint8):
    r = np.random.default_rng(seed)
    a = (r.random(shape) < density) * r.integers(1, values + 1, shape)
    return a.astype(dtype)


def spiral(n):
    """A square spiral wall, one component winding through every tile; its
    complement is one corridor."""
    a = np.zeros((n, n), np.uint8)
    for k in range(0, n // 2, 2):
        lo, hi = k, n - 1 - k
        if hi - lo < 4:
            break
        a[lo, lo:hi + 1] = 1  # top
        a[lo:hi + 1, hi] = 1  # right
        a[hi, lo:hi + 1] = 1  # bottom
        a[lo + 2:hi + 1, lo] = 1  # left, open at its top
        a[lo + 2, lo:lo + 3] = 1  # into the next ring
    return a


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("conn", [4, 8])
@pytest.mark.parametrize("density", [0.3, 0.5, 0.7])
@pytest.mark.parametrize("shape", [(1, 1), (97, 71), (300, 515), (1, 333)])
def test_nonzero_like_scipy_2d(device, conn, density, shape):
    a = noise(shape, density, seed=shape[0] * 7 + conn, values=3)
    want, n = ndi.label(a, STRUCT[conn])
    got, m = parac.label(a, connectivity=conn, device=device)
    assert m == n
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("conn", [6, 18, 26])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int32, np.float32])
def test_nonzero_like_scipy_3d(device, conn, dtype):
    a = noise((17, 40, 33), 0.35, seed=conn, values=2, dtype=dtype)
    want, n = ndi.label(a, STRUCT[conn])
    got, m = parac.label(a, connectivity=conn, device=device)
    assert m == n
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("conn", [6, 26])
@pytest.mark.parametrize("density", [0.15, 0.5])
def test_many_whole_tiles_3d(device, conn, density):
    # whole tiles and a partial one on each axis (tiles of 32 x 16 x 16 to 32 x 32 x 32)
    a = noise((50, 70, 100), density, seed=int(density * 100) + conn)
    want, n = ndi.label(a, STRUCT[conn])
    got, m = parac.label(a, connectivity=conn, device=device)
    assert m == n
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("connectivity", [1, 2])
@pytest.mark.parametrize("background", [0, 2])
def test_equal_values_like_skimage(device, connectivity, background):
    measure = pytest.importorskip("skimage.measure")
    a = noise((211, 173), 0.8, seed=5, values=4)
    want = measure.label(a, background=background, connectivity=connectivity)
    got, n = parac.measure.label(a, background=background, connectivity=connectivity, return_num=True,
                                 device=device)
    assert n == want.max()
    np.testing.assert_array_equal(got, want)
    v = noise((13, 29, 31), 0.9, seed=6, values=3, dtype=np.int32) - 1
    np.testing.assert_array_equal(parac.measure.label(v, device=device), measure.label(v))


@pytest.mark.parametrize("device", DEVICES)
def test_worst_cases(device):
    n = 256
    yy, xx = np.mgrid[0:n, 0:n]
    cases = {"checkerboard": ((xx + yy) % 2).astype(np.uint8), "stripes": (xx % 3 != 1).astype(np.uint8),
             "dots": ((xx % 2 == 0) & (yy % 2 == 0)).astype(np.uint8), "full": np.ones((n, n), np.uint8),
             "spiral": spiral(n), "corridor": 1 - spiral(n), "empty": np.zeros((n, n), np.uint8)}
    for name, a in cases.items():
        for conn in (4, 8):
            want, k = ndi.label(a, STRUCT[conn])
            got, m = parac.label(a, connectivity=conn, device=device)
            assert m == k, name
            np.testing.assert_array_equal(got, want, err_msg=name)


def test_like_opencv_8_connected():
    cv2 = pytest.importorskip("cv2")
    a = noise((480, 640), 0.45, seed=9)
    n, want = cv2.connectedComponents(a, connectivity=8, ltype=cv2.CV_32S)
    got, m = parac.label(a, connectivity=8, device="cpu")
    assert m == n - 1  # OpenCV counts the background
    # the same partition (OpenCV's parallel labelling numbers its stripes' components in another order)
    pairs = np.unique(np.stack([got.ravel(), want.ravel()]), axis=1)
    assert pairs.shape[1] == n and np.array_equal(got == 0, want == 0)


@pytest.mark.parametrize("device", DEVICES)
def test_ndimage_label_signature(device):
    a = noise((64, 80), 0.5, seed=3) > 0  # bool, as scipy's users pass it
    want, n = ndi.label(a)
    got, m = parac.ndimage.label(a, device=device)
    assert m == n and got.dtype == np.int32
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(parac.label(a, connectivity=4, device=device)[0], want)  # bool to the library
    out = np.zeros(a.shape, np.int32)
    assert parac.ndimage.label(a, output=out, device=device) == n
    np.testing.assert_array_equal(out, want)
    f = np.where(a, np.nan, 0.0)  # float64, NaN nonzero
    np.testing.assert_array_equal(parac.ndimage.label(f, structure=np.ones((3, 3)), device=device)[0],
                                  ndi.label(f, np.ones((3, 3)))[0])


@pytest.mark.parametrize("device", DEVICES)
def test_i64_labels(device, tmp_path):
    """--dtype i64 gives the same labels in int64 (2D rows and pairs of rows, 3D, equal values), into a
    caller's int64 array too; i32 and auto give int32 where the count fits. (More components than
    int32 holds: test_more_than_2_to_the_31_components_on_the_gpu, and test_label's widening.)"""
    a = noise((61, 83), 0.4, seed=21, values=3)
    v = noise((9, 23, 17), 0.2, seed=22)
    for img, conn, eq in ((a, 8, False), (a, 4, False), (a, 8, True), (v, 26, False), (v, 6, True)):
        want, n = parac.label(img, connectivity=conn, equal_values=eq, device=device)
        assert want.dtype == np.int32
        got, m = parac.label(img, connectivity=conn, equal_values=eq, dtype="i64", device=device)
        assert got.dtype == np.int64 and m == n
        np.testing.assert_array_equal(got, want)
        assert parac.label(img, connectivity=conn, equal_values=eq, dtype="i32", device=device)[0].dtype == np.int32
    out = np.full(a.shape, -1, np.int64)
    want, n = ndi.label(a)
    assert parac.ndimage.label(a, output=out, device=device) == n
    np.testing.assert_array_equal(out, want)
    src, dst = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(src, a)
    r = subprocess.run([PARAC, "--device", device, "label", str(src), str(dst), "--dtype", "i64"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = np.load(dst)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, ndi.label(a, STRUCT[8])[0])


@pytest.mark.gpu
def test_cupy_in_cupy_out():
    cupy = pytest.importorskip("cupy")
    a = noise((300, 517), 0.5, seed=11)
    d = cupy.asarray(a)
    got, n = parac.ndimage.label(d)
    assert isinstance(got, cupy.ndarray)
    want, k = ndi.label(a)
    assert n == k
    np.testing.assert_array_equal(cupy.asnumpy(got), want)
    got, n = parac.label(d > 0, connectivity=8)  # bool CuPy input: its bytes go to the library
    np.testing.assert_array_equal(cupy.asnumpy(got), ndi.label(a, STRUCT[8])[0])


def _skip_unless_memory(cupy, gpu_bytes, host_bytes):
    """Skips the test where the GPU or the host has less memory free."""
    free, _ = cupy.cuda.runtime.memGetInfo()
    try:
        host = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (ValueError, OSError):
        host = 0
    if free < gpu_bytes or host < host_bytes:
        pytest.skip("needs %.0f GB of GPU and %.0f GB of host memory" % (gpu_bytes / 1e9, host_bytes / 1e9))


def _big_noise(cupy, shape, density, seed):
    """Noise of `shape` made on the GPU a slab at a time (a float temporary of the whole would not fit)."""
    a = cupy.empty(shape, cupy.uint8)
    r = cupy.random.default_rng(seed)
    step = max(1, (1 << 28) // int(np.prod(shape[1:])))
    for i in range(0, shape[0], step):
        a[i:i + step] = r.random((min(step, shape[0] - i),) + shape[1:], dtype=cupy.float32) < density
    return a


@pytest.mark.gpu
@pytest.mark.parametrize("shape,conn", [((65600, 65536), 8), ((1040, 2048, 2048), 26)])
def test_more_than_2_to_the_32_pixels_on_the_gpu(shape, conn):
    """An image or volume of more than 2^32 pixels (positions past 32 bits, nodes numbered per tile edge)
    labelled on the GPU equals the CPU's labels bit for bit."""
    cupy = pytest.importorskip("cupy")
    n = int(np.prod(shape))
    assert n > 1 << 32
    _skip_unless_memory(cupy, 14 * n, 10 * n)
    d = _big_noise(cupy, shape, 0.5 if conn == 8 else 0.3, seed=3)
    got, m = parac.label(d, connectivity=conn)
    a = cupy.asnumpy(d)
    del d
    want, k = parac.label(a, connectivity=conn, device="cpu")
    del a
    assert m == k and m > 1000
    for i in range(0, shape[0], 4096 if conn == 8 else 64):  # compared a slab at a time on the GPU
        j = min(i + (4096 if conn == 8 else 64), shape[0])
        assert bool((got[i:j] == cupy.asarray(want[i:j])).all()), "rows %d..%d differ" % (i, j)


@pytest.mark.gpu
def test_more_than_2_to_the_31_components_on_the_gpu():
    """A 65536 x 65536 checkerboard has 2^31 components of one pixel (4 neighbours): more than int32
    holds. auto widens the output to int64 once the count is known, on the GPU and the CPU, and
    the labels are each pixel's rank among the foreground in raster order; i32 asked for is an error."""
    cupy = pytest.importorskip("cupy")
    h = w = 1 << 16
    n = h * w
    _skip_unless_memory(cupy, 24 * n, 20 * n)
    d = cupy.empty((h, w), cupy.uint8)
    cols = cupy.arange(w, dtype=cupy.int64)
    step = 4096
    for i in range(0, h, step):
        rows = cupy.arange(i, i + step, dtype=cupy.int64)[:, None]
        d[i:i + step] = ((rows + cols) & 1) == 0
    got, m = parac.label(d, connectivity=4)
    assert m == n // 2 and got.dtype == cupy.int64
    for i in range(0, h, step):  # foreground pixel (y, x): (y w + x) / 2 + 1, background 0
        rows = cupy.arange(i, i + step, dtype=cupy.int64)[:, None]
        key = rows * w + cols
        want = cupy.where(((rows + cols) & 1) == 0, key // 2 + 1, 0)
        assert bool((got[i:i + step] == want).all()), "rows %d..%d" % (i, i + step)
    with pytest.raises(ValueError, match="i32"):
        parac.label(d, connectivity=4, dtype="i32")
    lab, k = parac.ndimage.label(d)  # scipy's cross; the pixel count alone makes it int64
    assert k == m and lab.dtype == cupy.int64
    del lab
    a = cupy.asnumpy(d)
    del d
    cpu, k = parac.label(a, connectivity=4, device="cpu")
    del a
    parac.memory_trim()  # the CPU's run arrays (34 GB) and the GPU pool
    assert k == m and cpu.dtype == np.int64
    for i in range(0, h, step):  # the CPU's labels equal the GPU's, compared a slab at a time on the GPU
        assert bool((got[i:i + step] == cupy.asarray(cpu[i:i + step])).all()), "CPU rows %d..%d" % (i, i + step)


def test_volumes_of_one_slice():
    """A volume of one slice (a Dask block of a volume, a stack of one image)
    takes the volume's connectivities: the library sees a 2D image and the
    neighbours within the slice."""
    import skimage.measure as skm
    import skimage.segmentation as sks
    from sk_compat import sk_remove_objects

    v = noise((1, 23, 31), 0.5, seed=12)
    for st in (None, ndi.generate_binary_structure(3, 2), np.ones((3, 3, 3))):
        got, n = parac.ndimage.label(v, st)
        want, k = ndi.label(v, st)
        assert n == k and got.shape == v.shape
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(parac.ndimage.binary_fill_holes(v, st), ndi.binary_fill_holes(v, st))
    for c in (1, 2, 3):
        np.testing.assert_array_equal(parac.measure.label(v, connectivity=c), skm.label(v, connectivity=c))
        np.testing.assert_array_equal(parac.segmentation.flood(v, (0, 3, 4), connectivity=c),
                                      sks.flood(v, (0, 3, 4), connectivity=c))
        np.testing.assert_array_equal(parac.morphology.remove_small_objects(v > 0, 3, connectivity=c),
                                      sk_remove_objects(v > 0, 3, c))
    np.testing.assert_array_equal(parac.segmentation.clear_border(v > 0), sks.clear_border(v > 0))


@pytest.mark.parametrize("device", DEVICES)
def test_int64_and_uint_inputs(device):
    # int64 is read as it is (values past 2^53 and 2^32 apart told apart),
    # uint32 and uint64 as int64, int8 and int16 as int32
    skm = pytest.importorskip("skimage.measure")
    r = np.random.default_rng(5)
    base = 2 ** 60
    near = (base + r.integers(-2, 3, (61, 203))).astype(np.int64)
    got = parac.measure.label(near, background=base, connectivity=1, device=device)
    np.testing.assert_array_equal(got, skm.label(near, background=base, connectivity=1))
    far = r.choice(np.array([0, 2 ** 32, 2 ** 53, 2 ** 53 + 1, -2 ** 32, 2 ** 62], np.int64), (47, 89))
    got, n = parac.ndimage.label(far, device=device)
    want, k = ndi.label(far)
    assert n == k
    np.testing.assert_array_equal(got, want)
    if device == "cpu":
        np.testing.assert_array_equal(parac.measure.label(far, device=device), skm.label(far))
    else:
        with pytest.raises(Exception, match="less than 2\\^32"):
            parac.measure.label(far, device=device)
    for dt in (np.int8, np.int16, np.uint32, np.uint64):
        a = noise((40, 50), 0.6, seed=3, values=4, dtype=dt)
        np.testing.assert_array_equal(parac.measure.label(a, device=device), skm.label(a))


def test_refusals():
    with pytest.raises(ValueError, match="NaN"):
        parac.measure.label(np.array([[1.0, np.nan]], np.float32), device="cpu")
    with pytest.raises(ValueError, match="connectivity"):
        parac.label(np.zeros((4, 4), np.uint8), connectivity=6, device="cpu")
    with pytest.raises(NotImplementedError):
        parac.measure.label(np.array([[2 ** 63, 1]], np.uint64), device="cpu")
    with pytest.raises(TypeError):
        parac.label(np.zeros((4, 4, 3), np.float64)[..., 0].astype(np.complex64), device="cpu")


def test_cli_prints_the_count(tmp_path):
    a = noise((50, 60), 0.5, seed=2)
    src, dst = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(src, a)
    r = subprocess.run([PARAC, "--device", "cpu", "label", str(src), str(dst), "--connectivity", "4"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    want, n = ndi.label(a)
    assert r.stdout.strip() == "count: %d" % n
    np.testing.assert_array_equal(np.load(dst), want)
    r = subprocess.run([PARAC, "label", str(src), str(dst), "--connectivity", "5"], capture_output=True, text=True)
    assert r.returncode == 1 and "not one of" in r.stderr
