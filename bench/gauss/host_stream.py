"""From host memory to result: a Gaussian of a NumPy image on the GPU, streamed
through it in bands (src/cuda/stream_rows.c) against the whole image copied
in, filtered and copied out (PARAC_STREAM=never), against what the host link
moves for the same bytes (CuPy copies from and to pinned memory, one way at
a time) and against cupyx doing the same from host memory.

    python bench/gauss/host_stream.py [--size N] [--dtype f32|u8] [--sigma S] [--repeat R]

Every line: best of R wall times after a warm-up. Each mode runs in a process
of its own (the library reads PARAC_STREAM when a context is made).
"""
import argparse
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from peer_timing import times_of  # noqa: E402


def best(fn, repeat, sync):
    """The best of `repeat` calls after a warm-up, in seconds."""
    return min(times_of(fn, repeat, sync, budget_s=600)) / 1e3


def image(n, dtype):
    y = np.arange(n, dtype=np.float32) * np.float32(60.0 / n)
    a = (np.sin(y)[:, None] + np.cos(y * 0.7)[None, :] + 2.2) * 50
    return a.astype(dtype)


def line(case, t, nbytes):
    print("%-66s %9.1f ms  %6.1f GB/s" % (case, t * 1e3, nbytes / t / 1e9), flush=True)


def measure(args, mode):
    import cupy

    import parac

    sync = cupy.cuda.runtime.deviceSynchronize
    a = image(args.size, args.dtype)
    moved = 2 * a.nbytes
    kw = dict(sigma=args.sigma, method=args.method) if args.method else dict(sigma=args.sigma)
    if mode == "link":
        import cupyx
        import cupyx.scipy.ndimage as cnd

        d = cupy.empty(a.shape, a.dtype)
        pinned = cupyx.empty_pinned(a.shape, a.dtype)
        pinned[...] = a
        t_in = best(lambda: d.set(pinned), args.repeat, sync)
        t_out = best(lambda: d.get(out=pinned), args.repeat, sync)
        line("link: H2D pinned, the image", t_in, a.nbytes)
        line("link: D2H pinned, the image", t_out, a.nbytes)
        line("link: both, one after the other (the floor of the issue's measure)", t_in + t_out, moved)
        del pinned
        line("parac.gauss on a CuPy array (the kernels alone)",
             best(lambda: parac.gauss(d, **kw), args.repeat, sync), moved)
        line("cupyx gaussian_filter on a CuPy array",
             best(lambda: cnd.gaussian_filter(d, args.sigma, mode="mirror"), args.repeat, sync), moved)
        del d
        line("cupyx from host memory: asarray, gaussian_filter, get",
             best(lambda: cnd.gaussian_filter(cupy.asarray(a), args.sigma, mode="mirror").get(), args.repeat, sync),
             moved)
        return
    line("parac.gauss on the NumPy array, %s" % mode, best(lambda: parac.gauss(a, device="cuda", **kw), args.repeat,
                                                             sync), moved)
    out = np.empty_like(a)
    out[...] = 0
    line("parac.gauss on the NumPy array, out= touched, %s" % mode,
         best(lambda: parac.gauss(a, device="cuda", out=out, **kw), args.repeat, sync), moved)
    ref = cupy.asnumpy(parac.gauss(cupy.asarray(a), **kw))
    print("# %s: equal to the call on the CuPy array: %s" % (mode, bool(np.array_equal(out, ref))), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=32768)
    ap.add_argument("--dtype", default="f32", choices=["f32", "u8"])
    ap.add_argument("--sigma", type=float, default=5.0)
    ap.add_argument("--method", default=None)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--mode", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.dtype = np.float32 if args.dtype == "f32" else np.uint8
    if args.mode:
        measure(args, args.mode)
        return
    a_bytes = args.size * args.size * np.dtype(args.dtype).itemsize
    print("# %d^2 %s (%.2f GB per image), sigma %g, method %s" % (args.size, np.dtype(args.dtype).name, a_bytes / 1e9,
                                                                   args.sigma, args.method or "auto"), flush=True)
    for mode, env in (("link", {}), ("streamed", {"PARAC_STREAM": "auto"}), ("whole", {"PARAC_STREAM": "never"})):
        argv = [sys.executable, __file__, "--mode", mode, "--size", str(args.size), "--sigma", str(args.sigma),
                "--repeat", str(args.repeat), "--dtype", "f32" if args.dtype == np.float32 else "u8"]
        if args.method:
            argv += ["--method", args.method]
        subprocess.run(argv, check=True, env=dict(os.environ, **env))


if __name__ == "__main__":
    main()
