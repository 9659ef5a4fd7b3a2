"""Matrices declared in a function passed to functions of the same file
(issue: a declared matrix has padded rows and may live on the device only;
callees took packed host rows). Calls inside the file now pass each matrix
with its sizes, pitch and device copy: pipelines split into functions,
pyramids built by recursion over levels, callees that read or write a matrix
on the host, reductions and border rules in callees; every target and -O
level against NumPy. What cannot be passed that way stays a located error,
and a matrix whose sizes differ from the parameter's is refused at run
time."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from test_package_compile import _cuda_present, _opencl_present, parac  # noqa: E402

_no_ocl = pytest.mark.skipif(not _opencl_present(), reason="no OpenCL device")
_no_cuda = pytest.mark.skipif(not _cuda_present(), reason="no CUDA device")
VARIANTS = [("c", ()), ("c", ("-O0",)),
            pytest.param("opencl", (), marks=_no_ocl), pytest.param("opencl", ("-O0",), marks=_no_ocl),
            pytest.param("cuda", (), marks=_no_cuda), pytest.param("cuda", ("-O0",), marks=_no_cuda)]

PIPELINE = """
static void half(int H, int W, float parac_matrix &a[H][W], float parac_matrix &b[H][W])
{
    parac_iterator s(0:H; 0:W) { b[sx][sy] = a[sx][sy] * 0.5f; }
}

/* called from outside (packed rows) and from pipeline (a declared matrix) */
void blur_rows(int H, int W, float parac_matrix &a[H][W], float parac_matrix &b[H][W])
{
    parac_border_rule edges {
        a[*][-1] = a[*][0];
        a[*][+1] = a[*][W - 1];
    }
    parac_iterator s(0:H; 0:W) parac_border_rule(edges) {
        b[sx][sy] = parac_matrix_sum(a[sx][sy - 1:3:1]) / 3.0f;
    }
}

/* host code of the callee reads the matrix (a copy back from the device) and writes it */
static float corner_then_bump(int H, int W, float parac_matrix &a[H][W])
{
    float c = a[0][0];
    a[H - 1][W - 1] = a[H - 1][W - 1] + 100.0f;
    return c + parac_matrix_sum(a);
}

void pipeline(int H, int W, float parac_matrix &in[H][W], float parac_matrix &out[H][W], float parac_matrix &mid[H][W])
{
    float parac_matrix t[H][W];
    float parac_matrix u[H][W];
    parac_iterator s(0:H; 0:W) { t[sx][sy] = in[sx][sy] + 1.0f; }
    half(H, W, t, u);
    blur_rows(H, W, u, mid);
    float got = corner_then_bump(H, W, u);
    parac_iterator e(0:H; 0:W) { out[ex][ey] = u[ex][ey] * 2.0f + mid[ex][ey] + (ex == 0 && ey == 0 ? got : 0.0f); }
}
"""


def _blur_rows(a):
    p = np.pad(a.astype(np.float64), ((0, 0), (1, 1)), mode="edge")
    return ((p[:, :-2] + p[:, 1:-1] + p[:, 2:]) / 3.0)


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_declared_matrices_through_calls(target, flags):
    prog = parac.compile(PIPELINE, target, flags=flags)
    r = np.random.default_rng(5)
    for shape in ((1, 1), (7, 5), (33, 70), (64, 17)):  # 70 and 17 columns: padded rows
        a = r.random(shape).astype(np.float32)
        u = (a + 1.0) * 0.5
        mid = _blur_rows(u)
        out, m = prog.pipeline(a)
        np.testing.assert_allclose(m, mid, rtol=1e-5, atol=1e-6, err_msg=str(shape))
        bumped = u.astype(np.float64).copy()
        bumped[-1, -1] += 100.0
        want = bumped * 2.0 + mid
        want[0, 0] += u[0, 0] + bumped.sum()  # the callee's value, from its host code
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5, err_msg=str(shape))
        # the function that pipeline calls is also callable from outside, with packed rows
        np.testing.assert_allclose(prog.blur_rows(a), _blur_rows(a), rtol=1e-5, atol=1e-6)


# A Gaussian pyramid collapsed by recursion: each level a matrix of its own
# size, declared in the call for that level, on the device across the calls.
PYRAMID = """
static void down(int H, int W, float parac_matrix &a[H][W], float parac_matrix &d[(H + 1) / 2][(W + 1) / 2])
{
    parac_iterator s(0:(H + 1) / 2; 0:(W + 1) / 2) {
        int x1 = 2 * sx + 1 < H ? 2 * sx + 1 : 2 * sx;
        int y1 = 2 * sy + 1 < W ? 2 * sy + 1 : 2 * sy;
        d[sx][sy] = (a[2 * sx][2 * sy] + a[2 * sx][y1] + a[x1][2 * sy] + a[x1][y1]) * 0.25f;
    }
}

