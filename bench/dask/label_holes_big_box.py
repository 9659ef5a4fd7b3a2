"""fill_label_holes on Dask arrays when a label's box is the whole array:
a lattice (label 1, lines every 32 pixels) whose cells each hold a blob of
its own label in a cavity beside both, so that every cavity is settled by
the lattice's box. Step 3 once as one task that reads the whole box, once
labelled in chunks (the default for a box of more than four chunks); the
synchronous scheduler; each result checked against the in-memory call.
Usage: python3 bench/dask/label_holes_big_box.py [N] (N x N blocks of 256²)"""
import sys
import time

import dask
import dask.array as da
import numpy as np

import parac
from parac import _dask_label_holes

dask.config.set(scheduler="synchronous")
n = int(sys.argv[1]) if len(sys.argv) > 1 else 8
side = n * 256
a = np.zeros((side, side), np.int32)
a[::32, :] = 1
a[:, ::32] = 1
a[-1, :] = 1
a[:, -1] = 1
cells = np.arange(side // 32)
blob = 2 + cells[:, None] * (side // 32) + cells[None, :]
for dy in range(12, 20):
    for dx in range(12, 20):
        a[dy::32, dx::32][: blob.shape[0], : blob.shape[1]] = blob[: a[dy::32, dx::32].shape[0], : a[dy::32, dx::32].shape[1]]
want, m = parac.fill_label_holes(a, device="cpu")
d = da.from_array(a, chunks=256)
da.compute(*parac.fill_label_holes(d[:512, :512], device="cpu"))  # imports and first calls out of the timing
for limit, what in ((side * side, "one task reads the box"), (None, "the box labelled in chunks")):
    _dask_label_holes.BOX_PIXELS_IN_ONE_TASK = limit
    t0 = time.perf_counter()
    got, k = da.compute(*parac.fill_label_holes(d, device="cpu"))
    t1 = time.perf_counter()
    assert int(k) == m and np.array_equal(got, want)
    print("%d blocks (%d^2, %d labels, %d filled): %s %.2f s" % (n * n, side, int(a.max()), m, what, t1 - t0),
          flush=True)
