"""How fill_label_holes' time grows with the image, in memory (the CPU
method) and on Dask arrays (blocks of 256², the synchronous scheduler), on
spotted labels: the components of 55 % noise with 10 % of pixels cleared,
thousands of labels and tens of thousands of cavities, some beside several labels. Each
result checked against the other. Usage: python3 bench/dask/label_holes_scaling.py"""
import time

import dask
import dask.array as da
import numpy as np
import scipy.ndimage as ndi

import parac

dask.config.set(scheduler="synchronous")
for n in (5, 10, 20):
    r = np.random.default_rng(0)
    shape = (n * 256, n * 256)
    a = ndi.label(r.random(shape) < 0.55, ndi.generate_binary_structure(2, 2))[0]
    a[r.random(shape) < 0.1] = 0
    a = a.astype(np.int32)
    t0 = time.perf_counter()
    want, m = parac.fill_label_holes(a, device="cpu")
    t1 = time.perf_counter()
    got, k = da.compute(*parac.fill_label_holes(da.from_array(a, chunks=256), device="cpu"))
    t2 = time.perf_counter()
    assert int(k) == m and np.array_equal(got, want)
    print("%d blocks (%d^2, %d labels): in memory %.2f s, Dask %.2f s" % (n * n, shape[0], int(a.max()), t1 - t0,
                                                                          t2 - t1), flush=True)
