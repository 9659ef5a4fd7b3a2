"""Operations on images in host memory streamed through the GPU in bands of
rows (src/cuda/stream_rows.c), marked gpu: with bands forced to 1, 2, 3, 7
and 64 rows (slices), every streamed call equals the same call on the image
already on the GPU bit for bit: gauss by its separable, direct and texture
methods, convolve by direct and separable kernels (even sizes, off-centre
anchors), convert; odd sizes, u8 / u16 / f32, 2D and 3D, interleaved
channels, every border rule,
outputs of another dtype, into a caller's array; and the calls that must not
stream (IIR, FFT, a wrapped border, minmax scaling) still equal it. The CLI's
--explain says which calls streamed and in how many bands."""
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.gpu

_dir = os.environ.get("PARAC_PYTHON_DIR")
_bin = os.environ.get("PARAC_BIN")

SCRIPT = r"""
import numpy as np, cupy, parac
r = np.random.default_rng(11)
shapes = [(97, 61), (300, 37), (2, 40), (9, 31, 45), (14, 20, 17)]
dtypes = [np.uint8, np.uint16, np.float32]
def image(shape, dt):
    if dt == np.float32:
        return (r.random(shape) * 100 - 20).astype(dt)
    return (r.random(shape) * (250 if dt == np.uint8 else 60000)).astype(dt)
def same(fn, a, what, **kw):
    streamed = fn(a, device="cuda", **kw)
    whole = fn(cupy.asarray(a), **kw)
    whole = cupy.asnumpy(whole)
    assert streamed.dtype == whole.dtype and streamed.shape == whole.shape, what
    assert np.array_equal(streamed, whole, equal_nan=True), (what, np.abs(streamed.astype(float) - whole).max())
n = 0
for shape in shapes:
    for dt in dtypes:
        a = image(shape, dt)
        for method in ("separable", "direct", "texture"):
            for border in ("reflect101", "reflect", "replicate", "constant:7"):
                same(parac.gauss, a, (shape, dt, method, border), sigma=1.7, border=border, method=method); n += 1
        same(parac.gauss, a, (shape, dt, "sy"), sigma=0.8, sigma_y=3.1, method="separable"); n += 1
        same(parac.gauss, a, (shape, dt, "radius"), sigma=2.0, radius=5, dtype="f32"); n += 1
        same(parac.gauss, a, (shape, dt, "auto"), sigma=2.5); n += 1
        for method in ("recursive", "fft"):                      # not streamed: same result
            same(parac.gauss, a, (shape, dt, method), sigma=2.0, method=method); n += 1
        same(parac.gauss, a, (shape, dt, "wrap"), sigma=2.0, border="wrap", method="separable"); n += 1
        same(parac.convolve, a, (shape, dt, "k2d"), kernel="1,2,1;0,3,0;-1,0,1;2,2,2", dtype="f32"); n += 1
        same(parac.convolve, a, (shape, dt, "kxy"), kernel_x="1,2,3,4", kernel_y="1,0,0,0,2,1",
             method="separable", border="replicate", dtype="f32"); n += 1
        same(parac.convert, a, (shape, dt, "convert"), dtype="f32"); n += 1
        same(parac.convert, a, (shape, dt, "minmax"), dtype="u8", scale="minmax"); n += 1
# interleaved channels
c = image((50, 41, 3), np.uint8)
same(parac.gauss, c, "channels", sigma=1.5, channel_axis=-1, method="separable"); n += 1
same(parac.convolve, c, "channels", kernel="1,2;3,4;5,6", channel_axis=-1, dtype="f32"); n += 1
# into a caller's array, and an input of another layout (a slice with a pitch)
a = image((301, 203), np.float32)
out = np.full((301, 203), -1, np.float32)
got = parac.gauss(a, sigma=2.2, device="cuda", out=out)
assert np.array_equal(out, cupy.asnumpy(parac.gauss(cupy.asarray(a), sigma=2.2))); n += 1
v = image((200, 333), np.uint8)[:, 7:300]
assert np.array_equal(parac.gauss(v, sigma=1.2, device="cuda"), cupy.asnumpy(parac.gauss(cupy.asarray(v), sigma=1.2))); n += 1
print("ok", n)
"""


def _run(args, rows, **extra):
    env = dict(os.environ, PARAC_STREAM_ROWS=str(rows), **extra)
    if _dir:
        env["PYTHONPATH"] = os.pathsep.join([_dir] + [p for p in [env.get("PYTHONPATH")] if p])
    r = subprocess.run(args, capture_output=True, text=True, env=env, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    return r


@pytest.mark.parametrize("rows", [1, 2, 3, 7, 64])
def test_streamed_bands_equal_the_whole_image(rows):
    pytest.importorskip("cupy")
    words = _run([sys.executable, "-c", SCRIPT], rows).stdout.split()
    assert words == ["ok", "334"]


def _explain(tmp_path, rows, op, *params, shape=(250, 90), stream=None):
    np = pytest.importorskip("numpy")
    if not _bin:
        pytest.skip("PARAC_BIN not set")
    src = tmp_path / "in.npy"
    np.save(src, (np.random.default_rng(3).random(shape) * 200).astype(np.uint8))
    extra = {"PARAC_STREAM": stream} if stream else {}
    r = _run([_bin, op, str(src), str(tmp_path / "out.npy"), "--device", "cuda", "--explain", *params], rows, **extra)
    return r.stdout + r.stderr


def test_explain_tells_the_bands(tmp_path):
    text = _explain(tmp_path, 40, "gauss", "--sigma", "2", "--method", "separable")
    assert "streamed from host memory in 6 band(s) of 40 rows and 8 more each way" in text, text
    text = _explain(tmp_path, 4, "gauss", "--sigma", "2", "--method", "separable", shape=(9, 30, 20))
    assert "in 2 band(s) of 4 slices and 8 more each way" in text, text
    text = _explain(tmp_path, 4, "convolve", "--kernel", "1,1;1,1;1,1", shape=(9, 30, 20))
    assert "of 4 slices and 0 more each way" in text, text


def test_explain_tells_what_does_not_stream(tmp_path):
    for params in (["--sigma", "2", "--method", "recursive"], ["--sigma", "2", "--border", "wrap"],
                   ["--sigma", "2", "--method", "fft"], ["--sigma", "2", "--method", "texture", "--border", "reflect"]):
        text = _explain(tmp_path, 40, "gauss", *params)
        assert "gauss: method" in text and "streamed" not in text, (params, text)
    text = _explain(tmp_path, 40, "gauss", "--sigma", "2", stream="never")
    assert "streamed" not in text, text


def test_a_malformed_stream_rule_is_refused(tmp_path):
    np = pytest.importorskip("numpy")
    if not _bin:
        pytest.skip("PARAC_BIN not set")
    src = tmp_path / "in.npy"
    np.save(src, np.zeros((20, 20), np.uint8))
    env = dict(os.environ, PARAC_STREAM="sometimes")
    r = subprocess.run([_bin, "gauss", str(src), str(tmp_path / "o.npy"), "--device", "cuda", "--sigma", "1"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 1 and "PARAC_STREAM is 'sometimes'" in r.stderr, r.stderr
    assert not (tmp_path / "o.npy").exists()
