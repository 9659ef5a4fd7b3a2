"""Image I/O conformance: files written by numpy, OpenCV, imageio/Pillow,
tifffile and pynrrd are read by `parac convert` and compared exactly (JPEG
within +-1 of OpenCV's decoder); files written by parac are read back by
those libraries; `parac info` statistics are checked against numpy."""
import re
import subprocess
import tempfile
from pathlib import Path

import cv2
import imageio.v3 as iio
import nrrd
import numpy as np
import pytest
import tifffile
from PIL import Image

from conftest import PARAC, random_image, run_parac

SIZE = (23, 37)  # odd sizes: H, W


def _tiff_built():
    """False only when parac says it was built without libtiff."""
    if PARAC is None or not PARAC.exists():
        return True
    with tempfile.TemporaryDirectory() as d:
        np.save(Path(d) / "a.npy", np.zeros((2, 2), np.uint8))
        r = subprocess.run([str(PARAC), "convert", str(Path(d) / "a.npy"), str(Path(d) / "a.tif")],
                           capture_output=True, text=True)
        return "TIFF support was not built" not in r.stderr


needs_tiff = pytest.mark.skipif(not _tiff_built(), reason="parac was built without libtiff")


def parac_read(tmp_path, src, *opts):
    """The array parac reads from `src`, through `parac convert src out.npy`."""
    out = tmp_path / "parac_read.npy"
    run_parac("convert", src, out, *opts)
    return np.load(out)


def parac_write(tmp_path, arr, name, *opts):
    """Have parac write `arr` (given as .npy) to `name`; returns the path."""
    src = tmp_path / "parac_src.npy"
    np.save(src, arr)
    out = tmp_path / name
    run_parac("convert", src, out, *opts)
    return out


def rgb_from_cv(a):
    """OpenCV's BGR(A) order to RGB(A)."""
    if a.ndim == 3 and a.shape[2] == 3:
        return a[..., ::-1]
    if a.ndim == 3 and a.shape[2] == 4:
        return a[..., [2, 1, 0, 3]]
    return a


def assert_same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert a.dtype.newbyteorder("=") == b.dtype.newbyteorder("=") or a.dtype == b.dtype, (a.dtype, b.dtype)
    np.testing.assert_array_equal(a, b)


# ---- .npy ------------------------------------------------------------------

NPY_DTYPES = ["|u1", "<u2", ">u2", "<i4", ">i4", "<f4", ">f4", "<f8", ">f8"]
NPY_SHAPES = [SIZE, SIZE + (3,), SIZE + (2,), (5,) + SIZE, (4,) + SIZE + (4,), (3, 11, 2, 1)]


@pytest.mark.parametrize("dtype", NPY_DTYPES)
@pytest.mark.parametrize("fortran", [False, True])
def test_npy_from_numpy(parac_bin, tmp_path, rng, dtype, fortran):
    for shape in NPY_SHAPES:
        a = random_image(rng, shape, np.dtype(dtype).newbyteorder("=")).astype(dtype)
        if fortran:
            a = np.asfortranarray(a)
        src = tmp_path / "numpy.npy"
        np.save(src, a)
        got = parac_read(tmp_path, src)
        if len(shape) == 3 and shape[2] > 4:
            assert got.shape == shape  # (D, H, W)
        np.testing.assert_array_equal(got.reshape(a.shape), a)
        assert got.dtype == np.dtype(dtype).newbyteorder("<") or got.dtype.itemsize == 1


@pytest.mark.parametrize("dtype", ["u1", "u2", "i4", "f4", "f8"])
def test_npy_to_numpy_fortran(parac_bin, tmp_path, rng, dtype):
    for shape in [SIZE, SIZE + (3,), (5,) + SIZE, (3,) + SIZE + (2,)]:
        a = random_image(rng, shape, dtype)
        out = parac_write(tmp_path, a, "f.npy", "--fortran-order")
        back = np.load(out)
        assert back.flags.f_contiguous
        assert_same(back, a)


