"""Windows of run-time length under border rules: where a window starts at
a constant times an index plus host values (`in[x][y - r:2 * r + 1]`,
`in[x][y + a:b]`, `in[x][2 * y - r:n]`), the host computes how far its
reads reach before the iterator runs, so the iterator has an interior that
reads without tests, also where the start is held in a local of one
value (`int s = ty - r;`); where it is not (a start read from a matrix),
every iteration tests, and a rule whose entries read at places moving with
the distance is refused when compiling (nothing could check them). Against
NumPy on every target, at radii from 0 to past the image (a mirror then
refused: its values would lie outside the matrix), and the rule's values
checked at the run-time reach."""
import os
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from test_package_compile import _cuda_present, _opencl_present, parac  # noqa: E402
from conftest import PARAC  # noqa: E402

TARGETS = ["c", pytest.param("opencl", marks=pytest.mark.skipif(not _opencl_present(), reason="no OpenCL device")),
           pytest.param("cuda", marks=pytest.mark.skipif(not _cuda_present(), reason="no CUDA device"))]

SRC = """
/* sums along the rows over [y - a, y + b], edges mirrored at every distance */
void mirror_rows(int H, int W, int a, int b, float parac_matrix &in[H][W], float parac_matrix &out[H][W])
{
    parac_border_rule m(d) {
        in[*][-d] = in[*][d];
        in[*][+d] = in[*][W - 1 - d];
    }
    parac_iterator t(0:H; 0:W) parac_border_rule(m) { out[tx][ty] = parac_matrix_sum(in[tx][ty - a:a + b + 1]); }
}

/* maxima down the columns over [x + a, x + a + n), outside a constant, and a
   fixed read beside; a second window of another start on the same axis */
void const_cols(int H, int W, int a, int n, int parac_matrix &in[H][W], int parac_matrix &out[H][W])
{
    parac_border_rule c(d) {
        in[-d][*] = -7;
        in[+d][*] = 1000 + d;
    }
    parac_iterator t(0:H; 0:W) parac_border_rule(c) {
        out[tx][ty] = parac_matrix_max(in[tx + a:n][ty]) + in[tx + 1][ty] + parac_matrix_min(in[tx - n:n][ty]);
    }
}

/* every second column: a window of 2 * r + 1 around column 2 * y (coefficient 2) */
void strided(int H, int W, int r, float parac_matrix &in[H][W], float parac_matrix &out[H][W / 2])
{
    parac_border_rule m(d) {
        in[*][-d] = in[*][d];
        in[*][+d] = in[*][W - 1 - d];
    }
    parac_iterator t(0:H; 0:W / 2) parac_border_rule(m) { out[tx][ty] = parac_matrix_sum(in[tx][2 * ty - r:2 * r + 1]); }
}

/* the start held in locals of one value: the host knows it (ty - r) */
void local_start(int H, int W, int r, float parac_matrix &in[H][W], float parac_matrix &out[H][W])
{
    parac_border_rule m(d) {
        in[*][-d] = in[*][d];
        in[*][+d] = in[*][W - 1 - d];
    }
    parac_iterator t(0:H; 0:W) parac_border_rule(m) {
        int back = r;
        int s = ty - back;
        out[tx][ty] = parac_matrix_sum(in[tx][s:2 * r + 1]);
    }
}

/* the start read from a matrix: no interior, every iteration tests; the
   rule's values do not move with d (one value each side, and a fixed element) */
void offset_start(int H, int W, int n, int parac_matrix &in[H][W], int parac_matrix &off[H][W],
                int parac_matrix &out[H][W])
{
    parac_border_rule c(d) {
        in[*][-d] = -7;
        in[*][+d] = in[*][0] * 2 + 1;
    }
    parac_iterator t(0:H; 0:W) parac_border_rule(c) {
        int s = ty + off[tx][ty];
        out[tx][ty] = parac_matrix_sum(in[tx][s:n]);
    }
}
"""

UNCHECKABLE = """
void moving(int H, int W, int n, float parac_matrix &in[H][W], int parac_matrix &off[H][W],
            float parac_matrix &out[H][W])
{
    parac_border_rule m(d) {
        in[*][-d] = in[*][d];
        in[*][+d] = 0.0f;
    }
    parac_iterator t(0:H; 0:W) parac_border_rule(m) {
        out[tx][ty] = parac_matrix_sum(in[tx][ty + off[tx][ty]:n]);
    }
}
"""


def _mirror_at(i, n):
    """scipy's 'mirror' index of i in 0..n-1 (-d reads d, n - 1 + d reads n - 1 - d)."""
    period = 2 * (n - 1) if n > 1 else 1
    i = abs(i) % period if n > 1 else 0
    return period - i if i >= n else i


def _mirror_rows(a, lo, hi):
    H, W = a.shape
    out = np.zeros((H, W), np.float64)
    for y in range(W):
        for k in range(y - lo, y + hi + 1):
            out[:, y] += a[:, _mirror_at(k, W)]
    return out


def _offset_start(a, off, n):
    H, W = a.shape
    out = np.zeros((H, W), np.int64)
    for x in range(H):
        for y in range(W):
            for k in range(y + off[x, y], y + off[x, y] + n):
                out[x, y] += -7 if k < 0 else 2 * int(a[x, 0]) + 1 if k >= W else a[x, k]
    return out


