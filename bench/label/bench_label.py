#!/usr/bin/env python3
"""Labelling benchmark: parac.label on the GPU (CuPy arrays, data on the
device) and on the CPU (every core) against cupyx.scipy.ndimage.label,
cuCIM's measure.label, cv2.connectedComponents, scipy and scikit-image, in
one run, on the workloads of docs/labels.md: 8K (7680 x 4320) noise at 30,
50 and 70 %, contours and a spiral, 4096^2 noise, 512^3 noise. Every result
is checked against scipy's (the same labels; OpenCV: the same partition).
Times: wall clock around the call after a warm-up, the GPU synchronised
(every peer returns its count, so every call waits for its device anyway),
median of --runs. Prints a table and writes JSON lines (--json).

    bench/label/bench_label.py [--runs 20] [--json out.jsonl] [--quick] [--cpu-only | --gpu-only]
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import scipy.ndimage as ndi

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from peer_timing import time_it  # noqa: E402

import parac  # noqa: E402


def noise(shape, density, seed=1):
    return (np.random.default_rng(seed).random(shape) < density).astype(np.uint8)


def contours(shape, seed=2):
    """Circle outlines of many sizes, some overlapping: the fill's test image."""
    r = np.random.default_rng(seed)
    h, w = shape
    a = np.zeros(shape, np.uint8)
    yy, xx = np.ogrid[0:h, 0:w]
    for _ in range(400):
        cy, cx, rad = r.integers(0, h), r.integers(0, w), r.integers(8, 200)
        y0, y1, x0, x1 = max(cy - rad - 2, 0), min(cy + rad + 3, h), max(cx - rad - 2, 0), min(cx + rad + 3, w)
        d = (yy[y0:y1] - cy) ** 2 + (xx[:, x0:x1] - cx) ** 2
        a[y0:y1, x0:x1] |= ((d >= (rad - 1) ** 2) & (d <= rad ** 2)).astype(np.uint8)
    return a


