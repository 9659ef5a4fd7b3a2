"""Timing of the Python peers, shared by the area benchmarks' peers.py: one
warm-up call, then the median of `runs` calls (fewer when `budget_s` runs
out), in milliseconds; `sync` waits for a GPU."""
import time

import numpy as np


def times_of(fn, runs, sync=None, budget_s=60):
    """The times of each call after the warm-up, in milliseconds."""
    fn()
    if sync:
        sync()
    ts = []
    t_end = time.perf_counter() + budget_s
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        if sync:
            sync()
        ts.append((time.perf_counter() - t0) * 1e3)
        if time.perf_counter() > t_end:
            break
    return ts


def time_it(fn, runs, sync=None, budget_s=60):
    return float(np.median(times_of(fn, runs, sync, budget_s)))
