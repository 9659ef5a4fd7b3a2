"""Reads under a border rule at offsets held in loop variables of constant
bounds (`in[mx + i][my + j]` in `for (int i = -2; i <= 2; i++)`): the rule
gives their values outside the image on every target and -O level, against
NumPy's mirror padding (issue: a weighted 5 x 5 sum written with loops, as
users write a stencil before they learn windows). Loops whose variable's
range is not known stay refused, with the read's location."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from test_package_compile import _cuda_present, _opencl_present, parac  # noqa: E402

VARIANTS = [("c", ()), ("c", ("-O0",)), ("c", ("-O1",)),
            pytest.param("opencl", (), marks=pytest.mark.skipif(not _opencl_present(), reason="no OpenCL device")),
            pytest.param("opencl", ("-O0",), marks=pytest.mark.skipif(not _opencl_present(), reason="no OpenCL device")),
            pytest.param("opencl", ("-fno-one-launch",),
                         marks=pytest.mark.skipif(not _opencl_present(), reason="no OpenCL device")),
            pytest.param("cuda", (), marks=pytest.mark.skipif(not _cuda_present(), reason="no CUDA device")),
            pytest.param("cuda", ("-O0",), marks=pytest.mark.skipif(not _cuda_present(), reason="no CUDA device"))]


def _mirror(side, n):
    """The index a mirror rule reads for the side-th row or column outside an axis of n."""
    return str(-side) if side < 0 else "%s - %d" % (n, side + 1)


CORNERS = "\n".join("    in[%+d][%+d] = in[%s][%s];" % (sx, sy, _mirror(sx, "H"), _mirror(sy, "W"))
                    for sx in (-2, -1, 1, 2) for sy in (-2, -1, 1, 2))

PROGRAM = """#include <math.h>
void lw(int H, int W, float parac_matrix &in[H][W], float parac_matrix &out[H][W], float parac_matrix &top[H][W])
{
    parac_border_rule mirror {
    in[-1][*] = in[1][*];
    in[-2][*] = in[2][*];
    in[+1][*] = in[H - 2][*];
    in[+2][*] = in[H - 3][*];
    in[*][-1] = in[*][1];
    in[*][-2] = in[*][2];
    in[*][+1] = in[*][W - 2];
    in[*][+2] = in[*][W - 3];
%s
    }
    parac_iterator m(0:H; 0:W) parac_border_rule(mirror) {
        float s = 0;
        for (int i = -2; i <= 2; i++)
            for (int j = -2; j < 3; j++)
                s += in[mx + i][my + j] * (float)(3 + i * j);
        out[mx][my] = s;
        float t = -1e30f;
        for (int k = 1; k >= -1; k -= 1)
            t = fmaxf(t, in[mx - 2 * k][my + 1]);
        top[mx][my] = t;
    }
}
""" % CORNERS


@pytest.mark.parametrize("target,flags", VARIANTS)
def test_loop_offsets_follow_the_border_rule(target, flags):
    r = np.random.default_rng(3)
    prog = parac.compile(PROGRAM, target, flags=flags)
    for shape in ((19, 23), (7, 5), (40, 33)):  # 5 columns: every column is within the rule's reach
        a = r.random(shape).astype(np.float32)
        h, w = shape
        p = np.pad(a.astype(np.float64), 2, mode="reflect")  # in[-1] = in[1], in[H] = in[H - 2]: the rule
        want = sum(p[2 + i:2 + i + h, 2 + j:2 + j + w] * (3 + i * j) for i in range(-2, 3) for j in range(-2, 3))
        top = np.max([p[2 - 2 * k:2 - 2 * k + h, 3:3 + w] for k in (1, 0, -1)], axis=0)
        out, tp = prog.lw(a)
        np.testing.assert_allclose(out, want, rtol=2e-5, atol=1e-5, err_msg=str(shape))
        np.testing.assert_array_equal(tp, top.astype(np.float32), err_msg=str(shape))


@pytest.mark.parametrize("change,match", [
    # the loop's variable assigned in its body: its range is not known
    (("s += in[mx + i][my + j] * (float)(3 + i * j);",
      "{ s += in[mx + i][my + j] * (float)(3 + i * j); if (s > 100) j = 3; }"), "column index is not a constant"),
    # declared outside the loop: it keeps a value past the bound after it
    (("for (int i = -2; i <= 2; i++)", "int i;\n        for (i = -2; i <= 2; i++)"), "row index is not a constant"),
    # a bound known only at run time
    (("for (int i = -2; i <= 2; i++)", "for (int i = -2; i <= H / 100; i++)"), "row index is not a constant"),
    # unsigned: the offset would wrap where the read leaves the image
    (("for (int j = -2; j < 3; j++)", "for (unsigned j = 0; j < 5; j++)"), "column index is not a constant"),
    # a macro that may assign the variable: passed to it, or named in a #define of the file
    (("s += in[mx + i][my + j] * (float)(3 + i * j);",
      "{ s += in[mx + i][my + j] * (float)(3 + i * j); BUMP(j); }"), "column index is not a constant"),
    (("s += in[mx + i][my + j] * (float)(3 + i * j);",
      "{ s += in[mx + i][my + j] * (float)(3 + i * j); STEP; }"), "column index is not a constant"),
    # further than the rule covers
    (("for (int i = -2; i <= 2; i++)", "for (int i = -3; i <= 2; i++)"),
     "reaches 3 rows before the image but border rule 'mirror' covers 2"),
])
def test_loops_of_unknown_range_are_refused(change, match):
    src = PROGRAM.replace(*change)
    assert src != PROGRAM
    if "BUMP" in src or "STEP" in src:
        src = src.replace("#include <math.h>", "#include <math.h>\n#define BUMP(x) ((x) -= 5)\n#define STEP j -= 5")
    if "unsigned" in change[1]:
        src = src.replace("in[mx + i][my + j]", "in[mx + i][my + j - 2]")
    with pytest.raises(ValueError, match=match):
        parac.compile(src, "c")
