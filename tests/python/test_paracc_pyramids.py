"""Pyramids as one value: `T parac_pyramid P[L][H][W]` declares L levels,
each half the rows and columns of the one above (rounded up; a third axis,
channels, kept), living until the end of the block and, on the device
targets, on the device from the first kernel that writes a level to the
last that reads it. Host loops pass levels P[l] (l a run-time value) to
functions of the file with matrix parameters. Every target and -O level
against NumPy: a Gaussian pyramid collapsed by loops over the levels (the
same result as test_paracc_matrix_calls.py's recursion), channels, levels
read by host code; levels out of range and one level passed twice refused at
run time with the call's place; what cannot be compiled a located error."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from test_package_compile import _cuda_present, _opencl_present, parac  # noqa: E402
from test_paracc_matrix_calls import VARIANTS, _collapse  # noqa: E402

_no_ocl = pytest.mark.skipif(not _opencl_present(), reason="no OpenCL device")
_no_cuda = pytest.mark.skipif(not _cuda_present(), reason="no CUDA device")
TARGETS = ["c", pytest.param("opencl", marks=_no_ocl), pytest.param("cuda", marks=_no_cuda)]

# a Gaussian pyramid G and the collapsed results R, two pyramids over the same levels
COLLAPSE = """
static void down(int H, int W, float parac_matrix &a[H][W], float parac_matrix &d[(H + 1) / 2][(W + 1) / 2])
{
    parac_iterator s(0:(H + 1) / 2; 0:(W + 1) / 2) {
        int x1 = 2 * sx + 1 < H ? 2 * sx + 1 : 2 * sx;
        int y1 = 2 * sy + 1 < W ? 2 * sy + 1 : 2 * sy;
        d[sx][sy] = (a[2 * sx][2 * sy] + a[2 * sx][y1] + a[x1][2 * sy] + a[x1][y1]) * 0.25f;
    }
}

static void up_add(int H, int W, float parac_matrix &a[H][W], float parac_matrix &up[(H + 1) / 2][(W + 1) / 2],
                   float parac_matrix &out[H][W])
{
    parac_iterator s(0:H; 0:W) { out[sx][sy] = a[sx][sy] + 0.5f * up[sx / 2][sy / 2]; }
}

static void copy(int H, int W, float parac_matrix &a[H][W], float parac_matrix &b[H][W])
{
    parac_iterator c(0:H; 0:W) { b[cx][cy] = a[cx][cy]; }
}

static int level_size(int n, int l)
{
    while (l-- > 0) n = (n + 1) / 2;
    return n;
}

void collapse(int H, int W, int levels, float parac_matrix &in[H][W], float parac_matrix &out[H][W])
{
    float parac_pyramid G[levels + 1][H][W];
    float parac_pyramid R[levels + 1][H][W];
    copy(H, W, in, G[0]);
    int h = H, w = W, l = 0;
    for (; l < levels && h >= 2 && w >= 2; l++) {
        down(h, w, G[l], G[l + 1]);
        h = (h + 1) / 2;
        w = (w + 1) / 2;
    }
    copy(h, w, G[l], R[l]);
    for (; l > 0; l--)
        up_add(level_size(H, l - 1), level_size(W, l - 1), G[l - 1], R[l], R[l - 1]);
    copy(H, W, R[0], out);
}
"""


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_pyramid_collapsed_in_host_loops(target, flags):
    prog = parac.compile(COLLAPSE, target, flags=flags)
    r = np.random.default_rng(8)
    for shape, levels in (((37, 52), 4), ((64, 64), 6), ((5, 3), 8), ((1, 9), 3), ((130, 77), 0), ((2, 2), 1)):
        a = r.random(shape).astype(np.float32)
        out = prog.collapse(a, levels=levels)
        np.testing.assert_allclose(out, _collapse(a, levels), rtol=1e-5, atol=1e-5, err_msg=str((shape, levels)))


# three planes of rows and columns; a function whose host code reads each level (its storage comes back from the device)
CHANNELS = """
static void down3(int H, int W, float parac_matrix &a[3][H][W], float parac_matrix &d[3][(H + 1) / 2][(W + 1) / 2])
{
    parac_iterator s(0:3; 0:(H + 1) / 2; 0:(W + 1) / 2) {
        int y1 = 2 * sy + 1 < H ? 2 * sy + 1 : 2 * sy;
        int z1 = 2 * sz + 1 < W ? 2 * sz + 1 : 2 * sz;
        d[sx][sy][sz] = (a[sx][2 * sy][2 * sz] + a[sx][2 * sy][z1] + a[sx][y1][2 * sz] + a[sx][y1][z1]) * 0.25f;
    }
}