/* out = a + the next level's result brought up by repetition, from the top level down */
static void level(int depth, int H, int W, float parac_matrix &a[H][W], float parac_matrix &out[H][W])
{
    if (depth == 0 || H < 2 || W < 2) {
        parac_iterator c(0:H; 0:W) { out[cx][cy] = a[cx][cy]; }
        return;
    }
    float parac_matrix d[(H + 1) / 2][(W + 1) / 2];
    float parac_matrix up[(H + 1) / 2][(W + 1) / 2];
    down(H, W, a, d);
    level(depth - 1, (H + 1) / 2, (W + 1) / 2, d, up);
    parac_iterator s(0:H; 0:W) { out[sx][sy] = a[sx][sy] + 0.5f * up[sx / 2][sy / 2]; }
}

void collapse(int H, int W, int levels, float parac_matrix &in[H][W], float parac_matrix &out[H][W])
{
    level(levels, H, W, in, out);
}
"""


def _collapse(a, depth):
    a = a.astype(np.float64)
    h, w = a.shape
    if depth == 0 or h < 2 or w < 2:
        return a
    p = np.pad(a, ((0, h % 2), (0, w % 2)), mode="edge")
    d = (p[0::2, 0::2] + p[0::2, 1::2] + p[1::2, 0::2] + p[1::2, 1::2]) * 0.25
    d = d.astype(np.float32).astype(np.float64)
    up = _collapse(d, depth - 1)
    return a + 0.5 * np.repeat(np.repeat(up, 2, 0), 2, 1)[:h, :w]


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_pyramid_by_recursion(target, flags):
    prog = parac.compile(PYRAMID, target, flags=flags)
    r = np.random.default_rng(8)
    for shape, levels in (((37, 52), 4), ((64, 64), 6), ((5, 3), 8), ((1, 9), 3), ((130, 77), 0)):
        a = r.random(shape).astype(np.float32)
        out = prog.collapse(a, levels=levels)
        np.testing.assert_allclose(out, _collapse(a, levels), rtol=1e-5, atol=1e-5, err_msg=str((shape, levels)))


@pytest.mark.parametrize("target", ["c", pytest.param("opencl", marks=_no_ocl), pytest.param("cuda", marks=_no_cuda)])
def test_sizes_that_differ_are_refused_at_run_time(target):
    src = """