def test_npy_layout_override(parac_bin, tmp_path, rng):
    a = random_image(rng, (5, 7, 3), "u1")
    src = tmp_path / "a.npy"
    np.save(src, a)
    # by the rule a 5x7 RGB image; as DHW a 3-wide volume, written back as (D, H, W, 1)
    assert parac_read(tmp_path, src).shape == (5, 7, 3)
    got = parac_read(tmp_path, src, "--layout", "dhw")
    assert got.shape == (5, 7, 3, 1)
    np.testing.assert_array_equal(got[..., 0], a)
    r = run_parac("info", "--layout", "dhw", src)
    assert "size: 3x7x5" in r.stdout and "channels: 1" in r.stdout


def test_npy_unsupported_dtype_is_an_error(parac_bin, tmp_path):
    src = tmp_path / "i1.npy"
    np.save(src, np.zeros(SIZE, np.int8))
    out = tmp_path / "o.npy"
    r = run_parac("convert", src, out, check=False)
    assert r.returncode == 1
    assert "i1" in r.stderr and "i1.npy" in r.stderr
    assert not out.exists()


# ---- PNG -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["u1", "u2"])
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_png_from_opencv(parac_bin, tmp_path, rng, dtype, channels):
    a = random_image(rng, SIZE + ((channels,) if channels > 1 else ()), dtype)
    src = tmp_path / "cv.png"
    assert cv2.imwrite(str(src), a)
    ref = rgb_from_cv(cv2.imread(str(src), cv2.IMREAD_UNCHANGED))
    assert_same(parac_read(tmp_path, src), ref)


@pytest.mark.parametrize("dtype", ["u1", "u2"])
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_png_to_libraries(parac_bin, tmp_path, rng, dtype, channels):
    a = random_image(rng, SIZE + ((channels,) if channels > 1 else ()), dtype)
    out = parac_write(tmp_path, a, "p.png")
    if dtype == "u1" or channels == 1:  # Pillow reduces 16-bit colour to 8 bits
        assert_same(iio.imread(out), a)
    if channels != 2:
        assert_same(rgb_from_cv(cv2.imread(str(out), cv2.IMREAD_UNCHANGED)), a)


@pytest.mark.parametrize("mode", ["P", "PA", "1", "L", "LA", "RGBA", "I;16"])
def test_png_from_pillow_modes(parac_bin, tmp_path, rng, mode):
    base = Image.fromarray(random_image(rng, SIZE + (4,), "u1"), "RGBA")
    if mode == "P":
        img = base.convert("RGB").quantize(37)
    elif mode == "PA":
        img = base.quantize(17)  # palette with transparency
    elif mode == "I;16":
        img = Image.fromarray(random_image(rng, SIZE, "u2"))
    else:
        img = base.convert(mode)
    src = tmp_path / "pil.png"
    img.save(src)
    got = parac_read(tmp_path, src)
    ref = np.asarray(Image.open(src).convert("RGBA" if mode in ("P", "PA") else Image.open(src).mode))
    if mode == "1":
        ref = ref.astype(np.uint8) * 255
    if mode == "P" and got.shape[-1] == 3:
        ref = ref[..., :3]
    assert_same(got, ref)


# ---- JPEG ------------------------------------------------------------------

