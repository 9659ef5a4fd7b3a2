"""A whole-slide-sized image from Zarr to Zarr with parac-dask: 51200² u8
(2.6 GB) in a Zarr store of 8192² chunks on local disk, through fill-holes,
label and the Gaussian (σ = 5), and the same fill-holes in process on the
whole array (read whole, computed on the GPU, written whole).

    python bench/dask/bench_wsi.py [--size N] [--chunk C] [--dir D] [--device cuda] [--ops a,b,c] [--gpus K]
                                   [--no-in-process] [--preload MODULES]

One line per case: wall time of the whole command and pixels per second.
h-maxima (h = 20) reads a grey terrain of domes made beside the slide.
--gpus K: the commands run on a dask_cuda.LocalCUDACluster of K GPU workers
(`--scheduler` its address) in place of the threads of one process.
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=51200)
    ap.add_argument("--chunk", type=int, default=8192)
    ap.add_argument("--dir", default="/tmp/parac-bench-wsi")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--ops", default="fill-holes,label,gauss")
    ap.add_argument("--gpus", type=int, default=0)
    ap.add_argument("--preload", default="", help="modules the parac-dask process imports before parac "
                    "(see bench_gpus.py --preload)")
    ap.add_argument("--no-in-process", action="store_true", help="skip the whole-array call (it needs the "
                    "image and its result in host memory, and below 2^31 pixels on the GPU)")
    args = ap.parse_args()
    import zarr

    n, c, d = args.size, args.chunk, args.dir
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    t = time.perf_counter()
    z = zarr.open_array(os.path.join(d, "slide.zarr"), mode="w", shape=(n, n), chunks=(c, c), dtype="u1")
    for y in range(0, n, c):  # made and written a band at a time
        z[y:y + c] = _band(n, c, y)
    if "h-maxima" in args.ops:
        g = zarr.open_array(os.path.join(d, "terrain.zarr"), mode="w", shape=(n, n), chunks=(c, c), dtype="u1")
        for y in range(0, n, c):
            g[y:y + c] = _terrain(n, c, y)
    print("# %d^2 u8 slide in Zarr, chunks %d^2, made in %.1f s; device %s" % (n, c, time.perf_counter() - t,
                                                                             args.device), flush=True)
    px = n * n
    opts = {"gauss": ["--sigma", "5"], "h-maxima": ["--h", "20"]}
    cluster = None
    if args.gpus:
        import dask_cuda
        import distributed

        cluster = dask_cuda.LocalCUDACluster(CUDA_VISIBLE_DEVICES=",".join(map(str, range(args.gpus))),
                                             dashboard_address=None, memory_limit=0)
        opts["all"] = ["--scheduler", cluster.scheduler_address]
    where = "%d GPU workers" % args.gpus if args.gpus else "threads"
    for op in args.ops.split(","):
        src = os.path.join(d, "terrain.zarr" if op == "h-maxima" else "slide.zarr")
        t = time.perf_counter()
        run = ["-m", "parac._dask_cli"]
        if args.preload:
            run = ["-c", "import runpy; %s; runpy.run_module('parac._dask_cli', run_name='__main__', alter_sys=True)"
                   % "; ".join("import " + m for m in args.preload.split(","))]
        r = subprocess.run([sys.executable] + run + [op, src, os.path.join(d, op + ".zarr"),
                            "--device", args.device, "-q"] + opts.get(op, []) + opts.get("all", []),
                           capture_output=True, text=True)
        dt = time.perf_counter() - t
        status = "ok" if r.returncode == 0 else "failed: " + r.stderr.strip()[-300:]
        print("%-58s %8.2f s  %7.3f Gpx/s  %s" % ("parac-dask %s, Zarr -> Zarr, %s" % (op, where), dt,
                                                  px / dt / 1e9, status), flush=True)
        shutil.rmtree(os.path.join(d, op + ".zarr"), ignore_errors=True)
    if cluster is not None:
        cluster.close()
    if args.no_in_process:
        shutil.rmtree(d, ignore_errors=True)
        return
    code = ("import sys, zarr, parac; a = zarr.open(sys.argv[1], 'r')[:]; r = parac.fill_holes(a, device=%r); "
            "zarr.save_array(sys.argv[2], r, chunks=(%d, %d))" % (args.device, c, c))
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", code, os.path.join(d, "slide.zarr"), os.path.join(d, "mem.zarr")],
                       capture_output=True, text=True)
    dt = time.perf_counter() - t
    print("%-58s %8.2f s  %7.3f Gpx/s  %s" % ("fill-holes in process, whole array, Zarr -> Zarr", dt, px / dt / 1e9,
                                              "ok" if r.returncode == 0 else r.stderr[-300:]), flush=True)
    shutil.rmtree(d, ignore_errors=True)


def _band(n, c, y):
    """Rows y..y+c of a blob mask (smoothed noise above its median), made on the GPU when there is one."""
    try:
        import cupy as xp
        import cupyx.scipy.ndimage as xndi
    except ImportError:
        import numpy as xp
        import scipy.ndimage as xndi
    rows = min(c, n - y)
    r = xp.random.default_rng(y)
    f = xndi.uniform_filter(r.random((rows, n), dtype=xp.float32), 9)
    m = ((f > 0.5) * 255).astype(xp.uint8)
    return m.get() if hasattr(m, "get") else m


def _terrain(n, c, y):
    """Rows y..y+c of a grey terrain of domes with a little noise (h-maxima's input), made on the GPU
    when there is one."""
    try:
        import cupy as xp
    except ImportError:
        xp = np
    rows = min(c, n - y)
    r = xp.random.default_rng(y)
    yy = (xp.arange(y, y + rows, dtype=xp.float32) * xp.float32(40.0 / n))[:, None]
    xx = (xp.arange(n, dtype=xp.float32) * xp.float32(40.0 / n))[None, :]
    g = ((xp.sin(yy * 1.3) + xp.cos(xx * 0.9) + 2.2) * 50 + r.random((rows, n), dtype=xp.float32) * 4).astype(xp.uint8)
    return g.get() if hasattr(g, "get") else g


if __name__ == "__main__":
    main()
