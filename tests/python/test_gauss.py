"""Conformance of `parac gauss` and `parac convolve` with scipy.ndimage and
OpenCV: FIR methods exact to float32 rounding (f32 relative error <= 1e-5 of
the data range, fft <= 1e-4, integers <= 1 LSB), IIR methods within their
documented error of a true Gaussian, on random images of odd sizes, every
dtype, channel count and border mode, on every device."""
import numpy as np
import pytest
import scipy.ndimage as ndi

from conftest import DEVICES, random_image, run_parac

cv2 = pytest.importorskip("cv2")

SCIPY_MODE = {"reflect101": "mirror", "reflect": "reflect", "replicate": "nearest",
              "constant": "constant", "wrap": "grid-wrap"}
CV2_BORDER = {"reflect101": cv2.BORDER_REFLECT_101, "reflect": cv2.BORDER_REFLECT,
              "replicate": cv2.BORDER_REPLICATE, "constant": cv2.BORDER_CONSTANT}
FIR_METHODS = ["separable", "direct", "fft", "texture"]
DTYPES = ["uint8", "uint16", "float32"]
PARAC_DTYPE = {"uint8": "u8", "uint16": "u16", "float32": "f32"}
CVAL = 7.5


def method_params(methods):
    """texture exists only on CUDA."""
    out = []
    for dev in DEVICES:
        d = dev.values[0] if hasattr(dev, "values") else dev
        marks = dev.marks if hasattr(dev, "marks") else ()
        for m in methods:
            if m == "texture" and d == "cpu":
                continue
            out.append(pytest.param(d, m, marks=marks, id=f"{d}-{m}"))
    return out


def gauss(tmp_path, img, device, *args):
    src, dst = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(src, img)
    run_parac("--device", device, "gauss", src, dst, *[str(a) for a in args])
    return np.load(dst)


def reference(img, sigma_xyz, border, radius=None, truncate=4.0):
    """float64 scipy result; sigma 0 on channel axes."""
    img = img.astype(np.float64)
    sx, sy, sz = sigma_xyz
    vol = img.ndim == 4 or (img.ndim == 3 and img.shape[-1] > 4)
    chan = img.ndim == 4 or (img.ndim == 3 and img.shape[-1] <= 4)
    sig = ([sz] if vol else []) + [sy, sx] + ([0] if chan else [])
    kw = {"radius": radius} if radius is not None else {"truncate": truncate}
    return ndi.gaussian_filter(img, sig, mode=SCIPY_MODE[border], cval=CVAL, **kw)


def border_arg(border):
    return f"constant:{CVAL}" if border == "constant" else border


def check(out, ref, dtype, method, src_range):
    if dtype == "float32":
        tol = (1e-4 if method == "fft" else 1e-5) * src_range
        err = np.abs(out.astype(np.float64) - ref).max()
        assert err <= tol, f"max error {err} > {tol}"
    else:
        info = np.iinfo(dtype)
        want = np.clip(np.rint(ref), info.min, info.max)
        err = np.abs(out.astype(np.float64) - want).max()
        assert err <= 1, f"max error {err} LSB"


CASES = [  # (shape, sigma_x, sigma_y)
    ((23, 37), 1.3, 1.3),
    ((17, 29, 3), 0.5, 2.2),
    ((31, 19, 2), 2.7, 1.1),
    ((13, 41, 4), 5.0, 3.0),
]


@pytest.mark.parametrize("device,method", method_params(FIR_METHODS))
@pytest.mark.parametrize("border", list(SCIPY_MODE))
@pytest.mark.parametrize("dtype", DTYPES)
def test_fir_vs_scipy(tmp_path, rng, device, method, border, dtype):
    i = (list(SCIPY_MODE).index(border) + DTYPES.index(dtype)) % len(CASES)
    shape, sx, sy = CASES[i]
    img = random_image(rng, shape, dtype)
    out = gauss(tmp_path, img, device, "--sigma", sx, "--sigma-y", sy, "--border", border_arg(border),
                "--method", method)
    assert out.dtype == img.dtype and out.shape == img.shape
    ref = reference(img, (sx, sy, 0), border)
    rng_ = 200.0 if dtype == "float32" else np.iinfo(dtype).max
    check(out, ref, dtype, method, rng_)


@pytest.mark.parametrize("device,method", method_params(["separable", "fft", "texture", "direct"]))
@pytest.mark.parametrize("border", list(SCIPY_MODE))
def test_radius_larger_than_image(tmp_path, rng, device, method, border):
    img = random_image(rng, (9, 7), "float32")
    sigma = 50 if method != "direct" else 6
    out = gauss(tmp_path, img, device, "--sigma", sigma, "--border", border_arg(border), "--method", method)
    ref = reference(img, (sigma, sigma, 0), border)
    check(out, ref, "float32", method, 200.0)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("sigma", [0.5, 3.0, 20.0])