def smooth(rng, shape):
    y, x = np.mgrid[0:shape[0], 0:shape[1]]
    base = 60 + 2 * x + 3 * y
    if len(shape) == 3:
        base = base[..., None] + 30 * np.arange(shape[2])
    return np.clip(base + rng.integers(0, 8, shape), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("channels", [1, 3])
def test_jpeg_from_opencv(parac_bin, tmp_path, rng, channels):
    a = smooth(rng, SIZE + ((channels,) if channels > 1 else ()))
    src = tmp_path / "cv.jpg"
    assert cv2.imwrite(str(src), a, [cv2.IMWRITE_JPEG_QUALITY, 90])
    ref = rgb_from_cv(cv2.imread(str(src), cv2.IMREAD_UNCHANGED)).astype(int)
    got = parac_read(tmp_path, src).astype(int)
    assert got.shape == ref.shape
    assert np.abs(got - ref).max() <= 1


@pytest.mark.parametrize("channels", [1, 3])
def test_jpeg_to_opencv(parac_bin, tmp_path, rng, channels):
    a = smooth(rng, SIZE + ((channels,) if channels > 1 else ()))
    out = parac_write(tmp_path, a, "p.jpg", "--quality", "92")
    ref = rgb_from_cv(cv2.imread(str(out), cv2.IMREAD_UNCHANGED)).astype(int)
    got = parac_read(tmp_path, out).astype(int)
    assert np.abs(got - ref).max() <= 1
    assert np.abs(got - a.astype(int)).mean() < 3


def test_jpeg_cmyk_is_converted(parac_bin, tmp_path, rng):
    rgb = Image.fromarray(smooth(rng, SIZE + (3,)))
    src = tmp_path / "cmyk.jpg"
    rgb.convert("CMYK").save(src, quality=95)
    got = parac_read(tmp_path, src).astype(int)
    ref = np.asarray(Image.open(src).convert("RGB")).astype(int)
    assert got.shape == ref.shape
    assert np.abs(got - ref).max() <= 2


# ---- TIFF ------------------------------------------------------------------

TIFF_DTYPES = ["u1", "u2", "i4", "f4", "f8"]


@needs_tiff
@pytest.mark.parametrize("dtype", TIFF_DTYPES)
@pytest.mark.parametrize("variant", ["plain", "planar", "tiled", "deflate", "bigendian"])
def test_tiff_from_tifffile(parac_bin, tmp_path, rng, dtype, variant):
    for shape in [SIZE, SIZE + (3,), SIZE + (4,), (4,) + SIZE, (3,) + SIZE + (2,)]:
        a = random_image(rng, shape, dtype)
        src = tmp_path / "tf.tif"
        kw = {}
        channels = len(shape) == 3 and shape[2] <= 4 or len(shape) == 4
        if channels:
            kw["photometric"] = "rgb" if shape[-1] >= 3 else "minisblack"
            if shape[-1] in (2, 4):
                kw["extrasamples"] = ["unassalpha"]
        else:
            kw["photometric"] = "minisblack"
        data = a
        if variant == "planar" and channels:
            kw["planarconfig"] = "separate"  # tifffile takes the samples axis first
            data = np.moveaxis(a, -1, -3)
        if variant == "tiled":
            kw["tile"] = (16, 16)
        if variant == "deflate":
            kw["compression"] = "zlib"
        if variant == "bigendian":
            kw["byteorder"] = ">"
        if len(shape) == 3 and not channels or len(shape) == 4:
            with tifffile.TiffWriter(src, byteorder=kw.pop("byteorder", None)) as w:
                for page in data:
                    w.write(page, contiguous=False, **kw)
        else:
            tifffile.imwrite(src, data, **kw)
        got = parac_read(tmp_path, src)
        assert_same(got, a)


@needs_tiff
@pytest.mark.parametrize("dtype", TIFF_DTYPES)
@pytest.mark.parametrize("compress", [False, True])
def test_tiff_to_tifffile(parac_bin, tmp_path, rng, dtype, compress):
    for shape in [SIZE, SIZE + (2,), SIZE + (3,), (5,) + SIZE, (3,) + SIZE + (4,)]:
        a = random_image(rng, shape, dtype)
        out = parac_write(tmp_path, a, "p.tif", *(["--compress"] if compress else []))
        back = tifffile.imread(out)
        assert_same(back, a)


@needs_tiff
def test_tiff_from_opencv(parac_bin, tmp_path, rng):
    for a in [random_image(rng, SIZE + (3,), "u1"), random_image(rng, SIZE, "u2")]:
        src = tmp_path / "cv.tif"
        assert cv2.imwrite(str(src), a)
        assert_same(parac_read(tmp_path, src), rgb_from_cv(cv2.imread(str(src), cv2.IMREAD_UNCHANGED)))


@needs_tiff
def test_tiff_pages_must_agree(parac_bin, tmp_path, rng):
    src = tmp_path / "mixed.tif"
    with tifffile.TiffWriter(src) as w:
        w.write(random_image(rng, SIZE, "u1"))
        w.write(random_image(rng, (11, 9), "u1"))
    r = run_parac("convert", src, tmp_path / "o.npy", check=False)
    assert r.returncode == 1 and "page 1" in r.stderr and "mixed.tif" in r.stderr
    assert not (tmp_path / "o.npy").exists()


# ---- PGM / PPM ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["u1", "u2"])
@pytest.mark.parametrize("ext,channels", [("pgm", 1), ("ppm", 3)])
def test_pnm_from_opencv(parac_bin, tmp_path, rng, dtype, ext, channels):
    a = random_image(rng, SIZE + ((channels,) if channels > 1 else ()), dtype)
    src = tmp_path / f"cv.{ext}"
    assert cv2.imwrite(str(src), a)
    assert_same(parac_read(tmp_path, src), rgb_from_cv(cv2.imread(str(src), cv2.IMREAD_UNCHANGED)))


@pytest.mark.parametrize("dtype", ["u1", "u2"])
@pytest.mark.parametrize("ext,channels", [("pgm", 1), ("ppm", 3)])
@pytest.mark.parametrize("ascii_", [False, True])
def test_pnm_to_libraries(parac_bin, tmp_path, rng, dtype, ext, channels, ascii_):
    a = random_image(rng, SIZE + ((channels,) if channels > 1 else ()), dtype)
    out = parac_write(tmp_path, a, f"p.{ext}", *(["--ascii"] if ascii_ else []))
    assert out.read_bytes()[:2] == (b"P2" if channels == 1 else b"P3") if ascii_ else True
    assert_same(rgb_from_cv(cv2.imread(str(out), cv2.IMREAD_UNCHANGED)), a)
    if dtype == "u1":
        assert_same(iio.imread(out), a)
    else:  # Pillow reads 16-bit gray as int32 and 16-bit colour as 8 bits
        np.testing.assert_array_equal(iio.imread(out), a) if channels == 1 else None


def test_pnm_ascii_with_comments(parac_bin, tmp_path):
    src = tmp_path / "c.ppm"
    src.write_bytes(b"P3\n# made by hand\n2 1 # size\n300\n1 2 3\n# mid\n299 300 0\n")
    got = parac_read(tmp_path, src)
    assert_same(got, np.array([[[1, 2, 3], [299, 300, 0]]], np.uint16))
    src.write_bytes(b"P2\n2 1\n300\n1 301\n")
    r = run_parac("convert", src, tmp_path / "o.npy", check=False)
    assert r.returncode == 1 and "maxval" in r.stderr


# ---- NRRD ------------------------------------------------------------------

NRRD_DTYPES = ["u1", "u2", "i4", "f4", "f8"]


@pytest.mark.parametrize("dtype", NRRD_DTYPES)
@pytest.mark.parametrize("encoding", ["raw", "gzip"])
@pytest.mark.parametrize("endian", ["<", ">"])
def test_nrrd_from_pynrrd(parac_bin, tmp_path, rng, dtype, encoding, endian):
    # kinds are listed in NRRD order: the fastest axis (numpy's last) first
    for shape, kinds in [(SIZE, None), ((3,) + SIZE, ["domain"] * 3), (SIZE + (3,), ["RGB-color", "domain", "domain"]),
                         ((4,) + SIZE + (2,), ["vector"] + ["domain"] * 3), ((5,) + SIZE, None), (SIZE + (4,), None)]:
        a = random_image(rng, shape, dtype).astype(np.dtype(dtype).newbyteorder(endian))
        src = tmp_path / "pn.nrrd"
        header = {"encoding": encoding}
        if kinds:
            header["kinds"] = kinds
        # pynrrd's C index order lists the fastest axis last in `data.shape`
        nrrd.write(str(src), a, header, index_order="C")
        got = parac_read(tmp_path, src)
        np.testing.assert_array_equal(got.reshape(a.shape), a)
        assert got.shape == a.shape


@pytest.mark.parametrize("dtype", NRRD_DTYPES)
@pytest.mark.parametrize("gzip", [False, True])
def test_nrrd_to_pynrrd(parac_bin, tmp_path, rng, dtype, gzip):
    for shape in [SIZE, SIZE + (2,), SIZE + (4,), (5,) + SIZE, (3,) + SIZE + (3,)]:
        a = random_image(rng, shape, dtype)
        out = parac_write(tmp_path, a, "p.nrrd", *(["--gzip"] if gzip else []))
        data, header = nrrd.read(str(out), index_order="C")
        assert header["encoding"] == ("gzip" if gzip else "raw")
        assert_same(data, a)


# ---- info ------------------------------------------------------------------

INFO_LINE = re.compile(r"^  channel (\d+): min (\S+) max (\S+) mean (\S+)")


@pytest.mark.parametrize("dtype", ["u1", "u2", "i4", "f4", "f8", "i8"])
@pytest.mark.parametrize("shape", [SIZE, SIZE + (3,), (5,) + SIZE + (2,)])
def test_info_matches_numpy(parac_bin, tmp_path, rng, dtype, shape):
    a = random_image(rng, shape, dtype)
    src = tmp_path / "i.npy"
    np.save(src, a)
    out = run_parac("info", src).stdout
    channels = shape[-1] if len(shape) in (3, 4) and shape[-1] <= 4 else 1
    depth = shape[0] if len(shape) == 4 else 1
    h, w = (shape[-3], shape[-2]) if len(shape) == 4 else shape[:2]
    assert "format: npy" in out
    assert f"size: {w}x{h}x{depth}" in out
    assert f"channels: {channels}" in out
    assert f"dtype: {dict(u1='u8', u2='u16', i4='i32', f4='f32', f8='f64', i8='i64')[dtype]}" in out
    lines = [INFO_LINE.match(l) for l in out.splitlines()]
    stats = {int(m.group(1)): m for m in lines if m}
    assert len(stats) == channels
    flat = a.reshape(-1, channels).astype(np.float64)
    for c in range(channels):
        m = stats[c]
        assert float(m.group(2)) == flat[:, c].min()
        assert float(m.group(3)) == flat[:, c].max()
        assert float(m.group(4)) == pytest.approx(flat[:, c].mean(), rel=1e-9, abs=1e-9)


# ---- errors and atomic writing ----------------------------------------------------

@pytest.mark.parametrize("ext", ["png", "jpg", pytest.param("tif", marks=needs_tiff), "pgm", "npy", "nrrd"])
def test_truncated_input_is_a_clean_error(parac_bin, tmp_path, rng, ext):
    a = random_image(rng, SIZE, "u1")
    good = parac_write(tmp_path, a, f"good.{ext}")
    data = good.read_bytes()
    bad = tmp_path / f"bad.{ext}"
    for cut in (len(data) // 2, len(data) - 1):
        bad.write_bytes(data[:cut])
        out = tmp_path / "o.npy"
        r = run_parac("convert", bad, out, check=False)
        assert r.returncode == 1, r.stdout
        assert f"bad.{ext}" in r.stderr
        assert not out.exists()


def test_write_errors_leave_no_file(parac_bin, tmp_path, rng):
    src = tmp_path / "f.npy"
    np.save(src, random_image(rng, SIZE, "f4"))
    for target in ["x.png", "x.gif", "missing/x.tif", "x.jpg"]:
        r = run_parac("convert", src, tmp_path / target, check=False)
        assert r.returncode == 1
        assert target.split("/")[-1] in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.npy"]


@needs_tiff
@pytest.mark.parametrize("mode", ["P", "1", "RGBA", "LA"])
def test_tiff_from_pillow_modes(parac_bin, tmp_path, rng, mode):
    base = Image.fromarray(random_image(rng, SIZE + (4,), "u1"), "RGBA")
    img = base.convert("RGB").quantize(29) if mode == "P" else base.convert(mode)
    src = tmp_path / "pil.tif"
    img.save(src, compression="tiff_lzw" if mode != "1" else "group4")
    got = parac_read(tmp_path, src)
    ref = Image.open(src)
    ref = np.asarray(ref.convert("RGB" if mode == "P" else ref.mode))
    if mode == "1":
        ref = ref.astype(np.uint8) * 255
    assert_same(got, ref)
