"""parac-dask from file to file: a large u8 image in a Zarr store on local
disk, chunked, through label, fill-holes, h-maxima and the Gaussian to a
Zarr store, against the same operation in process on the whole array (read
whole, computed, written whole), the disk's own read + write time, and
dask-image where it has the operation.

    python bench/dask/bench_files.py [--size N] [--chunk C] [--dir D] [--device cuda]

One line per case: wall time of the whole command (one run: each run reads
and writes the disk), and pixels per second. The image: smoothed noise
thresholded into blobs with holes (u8 0/255), and for h-maxima / the
Gaussian a grey terrain of domes.
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

import numpy as np


def images(n, seed=1):
    """(mask, grey) u8 images of n x n, made on the GPU when there is one."""
    try:
        import cupy as xp
        import cupyx.scipy.ndimage as xndi
    except ImportError:
        import scipy.ndimage as xndi

        xp = np
    r = xp.random.default_rng(seed)
    f = xndi.uniform_filter(r.random((n, n), dtype=xp.float32), 9)
    mask = ((f > 0.5) * 255).astype(xp.uint8)
    y, x = xp.mgrid[0:n, 0:n].astype(xp.float32) * xp.float32(40.0 / n)
    grey = ((xp.sin(y * 1.3) + xp.cos(x * 0.9) + 2.2) * 50 + r.random((n, n), dtype=xp.float32) * 4).astype(xp.uint8)
    get = getattr(xp, "asnumpy", np.asarray)
    return get(mask), get(grey)


def timed(cmd):
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if r.returncode:
        raise SystemExit("failed: %s\n%s" % (" ".join(cmd), r.stderr))
    return dt


def report(case, n_px, t):
    print("%-66s %9.2f s  %8.3f Gpx/s" % (case, t, n_px / t / 1e9), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=16384)
    ap.add_argument("--chunk", type=int, default=4096)
    ap.add_argument("--dir", default="/tmp/parac-bench-files")
    ap.add_argument("--device", default="auto")
    args = ap.parse_args()
    import zarr

    n, c, d = args.size, args.chunk, args.dir
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    mask, grey = images(n)
    for name, a in (("mask", mask), ("grey", grey)):
        zarr.save_array(os.path.join(d, name + ".zarr"), a, chunks=(c, c))
    px = n * n
    print("# %d x %d u8, chunks %d, Zarr on local disk (%s), device %s" % (n, n, c, d, args.device))

    def in_process(op, src, params):
        code = ("import sys, zarr, parac, numpy as np; a = zarr.open(sys.argv[1], 'r')[:]; "
                "r = parac.%s(a, device=%r, %s); r = r[0] if isinstance(r, tuple) else r; "
                "zarr.save_array(sys.argv[2], r, chunks=(%d, %d))" % (op, args.device, params, c, c))
        return timed([sys.executable, "-c", code, os.path.join(d, src), os.path.join(d, "out-mem.zarr")])

    t_io = timed([sys.executable, "-c", "import sys, zarr; zarr.save_array(sys.argv[2], zarr.open(sys.argv[1], 'r')[:], "
                  "chunks=(%d, %d))" % (c, c), os.path.join(d, "mask.zarr"), os.path.join(d, "copy.zarr")])
    report("disk: read + write the image (Python, zarr, one process)", px, t_io)
    cases = (("label", "mask", [], "label", ""),
             ("fill-holes", "mask", [], "fill_holes", ""),
             ("h-maxima", "grey", ["--h", "20"], "h_maxima", "h=20.0"),
             ("gauss", "grey", ["--sigma", "5"], "gauss", "sigma=5.0, method='separable'"))
    for op, src, opts, fn, params in cases:
        t = timed([sys.executable, "-m", "parac._dask_cli", op, os.path.join(d, src + ".zarr"),
                   os.path.join(d, "out.zarr"), "--device", args.device, "-q"] + opts)
        t_mem = in_process(fn, src + ".zarr", params)
        same = np.array_equal(zarr.open(os.path.join(d, "out.zarr"), "r")[:],
                              zarr.open(os.path.join(d, "out-mem.zarr"), "r")[:])
        report("parac-dask %s (threads scheduler), Zarr -> Zarr" % op, px, t)
        report("  in process on the whole array, Zarr -> Zarr (%.2fx; equal: %s)" % (t / t_mem, same), px, t_mem)
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
