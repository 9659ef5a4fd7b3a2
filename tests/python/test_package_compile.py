"""parac.compile: the example programs compiled through the C target and
the OpenCL target (where the CLI lists an OpenCL device: PoCL on the build
machine and in CI, NVIDIA's on the GPU machine) and called on NumPy arrays,
against the plain-C references (examples/*_ref.c, built here with the same C
compiler) and NumPy; scalars taken from shapes, several outputs, keyword
scalars, 3D matrices, source text, the errors."""
import ctypes
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

_dir = os.environ.get("PARAC_PYTHON_DIR")
if _dir:
    sys.path.insert(0, _dir)
parac = pytest.importorskip("parac", reason="the parac extension was not built (Python development files)")
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
EX = os.path.join(ROOT, "examples")
CC = os.environ.get("CC") or "cc"
pytestmark = pytest.mark.skipif(shutil.which(CC) is None, reason="no C compiler")


def _opencl_present():
    from conftest import PARAC

    if PARAC is None:
        return False
    r = subprocess.run([str(PARAC), "devices"], capture_output=True, text=True)
    # a device is listed with its compute units; "unavailable" (a build without the OpenCL runtime)
    # and "no platform found" are not devices
    return any(line.startswith("opencl:") and "compute units" in line for line in r.stdout.splitlines())


def _cuda_present():
    from conftest import PARAC

    if PARAC is None:
        return False
    r = subprocess.run([str(PARAC), "devices"], capture_output=True, text=True)
    return any(line.startswith("cuda:") and "none" not in line for line in r.stdout.splitlines())


TARGETS = ["c", pytest.param("opencl", marks=pytest.mark.skipif(not _opencl_present(), reason="no OpenCL device")),
           pytest.param("cuda", marks=pytest.mark.skipif(not _cuda_present(), reason="no CUDA device"))]


def reference(tmp_path, name):
    so = str(tmp_path / (name + "_ref.so"))
    subprocess.run([CC, "-O1", "-shared", "-fPIC", os.path.join(EX, name + "_ref.c"), "-o", so, "-lm"], check=True)
    return ctypes.CDLL(so)


def ptr(a):
    return ctypes.c_void_p(a.ctypes.data)


@pytest.mark.parametrize("target", TARGETS)
def test_blur_against_numpy(target):
    prog = parac.compile(os.path.join(EX, "blur.pc"), target)
    a = np.random.default_rng(0).integers(0, 65535, (37, 53), dtype=np.uint16)
    p = np.pad(a.astype(np.int64), ((0, 0), (1, 1)), mode="edge")
    bx = (p[:, :-2] + p[:, 1:-1] + p[:, 2:]) // 3
    q = np.pad(bx, ((1, 1), (0, 0)), mode="edge")
    want = (q[:-2] + q[1:-1] + q[2:]) // 3
    np.testing.assert_array_equal(prog(a), want)
    out = np.empty_like(a)
    assert prog.blur(a[::1], out=out) is out  # written in place, returned
    np.testing.assert_array_equal(out, want)


def test_c_target_with_a_compiler_without_march_native(tmp_path):
    """The C target is compiled with -march=native; a compiler that refuses it gets the
    command again without it (the same results)."""
    fake = tmp_path / "cc-no-native"
    fake.write_text("#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = -march=native ] && exit 1; done\nexec %s \"$@\"\n" % CC)
    fake.chmod(0o755)
    prog = parac.compile(os.path.join(EX, "blur.pc"), "c", cc=str(fake))
    a = np.random.default_rng(1).integers(0, 65535, (21, 30), dtype=np.uint16)
    np.testing.assert_array_equal(prog(a), parac.compile(os.path.join(EX, "blur.pc"), "c")(a))


