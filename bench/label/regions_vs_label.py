#!/usr/bin/env python3
"""The statistics of regions against the labelling that made the labels, on
the CPU (NumPy arrays) or the GPU (CuPy): parac.ndimage.label with 8
neighbours, then parac.regionprops(labels, intensity) (u8 intensities) and
without intensities, medians of --runs after one call. The issue's target:
the statistics at most twice the labelling.

    PYTHONPATH=build/python python3 bench/label/regions_vs_label.py [--device cpu|cuda] [--runs 5]
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_label import contours, noise  # noqa: E402

import parac  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    if args.device == "cuda":
        import cupy

        put, sync = cupy.asarray, cupy.cuda.Device().synchronize
    else:
        put, sync = (lambda a: a), (lambda: None)

    def med(f):
        f()
        sync()
        ts = []
        for _ in range(args.runs):
            t = time.perf_counter()
            f()
            sync()
            ts.append(time.perf_counter() - t)
        return 1e3 * float(np.median(ts))

    k8 = (4320, 7680)
    s8 = np.ones((3, 3))
    for name, img in (("8K noise 50%", noise(k8, 0.5)), ("8K contours", contours(k8)),
                      ("8K one region", np.ones(k8, np.uint8)), ("4096^2 noise 30%", noise((4096, 4096), 0.3))):
        d = put(img)
        dv = put(np.random.default_rng(7).integers(0, 256, img.shape, dtype=np.uint8))
        lab, n = parac.ndimage.label(d, structure=s8)
        tl = med(lambda: parac.ndimage.label(d, structure=s8))
        ti = med(lambda: parac.regionprops(lab, dv))
        t0 = med(lambda: parac.regionprops(lab))
        print("%-18s %7d regions  label %.3f ms  regionprops with intensity %.3f ms (%.2fx)  without %.3f ms"
              % (name, n, tl, ti, ti / tl, t0), flush=True)


if __name__ == "__main__":
    main()
