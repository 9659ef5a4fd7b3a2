"""Copies between pageable host memory and the GPU through pinned staging
buffers (src/cuda/staged_copy.c), marked gpu: with staging forced on every
copy and buffers so small that images cross in many pieces (and rows wider
than a buffer copied directly), operations on NumPy arrays computed on the
GPU equal the CPU's bit for bit: 2D images of odd sizes, rows with a pitch
(views into a wider array), 3D volumes, u8 / u16 / f32."""
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.gpu

_dir = os.environ.get("PARAC_PYTHON_DIR")

SCRIPT = r"""
import numpy as np, parac
r = np.random.default_rng(4)
cases = []
for shape in ((37, 1001), (1200, 77), (9, 31, 45), (3, 700, 300)):
    for dt in (np.uint8, np.uint16, np.float32):
        mask = (r.random(shape) * 200).astype(dt)
        cases.append((mask, np.where(mask > 30, mask - 30, 0).astype(dt)))
wide = (r.random((301, 911)) * 250).astype(np.uint8)
view = wide[:, 13:13 + 555]                      # rows with a pitch
cases.append((view, np.where(view > 20, view - 20, 0).astype(np.uint8)))
n = 0
for mask, marker in cases:
    g = parac.reconstruct(marker, mask, device="cuda")
    c = parac.reconstruct(marker, mask, device="cpu")
    assert g.dtype == c.dtype and (g == c).all(), (mask.shape, mask.dtype)
    lg, ng = parac.label((mask > 100).astype(np.uint8), device="cuda")
    lc, nc = parac.label((mask > 100).astype(np.uint8), device="cpu")
    assert ng == nc and (lg == lc).all(), mask.shape
    n += 1
print("ok", n)
"""


@pytest.mark.parametrize("slot", ["4096", "65536", "32M"])
def test_staged_copies_equal_the_cpu(slot):
    pytest.importorskip("numpy")
    assert _staged(SCRIPT, slot) == ["ok", "13"]


def _staged(script, slot):
    """script's output words, run in a new process with every copy staged through buffers of slot bytes."""
    env = dict(os.environ, PARAC_STAGED_COPY_MIN="1", PARAC_STAGED_COPY_SLOT=slot)
    if _dir:
        env["PYTHONPATH"] = os.pathsep.join([_dir] + [p for p in [env.get("PYTHONPATH")] if p])
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout.split()


COPY_SCRIPT = r"""
import numpy as np, cupy, parac
from parac import _device
_device.STAGED_MIN = 1        # every copy through the library's staging
r = np.random.default_rng(5)
n = 0
for shape, dt in (((3,), np.uint8), ((1 << 20,), np.uint8), (((1 << 20) + 7,), np.float32),
                  ((513, 1029), np.bool_), ((37, 101, 333), np.int64), ((2049, 2051), np.uint16)):
    a = (r.random(shape) * 250).astype(dt)
    g = _device.to_gpu(a)
    assert isinstance(g, cupy.ndarray) and g.dtype == a.dtype and g.shape == a.shape
    assert (cupy.asnumpy(g) == a).all(), (shape, dt)
    h = _device.to_host(g * 1 if dt != np.bool_ else ~g)
    assert isinstance(h, np.ndarray) and h.flags.c_contiguous
    assert (h == (a * 1 if dt != np.bool_ else ~a)).all(), (shape, dt)
    n += 1
# strided views in: rows at a pitch (chunks of a larger array, read where they lie), planes at a pitch,
# and layouts that are packed first (a step along the last axis, rows in reverse, a transposed volume)
v = (r.random((300, 700)) * 9).astype(np.float32)[:, 5:600]
big = (r.random((9, 301, 517)) * 250).astype(np.uint16)
for view in (v, big[2, 7:290, 11:500], big[1:8, 3:200, 0:333], big[:, ::2, 5:], big[::3, 1:, :-1],
             big[4, :, ::2], big[3, ::-1, :], big.transpose(2, 1, 0)[:40], big[0, :1, :], big[:1, :, 4:]):
    assert (_device.to_gpu(view).get() == view).all(), (view.shape, view.strides)
    n += 1
if cupy.cuda.runtime.getDeviceCount() > 1:
    g = _device.to_gpu(v, 1)
    assert g.device.id == 1 and (g.get() == v).all() and (_device.to_host(g) == v).all()
print("ok", n)
"""


@pytest.mark.parametrize("slot", ["1M", "3M", "32M"])
def test_to_gpu_and_back_through_staging(slot):
    """parac._device.to_gpu / to_host (the Dask layer's copies of host chunks) through the staged copies:
    buffers of one and three 1 MiB rows and the default, sizes below, at and past a row, every element size,
    views whose rows or planes lie apart and views that must be packed first."""
    pytest.importorskip("cupy")
    assert _staged(COPY_SCRIPT, slot) == ["ok", "16"]
