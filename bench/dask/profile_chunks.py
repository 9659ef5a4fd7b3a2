"""Where a chunked call's time goes, in one process: the operation on a
Dask array of NumPy chunks run by Dask's synchronous scheduler under
cProfile (functions by own time), beside the same call on the whole array.

    python bench/dask/profile_chunks.py [--size 16384] [--chunk 8192] [--ops label,fill-holes,h-maxima,gauss]
                                        [--device cuda] [--top 25]

The images are bench_gpus.py's. Every chunked result is checked against the
whole array's.
"""
import argparse
import cProfile
import io
import os
import pstats
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_gpus as B  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=16384)
    ap.add_argument("--chunk", type=int, default=8192)
    ap.add_argument("--ops", default="label,fill-holes,h-maxima,gauss")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    import dask
    import dask.array as da

    ims = B.images(args.size)
    for op in args.ops.split(","):
        a = ims[op]
        ref = B.in_memory(op, a, args.device, 1)
        t = time.perf_counter()
        ref = B.in_memory(op, a, args.device, 1)
        whole = time.perf_counter() - t
        d = da.from_array(a, chunks=args.chunk)
        with dask.config.set(scheduler="sync"):
            out = dask.compute(*B.chunked(op, d, args.device))[0]  # warm-up
            t = time.perf_counter()
            out = dask.compute(*B.chunked(op, d, args.device))[0]
            plain = time.perf_counter() - t
            pr = cProfile.Profile()
            pr.enable()
            out = dask.compute(*B.chunked(op, d, args.device))[0]
            pr.disable()
        ok = np.array_equal(np.asarray(out), np.asarray(ref))
        print("%s %d^2, chunks %d^2: whole %.3f s, chunked (sync scheduler) %.3f s = %.2fx%s"
              % (op, args.size, args.chunk, whole, plain, plain / whole, "" if ok else "  DIFFERENT"))
        s = io.StringIO()
        pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(args.top)
        print("\n".join(line for line in s.getvalue().splitlines() if line.strip())[:6000])
        sys.stdout.flush()


if __name__ == "__main__":
    main()
