"""parac.lookup (table[index]) against NumPy's take and indexing on the CPU
and CuPy's take on a GPU, from Python, on label images through a table of
their labels (int32 entries: a renumbering) and of a byte per label (a
marking): bench_label.py's 8K contours and noise at 50 % (8 neighbours) and
4096² noise. Min and median of 15 calls after one, in ms; the copy of the
labels (NumPy's copyto into a touched array, CuPy's) as the floor of a pass
that reads and writes as many bytes. Every result checked against NumPy's.

    PYTHONPATH=build/python python3 bench/label/bench_lookup.py [--gpu | --gpu-only]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "common"))

import numpy as np  # noqa: E402
import parac  # noqa: E402
from bench_label import contours, noise  # noqa: E402
from peer_timing import times_of  # noqa: E402


def timed(fn, sync=None):
    ts = times_of(fn, 15, sync)
    return "%8.2f %8.2f" % (min(ts), float(np.median(ts)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", action="store_true", help="also CuPy arrays on the GPU")
    ap.add_argument("--gpu-only", action="store_true", help="CuPy arrays on the GPU only")
    args = ap.parse_args()
    k8 = (4320, 7680)
    cases = [("8K contours", contours(k8)), ("8K noise50", noise(k8, 0.5)), ("4096 noise50", noise((4096, 4096), 0.5))]
    print("%-34s %8s %8s   (ms: min, median)" % ("case", "min", "median"))
    for name, img in cases:
        lab, n = parac.label(img, connectivity=8, device="cpu")
        rng = np.random.default_rng(1)
        tables = [("int32 renumbering", np.concatenate(([0], rng.permutation(n) + 1)).astype(np.int32)),
                  ("uint8 marking", (rng.random(n + 1) < 0.5).astype(np.uint8))]
        for tname, t in tables:
            want = t[lab]
            assert np.array_equal(parac.lookup(lab, t, device="cpu"), want)
            copy = np.empty_like(lab)
            print("%-34s" % ("%s, %d labels, %s" % (name, n, tname)))
            if not args.gpu_only:
                print("  %-32s %s" % ("cpu parac.lookup", timed(lambda: parac.lookup(lab, t, device="cpu"))))
                print("  %-32s %s" % ("cpu numpy.take", timed(lambda: np.take(t, lab))))
                print("  %-32s %s" % ("cpu table[labels]", timed(lambda: t[lab])))
                print("  %-32s %s" % ("cpu copy of the labels", timed(lambda: np.copyto(copy, lab))))
            if args.gpu or args.gpu_only:
                import cupy

                sync = cupy.cuda.Device().synchronize
                dl, dt = cupy.asarray(lab), cupy.asarray(t)
                assert cupy.array_equal(parac.lookup(dl, dt), cupy.asarray(want))
                out = cupy.empty(lab.shape, t.dtype)
                dcopy = cupy.empty_like(dl)
                print("  %-32s %s" % ("gpu parac.lookup", timed(lambda: parac.lookup(dl, dt), sync)))
                print("  %-32s %s" % ("gpu parac.lookup, out=", timed(lambda: parac.lookup(dl, dt, out=out),
                                                                         sync)))
                print("  %-32s %s" % ("gpu cupy.take", timed(lambda: cupy.take(dt, dl), sync)))
                print("  %-32s %s" % ("gpu copy of the labels", timed(lambda: cupy.copyto(dcopy, dl), sync)))


if __name__ == "__main__":
    main()
