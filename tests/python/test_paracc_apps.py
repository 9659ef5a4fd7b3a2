"""The ParaC application suite (examples/apps/): each app through
parac.compile on every target this machine has (C at -O2 and -O0; OpenCL
wherever the CLI lists a device: PoCL here and in CI, NVIDIA's on the GPU
machine; CUDA where a CUDA device exists) on random images of odd sizes,
against the independent references of app_refs.py (NumPy, scipy, OpenCV)."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from test_package_compile import _cuda_present, _opencl_present, parac  # noqa: E402
import app_refs  # noqa: E402

APPS = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "apps")
VARIANTS = [("c", ()), ("c", ("-O0",)),
            pytest.param("opencl", (), marks=pytest.mark.skipif(not _opencl_present(), reason="no OpenCL device")),
            pytest.param("opencl", ("-O0",), marks=pytest.mark.skipif(not _opencl_present(), reason="no OpenCL device")),
            pytest.param("cuda", (), marks=pytest.mark.skipif(not _cuda_present(), reason="no CUDA device")),
            pytest.param("cuda", ("-O0",), marks=pytest.mark.skipif(not _cuda_present(), reason="no CUDA device"))]
SIZES = [(23, 37), (64, 45)]
_programs = {}


def program(name, target, flags):
    key = (name, target, flags)
    if key not in _programs:
        _programs[key] = parac.compile(os.path.join(APPS, name + ".pc"), target, flags=flags)
    return _programs[key]


def rgb(rng, shape, dtype=np.float32):
    if dtype == np.uint8:
        return rng.integers(0, 256, (3,) + shape).astype(np.uint8)
    return rng.random((3,) + shape).astype(np.float32)


def close(got, want, rel):
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=rel, atol=rel * scale)


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_harris(target, flags):
    rng = np.random.default_rng(1)
    for shape in SIZES + [(7, 7)]:
        img = rgb(rng, shape)
        got = program("harris", target, flags).harris(img)
        assert got.shape == (shape[0] - 6, shape[1] - 6)
        # det - 0.04 trace^2 cancels: float32 errors scale with the products' size
        close(got, app_refs.harris(img), 2e-5)


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_stencil_chain(target, flags):
    rng = np.random.default_rng(2)
    for shape in [(41, 57), (64, 45), (33, 33)]:
        img = rng.integers(0, 65536, shape).astype(np.uint16)
        got = program("stencil_chain", target, flags).stencil_chain(img)
        np.testing.assert_array_equal(got, app_refs.stencil_chain(img))


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_hist(target, flags):
    rng = np.random.default_rng(3)
    for shape in SIZES:
        img = rgb(rng, shape, np.uint8)
        img[:, : shape[0] // 3] = img[0, : shape[0] // 3]  # grey rows: Y lands on integers
        got = program("hist", target, flags).hist(img)
        want = app_refs.hist(img)
        # float32 as the reference, operation by operation. OpenCL C and CUDA
        # contract a*b + c into one rounding (as Halide does on GPUs), which
        # can move a grey pixel's Y = 0.299 v + 0.587 v + 0.114 v across the
        # integer v: its bin by one, so the cdf of the bins between by a few
        # counts, and those pixels' outputs by up to 2 levels
        diff = np.abs(got.astype(int) - want)
        limit, share = (1, 500) if target == "c" else (2, 10)
        assert diff.max() <= limit and np.count_nonzero(diff) <= max(2, diff.size // share), (
            diff.max(), np.count_nonzero(diff))


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_median5(target, flags):
    ndimage = pytest.importorskip("scipy.ndimage")
    rng = np.random.default_rng(4)
    for shape in SIZES + [(5, 9), (2, 3)]:
        img = rng.integers(0, 256, shape).astype(np.uint8)
        got = program("median5", target, flags).median5(img)
        np.testing.assert_array_equal(got, ndimage.median_filter(img, size=5, mode="nearest"))
        try:
            import cv2
        except ImportError:
            continue
        if min(shape) >= 5:
            np.testing.assert_array_equal(got, cv2.medianBlur(img, 5))


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_nl_means(target, flags):
    rng = np.random.default_rng(8)
    for shape in SIZES + [(1, 5), (9, 2), (37, 141)]:  # (37, 141): work-groups' tiles along both axes
        clean = np.linspace(0, 1, shape[0] * shape[1]).reshape(shape)
        img = np.clip(clean + rng.normal(0, 0.1, (3,) + shape), 0, 1).astype(np.float32)  # a ramp under noise
        for sigma in (0.12, 0.5):
            got = program("nl_means", target, flags).nl_means(img, sigma=sigma)
            assert got.shape == img.shape and got.dtype == np.float32
            close(got, app_refs.nl_means(img, sigma), 1e-5)


@pytest.mark.parametrize("rows", ["1", "3", "7"])
def test_strips_of_rows(rows, monkeypatch, tmp_path):
    """The C target's strips of rows (forced at any size by PARAC_STRIP_ROWS):
    harris' stages over three row ranges, stencil_chain's eight stages writing
    two matrices in turn (each rewritten while an earlier stage's values are
    still read), nl_means' three (the third writing a 3D matrix no other reads)."""
    import subprocess
    from conftest import PARAC

    if PARAC is not None:
        paracc = os.path.join(os.path.dirname(str(PARAC)), "paracc")
        for name, stages in (("harris", 3), ("stencil_chain", 8), ("nl_means", 3)):
            r = subprocess.run([paracc, os.path.join(APPS, name + ".pc"), "--target", "c", "--explain",
                                "-o", str(tmp_path / name)], capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            assert "strips of rows: stage 1 of %d iterators" % stages in r.stdout, name
    monkeypatch.setenv("PARAC_STRIP_ROWS", rows)
    rng = np.random.default_rng(11)
    for shape in [(61, 43), (47, 70)]:
        img = rgb(rng, shape)
        close(program("harris", "c", ()).harris(img), app_refs.harris(img), 2e-5)
        u16 = rng.integers(0, 65536, shape).astype(np.uint16)
        np.testing.assert_array_equal(program("stencil_chain", "c", ()).stencil_chain(u16), app_refs.stencil_chain(u16))
        clean = np.linspace(0, 1, shape[0] * shape[1]).reshape(shape)
        noisy = np.clip(clean + rng.normal(0, 0.1, (3,) + shape), 0, 1).astype(np.float32)
        close(program("nl_means", "c", ()).nl_means(noisy, sigma=0.3), app_refs.nl_means(noisy, 0.3), 1e-5)


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_max_filter(target, flags):
    rng = np.random.default_rng(5)
    for shape in [(23, 37), (70, 61), (3, 80)]:
        img = rgb(rng, shape)
        got = program("max_filter", target, flags).max_filter(img)
        np.testing.assert_array_equal(got, app_refs.max_filter(img).astype(np.float32))


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_resize(target, flags):
    rng = np.random.default_rng(6)
    for shape, out in [((23, 37), (50, 19)), ((64, 45), (32, 90)), ((1, 5), (3, 3)), ((40, 40), (40, 40))]:
        img = rgb(rng, shape)
        got = program("resize", target, flags).resize(img, OH=out[0], OW=out[1])
        assert got.shape == (3,) + out
        close(got, app_refs.resize(img, *out), 1e-5)
        try:
            import cv2
        except ImportError:
            continue
        want = np.stack([cv2.resize(p, (out[1], out[0]), interpolation=cv2.INTER_LINEAR) for p in img])
        close(got, want, 1e-4)


def test_macro_comments_and_numbers_name_no_matrix():
    """A #define whose comment mentions a matrix, or whose number has letters
    that spell one (0x1F, 1e2f), is not a macro that indexes it (max_filter.pc's
    PAD was refused because its comment said 'slice')."""
    src = """
#define PAD 1        /* one row of in above and below */
#define MASK 0x1F    // bits of in
#define SCALE 1e0f
void m(int H, int W, int parac_matrix &in[H][W], int parac_matrix &out[H][W])
{
    int parac_matrix x1F[1][1];   /* what the letters of 0x1F would spell */
    parac_iterator s(0:H; 0:W) { out[sx][sy] = (in[sx][sy] & MASK) * PAD * (int)SCALE; }
}
"""
    a = np.arange(35, dtype=np.int32).reshape(5, 7) * 3
    np.testing.assert_array_equal(parac.compile(src, "c").m(a), a & 0x1F)
    # a macro whose body does index the matrix is expanded where it is used
    np.testing.assert_array_equal(parac.compile(src.replace("#define SCALE 1e0f", "#define SCALE in[1][1]"), "c").m(a),
                                  (a & 0x1F) * a[1, 1])


_MATRIX_MACROS = """
#define ACROSS(g, r, c) (g[r][c] + g[r][(c) + 1] * 2 + g[r][(c) + 2])   /* a matrix as an argument */
#define AT(r, c) src[r][c]                                              /* a matrix in the body */
#define SRC src
#define TWICE(x) (2 * (x))                                              /* a macro of values: left to cc */
#define CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))
#define ROWSUM(m, r) (ACROSS(m, r, 0) + AT(r, 0))                       /* macros of such macros */
#define CENTRE(r, c) AT((r), (c))               /* a matrix only through another macro's body */
#define LATER(r, c) NEXT(r, c)                  /* through a macro defined after it, as C expands at the use */
#define NEXT(r, c) src[r][(c) + 1]
void f(int H, int W, float parac_matrix &src[H][W], float parac_matrix &dst[H][W - 2], float parac_matrix &e[H][W])
{
    parac_iterator s(0:H; 0:W - 2) {
        dst[sx][sy] = ACROSS(src, sx, sy) + TWICE(AT(sx, sy)) + CLAMP(SRC[sx][sy], 0.0f, 1.0f) + ROWSUM(SRC, sx) +
                      CENTRE(sx, sy) + LATER(sx, sy);
    }
    parac_iterator t(0:H; 0:W) { e[tx][ty] = TWICE(src[tx][ty]); }
}
"""


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_macros_that_name_matrices(target, flags):
    """Macros that name a matrix (in the body, or a matrix passed itself) are
    expanded by paracc where they are used; others reach the C compiler."""
    rng = np.random.default_rng(13)
    x = (rng.random((9, 13)) * 1.4 - 0.2).astype(np.float32)
    got = parac.compile(_MATRIX_MACROS, target, flags=flags).f(x)
    dst, e = (got["dst"], got["e"]) if isinstance(got, dict) else got
    rowsum = x[:, 0] + 2 * x[:, 1] + x[:, 2] + x[:, 0]
    want = x[:, :-2] + 2 * x[:, 1:-1] + x[:, 2:] + 2 * x[:, :-2] + np.clip(x[:, :-2], 0, 1) + rowsum[:, None] + \
        x[:, :-2] + x[:, 1:-1]
    close(dst, want, 1e-6)
    close(e, 2 * x, 0)


_MACRO_PASSED = """
#define AT(r, c) src[r][c]
#define APPLY(P, r, c) (P((r), (c)) + P((r), (c) + 1))
void f(int H, int W, float parac_matrix &src[H][W], float parac_matrix &dst[H - 1][W - 1])
{
    parac_iterator s(0:H - 1; 0:W - 1) { dst[sx][sy] = APPLY(AT, sx, sy) + APPLY(AT, sx + 1, sy); }
}
"""


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_macro_passed_to_a_macro(target, flags):
    """A macro that names a matrix, passed to another macro by name
    (APPLY(AT, ...): APPLY's body calls AT once the argument is in place), is
    expanded by paracc like the others: it once reached the generated code as
    written, where the matrix is a pointer (harris.pc's SUM3X3(XX))."""
    rng = np.random.default_rng(17)
    x = (rng.random((11, 9)) * 2 - 1).astype(np.float32)
    got = parac.compile(_MACRO_PASSED, target, flags=flags).f(x)
    dst = got["dst"] if isinstance(got, dict) else got
    close(dst, x[:-1, :-1] + x[:-1, 1:] + x[1:, :-1] + x[1:, 1:], 1e-6)


_MACRO_WINDOWS = """
#define PATCH 5
#define R (PATCH / 2)   /* a macro of macros */
#define EVERY 2
#define TAPS (R + 1)
void w(int H, int W, float parac_matrix &in[H][W], float parac_matrix &out[H - 2 * R][W - 2 * R])
{
    parac_iterator s(0:H - 2 * R; 0:W - 2 * R) {
        out[sx][sy] = parac_matrix_sum(in[sx:PATCH][sy:PATCH]) + parac_matrix_max(in[sx:TAPS:EVERY][sy + R:1]);
    }
}
"""


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_macro_constants_in_windows(target, flags):
    """Window lengths and strides from object-like macros of constant value
    (nl_means.pc had to spell 7 where its PATCH said it), as C's preprocessor
    evaluates them, and from enumeration constants; a macro defined twice has
    no one value and stays refused."""
    a = np.random.default_rng(9).random((19, 23)).astype(np.float32)
    H, W = a.shape
    box = sum(a[i:H - 4 + i, j:W - 4 + j] for i in range(5) for j in range(5))
    peak = np.maximum(np.maximum(a[0:H - 4, 2:W - 2], a[2:H - 2, 2:W - 2]), a[4:H, 2:W - 2])
    got = parac.compile(_MACRO_WINDOWS, target, flags=flags).w(a)
    np.testing.assert_allclose(got, box + peak, rtol=1e-6)
    # the same constants from a file-scope enumeration (TAPS: the one before plus 1)
    enum = "enum { PATCH = 5, R = PATCH / 2, /* a comment */ EVERY = 2, TAPS };\n" + \
        _MACRO_WINDOWS[_MACRO_WINDOWS.index("void w"):]
    got = parac.compile(enum, target, flags=flags).w(a)
    np.testing.assert_allclose(got, box + peak, rtol=1e-6)
    if target == "c" and not flags:
        twice = _MACRO_WINDOWS.replace("#define EVERY 2", "#define EVERY 2\n#undef PATCH\n#define PATCH 5")
        with pytest.raises(ValueError, match="a window length must be a constant"):
            parac.compile(twice, "c")


def _table_program():
    curve = [(i * 37) % 1000 for i in range(1024)]
    gain = [round(0.25 * ((i * 7) % 41), 2) for i in range(4 * 300)]
    src = """#include <stdint.h>
void lut(int H, int W, uint16_t parac_matrix &in[H][W], float parac_matrix &out[H][W])
{
    int parac_matrix curve[1][1024] = {%s};      /* a table: in the device's memory */
    float parac_matrix gain[4][300] = {%s};
    int parac_matrix small[2][3] = {1, 2, 3, 4, 5, 6};  /* small: an array of each kernel */
    parac_iterator s(0:H; 0:W) {
        int v = in[sx][sy];
        out[sx][sy] = curve[0][v & 1023] * gain[sx & 3][v %% 300] + small[sx & 1][sy %% 3];
    }
}
""" % (", ".join(map(str, curve)), ", ".join("%.2ff" % g for g in gain))
    return src, np.array(curve), np.array(gain, np.float32).reshape(4, 300)


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_tables_of_many_values(target, flags):
    """Constant matrices of up to 65536 values gathered at indices read from
    data: a 1024-entry curve and a 4 x 300 float table (kept once in the
    device's memory), beside a small one (an array of each kernel)."""
    src, curve, gain = _table_program()
    a = np.random.default_rng(7).integers(0, 65536, (37, 53)).astype(np.uint16)
    rows, cols = np.arange(37)[:, None], np.arange(53)[None, :]
    small = np.array([[1, 2, 3], [4, 5, 6]])
    want = curve[a & 1023].astype(np.float32) * gain[rows & 3, a % 300] + small[rows & 1, cols % 3]
    got = parac.compile(src, target, flags=flags).lut(a)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_tables_have_a_limit():
    src = "void f(int H, int W, int parac_matrix &o[H][W]) { int parac_matrix t[300][300] = {1}; " \
          "parac_iterator s(0:H; 0:W) { o[sx][sy] = t[sx][sy]; } }"
    with pytest.raises(ValueError, match="constant matrix 't' needs constant sizes of at most 65536 values"):
        parac.compile(src, "c")


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_interpolate(target, flags):
    rng = np.random.default_rng(9)
    for shape, levels in (((23, 37), 10), ((64, 45), 4), ((1, 1), 3), ((2, 7), 1), ((130, 9), 6), ((17, 29), 5), ((9, 12), 2),
                          ((40, 33), 7), ((301, 257), 9), ((1030, 1031), 5)):
        img = rng.random((4,) + shape).astype(np.float32)
        img[3] = rng.random(shape) < 0.6  # alpha 0 or 1: holes the coarser levels fill
        got = program("interpolate", target, flags).interpolate(img, levels=levels)
        want = app_refs.interpolate(img, levels)
        assert got.shape == (3,) + shape
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6, err_msg=str((shape, levels)))


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_local_laplacian(target, flags):
    rng = np.random.default_rng(10)
    for shape, levels, J, alpha, beta in (((23, 37), 8, 8, 1.0, 1.0), ((64, 45), 5, 4, 2.0, 0.5), ((1, 1), 8, 3, 1.0, 1.0),
                                          ((3, 2), 2, 1, 0.5, 1.5), ((130, 9), 8, 6, 1.0, 0.25)):
        img = rng.integers(0, 65536, (3,) + shape).astype(np.uint16)
        got = program("local_laplacian", target, flags).local_laplacian(img, levels=levels, alpha=alpha, beta=beta, J=J)
        want = app_refs.local_laplacian(img, levels, alpha, beta, J)
        # float32 as the app; expf and, in kernels, contracted a*b+c move a value across a
        # step of 1/65535 here and there. The remapping's index truncates the luminance
        # times 256 (levels - 1): where that lies within rounding of an integer, one more
        # ulp moves the index, and the output there and next to it, by about 256 steps
        diff = np.abs(got.astype(np.int64) - want)
        share = 200 if target == "c" else 50
        assert np.count_nonzero(diff) <= max(2, diff.size // share), (shape, np.count_nonzero(diff))
        far = np.abs(diff).max(axis=0) > 1
        if far.any():
            g = img.astype(np.float64) / 65535
            t = (0.299 * g[0] + 0.587 * g[1] + 0.114 * g[2]) * (levels - 1) * 256
            step = np.abs(t - np.round(t)) < 1e-3
            near = np.zeros_like(step)
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    near |= np.roll(np.roll(step, dr, 0), dc, 1)
            assert not (far & ~near).any(), (shape, diff.max(), np.argwhere(far & ~near)[:5])


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_bilateral_grid(target, flags):
    rng = np.random.default_rng(11)
    # r_sigma 0.05: more bins than a cell's arrays hold (the gathering form)
    for shape, r_sigma in (((23, 37), 0.1), ((64, 45), 0.25), ((1, 1), 0.1), ((2, 9), 0.07), ((130, 17), 1.0),
                           ((31, 29), 0.05)):
        # intensities a little beyond 0..1 on both sides: the app clamps them
        img = (rng.random(shape) * 1.2 - 0.1).astype(np.float32)
        got = program("bilateral_grid", target, flags).bilateral_grid(img, r_sigma=r_sigma)
        assert got.shape == shape
        np.testing.assert_allclose(got, app_refs.bilateral_grid(img, r_sigma), rtol=1e-4, atol=1e-5,
                                   err_msg=str((shape, r_sigma)))


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_pyramid_blending(target, flags):
    rng = np.random.default_rng(12)
    for shape, levels in (((23, 37), 4), ((64, 45), 3), ((1, 1), 4), ((2, 7), 1), ((130, 9), 5), ((5, 3), 2)):
        a, b = rgb(rng, shape), rgb(rng, shape)
        mask = np.zeros(shape, np.float32)
        mask[: shape[0] * 2 // 5] = 1.0                       # PolyMage's mask: one side of a row
        mask += (rng.random(shape) * 0.2).astype(np.float32)  # and soft values
        got = program("pyramid_blending", target, flags).pyramid_blending(a, b, mask, levels=levels)
        assert got.shape == (3,) + shape
        np.testing.assert_allclose(got, app_refs.pyramid_blending(a, b, mask, levels), rtol=1e-5, atol=2e-6,
                                   err_msg=str((shape, levels)))


# the colour matrices of Halide's camera_pipe test (the Nokia N900's sensor, from FCam), rows r, g, b
M3200 = np.array([[1.6697, -0.2693, -0.4004, -42.4346], [-0.3576, 1.0615, 1.5949, -37.1158],
                  [-0.2175, -1.8751, 6.9640, -26.6970]], np.float32)
M7000 = np.array([[2.2997, -0.4478, 0.1706, -39.0923], [-0.3826, 1.5906, -0.2080, -25.4311],
                  [-0.0888, -0.7344, 2.2832, -20.0826]], np.float32)


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_camera_pipe(target, flags):
    rng = np.random.default_rng(13)
    # output sizes (the raw image is 24 rows and 32 columns larger); the app's parameters
    # (colour temperature, gamma, contrast, sharpening, black and white levels): Halide's
    # test, others, a strength whose mask x strength wraps in 16 bits, full 16-bit raw values
    cases = (((23, 37), (3700, 2.0, 50, 1.0, 25, 1023), 1023), ((64, 45), (5000, 1.8, 30, 3.0, 64, 900), 1023),
             ((1, 1), (3700, 2.0, 50, 1.0, 25, 1023), 1023), ((2, 7), (2500, 2.2, 80, 0.5, 0, 1000), 1023),
             ((40, 9), (7000, 2.0, 50, 7.5, 25, 1023), 1023), ((16, 16), (3700, 2.0, 50, 1.0, 25, 1023), 65535))
    for shape, params, top in cases:
        raw = rng.integers(0, top + 1, (shape[0] + 24, shape[1] + 32)).astype(np.uint16)
        raw[rng.random(raw.shape) < 0.02] = top  # hot pixels
        names = ("color_temp", "gamma", "contrast", "sharpen_strength", "black_level", "white_level")
        got = program("camera_pipe", target, flags).camera_pipe(raw, M3200, M7000, **dict(zip(names, params)))
        want = app_refs.camera_pipe(raw, M3200, M7000, *params)
        assert got.shape == (3,) + shape
        # the integer stages are exact; the tone curve is float32 with powf, whose last bit may
        # differ between libraries and under contraction: a curve entry moved by one moves the
        # sharpened pixel and its neighbours by at most 2 + strength
        diff = np.abs(got.astype(np.int64) - want)
        assert diff.max() <= 2 + params[3], (shape, params, diff.max())
        assert np.count_nonzero(diff) <= max(2, diff.size // 100), (shape, params, np.count_nonzero(diff))


# The suite's program of a window of run-time length (bench/parac/suite/box_windows.pc): a 9 x 9
# mean, edges mirrored, with the length a constant and a run-time value, against scipy.
@pytest.mark.parametrize("target,flags", VARIANTS)
def test_box_windows(target, flags):
    import scipy.ndimage as nd

    prog = parac.compile(os.path.join(APPS, "..", "..", "bench", "parac", "suite", "box_windows.pc"), target,
                         flags=flags)
    rng = np.random.default_rng(12)
    for shape in ((23, 37), (64, 9), (10, 130)):
        a = rng.random(shape).astype(np.float32)
        want = nd.uniform_filter(a.astype(np.float64), size=9, mode="mirror")
        np.testing.assert_allclose(prog.box9_const(a), want, rtol=1e-5, atol=1e-6, err_msg=str(shape))
        for r in (0, 1, 4):
            want = nd.uniform_filter(a.astype(np.float64), size=2 * r + 1, mode="mirror")
            np.testing.assert_allclose(prog.box_run_time(a, r=r), want, rtol=1e-5, atol=1e-6, err_msg=str((shape, r)))
