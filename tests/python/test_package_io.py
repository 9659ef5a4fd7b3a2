"""parac.imread / parac.imwrite against independent readers and writers
(OpenCV, NumPy), round trips in every format and dtype the library writes,
the errors; and parac.morphology.skeletonize_pf on a tube."""
import os
import sys

import numpy as np
import pytest

_dir = os.environ.get("PARAC_PYTHON_DIR")
if _dir:
    sys.path.insert(0, _dir)
parac = pytest.importorskip("parac", reason="the parac extension was not built (Python development files)")
pmorph = pytest.importorskip("parac.morphology")


def rng(seed=0):
    return np.random.default_rng(seed)


@pytest.mark.parametrize("ext", ["png", "tiff", "pgm", "npy", "nrrd"])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_gray_round_trip(tmp_path, ext, dtype):
    a = rng(1).integers(0, np.iinfo(dtype).max, (37, 53), dtype=dtype)
    p = tmp_path / ("a." + ext)
    parac.imwrite(p, a)
    b = parac.imread(p)
    assert b.dtype == a.dtype and b.shape == a.shape
    np.testing.assert_array_equal(b, a)


def test_against_opencv(tmp_path):
    cv2 = pytest.importorskip("cv2")
    rgb = rng(2).integers(0, 255, (31, 45, 3), dtype=np.uint8)
    parac.imwrite(tmp_path / "c.png", rgb)
    np.testing.assert_array_equal(cv2.imread(str(tmp_path / "c.png"), cv2.IMREAD_UNCHANGED)[..., ::-1], rgb)
    g16 = rng(3).integers(0, 65535, (20, 33), dtype=np.uint16)
    cv2.imwrite(str(tmp_path / "d.png"), g16)
    np.testing.assert_array_equal(parac.imread(tmp_path / "d.png"), g16)
    rgba = rng(4).integers(0, 255, (12, 17, 4), dtype=np.uint8)
    cv2.imwrite(str(tmp_path / "e.png"), rgba[..., [2, 1, 0, 3]])
    np.testing.assert_array_equal(parac.imread(tmp_path / "e.png"), rgba)
    img = rng(5).integers(0, 255, (64, 80), dtype=np.uint8)
    parac.imwrite(tmp_path / "f.jpg", img, quality=100)
    assert np.abs(cv2.imread(str(tmp_path / "f.jpg"), cv2.IMREAD_UNCHANGED).astype(int) - img).max() <= 8


def test_float_volumes_and_views(tmp_path):
    vol = rng(6).random((5, 19, 23), dtype=np.float32)
    for ext in ("tiff", "npy", "nrrd"):
        parac.imwrite(tmp_path / ("v." + ext), vol, compression=True)
        np.testing.assert_array_equal(parac.imread(tmp_path / ("v." + ext)), vol)
    a = rng(7).integers(0, 255, (40, 60), dtype=np.uint8)
    parac.imwrite(tmp_path / "w.png", a[::-2, 3:50:3])  # negative and strided views
    np.testing.assert_array_equal(parac.imread(tmp_path / "w.png"), a[::-2, 3:50:3])
    parac.imwrite(tmp_path / "b.png", a > 100)  # bool: 0 / 255
    np.testing.assert_array_equal(parac.imread(tmp_path / "b.png"), (a > 100).astype(np.uint8) * 255)
    hwc = np.load(tmp_path / "v.npy")[:3].transpose(1, 2, 0).copy()  # (19, 23, 3): channels by the rule
    parac.imwrite(tmp_path / "c.npy", hwc)
    assert parac.imread(tmp_path / "c.npy").shape == (19, 23, 3)
    assert parac.imread(tmp_path / "c.npy", layout="dhw").shape == (19, 23, 3)
    np.save(tmp_path / "n.npy", vol[:, :, :3].transpose(2, 0, 1).copy())  # a volume with 3 slices last
    assert parac.imread(tmp_path / "n.npy").shape == (3, 5, 19)


def test_io_errors(tmp_path):
    with pytest.raises(OSError, match="imread"):
        parac.imread(tmp_path / "missing.png")
    (tmp_path / "bad.png").write_bytes(b"\x89PNG\r\n\x1a\n broken")
    with pytest.raises(OSError):
        parac.imread(tmp_path / "bad.png")
    with pytest.raises(TypeError, match="element type"):
        parac.imwrite(tmp_path / "x.png", np.zeros((4, 4), np.int8))
    with pytest.raises(ValueError, match="dimensions"):
        parac.imwrite(tmp_path / "x.png", np.zeros(4, np.uint8))
    with pytest.raises(Exception):
        parac.imwrite(tmp_path / "x.png", np.zeros((4, 4), np.float32))  # PNG holds no floats
    assert not (tmp_path / "x.png").exists()  # nothing partly written


def test_skeletonize_pf_tube():
    z, y, x = np.mgrid[:40, :24, :24]
    tube = ((y - 12) ** 2 + (x - 12) ** 2 <= 25) & (z > 3) & (z < 36)
    skel, graph = pmorph.skeletonize_pf(tube, return_graph=True)
    assert skel.dtype == np.bool_ and skel.shape == tube.shape
    pts = np.argwhere(skel)
    assert len(pts) >= 20 and not (skel & ~tube).any()
    assert np.abs(pts[:, 1:] - 12).max() <= 1  # on the axis
    assert graph["nodes"] and graph["segments"]
    np.testing.assert_array_equal(skel, parac.skeleton(tube.astype(np.uint8)) > 0)
    with pytest.raises(ValueError, match="3D"):
        pmorph.skeletonize_pf(tube[0])