def test_output_dtype_and_radius(tmp_path, rng, device, sigma):
    img = random_image(rng, (45, 33), "uint8")
    out = gauss(tmp_path, img, device, "--sigma", sigma, "--dtype", "f32", "--radius", 4)
    assert out.dtype == np.float32
    ref = reference(img, (sigma, sigma, 0), "reflect101", radius=4)
    check(out, ref, "float32", "separable", 255.0)
    out = gauss(tmp_path, img.astype(np.float32) * 300, device, "--sigma", sigma, "--dtype", "u8",
                "--truncate", 2.5)
    ref = reference(img.astype(np.float32) * 300, (sigma, sigma, 0), "reflect101", truncate=2.5)
    check(out, ref, "uint8", "separable", 255.0)  # saturates to 255 like the reference clip


@pytest.mark.parametrize("device,method", method_params(FIR_METHODS))
def test_3d_volume(tmp_path, rng, device, method):
    img = random_image(rng, (7, 11, 13), "float32")
    out = gauss(tmp_path, img, device, "--sigma", 1.2, "--sigma-y", 0.8, "--sigma-z", 1.7,
                "--border", "reflect", "--method", method)
    ref = reference(img, (1.2, 0.8, 1.7), "reflect")
    check(out, ref, "float32", method, 200.0)
    # sigma-z 0: slices filtered alone
    out = gauss(tmp_path, img, device, "--sigma", 2, "--sigma-z", 0, "--method", method)
    ref = reference(img, (2, 2, 0), "reflect101")
    check(out, ref, "float32", method, 200.0)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("border", list(CV2_BORDER))
@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_vs_cv2_gaussianblur(tmp_path, rng, device, border, dtype):
    img = random_image(rng, (51, 43, 3), dtype)
    sigma = 2.3
    r = int(4 * sigma + 0.5)
    out = gauss(tmp_path, img, device, "--sigma", sigma, "--border", border, "--method", "separable")
    ref = cv2.GaussianBlur(img, (2 * r + 1, 2 * r + 1), sigma, borderType=CV2_BORDER[border])
    err = np.abs(out.astype(np.float64) - ref.astype(np.float64)).max()
    # OpenCV's u8 path uses 8-bit fixed-point weights (up to ~1.2 LSB off the float result)
    assert err <= (2 if dtype == "uint8" else 1e-5 * 200), err


@pytest.mark.parametrize("device,method", method_params(["recursive", "yvv", "deriche2"]))
@pytest.mark.parametrize("border", list(SCIPY_MODE))
def test_iir_vs_true_gaussian(tmp_path, rng, device, method, border):
    img = random_image(rng, (37, 45, 2), "float32")
    out = gauss(tmp_path, img, device, "--sigma", 4, "--sigma-y", 3, "--border", border_arg(border),
                "--method", method)
    ref = reference(img, (4, 3, 0), border, truncate=12)
    err = np.abs(out - ref).max() / 200.0
    tol = {"recursive": 2e-3, "yvv": 0.1, "deriche2": 0.15}[method]
    assert err <= tol, err


@pytest.mark.parametrize("device,method", method_params(["recursive", "yvv", "deriche2"]))
def test_iir_3d_and_dtypes(tmp_path, rng, device, method):
    tol = {"recursive": 3e-3, "yvv": 0.12, "deriche2": 0.2}[method]
    vol = random_image(rng, (9, 13, 11), "float32")
    out = gauss(tmp_path, vol, device, "--sigma", 2.5, "--sigma-z", 1.5, "--border", "reflect", "--method", method)
    ref = reference(vol, (2.5, 2.5, 1.5), "reflect", truncate=12)
    assert np.abs(out - ref).max() / 200.0 <= tol
    img = random_image(rng, (21, 27, 3), "uint16")
    out = gauss(tmp_path, img, device, "--sigma", 3, "--border", "replicate", "--method", method)
    assert out.dtype == np.uint16
    ref = reference(img, (3, 3, 0), "replicate", truncate=12)
    assert np.abs(out - ref).max() / 65535.0 <= tol


@pytest.mark.parametrize("device", DEVICES)
def test_recursive_stable_large_sigma(tmp_path, device):
    step = np.zeros((3, 1201), np.float32)
    step[:, 600:] = 100.0
    out = gauss(tmp_path, step, device, "--sigma", 200, "--sigma-y", 0, "--border", "replicate",
                "--method", "recursive")
    ref = ndi.gaussian_filter1d(step.astype(np.float64), 200, axis=1, mode="nearest", truncate=8)
    assert np.abs(out - ref).max() / 100.0 < 2e-3


