"""Skeletons of every label of a segmentation (skeletonize_pf_labels):
thousands of tube-like objects in one volume, in process one label after
another and through Dask (one task per label, chunks of the volume).

    python bench/dask/bench_skeleton_labels.py [--size N] [--objects K] [--device cuda] [--workers W]

One line per case: wall time, labels per second. The volume: K cylinders
of radius 2-4 and length 15-60 voxels along random axes, labelled 1..K
(later ones cut into earlier ones where they cross, as segmentations touch).
"""
import argparse
import time

import numpy as np


def tubes(n, k, seed=1):
    r = np.random.default_rng(seed)
    v = np.zeros((n, n, n), np.uint32)
    zz, yy, xx = np.ogrid[0:n, 0:n, 0:n]
    for lab in range(1, k + 1):
        ax = r.integers(3)
        rad = r.uniform(2, 4)
        length = int(r.integers(15, 60))
        c = r.integers(6, n - 6, 3)
        lo = max(int(c[ax]) - length // 2, 1)
        hi = min(lo + length, n - 1)
        box = [slice(max(int(c[i] - 5), 0), min(int(c[i] + 6), n)) for i in range(3)]
        box[ax] = slice(lo, hi)
        g = [zz[box[0]], yy[:, box[1]], xx[:, :, box[2]]]
        d2 = sum((g[i] - c[i]) ** 2 for i in range(3) if i != ax)
        sub = v[tuple(box)]
        sub[np.broadcast_to(d2 <= rad * rad, sub.shape)] = lab
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--objects", type=int, default=2000)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--workers", type=int, default=8, help="Dask threads")
    ap.add_argument("--chunk", type=int, default=128)
    ap.add_argument("--processes", type=int, default=0, help="also on a LocalCluster of this many processes")
    args = ap.parse_args()
    import dask
    import dask.array as da

    import parac

    v = tubes(args.size, args.objects)
    k = len(np.unique(v)) - 1
    print("# %d^3 u32 volume, %d labels, device %s" % (args.size, k, args.device), flush=True)

    def report(case, t, n=k):
        print("%-62s %8.2f s  %8.1f labels/s" % (case, t, n / t), flush=True)

    parac.morphology.skeletonize_pf_labels(v[:40, :40, :40], device=args.device)  # warm-up: first-use costs
    t = time.perf_counter()
    want, graphs, skipped = parac.morphology.skeletonize_pf_labels(v, device=args.device, return_graphs=True)
    report("in process, one label after another", time.perf_counter() - t)
    print("#   %d skeletons, %d labels too thin, %d skeleton voxels" % (len(graphs), len(skipped),
                                                                       int((want > 0).sum())), flush=True)
    d = da.from_array(v, chunks=args.chunk)
    with dask.config.set(scheduler="threads", num_workers=args.workers):
        t = time.perf_counter()
        got = parac.morphology.skeletonize_pf_labels(d, device=args.device).compute()
        report("Dask, %d threads, chunks %d^3, one task per label" % (args.workers, args.chunk),
               time.perf_counter() - t)
    print("#   equal to the in-process result: %s" % np.array_equal(got, want), flush=True)
    if args.processes:
        import distributed

        with distributed.LocalCluster(n_workers=args.processes, threads_per_worker=1, dashboard_address=None) as c:
            with distributed.Client(c) as client:
                dv = client.scatter(v)
                d = da.from_delayed(dv, v.shape, v.dtype).rechunk(args.chunk)
                d = d.persist()
                t = time.perf_counter()
                got = parac.morphology.skeletonize_pf_labels(d, device=args.device).compute()
                report("Dask LocalCluster, %d worker processes, one task per label" % args.processes,
                       time.perf_counter() - t)
        print("#   equal to the in-process result: %s" % np.array_equal(got, want), flush=True)


if __name__ == "__main__":
    main()
