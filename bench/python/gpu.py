"""The package on the GPU against its peers in the same run:
parac.ndimage.gaussian_filter on a 4096² float32 CuPy array against
cupyx.scipy.ndimage.gaussian_filter (CUDA events, the arrays on the device),
on NumPy input with device='cuda' (transfers included) and device='cpu'
against scipy, and a loop over many 1024² images against cupyx and cv2.

    PYTHONPATH=build/python python3 bench/python/gpu.py [--sigma 5] [--images 1000]
"""
import argparse
import time

import cupy
import cupyx.scipy.ndimage as cndi
import numpy as np
import scipy.ndimage as ndi

import parac.ndimage as pndi


def gpu_ms(fn, runs=20):
    """Median milliseconds of fn() on the current stream, after two warm-up calls."""
    fn(), fn()
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    times = []
    for _ in range(runs):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, end))
    return float(np.median(times))


def wall_ms(fn, runs=5):
    fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sigma", type=float, default=5.0)
    ap.add_argument("--images", type=int, default=1000)
    args = ap.parse_args()
    s = args.sigma
    host = np.random.default_rng(0).random((4096, 4096), dtype=np.float32)
    dev = cupy.asarray(host)
    ours = gpu_ms(lambda: pndi.gaussian_filter(dev, s))
    theirs = gpu_ms(lambda: cndi.gaussian_filter(dev, s))
    print("4096² float32 CuPy array, sigma %g: parac %.3f ms, cupyx %.3f ms: %.1fx" % (s, ours, theirs, theirs / ours))
    ours_io = wall_ms(lambda: pndi.gaussian_filter(host, s, device="cuda"))
    ours_cpu = wall_ms(lambda: pndi.gaussian_filter(host, s, device="cpu"))
    sc = wall_ms(lambda: ndi.gaussian_filter(host, s), runs=3)
    print("4096² float32 NumPy array, sigma %g: parac device='cuda' %.2f ms (transfers included), device='cpu' "
          "%.2f ms, scipy %.2f ms: %.1fx and %.1fx" % (s, ours_io, ours_cpu, sc, sc / ours_io, sc / ours_cpu))
    n = args.images
    imgs = [cupy.asarray(np.random.default_rng(i).random((1024, 1024), dtype=np.float32)) for i in range(8)]
    for name, fn in (("parac", pndi.gaussian_filter), ("cupyx", cndi.gaussian_filter)):
        fn(imgs[0], 2.0)
        cupy.cuda.get_current_stream().synchronize()
        t0 = time.perf_counter()
        for i in range(n):
            fn(imgs[i % 8], 2.0)
        cupy.cuda.get_current_stream().synchronize()
        print("%d images of 1024² float32 on the GPU, sigma 2, %s: %.1f ms (%.0f images/s)" % (
            n, name, (time.perf_counter() - t0) * 1e3, n / (time.perf_counter() - t0)))
    try:
        import cv2
    except ImportError:
        return
    himgs = [cupy.asnumpy(a) for a in imgs]
    for name, fn in (("parac device='cpu'", lambda a: pndi.gaussian_filter(a, 2.0, device="cpu")),
                     ("cv2.GaussianBlur", lambda a: cv2.GaussianBlur(a, (0, 0), 2.0, borderType=cv2.BORDER_REFLECT))):
        fn(himgs[0])
        t0 = time.perf_counter()
        for i in range(n // 4):
            fn(himgs[i % 8])
        print("%d images of 1024² float32 on the host, sigma 2, %s: %.1f ms" % (n // 4, name,
                                                                             (time.perf_counter() - t0) * 1e3))


if __name__ == "__main__":
    main()
