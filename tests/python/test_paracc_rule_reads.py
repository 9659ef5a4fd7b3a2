"""A border rule's values read inside their matrices, or the call is refused
(issue: an entry is read where it says, so on a matrix smaller than the rule
assumes, in[*][-3] = in[*][3] on 3 columns, the value was read outside the
matrix with no diagnostic). Before an iterator runs the host evaluates the
index of every read in the entries its reads reach; a matrix large enough
computes as before. Fixed entries and entries at every distance, on every
target, against NumPy."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from test_package_compile import _cuda_present, _opencl_present, parac  # noqa: E402

TARGETS = ["c", pytest.param("opencl", marks=pytest.mark.skipif(not _opencl_present(), reason="no OpenCL device")),
           pytest.param("cuda", marks=pytest.mark.skipif(not _cuda_present(), reason="no CUDA device"))]

SRC = """
/* a 5-wide sum along the rows, edges mirrored by entries at fixed distances */
void fixed(int H, int W, float parac_matrix &in[H][W], float parac_matrix &out[H][W])
{
    parac_border_rule m {
        in[*][-1] = in[*][1];
        in[*][+1] = in[*][W - 2];
        in[*][-2] = in[*][2];
        in[*][+2] = in[*][W - 3];
    }
    parac_iterator a(0:H; 0:W) parac_border_rule(m) { out[ax][ay] = parac_matrix_sum(in[ax][ay - 2:5]); }
}

/* a 7-tall sum down the columns, edges mirrored at every distance; the rule's unused
   entries (none reached: the iterator stays inside) are not checked */
void any(int H, int W, float parac_matrix &in[H][W], float parac_matrix &out[H][W])
{
    parac_border_rule m(d) {
        in[-d][*] = in[d][*];
        in[+d][*] = in[H - 1 - d][*];
    }
    parac_iterator a(0:H; 0:W) parac_border_rule(m) { out[ax][ay] = parac_matrix_sum(in[ax - 3:7][ay]); }
    parac_iterator b(0:H; 0:W) parac_border_rule(m) { out[bx][by] = out[bx][by] + in[bx][by]; }
}
"""


def _mirror_sum(a, r, axis):
    p = np.pad(a.astype(np.float64), [(r, r) if d == axis else (0, 0) for d in range(2)], mode="reflect")
    return sum(np.take(p, range(i, i + a.shape[axis]), axis=axis) for i in range(2 * r + 1))


@pytest.mark.parametrize("target", TARGETS)
def test_rule_values_outside_the_matrix_are_refused(target):
    prog = parac.compile(SRC, target)
    a = np.arange(18, dtype=np.float32).reshape(3, 6)
    np.testing.assert_allclose(prog.fixed(a), _mirror_sum(a, 2, 1), rtol=1e-6)
    with pytest.raises(RuntimeError, match=r"program.pc:8: border rule 'm' reads in at 2 along its axis 1, which has "
                                           r"2 elements: the matrix is too small"):
        prog.fixed(np.ones((3, 2), np.float32))
    b = np.arange(40, dtype=np.float32).reshape(8, 5)
    np.testing.assert_allclose(prog.any(b), _mirror_sum(b, 3, 0) + b, rtol=1e-6)
    with pytest.raises(RuntimeError, match=r"program.pc:19: border rule 'm' reads in at 3 along its axis 0, which has "
                                           r"3 elements"):
        prog.any(np.ones((3, 5), np.float32))
    # the calls after a refusal compute as before
    np.testing.assert_allclose(prog.fixed(a), _mirror_sum(a, 2, 1), rtol=1e-6)


def test_rule_values_at_indices_the_host_cannot_evaluate_are_refused():
    """A rule's value read at an index the host cannot evaluate (a matrix
    element) could lie outside its matrix unchecked: a located error."""
    src = """
void pick(int H, int W, int parac_matrix &k[4], float parac_matrix &in[H][W], float parac_matrix &out[H][W])
{
    parac_border_rule m {
        in[*][-1] = in[*][k[0]];
        in[*][+1] = 0.0f;
    }
    parac_iterator t(0:H; 0:W) parac_border_rule(m) { out[tx][ty] = in[tx][ty - 1] + in[tx][ty + 1]; }
}
"""
    with pytest.raises(ValueError, match=r"program.pc:5:\d+: error: border rule 'm' reads a matrix at an index the "
                                         r"host cannot evaluate before the iterator runs"):
        parac.compile(src, "c")
