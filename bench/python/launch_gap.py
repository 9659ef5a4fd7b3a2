"""Where the time of one parac call on a CuPy array goes: the wrapper
(parac.ndimage.gaussian_filter), the registry function (parac.gauss), the
extension's run alone (arguments prepared once), its call() path for CUDA
arrays, each CUDA method forced, against the GPU time of the same call
(cupyx.profiler.benchmark: CPU and GPU time per call, data on the device).
"GPU time" runs from the start event to the end event, so it holds the host
work before the launch as well; "kernels alone" hides that work behind a
busy stream and leaves the device's own time.

    PYTHONPATH=build/python python3 bench/python/launch_gap.py [--side 4096] [--sigma 5]
"""
import argparse

import cupy
import cupyx.scipy.ndimage as cndi
from cupyx.profiler import benchmark

import parac
import parac.ndimage as pndi
from parac import _device, _parac


def report(name, fn, n=200):
    r = benchmark(fn, n_repeat=n, n_warmup=5)
    cpu, gpu = r.cpu_times.mean() * 1e3, r.gpu_times[0].mean() * 1e3
    print("%-52s CPU %.3f ms  GPU %.3f ms" % (name, cpu, gpu))


_SPIN = None


def kernels_alone(name, fn, n=50):
    """The device time of fn's work alone: a spinning kernel keeps the stream
    busy while fn is called, so its host work before the launch is hidden."""
    global _SPIN
    if _SPIN is None:
        _SPIN = cupy.RawKernel(r"""extern "C" __global__ void spin(long long cycles)
            { long long t0 = clock64(); while (clock64() - t0 < cycles) { } }""", "spin")
    start, end, times = cupy.cuda.Event(), cupy.cuda.Event(), []
    for i in range(n + 5):
        _SPIN((1,), (1,), (cupy.int64(4_000_000),))  # about 2 ms
        start.record()
        fn()
        end.record()
        end.synchronize()
        if i >= 5:
            times.append(cupy.cuda.get_elapsed_time(start, end))
    times.sort()
    print("%-52s kernels alone %.3f ms (median)" % (name, times[len(times) // 2]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--side", type=int, default=4096)
    ap.add_argument("--sigma", type=float, default=5.0)
    a = ap.parse_args()
    dev = cupy.random.default_rng(0).random((a.side, a.side), dtype=cupy.float32)
    tiny = cupy.zeros((8, 8), cupy.float32)
    s = a.sigma
    report("parac.ndimage.gaussian_filter", lambda: pndi.gaussian_filter(dev, s))
    report("parac.gauss", lambda: parac.gauss(dev, sigma=s, sigma_y=s, truncate=4.0, border="reflect"))
    out = cupy.empty_like(dev)
    report("parac.gauss, out= (written by the library)",
           lambda: parac.gauss(dev, sigma=s, sigma_y=s, truncate=4.0, border="reflect", out=out))
    report("parac.ndimage.gaussian_filter, output=", lambda: pndi.gaussian_filter(dev, s, output=out))
    report("cupyx gaussian_filter", lambda: cndi.gaussian_filter(dev, s))
    report("_parac.call alone", lambda: _parac.call("gauss", (dev,), {"sigma": s, "sigma_y": s, "border": "reflect"}))
    kernels_alone("parac.ndimage.gaussian_filter", lambda: pndi.gaussian_filter(dev, s))
    kernels_alone("cupyx gaussian_filter", lambda: cndi.gaussian_filter(dev, s))
    stream = _device.stream_of(dev, "cupy")
    for img, label in ((dev, "%d²" % a.side), (tiny, "8x8")):
        _, d = _device.describe(img, "cupy")
        args = {"sigma": repr(s), "sigma-y": repr(s), "truncate": "4.0", "border": "reflect"}
        outs, why = _parac.run("gauss", (d,), args, "cuda:0", stream, True)
        print("%s: %s" % (label, why))
        report("_parac.run alone, %s" % label, lambda: _parac.run("gauss", (d,), args, "cuda:0", stream, True))
        for m in ("separable", "texture", "recursive"):
            am = dict(args, method=m)
            report("_parac.run alone, %s, method %s" % (label, m),
                   lambda: _parac.run("gauss", (d,), am, "cuda:0", stream, True))


if __name__ == "__main__":
    main()
