"""The CPU cost of each step of a parac call on a CuPy array, in µs per call
(mean of many calls, after a warm-up): what the Python layers do before the
extension runs, the extension's run, and the wrapping of its output.

    PYTHONPATH=build/python python3 bench/python/launch_breakdown.py [--side 4096] [--calls 2000]
"""
import argparse
import time

import cupy

import parac
import parac.ndimage as pndi
from parac import _device, _parac, _registry


def cost(fn, calls):
    for _ in range(20):
        fn()
    cupy.cuda.get_current_stream().synchronize()
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    dt = (time.perf_counter() - t) / calls
    cupy.cuda.get_current_stream().synchronize()
    return dt * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--side", type=int, default=4096)
    ap.add_argument("--calls", type=int, default=2000)
    a = ap.parse_args()
    n = a.calls
    for side in (8, a.side):
        dev = cupy.random.default_rng(0).random((side, side), dtype=cupy.float32)
        _, d = _device.describe(dev, "cupy")
        stream = _device.stream_of(dev, "cupy")
        args = {"sigma": "5.0", "sigma-y": "5.0", "truncate": "4.0", "border": "reflect"}
        outs, _ = _parac.run("gauss", (d,), args, "cuda:0", stream, True)
        rows = [
            ("kind_of", lambda: _device.kind_of(dev)),
            ("__cuda_array_interface__", lambda: dev.__cuda_array_interface__),
            ("describe", lambda: _device.describe(dev, "cupy")),
            ("device_index", lambda: _device.device_index(dev, "cupy")),
            ("stream_of", lambda: _device.stream_of(dev, "cupy")),
            ("4 parameters as text", lambda: [_registry._text(v, "float") for v in (5.0, 5.0, 4.0, "reflect")]),
            ("_parac.run, method auto", lambda: _parac.run("gauss", (d,), args, "cuda:0", stream, True)),
            ("_parac.run, method separable",
             lambda: _parac.run("gauss", (d,), dict(args, method="separable"), "cuda:0", stream, True)),
            ("_parac.call (the C path)", lambda: _parac.call("gauss", (dev,), {"sigma": 5.0, "sigma_y": 5.0,
                                                                                 "border": "reflect"})),
            ("wrap_output", lambda: _device.wrap_output(outs[0], "cupy", stream)),
            ("parac.gauss", lambda: parac.gauss(dev, sigma=5.0, sigma_y=5.0, truncate=4.0, border="reflect")),
            ("parac.ndimage.gaussian_filter", lambda: pndi.gaussian_filter(dev, 5.0)),
            ("cupy.empty_like", lambda: cupy.empty_like(dev)),
        ]
        print("%d x %d float32, CPU µs per call (%d calls)" % (side, side, n))
        for name, fn in rows:
            print("  %-32s %8.2f" % (name, cost(fn, n if side == 8 else max(n // 10, 50))))


if __name__ == "__main__":
    main()