static void copy3(int H, int W, float parac_matrix &a[3][H][W], float parac_matrix &b[3][H][W])
{
    parac_iterator c(0:3; 0:H; 0:W) { b[cx][cy][cz] = a[cx][cy][cz]; }
}

/* host code reads the level: its storage comes back from the device */
static double green_sum(int H, int W, float parac_matrix &a[3][H][W])
{
    double s = 0.0;
    for (int x = 0; x < H; x++)
        for (int y = 0; y < W; y++) s += a[1][x][y];
    return s;
}

/* the sum over the levels of (level + 1) x the level's plane 1 */
double sums(int H, int W, int levels, float parac_matrix &in[3][H][W])
{
    double total = 0.0;
    float parac_pyramid P[levels][3][H][W];
    copy3(H, W, in, P[0]);
    int h = H, w = W;
    for (int l = 0; l < levels; l++) {
        if (l > 0) {
            down3(h, w, P[l - 1], P[l]);
            h = (h + 1) / 2;
            w = (w + 1) / 2;
        }
        total += (l + 1) * green_sum(h, w, P[l]);
    }
    return total;
}
"""


def _green_sums(a, levels):
    out = []
    for level in range(levels):
        if level:
            h, w = a.shape[1:]
            p = np.pad(a, ((0, 0), (0, h % 2), (0, w % 2)), mode="edge")
            a = ((p[:, 0::2, 0::2] + p[:, 0::2, 1::2] + p[:, 1::2, 0::2] + p[:, 1::2, 1::2]) *
                 np.float32(0.25)).astype(np.float32)
        out.append(a[1].astype(np.float64).sum())
    return np.array(out)


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_channels_and_levels_read_by_host_code(target, flags):
    prog = parac.compile(CHANNELS, target, flags=flags)
    r = np.random.default_rng(3)
    for shape, levels in (((37, 52), 5), ((5, 3), 4), ((16, 16), 1), ((1, 1), 3)):
        a = r.random((3,) + shape).astype(np.float32)
        want = (_green_sums(a, levels) * np.arange(1, levels + 1)).sum()
        np.testing.assert_allclose(prog.sums(a, levels=levels), want, rtol=1e-6, err_msg=str(shape))


RUN_TIME = """
static void twice(int H, int W, float parac_matrix &a[H][W], float parac_matrix &b[H][W])
{
    parac_iterator s(0:H; 0:W) { b[sx][sy] = a[sx][sy] * 2.0f; }
}