def _const_cols(a, off, n):
    H, W = a.shape

    def at(i):
        return np.full(W, -7) if i < 0 else np.full(W, 1000 + (i - (H - 1))) if i >= H else a[i]

    out = np.zeros((H, W), np.int64)
    for x in range(H):
        out[x] = (np.max([at(x + off + k) for k in range(n)], axis=0) + at(x + 1) +
                  np.min([at(x - n + k) for k in range(n)], axis=0))
    return out


@pytest.mark.parametrize("target", TARGETS)
def test_run_time_reach_gives_numpy_results(target):
    prog = parac.compile(SRC, target)
    rng = np.random.default_rng(31)
    for shape in ((5, 7), (9, 40), (33, 13), (2, 3), (1, 1)):
        f = (rng.random(shape) * 100).astype(np.float32)
        i = rng.integers(-50, 50, shape).astype(np.int32)
        W = shape[1]
        for a, b in ((0, 0), (1, 1), (2, 0), (0, 3), (3, 5), (W - 1, W - 1)):
            if max(a, b) >= W:
                continue
            np.testing.assert_allclose(prog.mirror_rows(f, a=a, b=b), _mirror_rows(f, a, b), rtol=1e-5,
                                       err_msg=str((shape, a, b)))
            np.testing.assert_allclose(prog.local_start(f, r=a), _mirror_rows(f, a, a), rtol=1e-5,
                                       err_msg=str((shape, a)))
        for off, n in ((0, 1), (-2, 5), (3, 2), (-shape[0] - 2, 3), (shape[0] + 1, 4)):
            np.testing.assert_array_equal(prog.const_cols(i, a=off, n=n), _const_cols(i, off, n),
                                          err_msg=str((shape, off, n)))
        o = rng.integers(-3 * W, 3 * W, shape).astype(np.int32)
        for n in (1, 3, 2 * W + 1):
            np.testing.assert_array_equal(prog.offset_start(i, o, n=n), _offset_start(i, o, n), err_msg=str((shape, n)))
        for r in (0, 1, 2):
            if r >= W or W < 2:
                continue
            want = _mirror_rows(f, r, r)[:, 0:2 * (W // 2):2]
            np.testing.assert_allclose(prog.strided(f, r=r), want, rtol=1e-5, err_msg=str((shape, r)))


@pytest.mark.parametrize("target", TARGETS)
def test_a_mirror_past_the_image_is_refused(target):
    """The rule's values at the run-time reach read inside the matrix, or the
    call stops with the rule's place (a radius of W mirrors to column W)."""
    prog = parac.compile(SRC, target)
    f = np.ones((4, 6), np.float32)
    with pytest.raises(RuntimeError, match=r"program.pc:6: border rule 'm' reads in at 6 along its axis 1, which has "
                                           r"6 elements"):
        prog.mirror_rows(f, a=6, b=0)
    with pytest.raises(RuntimeError, match=r"program.pc:7: border rule 'm' reads in at -1 along its axis 1"):
        prog.mirror_rows(f, a=0, b=6)
    np.testing.assert_allclose(prog.mirror_rows(f, a=5, b=5), _mirror_rows(f, 5, 5), rtol=1e-6)
    with pytest.raises(RuntimeError, match=r"program.pc:\d+: border rule 'm' reads in at 6 along its axis 1"):
        prog.local_start(f, r=6)  # a start held in locals: checked at the reach the host computed
    np.testing.assert_allclose(prog.local_start(f, r=5), _mirror_rows(f, 5, 5), rtol=1e-6)


def test_a_rule_moving_with_the_distance_under_an_unknown_start_is_refused():
    """A window whose start the host cannot compute may read any distance
    outside, where a mirror's value would lie outside the matrix: refused
    when compiling, at the entry, naming the window's line."""
    with pytest.raises(ValueError, match=r"program.pc:6:\d+: error: border rule 'm' reads a matrix at a place that "
                                         r"moves with 'd', and the window of 'in' at line 10 has a reach the host "
                                         r"cannot compute before the iterator runs"):
        parac.compile(UNCHECKABLE, "c")


def test_the_interior_is_computed_at_run_time(tmp_path):
    """Host code: the splittable windows get an interior from run-time reaches
    (a start held in locals of one value too); the start read from a matrix
    gets none (every iteration tests), its rule's entries checked once."""
    (tmp_path / "p.pc").write_text(SRC)
    r = subprocess.run([str(PARAC.parent / "paracc"), str(tmp_path / "p.pc"), "--target", "c", "-o",
                        str(tmp_path / "p")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    host = (tmp_path / "p.c").read_text()
    bodies = {name: host.split("void %s(" % name)[-1].split("\nvoid ")[0]
              for name in ("mirror_rows", "const_cols", "strided", "local_start", "offset_start")}
    for name in ("mirror_rows", "const_cols", "strided", "local_start"):
        assert "(windows of run-time length) */" in bodies[name], name
        assert "every iteration tests" not in bodies[name], name
    assert "every iteration tests where its reads fall" in bodies["offset_start"]
    assert "border rule c's entry reads inside its matrices" in bodies["offset_start"]
