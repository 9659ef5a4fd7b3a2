"""Where a host block's time goes in label on Dask CPU workers: one 4096²
block of bench_gpus.py's label image, on the threads the process has (run
with OMP_NUM_THREADS=1, as Dask's workers are): its labelling, its first
pixels (parac._dask_global._first_pixels) and the relabelling through a
table: by numpy.take, by indexing, by parac.lookup (what the Dask layer
calls, parac._dask_global._take), each the min of 5; lookup's result goes
back to the library's kept blocks when dropped, as a Dask task's does.

    OMP_NUM_THREADS=1 PYTHONPATH=build/python python3 bench/dask/block_steps.py
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

import parac  # noqa: E402
from bench_gpus import images  # noqa: E402
from parac import _dask_global as G  # noqa: E402


def best(f, r=5):
    b, x = 1e9, None
    for _ in range(r):
        t0 = time.perf_counter()
        x = f()
        b = min(b, time.perf_counter() - t0)
    return b * 1e3, x


def main():
    a = images(8192)["label"][:4096, :4096].copy()
    ms, (lab, n) = best(lambda: parac.label(a, connectivity=4, device="cpu"))
    print("label of a 4096^2 block: %.1f ms, %d labels" % (ms, n))
    print("first pixels: %.1f ms" % best(lambda: G._first_pixels(lab, n, (0, 0), (8192, 8192)))[0])
    table = np.arange(n + 1, dtype=np.int32) * 3
    print("numpy.take through the table: %.1f ms" % best(lambda: np.take(table, lab))[0])
    print("table[labels]: %.1f ms" % best(lambda: table[lab])[0])
    print("parac.lookup through the table: %.1f ms" % best(lambda: parac.lookup(lab, table[None], device="cpu"))[0])
    assert np.array_equal(parac.lookup(lab, table[None], device="cpu"), table[lab])


if __name__ == "__main__":
    main()
