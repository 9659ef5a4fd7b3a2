"""How long a Dask label's graph takes to build and to compute as the block
count grows (blocks of 256², 64², 32² of one random mask), checked against
the in-memory call. Usage: python3 bench/dask/graph_build.py"""
import time

import dask.array as da
import numpy as np

import parac

r = np.random.default_rng(3)
for n, c in ((10, 256), (40, 64), (80, 32)):
    a = r.random((n * c, n * c)) < 0.5
    d = da.from_array(a, chunks=c)
    t0 = time.perf_counter()
    lab, cnt = parac.ndimage.label(d)
    t1 = time.perf_counter()
    got, k = da.compute(lab, cnt)
    t2 = time.perf_counter()
    want, m = parac.ndimage.label(a)
    assert int(k) == m and np.array_equal(got, want)
    print("%d blocks of %d^2: graph %.2f s (%d tasks), compute %.2f s" % (n * n, c, t1 - t0,
                                                                        len(lab.__dask_graph__()), t2 - t1), flush=True)
