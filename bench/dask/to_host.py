"""A GPU array's copy to host memory, in this process and in a Dask worker.

    python bench/dask/to_host.py [--gib 1] [--repeat 4]

parac._device.to_host (parac's staged copies) of a CuPy int32 array into a
new NumPy array, and the same copy into an array already touched, the best
of --repeat, and into a new array aligned to 2 MiB with huge pages advised
(as the library allocates the host images it returns); then the same
inside a one-worker dask_cuda.LocalCUDACluster (Dask starts its workers
with OMP_NUM_THREADS=1): whether a worker copies as fast as the process
does, and what a new array's first touch costs.
"""
import argparse
import mmap
import os
import time

import numpy as np


HUGE = 2 << 20


def empty_huge(shape, dtype):
    """A new array at a 2 MiB boundary of its own anonymous mapping, with
    huge pages advised (where the kernel's setting allows them)."""
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    m = mmap.mmap(-1, nbytes + HUGE)
    if hasattr(m, "madvise") and hasattr(mmap, "MADV_HUGEPAGE"):
        m.madvise(mmap.MADV_HUGEPAGE)
    off = -np.frombuffer(m, np.uint8, 1).ctypes.data % HUGE
    return np.frombuffer(m, dtype, int(np.prod(shape)), off).reshape(shape)


def thp():
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            return f.read().strip()
    except OSError:
        return "unknown"


def copies(nbytes, repeat):
    import cupy

    from parac import _device, _parac

    _device._copy_threads()
    a = cupy.arange(nbytes // 4, dtype=cupy.int32)
    cupy.cuda.Device().synchronize()
    touched = np.ones(a.shape, a.dtype)
    new, into, huge = [], [], []
    stream = cupy.cuda.get_current_stream().ptr
    for _ in range(repeat):
        out = empty_huge(a.shape, a.dtype)
        t = time.perf_counter()
        _parac.copy_bytes(out, a.data.ptr, a.device.id, False, stream)
        huge.append(time.perf_counter() - t)
        del out
        t = time.perf_counter()
        h = _device.to_host(a)
        new.append(time.perf_counter() - t)
        del h
        t = time.perf_counter()
        _parac.copy_bytes(touched, a.data.ptr, a.device.id, False, stream)
        into.append(time.perf_counter() - t)
    t = time.perf_counter()
    fresh = np.empty(a.shape, a.dtype)
    fresh[...] = 0
    first_touch = time.perf_counter() - t
    threads = _parac.set_copy_threads(0)
    _parac.set_copy_threads(threads)
    return ("new %.1f ms, new at 2 MiB with huge pages advised %.1f ms, into touched %.1f ms, numpy first touch "
            "one thread %.1f ms; copy threads %d, affinity %d, OMP %s, THP %s" % (
                min(new) * 1e3, min(huge) * 1e3, min(into) * 1e3, first_touch * 1e3, threads,
                len(os.sched_getaffinity(0)), os.environ.get("OMP_NUM_THREADS"), thp()))


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