def spiral(shape):
    """A square spiral wall: one component winding through the whole image."""
    h, w = shape
    a = np.zeros(shape, np.uint8)
    for k in range(0, min(h, w) // 2, 2):
        t, b, l, r = k, h - 1 - k, k, w - 1 - k
        if b - t < 4 or r - l < 4:
            break
        a[t, l:r + 1] = 1
        a[t:b + 1, r] = 1
        a[b, l:r + 1] = 1
        a[t + 2:b + 1, l] = 1
        a[t + 2, l:l + 3] = 1
    return a


def workloads(quick):
    """(name, a function making the image, connectivity): images made only when run."""
    k8 = (4320, 7680)
    yield "8K noise 30%", lambda: noise(k8, 0.3), 8
    if not quick:
        yield "8K noise 50%", lambda: noise(k8, 0.5), 8
        yield "8K noise 70%", lambda: noise(k8, 0.7), 8
        yield "8K contours", lambda: contours(k8), 8
        yield "8K spiral", lambda: spiral(k8), 8
        yield "8K noise 50%, 4-conn", lambda: noise(k8, 0.5), 4
    yield "4096^2 noise 50%", lambda: noise((4096, 4096), 0.5), 8
    yield "512^3 noise 30%", lambda: noise((512, 512, 512), 0.3, seed=3), 26


def structure(conn, ndim):
    return ndi.generate_binary_structure(ndim, {4: 1, 8: 2, 6: 1, 18: 2, 26: 3}[conn])


def same_partition(a, b):
    """Whether labels a and b cut the image into the same components (any numbering): as many distinct
    (a, b) pairs as labels of a, and the same background. The pairs are one int64 key each (a sort of a
    1-D array, where np.unique over the pairs' axis took tens of seconds at 8K)."""
    a, b = a.ravel().astype(np.int64), b.ravel().astype(np.int64)
    keys = a * (int(b.max(initial=0)) + 1) + b
    return np.array_equal(a == 0, b == 0) and len(np.unique(keys)) == len(np.unique(a))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--json")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cpu-only", action="store_true")
    ap.add_argument("--gpu-only", action="store_true", help="leave out the CPU methods and peers")
    ap.add_argument("--wide", action="store_true", help="parac's i64 labels too (dtype='i64')")
    ap.add_argument("--slow-peers", action="store_true", help="scipy and scikit-image at every size")
    ap.add_argument("--cases", help="only the workloads whose names hold one of these comma-separated words")
    args = ap.parse_args()
    cupy = None
    if not args.cpu_only:
        try:
            import cupy
        except ImportError:
            pass
    rows = []
    out = open(args.json, "a") if args.json else None

    def record(case, method, ms, ok, extra=""):
        rows.append((case, method, ms, ok, extra))
        print("%-24s %-28s %10.3f ms  %s %s" % (case, method, ms, "ok" if ok else "MISMATCH", extra), flush=True)
        if out:
            out.write(json.dumps({"bench": "label", "case": case, "method": method, "median_ms": ms, "ok": bool(ok),
                                  "extra": extra}) + "\n")

    copy_gbs = None
    if cupy is not None:
        buf = cupy.empty(1 << 30, cupy.uint8)
        dst = cupy.empty_like(buf)
        ms = time_it(lambda: dst.__setitem__(Ellipsis, buf), 10, cupy.cuda.Device().synchronize)
        copy_gbs = 2 * buf.nbytes / ms / 1e6
        del buf, dst
        print("device-to-device copy: %.0f GB/s (bytes read + written)" % copy_gbs)
    for case, make, conn in workloads(args.quick):
        if args.cases and not any(c in case for c in args.cases.split(",")):
            continue
        img = make()
        want, n = ndi.label(img, structure(conn, img.ndim))
        px = img.size
        if cupy is not None:
            d = cupy.asarray(img)
            sync = cupy.cuda.Device().synchronize
            got = parac.label(d, connectivity=conn)
            ok = got[1] == n and np.array_equal(cupy.asnumpy(got[0]), want)
            del got
            ms = time_it(lambda: parac.label(d, connectivity=conn), args.runs, sync)
            gbs = 5 * px / ms / 1e6  # 1 byte read, 4 written at the least
            record(case, "parac cuda", ms, ok, "%.0f Mpx/s, %.0f%% of copy bandwidth" % (px / ms / 1e3, 100 * gbs / copy_gbs))
            if args.wide:
                got = parac.label(d, connectivity=conn, dtype="i64")
                ok = got[1] == n and got[0].dtype == cupy.int64 and np.array_equal(cupy.asnumpy(got[0]), want)
                del got
                ms = time_it(lambda: parac.label(d, connectivity=conn, dtype="i64"), args.runs, sync)
                gbs = 9 * px / ms / 1e6  # 1 byte read, 8 written at the least
                record(case, "parac cuda, i64 labels", ms, ok, "%.0f%% of copy bandwidth" % (100 * gbs / copy_gbs))
            import cupyx.scipy.ndimage as cndi

            s = cupy.asarray(structure(conn, img.ndim))
            got = cndi.label(d, s)
            ok = int(got[1]) == n and np.array_equal(cupy.asnumpy(got[0]), want)
            del got
            record(case, "cupyx.scipy.ndimage.label", time_it(lambda: cndi.label(d, s), args.runs, sync), ok)
            try:
                from cucim.skimage import measure as cmeasure

                c = {4: 1, 8: 2, 6: 1, 18: 2, 26: 3}[conn]
                got = cmeasure.label(d, connectivity=c)
                ok = same_partition(cupy.asnumpy(got), want)
                del got
                record(case, "cucim measure.label", time_it(lambda: cmeasure.label(d, connectivity=c), args.runs, sync), ok)
            except ImportError:
                pass
            del d
            cupy.get_default_memory_pool().free_all_blocks()
        if args.gpu_only:
            continue
        got = parac.label(img, connectivity=conn, device="cpu")
        ok = got[1] == n and np.array_equal(got[0], want)
        del got
        record(case, "parac cpu (%d threads)" % os.cpu_count(),
               time_it(lambda: parac.label(img, connectivity=conn, device="cpu"), max(3, args.runs // 4)), ok)
        if args.wide:
            got = parac.label(img, connectivity=conn, device="cpu", dtype="i64")
            ok = got[1] == n and got[0].dtype == np.int64 and np.array_equal(got[0], want)
            del got
            record(case, "parac cpu, i64 labels", time_it(lambda: parac.label(img, connectivity=conn, device="cpu",
                                                                              dtype="i64"), max(3, args.runs // 4)), ok)
        if img.ndim == 2:
            import cv2

            nc, cv = cv2.connectedComponents(img, connectivity=conn, ltype=cv2.CV_32S)
            ok = nc - 1 == n and same_partition(cv, want)
            record(case, "cv2.connectedComponents (%d threads)" % cv2.getNumThreads(),
                   time_it(lambda: cv2.connectedComponents(img, connectivity=conn, ltype=cv2.CV_32S),
                           max(3, args.runs // 4)), ok)
        if args.slow_peers or px <= 4096 * 4096:
            record(case, "scipy.ndimage.label", time_it(lambda: ndi.label(img, structure(conn, img.ndim)), 3), True)
            from skimage import measure

            c = {4: 1, 8: 2, 6: 1, 18: 2, 26: 3}[conn]
            got = measure.label(img, connectivity=c)
            ok = np.array_equal(got, want)
            record(case, "skimage.measure.label", time_it(lambda: measure.label(img, connectivity=c), 3), ok)
    if out:
        out.close()
    bad = [r for r in rows if not r[3]]
    if bad:
        print("MISMATCHES:", bad)
        sys.exit(1)


if __name__ == "__main__":
    main()
