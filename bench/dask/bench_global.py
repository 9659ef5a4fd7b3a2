"""Global operations on Dask arrays: label and fill-holes of a large mask,
chunked, against the same call on the whole array in memory and against
dask-image (the only chunked peer: its label runs on the CPU, and a fill of
holes is built from it).

    python bench/dask/bench_global.py [--size N] [--chunk C] [--peer-size M] [--repeat R]

Prints one line per case: wall time (best of R, after a warm-up), and the
rate in pixels per second. The mask is smoothed noise thresholded (blobs
with holes, as segmentations are). Data on the GPU where the case says so.
"""
import argparse
import time

import numpy as np


def blobs(n, seed=1):
    """A segmentation-like mask: Gaussian-smoothed noise above its median, made on the GPU when there is one."""
    try:
        import cupy
        import cupyx.scipy.ndimage as cndi

        r = cupy.random.default_rng(seed)
        f = cndi.uniform_filter(r.random((n, n), dtype=cupy.float32), 9)
        return cupy.asnumpy(f > 0.5)
    except ImportError:
        import scipy.ndimage as ndi

        r = np.random.default_rng(seed)
        return ndi.uniform_filter(r.random((n, n), dtype=np.float32), 9) > 0.5


def best(fn, repeat, sync=lambda: None):
    fn()
    sync()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t)
    return min(times)


def report(case, n_px, t):
    print("%-64s %9.1f ms  %8.2f Gpx/s" % (case, t * 1e3, n_px / t / 1e9), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=16384)
    ap.add_argument("--chunk", type=int, default=4096)
    ap.add_argument("--peer-size", type=int, default=8192)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", action="store_true", help="profile one chunked label of CuPy chunks")
    args = ap.parse_args()
    import dask
    import dask.array as da

    import parac

    n, c = args.size, args.chunk
    mask = blobs(n)
    print("mask %d^2 (%.0f %% set), chunks %d^2" % (n, mask.mean() * 100, c), flush=True)
    try:
        import cupy

        sync = cupy.cuda.runtime.deviceSynchronize
    except ImportError:
        cupy = None
    if cupy is not None:
        # data on the GPU: the whole array in process, and CuPy chunks on the threaded scheduler
        g = cupy.asarray(mask)
        report("label, in process, one GPU (CuPy array)", n * n, best(lambda: parac.ndimage.label(g), args.repeat, sync))
        report("fill-holes, in process, one GPU", n * n,
               best(lambda: parac.ndimage.binary_fill_holes(g), args.repeat, sync))
        dg = da.from_array(g, chunks=c, asarray=False)
        with dask.config.set(scheduler="threads"):
            report("label, Dask CuPy chunks, threads, one GPU", n * n,
                   best(lambda: dask.persist(*parac.ndimage.label(dg)), args.repeat, sync))
            report("fill-holes, Dask CuPy chunks, threads, one GPU", n * n,
                   best(lambda: dask.persist(parac.ndimage.binary_fill_holes(dg)), args.repeat, sync))
        if args.profile:
            profile(dg)
        del g, dg
        # data in host memory: in process through the GPU, and NumPy chunks each through the GPU
        report("label, in process, host memory through the GPU", n * n,
               best(lambda: parac.ndimage.label(mask, device="cuda"), args.repeat))
        report("fill-holes, in process, host memory through the GPU", n * n,
               best(lambda: parac.ndimage.binary_fill_holes(mask, device="cuda"), args.repeat))
        dh = da.from_array(mask, chunks=c)
        with dask.config.set(scheduler="threads"):
            report("label, Dask NumPy chunks, threads, each through the GPU", n * n,
                   best(lambda: dask.persist(*parac.ndimage.label(dh, device="cuda")), args.repeat))
            report("fill-holes, Dask NumPy chunks, threads, each through the GPU", n * n,
                   best(lambda: dask.persist(parac.ndimage.binary_fill_holes(dh, device="cuda")), args.repeat))
        cuda_cluster(mask, c, args.repeat)
    report("label, in process, CPU", n * n, best(lambda: parac.ndimage.label(mask, device="cpu"), 1))
    dh = da.from_array(mask, chunks=c)
    with dask.config.set(scheduler="threads"):
        report("label, Dask NumPy chunks, threads, parac on the CPU", n * n,
               best(lambda: dask.persist(*parac.ndimage.label(dh, device="cpu")), 1))
    if args.peer_size:
        peers(mask[: args.peer_size, : args.peer_size], c, args.repeat, cupy)


