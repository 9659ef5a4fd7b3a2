"""A GPU array's copy to host memory, in this process and in a Dask worker.

    python bench/dask/to_host.py [--gib 1] [--repeat 4]

parac._device.to_host (parac's staged copies) of a CuPy int32 array into a
new NumPy array, and the same copy into an array already touched, the best
of --repeat; then the same inside a one-worker dask_cuda.LocalCUDACluster
(Dask starts its workers with OMP_NUM_THREADS=1): whether a worker copies
as fast as the process does, and what a new array's first touch costs.
"""
import argparse
import os
import time

import numpy as np


def copies(nbytes, repeat):
    import cupy

    from parac import _device, _parac

    _device._copy_threads()
    a = cupy.arange(nbytes // 4, dtype=cupy.int32)
    cupy.cuda.Device().synchronize()
    touched = np.ones(a.shape, a.dtype)
    new, into = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        h = _device.to_host(a)
        new.append(time.perf_counter() - t)
        del h
        t = time.perf_counter()
        _parac.copy_bytes(touched, a.data.ptr, a.device.id, False, cupy.cuda.get_current_stream().ptr)
        into.append(time.perf_counter() - t)
    t = time.perf_counter()
    fresh = np.empty(a.shape, a.dtype)
    fresh[...] = 0
    first_touch = time.perf_counter() - t
    threads = _parac.set_copy_threads(0)
    _parac.set_copy_threads(threads)
    return ("new %.1f ms, into touched %.1f ms, numpy first touch one thread %.1f ms; copy threads %d, "
            "affinity %d, OMP %s" % (min(new) * 1e3, min(into) * 1e3, first_touch * 1e3, threads,
                                     len(os.sched_getaffinity(0)), os.environ.get("OMP_NUM_THREADS")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gib", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=4)
    args = ap.parse_args()
    nbytes = int(args.gib * (1 << 30)) // 4 * 4
    print("in process:", copies(nbytes, args.repeat), flush=True)
    import dask_cuda
    import distributed

    cluster = dask_cuda.LocalCUDACluster(CUDA_VISIBLE_DEVICES="0", threads_per_worker=1, dashboard_address=None,
                                         memory_limit=0)
    with distributed.Client(cluster) as client:
        for r in client.run(copies, nbytes, args.repeat).values():
            print("worker:", r, flush=True)
    cluster.close()


if __name__ == "__main__":
    main()