void f(int H, int W, int levels, int i, int j, float parac_matrix &in[H][W], float parac_matrix &out[H][W])
{
    float parac_pyramid P[levels][H][W];
    twice(H, W, in, P[0]);
    twice(H, W, P[i], P[j]);
    twice(H, W, P[0], out);
}
"""


@pytest.mark.parametrize("target", TARGETS)
def test_levels_are_checked_at_run_time(target):
    prog = parac.compile(RUN_TIME, target)
    a = np.ones((4, 4), np.float32)
    # level 1 has 2 x 2 elements: the callee's parameter declares the sizes it is given
    with pytest.raises(RuntimeError, match=r"program.pc:2: the matrix passed as 'b' has 2 x 2 x 1 elements where the "
                                           r"parameter declares 4 x 4 x 1"):
        prog.f(a, levels=2, i=0, j=1)
    a = np.ones((1, 1), np.float32)  # every level 1 x 1
    np.testing.assert_array_equal(prog.f(a, levels=2, i=0, j=1), 4 * a)
    with pytest.raises(RuntimeError, match=r"program.pc:11: level 3 of pyramid 'P', which has levels 0 to 1"):
        prog.f(a, levels=2, i=0, j=3)
    with pytest.raises(RuntimeError, match=r"program.pc:11: level -1 of pyramid 'P', which has levels 0 to 2"):
        prog.f(a, levels=3, i=-1, j=1)
    with pytest.raises(RuntimeError, match=r"program.pc:11: level 1 of pyramid 'P' is passed twice to one call"):
        prog.f(a, levels=3, i=1, j=1)
    with pytest.raises(RuntimeError, match=r"program.pc:9: pyramid 'P' has 0 levels: it must have from 1 to 64"):
        prog.f(a, levels=0, i=0, j=0)
    # the levels stay usable after a refused call
    np.testing.assert_array_equal(prog.f(a, levels=3, i=2, j=1), 4 * a)


HEAD = """
void ext(float *p);
static void twice(int H, int W, float parac_matrix &a[H][W], float parac_matrix &b[H][W])
{
    parac_iterator s(0:H; 0:W) { b[sx][sy] = a[sx][sy] * 2.0f; }
}
"""


@pytest.mark.parametrize("body,match", [
    ("float parac_pyramid P[3][H][W]; twice(H, W, P, out);", r"pyramid 'P' is used by its levels"),
    ("float parac_pyramid P[3][H][W]; twice(H, W, P[0][1], out);", r"'P\[l\]' is a level, a matrix"),
    ("float parac_pyramid P[3][H][W]; int l = 0; twice(H, W, P[l++], out);",
     r"the level of pyramid 'P' is evaluated more than once in the call: it cannot assign"),
    ("float parac_pyramid P[3][H][W]; ext(P[0]);", r"'P\[...\]' is a level of a pyramid .* cannot be passed to 'ext'"),
    ("float parac_pyramid P[3][H][W]; twice(H, W, P[0], (float *)0);",
     r"'P\[...\]' is a level of a pyramid .* cannot be passed to 'twice'"),
    ("int parac_pyramid P[3][H][W]; twice(H, W, P[0], out);",
     r"'P\[...\]' is an int matrix and parameter 'a' of 'twice' takes a float matrix"),
    ("float parac_pyramid P[3][H][W]; parac_iterator s(0:H; 0:W) { out[sx][sy] = P[0][sx][sy]; }",
     r"pyramid 'P' inside iterator 's'"),
    ("float parac_pyramid P[3][H]; twice(H, W, in, out);", r"the levels of parac_pyramid 'P' are 2-D or 3-D"),
    ("for (int i = 0; i < 2; i++) { float parac_pyramid P[3][H][W]; if (i) break; twice(H, W, P[0], out); }",
     r"'break' leaves the block that declares"),
    ("float parac_pyramid P[3][H][W]; float x = P[0];", r"'P\[...\]' is a level of a pyramid: pass it to a function"),
    ("float parac_pyramid P[3][H][W] = {1};", r"parac_pyramid 'P' starts as zeros and takes no initialiser"),
    ("float parac_pyramid P[1.5f][H][W];", r"the number of levels of 'P' must be an integer"),
    ("float parac_pyramid P[H][W];", r"the levels of parac_pyramid 'P' are 2-D or 3-D"),
])
def test_what_cannot_be_compiled_is_a_located_error(body, match):
    src = HEAD + ("void f(int H, int W, float parac_matrix &in[H][W], float parac_matrix &out[H][W])\n{\n    %s\n"
                  "    twice(H, W, in, out);\n}\n" % body)
    with pytest.raises(ValueError, match=r"program.pc:9:\d+: error: " + match):
        parac.compile(src, "c")


@pytest.mark.parametrize("decl,match", [
    ("void g(int H, int W, float parac_pyramid P[3][H][W]) { }", r"program.pc:7:\d+: error: a parac_pyramid is not a "
                                                                  r"parameter"),
    ("float parac_pyramid Q[3][4][4];", r"program.pc:7:\d+: error: parac_pyramid 'Q' is declared in a function"),
])
def test_pyramids_live_in_functions(decl, match):
    with pytest.raises(ValueError, match=match):
        parac.compile(HEAD + decl + "\n", "c")