def profile(dg):
    """Where a chunked label of CuPy chunks spends its time (one thread, cProfile)."""
    import cProfile
    import pstats

    import dask

    import parac

    with dask.config.set(scheduler="sync"):
        pr = cProfile.Profile()
        pr.enable()
        dask.persist(*parac.ndimage.label(dg))
        pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(14)


def cuda_cluster(mask, c, repeat):
    """The same on a LocalCUDACluster (one worker per GPU), chunks made and kept on the workers' GPUs."""
    try:
        import dask_cuda
        import distributed
    except ImportError as e:
        print("LocalCUDACluster: skipped (%s)" % e)
        return
    import cupy
    import dask.array as da

    import parac

    n = mask.shape[0]
    with dask_cuda.LocalCUDACluster(dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        k = len(client.scheduler_info()["workers"])
        d = da.from_array(mask, chunks=c).map_blocks(cupy.asarray, dtype=bool, meta=cupy.empty((0, 0), bool))
        d = client.persist(d)
        distributed.wait(d)

        def run(graph):
            def go():
                done = client.persist(graph)
                distributed.wait(done)
            return go

        report("label, LocalCUDACluster %d worker(s), chunks on the GPUs" % k, n * n,
               best(run(list(parac.ndimage.label(d))), repeat))
        report("fill-holes, LocalCUDACluster %d worker(s)" % k, n * n,
               best(run(parac.ndimage.binary_fill_holes(d)), repeat))


def peers(mask, c, repeat, cupy):
    """dask-image's label (CPU, scipy per chunk) and a fill of holes built on it, and parac on the same."""
    import dask
    import dask.array as da

    import parac

    n = mask.shape[0]
    dh = da.from_array(mask, chunks=min(c, n))
    with dask.config.set(scheduler="threads"):
        report("label %d^2, Dask NumPy chunks, parac on the CPU" % n, n * n,
               best(lambda: dask.persist(*parac.ndimage.label(dh, device="cpu")), repeat))
        report("fill-holes %d^2, Dask NumPy chunks, parac on the CPU" % n, n * n,
               best(lambda: dask.persist(parac.ndimage.binary_fill_holes(dh, device="cpu")), repeat))
        if cupy is not None:
            dg = da.from_array(cupy.asarray(mask), chunks=min(c, n), asarray=False)
            sync = cupy.cuda.runtime.deviceSynchronize
            report("label %d^2, Dask CuPy chunks, parac on the GPU" % n, n * n,
                   best(lambda: dask.persist(*parac.ndimage.label(dg)), repeat, sync))
            report("fill-holes %d^2, Dask CuPy chunks, parac on the GPU" % n, n * n,
                   best(lambda: dask.persist(parac.ndimage.binary_fill_holes(dg)), repeat, sync))
        try:
            from dask_image import ndmeasure
        except ImportError as e:
            print("dask-image: skipped (%s)" % e)
            return

        def fill_by_label():
            lab, _ = dask.persist(*ndmeasure.label(~dh))  # labelled once, its edges read from it
            edge = np.unique(np.concatenate([np.asarray(x) for x in dask.compute(
                lab[0], lab[-1], lab[:, 0], lab[:, -1])]))
            return dask.persist(dh | ~da.isin(lab, edge[edge > 0]))

        report("label %d^2, dask-image ndmeasure.label (CPU)" % n, n * n,
               best(lambda: dask.persist(*ndmeasure.label(dh)), 1))
        report("fill-holes %d^2, dask-image label-based fill (CPU)" % n, n * n, best(fill_by_label, 1))


if __name__ == "__main__":
    main()
