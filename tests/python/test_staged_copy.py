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
    env = dict(os.environ, PARAC_STAGED_COPY_MIN="1", PARAC_STAGED_COPY_SLOT=slot)
    if _dir:
        env["PYTHONPATH"] = os.pathsep.join([_dir] + [p for p in [env.get("PYTHONPATH")] if p])
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["ok", "13"]
