"""Region statistics and the operations built on labelling, against their
references: parac.measure.regionprops_table against
skimage.measure.regionprops_table and cv2.connectedComponentsWithStats,
parac.morphology.remove_small_objects / remove_small_holes against
scikit-image's; the CLI's tables (CSV, JSON, NPY) and refusals; on the CPU
and (marked gpu) on CUDA with NumPy and CuPy arrays."""
import csv
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

_dir = os.environ.get("PARAC_PYTHON_DIR")
if _dir:
    sys.path.insert(0, _dir)
parac = pytest.importorskip("parac", reason="the parac extension was not built (Python development files)")
skm = pytest.importorskip("skimage.measure")
pytest.importorskip("skimage.morphology")

from sk_compat import sk_remove_holes, sk_remove_objects  # noqa: E402

PARAC = os.environ.get("PARAC_BIN", "parac")
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]
PROPS = ("label", "area", "num_pixels", "bbox", "centroid", "intensity_min", "intensity_max", "intensity_mean")


def blobs(shape, density, seed):
    r = np.random.default_rng(seed)
    return r.random(shape) < density


def assert_tables_equal(got, want, inexact=()):
    assert list(got) == list(want)
    for k in want:
        assert got[k].dtype == want[k].dtype, k
        if k in inexact:
            np.testing.assert_allclose(got[k], want[k], rtol=1e-12, atol=1e-12, err_msg=k)
        else:
            np.testing.assert_array_equal(got[k], want[k], err_msg=k)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(1, 1), (97, 71), (301, 1037), (1, 333), (9, 13, 17), (1, 23, 17)])
@pytest.mark.parametrize("vdtype", [np.uint8, np.uint16, np.int32, np.float32])
def test_regionprops_table_like_skimage(device, shape, vdtype):
    r = np.random.default_rng(len(shape) * 100 + shape[0])
    lab = skm.label(blobs(shape, 0.45, shape[0]), connectivity=1)
    vals = (r.random(shape) * 1000 - (300 if vdtype in (np.int32, np.float32) else 0)).astype(vdtype)
    got = parac.measure.regionprops_table(lab, vals, properties=PROPS, device=device)
    want = skm.regionprops_table(lab, vals, properties=PROPS)
    if vdtype == np.float32:
        # scikit-image sums float32 intensities in float32, parac in float64: against scipy's float64 means
        import scipy.ndimage as ndi

        want["intensity_mean"] = np.asarray(ndi.mean(vals.astype(np.float64), lab, want["label"]), np.float64)
    assert_tables_equal(got, want, inexact=("intensity_mean",) if vdtype == np.float32 else ())


