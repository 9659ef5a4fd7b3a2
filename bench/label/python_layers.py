#!/usr/bin/env python3
"""Where the Python call of label spends what the C call (bench_label_c)
does not, layer by layer, on CuPy arrays: parac.ndimage.label, the registry's
parac.label, the extension's call() alone, each with its results dropped or
kept (a kept 132 MB output cannot come back from the pool: a cudaMalloc per
call), the CuPy wrapping of the output, and CuPy's own allocation costs. 8K
noise 50 % and 64^2; wall clock per call (each returns the count, so each
waits for the device), median of 31.

    python bench/label/python_layers.py
"""
import statistics
import time

import cupy
import numpy as np

import parac
from parac import _parac


def wall(fn, runs=31, keep=False):
    kept, t = [], []
    fn()
    for _ in range(runs):
        t0 = time.perf_counter()
        r = fn()
        t.append(time.perf_counter() - t0)
        if keep:
            kept.append(r)
        del r
    return statistics.median(t) * 1e3


for shape in [(4320, 7680), (64, 64)]:
    img = (np.random.default_rng(1).random(shape) < 0.5).astype(np.uint8)
    d = cupy.asarray(img)
    cupy.cuda.Device().synchronize()
    print("shape", shape)
    print("  parac.ndimage.label        %.4f ms" % wall(lambda: parac.ndimage.label(d)))
    print("  parac.label                %.4f ms" % wall(lambda: parac.label(d)))
    print("  parac.label, results kept  %.4f ms" % wall(lambda: parac.label(d), keep=True))
    print("  _parac.call                %.4f ms" % wall(lambda: _parac.call("label", (d,), {}, None)))
    print("  _parac.call, kept          %.4f ms" % wall(lambda: _parac.call("label", (d,), {}, None), keep=True))
    outs = _parac.call("label", (d,), {}, None)
    print("  output tuple:", [type(o).__name__ if not isinstance(o, tuple) else (o[0], type(o[1]).__name__) for o in outs])
    from parac import _device
    print("  wrap_output only           %.4f ms" % wall(lambda: _device.wrap_output(outs[0], "cupy", None)))
    nbytes = d.size * 4
    def malloc_free():
        p = cupy.cuda.runtime.malloc(nbytes)
        cupy.cuda.runtime.free(p)
    print("  cudaMalloc+cudaFree %d B   %.4f ms" % (nbytes, wall(malloc_free)))
    print("  cupy.empty int32           %.4f ms" % wall(lambda: cupy.empty(shape, cupy.int32)))
    del outs