static void twice(int H, int W, float parac_matrix &a[H][W], float parac_matrix &b[H][W])
{
    parac_iterator s(0:H; 0:W) { b[sx][sy] = a[sx][sy] * 2.0f; }
}
void f(int H, int W, float parac_matrix &in[H][W], float parac_matrix &out[H][W])
{
    float parac_matrix t[H][W + 1];
    twice(H, W, in, t);
    twice(H, W, in, out);
}
"""
    prog = parac.compile(src, target)
    with pytest.raises(RuntimeError, match=r"program.pc:2: the matrix passed as 'b' has 4 x 6 x 1 elements where the "
                                           r"parameter declares 4 x 5 x 1"):
        prog.f(np.ones((4, 5), np.float32))


@pytest.mark.parametrize("body,match", [
    ("twice(H, W, t, t);", r":\d+:\d+: error: 't' is passed to 'twice' twice \(as 'a' and 'b'\)"),
    ("twice(H, W, ti, t);", r":\d+:\d+: error: 'ti' is an int matrix and parameter 'a' of 'twice' takes a float matrix"),
    ("twice(H, W, t3, t);", r":\d+:\d+: error: 't3' is a float 3-D matrix and parameter 'a' of 'twice' takes a float "
                            r"matrix"),
    ("twice(H, W, (float *)0, t);", r":\d+:\d+: error: 't' is a matrix declared in this function"),
    ("ext(t);", r":\d+:\d+: error: 't' is a matrix declared in this function .* cannot be passed to 'ext'"),
])
def test_what_cannot_be_passed_is_a_located_error(body, match):
    src = """
void ext(float *p);
static void twice(int H, int W, float parac_matrix &a[H][W], float parac_matrix &b[H][W])
{
    parac_iterator s(0:H; 0:W) { b[sx][sy] = a[sx][sy] * 2.0f; }
}
void f(int H, int W, float parac_matrix &in[H][W], float parac_matrix &out[H][W])
{
    float parac_matrix t[H][W];
    int parac_matrix ti[H][W];
    float parac_matrix t3[2][H][W];
    %s
    twice(H, W, in, out);
}
""" % body
    with pytest.raises(ValueError, match=match):
        parac.compile(src, "c")


@pytest.mark.parametrize("target", ["c", pytest.param("opencl", marks=_no_ocl), pytest.param("cuda", marks=_no_cuda)])
def test_a_function_defined_after_its_calls(target):
    src = """
static void twice(int H, int W, float parac_matrix &a[H][W], float parac_matrix &b[H][W]);
void f(int H, int W, float parac_matrix &in[H][W], float parac_matrix &out[H][W])
{
    float parac_matrix t[H][W];
    twice(H, W, in, t);
    twice(H, W, t, out);
}
static void twice(int H, int W, float parac_matrix &a[H][W], float parac_matrix &b[H][W])
{
    parac_iterator s(0:H; 0:W) { b[sx][sy] = a[sx][sy] * 2.0f; }
}
"""
    a = np.random.default_rng(2).random((9, 70)).astype(np.float32)
    np.testing.assert_array_equal(parac.compile(src, target).f(a), a * 4)


# Calls in loop and if conditions, with a matrix on the device only; the
# callee's value read from a matrix its kernel wrote (a return that reads a
# matrix brings it to the host first: it returned the host copy's stale zeros
# on the device targets before)
CONDITIONS = """
static int positive(int H, int W, float parac_matrix &a[H][W])
{
    float parac_matrix b[1][1];
    parac_iterator s(0:1; 0:1) { b[sx][sy] = a[0][0]; }
    return b[0][0] > 0.0f;
}
void f(int H, int W, float parac_matrix &in[H][W], float parac_matrix &out[H][W])
{
    float parac_matrix t[H][W];
    parac_iterator s(0:H; 0:W) { t[sx][sy] = in[sx][sy] - 1.0f; }
    int n = 0;
    while (positive(H, W, t) && n < 5) {
        parac_iterator u(0:H; 0:W) { t[ux][uy] = t[ux][uy] - 1.0f; }
        n++;
    }
    if (positive(H, W, t)) n += 10;
    parac_iterator o(0:H; 0:W) { out[ox][oy] = t[ox][oy] + n; }
}
"""


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_calls_in_conditions_and_values_returned(target, flags):
    prog = parac.compile(CONDITIONS, target, flags=flags)
    for v in (10.0, 3.25, 0.5):
        a = np.full((3, 70), v, np.float32)
        t, n = a - 1, 0
        while t[0, 0] > 0 and n < 5:
            t, n = t - 1, n + 1
        if t[0, 0] > 0:
            n += 10
        np.testing.assert_array_equal(prog.f(a), t + n, err_msg=str(v))