@pytest.mark.parametrize("device", DEVICES + [pytest.param("cupy", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("shape", [(61, 47), (5, 19, 23), (1, 29, 31)])
@pytest.mark.parametrize("props", [("label", "bbox"), ("bbox",), ("centroid", "label"),
                                   ("num_pixels", "intensity_max", "label", "area"),
                                   ("intensity_mean", "bbox", "intensity_min", "num_pixels")])
def test_regionprops_table_any_properties_in_any_order(device, shape, props):
    # the columns are cut from the library's records in one or two copies:
    # every subset and order, each column its own contiguous array
    r = np.random.default_rng(shape[0] + len(props))
    lab = skm.label(blobs(shape, 0.5, shape[1]), connectivity=1)
    vals = (r.random(shape) * 250).astype(np.uint8)
    want = skm.regionprops_table(lab, vals, properties=props, separator=":")
    if device == "cupy":  # CuPy in, CuPy out: the columns cut on the device
        cupy = pytest.importorskip("cupy")
        got = parac.measure.regionprops_table(cupy.asarray(lab), cupy.asarray(vals), properties=props, separator=":")
        assert all(isinstance(v, cupy.ndarray) and v.flags.c_contiguous for v in got.values())
        got = {k: cupy.asnumpy(v) for k, v in got.items()}
    else:
        got = parac.measure.regionprops_table(lab, vals, properties=props, device=device, separator=":")
        assert all(v.flags.c_contiguous for v in got.values())
    assert_tables_equal(got, want)


@pytest.mark.parametrize("device", DEVICES)
def test_regionprops_labels_in_pieces(device):
    # labels that are not components: pieces far apart, gaps in the numbering
    lab = np.zeros((120, 700), np.uint16)
    lab[3:9, 5:600] = 7
    lab[100:110, 650:690] = 7
    lab[50:60, 50:60] = 65535
    lab[:, 699] = 2
    got = parac.measure.regionprops_table(lab, properties=("label", "area", "bbox", "centroid"), separator="_",
                                          device=device)
    want = skm.regionprops_table(lab, properties=("label", "area", "bbox", "centroid"), separator="_")
    assert_tables_equal(got, want)


def test_regionprops_like_opencv():
    cv2 = pytest.importorskip("cv2")
    a = blobs((203, 311), 0.5, 4).astype(np.uint8)
    n, lab, stats, cent = cv2.connectedComponentsWithStats(a, connectivity=8, ltype=cv2.CV_32S)
    t = parac.measure.regionprops_table(lab, properties=("label", "area", "bbox", "centroid"), device="cpu")
    np.testing.assert_array_equal(t["area"], stats[1:, cv2.CC_STAT_AREA])
    np.testing.assert_array_equal(t["bbox-1"], stats[1:, cv2.CC_STAT_LEFT])
    np.testing.assert_array_equal(t["bbox-2"] - t["bbox-0"], stats[1:, cv2.CC_STAT_HEIGHT])
    np.testing.assert_allclose(t["centroid-1"], cent[1:, 0], rtol=1e-12)
    np.testing.assert_allclose(t["centroid-0"], cent[1:, 1], rtol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
def test_int64_labels_as_they_are(device):
    # int64 label images (scikit-image's labels, and parac's for images of
    # more than 2^31 - 1 pixels) go to the library without a conversion
    lab = skm.label(blobs((201, 307), 0.45, 8), connectivity=1).astype(np.int64)
    lab[lab == 3] = 2 ** 20  # a gap in the numbering
    got = parac.measure.regionprops_table(lab, properties=("label", "area", "bbox", "centroid"), device=device)
    assert_tables_equal(got, skm.regionprops_table(lab, properties=("label", "area", "bbox", "centroid")))
    small = parac.morphology.remove_small_objects(lab, 6, device=device)
    assert small.dtype == np.int64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(small, sk_remove_objects(lab, 6, 1))
    sparse = np.zeros((4, 5), np.int64)
    sparse[1, 2] = 2 ** 40  # beyond 2^31 - 1 and the pixel count: refused, not terabytes of table
    with pytest.raises(Exception, match="largest label is 1099511627776"):
        parac.measure.regionprops_table(sparse, device=device)


@pytest.mark.parametrize("device", DEVICES)
def test_strided_views(device):
    # NumPy slices with a step (pixels apart in memory) give what their
    # contiguous copies give: the library packs such inputs first
    import scipy.ndimage as ndi

    a = blobs((61, 180), 0.5, 21)[:, ::2]
    lab = skm.label(blobs((61, 180), 0.5, 22), connectivity=1).astype(np.int32)[:, 1::2]
    assert not a.flags.c_contiguous and not lab.flags.c_contiguous
    got, n = parac.ndimage.label(a, device=device)
    want, k = ndi.label(a)
    assert n == k
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(parac.ndimage.binary_fill_holes(a, device=device), ndi.binary_fill_holes(a))
    assert_tables_equal(parac.measure.regionprops_table(lab, properties=("label", "area", "bbox"), device=device),
                        skm.regionprops_table(lab, properties=("label", "area", "bbox")))
    c = np.ascontiguousarray(lab)
    np.testing.assert_array_equal(parac.morphology.remove_small_objects(lab, 4, device=device),
                                  parac.morphology.remove_small_objects(c, 4, device=device))
    np.testing.assert_array_equal(parac.fill_label_holes(lab, device=device)[0],
                                  parac.fill_label_holes(c, device=device)[0])


def test_regionprops_refusals():
    with pytest.raises(NotImplementedError, match="perimeter"):
        parac.measure.regionprops_table(np.ones((4, 4), np.int32), properties=("perimeter",))
    with pytest.raises(ValueError, match="negative"):
        parac.measure.regionprops_table(np.array([[1, -1]], np.int32), device="cpu")
    with pytest.raises(ValueError, match="NaN"):
        parac.measure.regionprops_table(np.ones((2, 2), np.int32), np.array([[1, np.nan], [0, 0]], np.float32),
                                        properties=("intensity_max",), device="cpu")
    with pytest.raises(TypeError, match="non-integer"):
        parac.measure.regionprops_table(np.ones((2, 2), np.float32))
    with pytest.raises(ValueError, match="same size"):
        parac.regionprops(np.ones((2, 2), np.int32), np.ones((3, 2), np.uint8), device="cpu")
    with pytest.raises(TypeError):
        parac.regionprops(np.ones((2, 2), np.int32), np.ones((2, 2), np.uint8), np.ones((2, 2), np.uint8))


def test_cli_tables(tmp_path):
    lab = skm.label(blobs((61, 83), 0.5, 8), connectivity=2).astype(np.int32)
    vals = (np.arange(61 * 83) % 251).astype(np.uint8).reshape(61, 83)
    np.save(tmp_path / "l.npy", lab)
    np.save(tmp_path / "v.npy", vals)
    want = skm.regionprops_table(lab, vals, properties=("label", "area", "bbox", "centroid", "intensity_min",
                                                        "intensity_max", "intensity_mean"))
    for ext in ("csv", "json", "npy"):
        out = tmp_path / ("t." + ext)
        r = subprocess.run([PARAC, "--device", "cpu", "regionprops", str(tmp_path / "l.npy"), str(tmp_path / "v.npy"),
                            str(out)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == "count: %d" % lab.max()
        if ext == "csv":
            rows = list(csv.reader(open(out)))
            assert rows[0] == list(want)
            got = {k: np.array([float(row[i]) for row in rows[1:]]) for i, k in enumerate(rows[0])}
        elif ext == "json":
            got = {k: np.array(v, float) for k, v in json.load(open(out)).items()}
        else:
            arr = np.load(out)
            got = {k: arr[:, i] for i, k in enumerate(want)}
        for k in want:
            np.testing.assert_array_equal(got[k], want[k].astype(float), err_msg="%s %s" % (ext, k))
    # bad input: nothing written, exit 1
    bad = tmp_path / "bad.csv"
    for args, msg in ((["t.png"], "csv, .json or .npy"), (["v.npy", "v.npy", "x.csv"], "2 to 3 files")):
        r = subprocess.run([PARAC, "--device", "cpu", "regionprops", str(tmp_path / "l.npy")] +
                           [str(tmp_path / a) for a in args], capture_output=True, text=True)
        assert r.returncode == 1 and msg in r.stderr, r.stderr
    np.save(tmp_path / "neg.npy", -lab)
    r = subprocess.run([PARAC, "--device", "cpu", "regionprops", str(tmp_path / "neg.npy"), str(bad)],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "negative" in r.stderr and not bad.exists()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(1, 1), (67, 91), (256, 1031), (13, 17, 11)])
def test_remove_small_like_skimage(device, shape):
    a = blobs(shape, 0.45, shape[-1])
    for c in range(1, len(shape) + 1):
        for size in (0, 1, 2, 5, 30, 10 ** 6):
            np.testing.assert_array_equal(parac.morphology.remove_small_objects(a, size, c, device=device),
                                          sk_remove_objects(a, size, c))
            np.testing.assert_array_equal(parac.morphology.remove_small_holes(a, size, c, device=device),
                                          sk_remove_holes(a, size, c))
            lab = skm.label(a, connectivity=c)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # scikit-image warns about one-label images
                want = sk_remove_objects(lab, size, c)
            got = parac.morphology.remove_small_objects(lab, size, c, device=device)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)


def test_remove_small_max_size():
    a = blobs((80, 90), 0.5, 3)
    np.testing.assert_array_equal(parac.morphology.remove_small_objects(a, max_size=7), sk_remove_objects(a, 8, 1))
    np.testing.assert_array_equal(parac.morphology.remove_small_holes(a, max_size=7), sk_remove_holes(a, 8, 1))
    with pytest.raises(TypeError, match="bool or integer"):
        parac.morphology.remove_small_objects(np.ones((3, 3), np.float32))


@pytest.mark.gpu
def test_cupy_in_cupy_out():
    cupy = pytest.importorskip("cupy")
    a = blobs((300, 517), 0.5, 11)
    lab = skm.label(a).astype(np.int32)
    d = cupy.asarray(lab)
    t = parac.measure.regionprops_table(d, cupy.asarray(lab.astype(np.uint16)), properties=PROPS)
    assert all(isinstance(v, cupy.ndarray) for v in t.values())
    want = skm.regionprops_table(lab, lab.astype(np.uint16), properties=PROPS)
    assert_tables_equal({k: cupy.asnumpy(v) for k, v in t.items()}, want)
    got = parac.morphology.remove_small_objects(cupy.asarray(a), 9)
    assert isinstance(got, cupy.ndarray) and got.dtype == cupy.bool_
    np.testing.assert_array_equal(cupy.asnumpy(got), sk_remove_objects(a, 9, 1))
    got = parac.morphology.remove_small_holes(cupy.asarray(a), 9)
    np.testing.assert_array_equal(cupy.asnumpy(got), sk_remove_holes(a, 9, 1))


@pytest.mark.gpu
def test_torch_in_torch_out():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device for PyTorch")
    a = blobs((211, 157), 0.5, 12)
    lab = skm.label(a).astype(np.int32)
    vals = (np.random.default_rng(3).random(a.shape) * 200).astype(np.uint8)
    props = ("centroid", "label", "bbox", "intensity_max")
    t = parac.measure.regionprops_table(torch.from_numpy(lab).cuda(), torch.from_numpy(vals).cuda(), properties=props)
    assert all(isinstance(v, torch.Tensor) and v.is_cuda and v.is_contiguous() for v in t.values())
    want = skm.regionprops_table(lab, vals, properties=props)
    assert_tables_equal({k: v.cpu().numpy() for k, v in t.items()}, want)


def fill_label_holes_oracle(lab, rank):
    """scipy's binary_fill_holes of each label, the zero pixels of its holes
    taking it; nested labels: the innermost (smallest box) last."""
    import scipy.ndimage as ndi

    st = ndi.generate_binary_structure(lab.ndim, rank)
    out = lab.copy()

    def volume(v):
        idx = np.argwhere(lab == v)
        return int(np.prod(idx.max(0) - idx.min(0) + 1))

    for v in sorted((int(v) for v in np.unique(lab) if v), key=lambda v: (-volume(v), -v)):
        out[ndi.binary_fill_holes(lab == v, st) & (lab == 0)] = v
    return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("seed", range(6))
def test_fill_label_holes_like_scipy_per_label(device, seed):
    r = np.random.default_rng(seed)
    shapes = [(int(r.integers(5, 70)), int(r.integers(5, 70))), (int(r.integers(3, 14)),) * 3]
    for shape in shapes:
        lab = skm.label(r.random(shape) < 0.55, connectivity=len(shape)).astype(np.int64 if seed % 2 else np.int32)
        lab[r.random(shape) < 0.1] = 0
        for rank, conn in ((1, 4 if len(shape) == 2 else 6), (len(shape), 8 if len(shape) == 2 else 26)):
            got, filled = parac.fill_label_holes(lab, connectivity=conn, device=device)
            want = fill_label_holes_oracle(lab, rank)
            np.testing.assert_array_equal(got, want)
            assert filled == int((want != lab).sum())


@pytest.mark.parametrize("device", DEVICES)
def test_fill_label_holes_of_many_nested_labels(device):
    """Rings holding touching cells, tiled with their own labels over a
    larger image at random offsets: cavities beside several labels far
    apart, so that each label's box holds some and misses most (the boxes
    are matched to cavities by cells of the image, not all against all)."""
    r = np.random.default_rng(7)
    a = np.zeros((230, 347), np.int32)
    v = 1
    for y0 in range(3, 190, 44):
        for x0 in range(2, 300, 49):
            y, x = y0 + int(r.integers(0, 4)), x0 + int(r.integers(0, 4))
            a[y:y + 36, x:x + 36] = v  # a ring of v ...
            a[y + 4:y + 32, x + 4:x + 32] = 0
            a[y + 8:y + 18, x + 8:x + 28] = v + 1  # ... holding two touching cells ...
            a[y + 18:y + 28, x + 8:x + 28] = v + 2
            a[y + 17:y + 19, x + 15:x + 19] = 0  # ... with a gap beside both
            v += 3
    for conn, rank in ((4, 1), (8, 2)):
        got, filled = parac.fill_label_holes(a, connectivity=conn, device=device)
        want = fill_label_holes_oracle(a, rank)
        np.testing.assert_array_equal(got, want)
        assert filled == int((want != a).sum()) and filled > 0


@pytest.mark.parametrize("device", DEVICES)
def test_fill_label_holes_cases(device):
    a = np.zeros((40, 60), np.uint16)
    a[5:35, 5:35] = 3
    a[10:30, 10:30] = 0  # a hole of 3 ...
    a[15:25, 15:25] = 7  # ... holding a ring of 7 ...
    a[18:22, 18:22] = 0  # ... with a hole of its own
    a[5:15, 40:50] = 1  # two touching cells with a gap that only both close
    a[15:25, 40:50] = 2
    a[14:16, 44:46] = 0
    got, filled = parac.fill_label_holes(a, device=device)
    want = fill_label_holes_oracle(a, 1)
    np.testing.assert_array_equal(got, want)
    assert (got[18:22, 18:22] == 7).all() and (got[12, 12] == 3) and (got[14:16, 44:46] == 0).all()
    assert got.dtype == np.uint16 and filled == 20 * 20 - 10 * 10 + 16
    with pytest.raises(ValueError, match="negative"):
        parac.fill_label_holes(np.array([[1, -1]], np.int32), device=device)


def test_table_columns_kernel_ships_with_the_package():
    # regionprops_table on CuPy arrays compiles this file at first use: the
    # build tree's and the wheel's package must hold it beside the module
    from parac import _table_columns

    path = os.path.join(os.path.dirname(os.path.abspath(_table_columns.__file__)), "table_columns.cu")
    with open(path) as f:
        assert "parac_table_columns" in f.read()
