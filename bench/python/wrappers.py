#!/usr/bin/env python3
"""The scipy / scikit-image named wrappers on CuPy arrays against the
registry operation they call, given the input it wants: what the wrapper
adds (conversions, views, table columns) in ms and as a ratio. The target:
every wrapper within 1.1x its operation plus 20 us. Checks each wrapper's
result against its operation's.

    bench/python/wrappers.py [--runs 30] [--json out.jsonl]
"""
import argparse
import json
import os
import sys

import cupy
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from peer_timing import time_it  # noqa: E402

import parac  # noqa: E402
import parac.measure  # noqa: E402
import parac.morphology  # noqa: E402
import parac.ndimage  # noqa: E402
import parac.filters  # noqa: E402
import parac.segmentation  # noqa: E402


def cases(mask, lab, vals):
    m8 = mask.view(cupy.uint8)
    yield ("ndimage.binary_fill_holes", lambda: parac.ndimage.binary_fill_holes(mask),
           lambda: parac.fill(m8, connectivity=4, threshold=1, inside_value=1, outside_value=0))
    yield ("ndimage.label", lambda: parac.ndimage.label(m8), lambda: parac.label(m8, connectivity=4))
    yield ("measure.label", lambda: parac.measure.label(m8),
           lambda: parac.label(m8, connectivity=8, equal_values=True, background=0.0))
    yield ("measure.regionprops_table", lambda: parac.measure.regionprops_table(
        lab, vals, properties=("label", "area", "bbox", "centroid", "intensity_mean")),
        lambda: parac.regionprops(lab, vals))
    yield ("morphology.remove_small_objects", lambda: parac.morphology.remove_small_objects(mask, 20),
           lambda: parac.remove_small_objects(m8, min_size=20, connectivity=4))
    yield ("morphology.remove_small_holes", lambda: parac.morphology.remove_small_holes(mask, 20),
           lambda: parac.remove_small_holes(m8, area_threshold=20, connectivity=4, foreground=1))
    f = vals.astype(cupy.float32)
    yield ("filters.gaussian (float32)", lambda: parac.filters.gaussian(f, sigma=2),
           lambda: parac.gauss(f, sigma=2.0, sigma_y=2.0, truncate=4.0, border="replicate"))
    k = np.array([[1.0, 2, 1], [2, 4, 2], [1, 2, 1]]) / 16
    yield ("ndimage.correlate (float32, 3x3)", lambda: parac.ndimage.correlate(f, k),
           lambda: parac.convolve(f, kernel="0.0625,0.125,0.0625;0.125,0.25,0.125;0.0625,0.125,0.0625",
                                  border="reflect"))
    yield ("segmentation.flood", lambda: parac.segmentation.flood(vals, (7, 9), tolerance=100),
           lambda: parac.floodfill(vals, seed=[(9, 7)], mask=True, tolerance=100.0, connectivity=8))


def same(a, b):
    if isinstance(a, tuple):
        a = a[0]
    if isinstance(b, tuple):
        b = b[0]
    if isinstance(a, dict):
        return all(bool(cupy.array_equal(a[k], b[k] if k in b else a[k])) for k in a)
    return bool(cupy.array_equal(a.view(cupy.uint8) if a.dtype == cupy.bool_ else a,
                                 b.view(cupy.uint8) if b.dtype == cupy.bool_ else b))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--json")
    args = ap.parse_args()
    out = open(args.json, "a") if args.json else None
    sync = cupy.cuda.Device().synchronize
    bad = 0
    for name, shape in (("8K", (4320, 7680)), ("256^2", (256, 256))):
        r = np.random.default_rng(1)
        mask = cupy.asarray(r.random(shape) < 0.5)
        lab = parac.label(mask.view(cupy.uint8), connectivity=8)[0]
        vals = cupy.asarray((r.random(shape) * 255).astype(np.uint8))
        for what, wrapper, op in cases(mask, lab, vals):
            ok = same(wrapper(), op())
            bad += not ok
            w = time_it(wrapper, args.runs, sync)
            o = time_it(op, args.runs, sync)
            meets = w <= 1.1 * o + 0.020
            print("%-6s %-34s wrapper %8.3f ms  operation %8.3f ms  %.2fx  +%6.1f us  %s%s" % (
                name, what, w, o, w / o, (w - o) * 1e3, "meets" if meets else "MISSES", "" if ok else " MISMATCH"),
                flush=True)
            if out:
                out.write(json.dumps({"bench": "wrappers", "size": name, "wrapper": what, "wrapper_ms": w,
                                      "operation_ms": o, "ok": ok, "meets": meets}) + "\n")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
