#!/usr/bin/env python3
"""Call overhead of the Python package on a no-op-sized image (8x8 float32
by default) against scipy's call for the same work, in the same process:
the best of 3 repeats of N calls, per call. Usage:
  PYTHONPATH=build/python bench/python/overhead.py [--side 8] [--calls 2000] [--device cpu]"""
import argparse
import timeit

import numpy as np
import scipy.ndimage as ndi

import parac
import parac.ndimage as pndi


def per_call(fn, calls):
    return min(timeit.repeat(fn, number=calls, repeat=3)) / calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--side", type=int, default=8)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--device", default="cpu")
    a = ap.parse_args()
    img = np.random.default_rng(0).random((a.side, a.side)).astype(np.float32)
    mask = (img * 255).astype(np.uint8)
    marker = np.maximum(mask.astype(int) - 10, 0).astype(np.uint8)
    rows = [
        ("parac.gauss (registry function)", lambda: parac.gauss(img, sigma=1.0, device=a.device)),
        ("parac.ndimage.gaussian_filter", lambda: pndi.gaussian_filter(img, 1.0, device=a.device)),
        ("scipy.ndimage.gaussian_filter", lambda: ndi.gaussian_filter(img, 1.0)),
        ("parac.reconstruct", lambda: parac.reconstruct(marker, mask, device=a.device)),
    ]
    try:
        from skimage.morphology import reconstruction
        rows.append(("skimage.morphology.reconstruction", lambda: reconstruction(marker, mask)))
    except ImportError:
        pass
    print("%dx%d, device %s, best of 3 x %d calls" % (a.side, a.side, a.device, a.calls))
    for name, fn in rows:
        print("%-36s %9.1f us" % (name, per_call(fn, a.calls) * 1e6))


if __name__ == "__main__":
    main()