@pytest.mark.parametrize("target", TARGETS)
def test_laplacian_two_outputs(tmp_path, target):
    prog = parac.compile(os.path.join(EX, "laplacian.pc"), target)
    ref = reference(tmp_path, "laplacian")
    for M, N in ((37, 53), (40, 9)):
        src = np.random.default_rng(M).integers(0, 255, (M, N), dtype=np.uint8)
        layer, down = prog.laplacian_level(src)
        assert layer.dtype == np.int16 and down.shape == ((M + 1) // 2, (N + 1) // 2)
        wl, wd = np.empty((M, N), np.int16), np.empty(down.shape, np.uint8)
        ref.laplacian_level_ref(M, N, ptr(src), ptr(wl), ptr(wd))
        np.testing.assert_array_equal(layer, wl)
        np.testing.assert_array_equal(down, wd)


@pytest.mark.parametrize("target", TARGETS)
def test_sharpening_keyword_scalars(tmp_path, target):
    prog = parac.compile(os.path.join(EX, "sharpening.pc"), target, flags=("-O0",))
    ref = reference(tmp_path, "sharpening")
    src = np.random.default_rng(2).integers(0, 255, (41, 58), dtype=np.uint8)
    got = prog.sharpening(src, strength=8, overshoot=4)
    want = np.empty_like(src)
    ref.sharpening_ref(41, 58, 8, 4, ptr(src), ptr(want))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("target", TARGETS)
def test_unsharp_3d_matrix(tmp_path, target):
    prog = parac.compile(os.path.join(EX, "unsharp.pc"), target)
    ref = reference(tmp_path, "unsharp")
    a = (0.05 + np.random.default_rng(3).random((3, 29, 47))).astype(np.float32)
    got = prog(a)
    want = np.empty_like(a)
    ref.unsharp_ref(29, 47, ptr(a), ptr(want))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_source_text_and_errors(target):
    prog = parac.compile("""
void invert(int H, int W, unsigned char parac_matrix &in[H][W], unsigned char parac_matrix &out[H][W])
{
    parac_iterator it(0:H:1; 0:W:1) { out[itx][ity] = 255 - in[itx][ity]; }
}
""", target)
    a = np.arange(12, dtype=np.uint8).reshape(3, 4)
    np.testing.assert_array_equal(prog(a), 255 - a)
    with pytest.raises(TypeError, match="dtype"):
        prog(a.astype(np.uint16))
    with pytest.raises(ValueError, match="dimensions"):
        prog(a[0])
    with pytest.raises(ValueError, match="shape"):
        prog(a, H=2)
    with pytest.raises(ValueError, match=r"program\.pc:3"):
        parac.compile("void f(int H, unsigned char parac_matrix &m[H][H])\n{\n    parac_iterator i(0:H:1 { }\n}\n")
    with pytest.raises(ValueError, match="target must be"):
        parac.compile(os.path.join(EX, "blur.pc"), target="metal")


@pytest.mark.parametrize("target", TARGETS)
def test_functions_named_like_the_c_runtime(target):
    """A ParaC function may be named as a symbol of the C runtime that loads
    the library (`data_start`, `environ`): its NAME_try calls its own body,
    not the process's symbol (before, a jump into Python's data)."""
    prog = parac.compile("""
void data_start(int H, int W, int parac_matrix &in[H][W], int parac_matrix &out[H][W])
{
    parac_iterator it(0:H:1; 0:W:1) { out[itx][ity] = in[itx][ity] * 3; }
}
void environ(int H, int W, int parac_matrix &in[H][W], int parac_matrix &out[H][W])
{
    parac_iterator it(0:H:1; 0:W:1) { out[itx][ity] = in[itx][ity] + 1; }
}
""", target)
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    np.testing.assert_array_equal(prog.data_start(a), 3 * a)
    np.testing.assert_array_equal(prog.environ(a), a + 1)


@pytest.mark.skipif(_cuda_present(), reason="a CUDA device is present")
def test_cuda_target_without_a_device_says_why():
    # compiles (paracc and the C compiler need no GPU); the first call says why it cannot run
    prog = parac.compile(os.path.join(EX, "blur.pc"), "cuda")
    with pytest.raises(RuntimeError, match="CUDA"):
        prog(np.zeros((8, 8), np.uint16))