@pytest.mark.parametrize("device", DEVICES)
def test_auto_and_explain(tmp_path, rng, device):
    img = random_image(rng, (33, 35), "float32")
    src, dst = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(src, img)
    r = run_parac("--device", device, "gauss", src, dst, "--sigma", 2, "--explain")
    assert "gauss: method '" in r.stdout + r.stderr
    check(np.load(dst), reference(img, (2, 2, 0), "reflect101"), "float32", "fft", 200.0)
    # a loose tolerance may pick an IIR method, which stays within it
    run_parac("--device", device, "gauss", src, dst, "--sigma", 8, "--tolerance", 0.01)
    err = np.abs(np.load(dst) - reference(img, (8, 8, 0), "reflect101")).max() / 200.0
    assert err <= 0.01


def test_errors(tmp_path, rng):
    img = random_image(rng, (9, 9), "float32")
    src, dst = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(src, img)
    for args, text in ((["--sigma", -1], "sigma"), (["--sigma", 1, "--method", "texture"], "not available"),
                       (["--sigma", 1, "--border", "mirrorr"], "border"), ([], "sigma"),
                       (["--sigma", 1, "--radius", 10**9], "radius")):
        r = run_parac("--device", "cpu", "gauss", src, dst, *args, check=False)
        assert r.returncode != 0 and text in r.stderr, r.stderr
        assert not dst.exists()


# ---- convolve ---------------------------------------------------------------

@pytest.mark.parametrize("device,method", method_params(["direct", "fft"]))
@pytest.mark.parametrize("fmt", ["npy", "txt"])
@pytest.mark.parametrize("border", list(SCIPY_MODE))
def test_convolve_2d(tmp_path, rng, device, method, fmt, border):
    img = random_image(rng, (27, 33, 3), "float32")
    k = rng.random((5, 4)) - 0.3  # even width: anchor at column 2
    kf = tmp_path / f"k.{fmt}"
    np.save(kf, k.astype(np.float32)) if fmt == "npy" else np.savetxt(kf, k, fmt="%.9g")
    src, dst = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(src, img)
    run_parac("--device", device, "convolve", src, dst, "--kernel", kf, "--border", border_arg(border),
              "--method", method)
    kk = np.loadtxt(kf, ndmin=2) if fmt == "txt" else k.astype(np.float32).astype(np.float64)
    ref = ndi.correlate(img.astype(np.float64), kk[:, :, None], mode=SCIPY_MODE[border], cval=CVAL)
    err = np.abs(np.load(dst) - ref).max()
    assert err <= (1e-4 if method == "fft" else 1e-5) * 200 * np.abs(kk).sum(), err


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_convolve_separable_vs_sepfilter2d(tmp_path, rng, device, dtype):
    img = random_image(rng, (29, 35), dtype)
    kx, ky = np.array([0.1, 0.2, 0.4, 0.2, 0.1]), np.array([0.25, 0.5, 0.25])
    src, dst = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(src, img)
    run_parac("--device", device, "convolve", src, dst, "--kernel-x", ",".join(map(str, kx)),
              "--kernel-y", ",".join(map(str, ky)), "--dtype", "f32", "--border", "replicate")
    ref = cv2.sepFilter2D(img.astype(np.float32), cv2.CV_32F, kx.astype(np.float32), ky.astype(np.float32),
                          borderType=cv2.BORDER_REPLICATE)
    rng_ = 200.0 if dtype == "float32" else np.iinfo(dtype).max
    assert np.abs(np.load(dst) - ref).max() <= 2e-6 * rng_


def test_convolve_bad_kernel(tmp_path, rng):
    img = random_image(rng, (9, 9), "float32")
    src, dst = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(src, img)
    bad = tmp_path / "bad.txt"
    bad.write_text("1 2 3\n4 five 6\n")
    ragged = tmp_path / "ragged.txt"
    ragged.write_text("1 2 3\n4 5\n")
    for args in (["--kernel", bad], ["--kernel", ragged], ["--kernel", tmp_path / "missing.npy"], [],
                 ["--kernel", "1,2", "--kernel-x", "1,2"], ["--kernel", "1,2,1", "--method", "separable"]):
        r = run_parac("--device", "cpu", "convolve", src, dst, *args, check=False)
        assert r.returncode != 0 and "error" in r.stderr, r.stderr
        assert not dst.exists()
