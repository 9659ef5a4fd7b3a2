"""What each round of a chunked h-maxima costs: the rounds of border
exchange (python/parac/_dask_rounds.py) on bench_wsi.py's terrain of domes,
by the synchronous scheduler in one process: per round, the chunks
reconstructed and the round's seconds; beside the call on the whole array.

    python bench/dask/rounds_cost.py [SIZE] [CHUNK] [DEVICE]    (defaults 13000 1000 cpu)

With OMP_NUM_THREADS=1 the whole call and each chunk use one thread. On a
GPU the chunked call runs once untimed first (CUDA's start, CuPy's kernels
compiled on first use).
"""
import os
import sys
import time

import dask
import dask.array as da
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_wsi  # noqa: E402

import parac  # noqa: E402
import parac.morphology  # noqa: E402
from parac import _dask_rounds  # noqa: E402


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 13000
    c = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    device = sys.argv[3] if len(sys.argv) > 3 else "cpu"
    terrain = np.concatenate([bench_wsi._terrain(n, c, y) for y in range(0, n, c)])
    calls = []
    round_block = _dask_rounds._round_block

    def timed_block(*args, **kw):
        t = time.perf_counter()
        r = round_block(*args, **kw)
        calls.append(time.perf_counter() - t)
        return r

    if device != "cpu":
        with dask.config.set(scheduler="sync"):
            parac.morphology.h_maxima(da.from_array(terrain, chunks=c), 20, device=device).compute()
    _dask_rounds._round_block = timed_block
    rounds = []
    persist = dask.persist  # _dask_rounds imports dask where it runs: the patch reaches it

    def timed_persist(*args, **kw):
        t, before = time.perf_counter(), len(calls)
        r = persist(*args, **kw)
        if len(calls) > before:  # a round (the persists before the first hold the chunks)
            rounds.append((len(calls) - before, time.perf_counter() - t))
        return r

    dask.persist = timed_persist
    with dask.config.set(scheduler="sync"):
        t = time.perf_counter()
        got = parac.morphology.h_maxima(da.from_array(terrain, chunks=c), 20, device=device).compute()
        chunked = time.perf_counter() - t
    dask.persist = persist
    t = time.perf_counter()
    whole = parac.morphology.h_maxima(terrain, 20, device=device)
    dt = time.perf_counter() - t
    print("h-maxima %d^2, chunks %d^2 (%d), %s: chunked %.2f s, whole %.2f s, equal %s" % (
        n, c, (-(-n // c)) ** 2, device, chunked, dt, np.array_equal(np.asarray(got), np.asarray(whole))))
    print("%d rounds, %d chunk reconstructions, %.2f s in them" % (len(rounds), len(calls), sum(calls)))
    first = rounds[0][1] if rounds else 1.0
    for k, (m, s) in enumerate(rounds, 1):
        print("round %2d: %4d chunks  %.3f s  (%3.0f %% of the first)" % (k, m, s, 100 * s / first))


if __name__ == "__main__":
    main()
