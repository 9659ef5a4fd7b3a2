#!/usr/bin/env python3
"""Region statistics and small-object removal: parac.measure.regionprops_table
and parac.morphology.remove_small_objects / remove_small_holes on the GPU
(CuPy arrays, data on the device) and on the CPU, against cuCIM,
cv2.connectedComponentsWithStats and scikit-image, in one run. The statistics'
time is also given as a multiple of parac's own labelling of the same image
(the target: at most 2x). Every result is checked: the GPU table against the
CPU table (the same numbers bit for bit: u8 intensities), both against
scikit-image where it finishes in seconds, removals against scikit-image.
Times: wall clock around the call after a warm-up, the GPU synchronised,
median of --runs.

    bench/label/bench_regions.py [--runs 10] [--json out.jsonl] [--quick] [--cpu-only | --gpu-only]
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_label import contours, noise  # noqa: E402
from peer_timing import time_it  # noqa: E402

import parac  # noqa: E402
import parac.measure  # noqa: E402
import parac.morphology  # noqa: E402

PROPS = ("label", "area", "bbox", "centroid", "intensity_min", "intensity_max", "intensity_mean")


def workloads(quick):
    k8 = (4320, 7680)
    yield "8K noise 50%", noise(k8, 0.5)
    if not quick:
        yield "8K contours", contours(k8)
        yield "8K one region", np.ones(k8, np.uint8)
    yield "4096^2 noise 30%", noise((4096, 4096), 0.3)
    yield "512^3 noise 30%", noise((512, 512, 512), 0.3, seed=3)


def oracle_small(mask, size, conn):
    """The mask without its components of fewer than `size` pixels (scipy's
    labelling and a count: independent of scikit-image's version, whose
    0.26 changed the meaning of its size parameters)."""
    import scipy.ndimage as ndi

    lab, _ = ndi.label(mask, ndi.generate_binary_structure(mask.ndim, conn))
    counts = np.bincount(lab.ravel())
    counts[0] = size
    return mask & (counts[lab] >= size)


def skimage_small(skmorph, mask, size, conn):
    import skimage

    if tuple(int(p) for p in skimage.__version__.split(".")[:2]) >= (0, 26):
        return skmorph.remove_small_objects(mask, max_size=size - 1, connectivity=conn)
    return skmorph.remove_small_objects(mask, size, connectivity=conn)


def close_table(a, b):
    """Whether two tables agree to 1e-6 (a peer that sums in float32), their
    largest relative difference, and the columns that differ (the keys either
    lacks count as differing)."""
    dev, differ = 0.0, sorted(set(a) ^ set(b))
    for k in set(a) & set(b):
        x, y = np.asarray(a[k], np.float64), np.asarray(b[k], np.float64)
        d = float(np.max(np.abs(x - y) / np.maximum(np.abs(y), 1), initial=0)) if x.shape == y.shape else np.inf
        if d > 1e-6:
            differ.append(k)
        dev = max(dev, d)
    return not differ, dev, differ


def same_table(a, b):
    return list(a) == list(b) and all(np.array_equal(np.asarray(a[k], np.float64), np.asarray(b[k], np.float64))
                                      for k in a)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--json")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cpu-only", action="store_true")
    ap.add_argument("--gpu-only", action="store_true")
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
        rows.append((case, method, ms, ok))
        print("%-20s %-44s %10.3f ms  %s %s" % (case, method, ms, "ok" if ok else "MISMATCH", extra), flush=True)
        if out:
            out.write(json.dumps({"bench": "regions", "case": case, "method": method, "median_ms": ms, "ok": bool(ok),
                                  "extra": extra}) + "\n")

    from skimage import measure as skm, morphology as skmorph

    for case, img in workloads(args.quick):
        conn = 2 if img.ndim == 2 else 3
        lab, n = parac.measure.label(img, connectivity=conn, return_num=True, device="cpu")
        vals = (np.arange(img.size, dtype=np.uint32) * 2654435761 % 251).astype(np.uint8).reshape(img.shape)
        cpu_table = parac.measure.regionprops_table(lab, vals, properties=PROPS, device="cpu")
        small = n <= 200000
        ref = skm.regionprops_table(lab, vals, properties=PROPS) if small and img.size <= 4096 * 4096 else None
        ok_cpu = ref is None or same_table(cpu_table, ref)
        keep = img.astype(bool)
        want_objects = oracle_small(keep, 20, conn)
        want_holes = ~oracle_small(~keep, 20, conn)
        extra_n = "%d regions" % n
        if cupy is not None:
            sync = cupy.cuda.Device().synchronize
            d, dl, dv, db = cupy.asarray(img), cupy.asarray(lab), cupy.asarray(vals), cupy.asarray(keep)
            label_ms = time_it(lambda: parac.label(d, connectivity=8 if img.ndim == 2 else 26), args.runs, sync)
            record(case, "parac cuda label (for the ratio)", label_ms, True, extra_n)
            t = parac.measure.regionprops_table(dl, dv, properties=PROPS)
            ok = same_table({k: cupy.asnumpy(v) for k, v in t.items()}, cpu_table)
            del t
            ms = time_it(lambda: parac.measure.regionprops_table(dl, dv, properties=PROPS), args.runs, sync)
            record(case, "parac cuda regionprops_table", ms, ok, "%.2fx the labelling" % (ms / label_ms))
            ms = time_it(lambda: parac.regionprops(dl, dv), args.runs, sync)
            record(case, "parac cuda regionprops (the operation)", ms, ok, "%.2fx the labelling" % (ms / label_ms))
            got = parac.morphology.remove_small_objects(db, 20, conn)
            ok = np.array_equal(cupy.asnumpy(got), want_objects)
            record(case, "parac cuda remove_small_objects", time_it(
                lambda: parac.morphology.remove_small_objects(db, 20, conn), args.runs, sync), ok)
            got = parac.morphology.remove_small_holes(db, 20, conn)
            ok = np.array_equal(cupy.asnumpy(got), want_holes)
            record(case, "parac cuda remove_small_holes", time_it(
                lambda: parac.morphology.remove_small_holes(db, 20, conn), args.runs, sync), ok)
            try:
                from cucim.skimage import measure as cm, morphology as cmorph

                if small:
                    t = cm.regionprops_table(dl, dv, properties=PROPS)
                    t = {k: cupy.asnumpy(v) for k, v in t.items()}
                    ok, dev, differ = close_table(t, cpu_table)
                    record(case, "cucim regionprops_table", time_it(
                        lambda: cm.regionprops_table(dl, dv, properties=PROPS), 3, sync), ok,
                        "largest relative difference %.1e%s" % (dev, "; differ: " + ", ".join(differ) if differ else ""))
                # cuCIM 26.x: max_size (objects of max_size pixels or fewer go)
                got = cmorph.remove_small_objects(db, max_size=19, connectivity=conn)
                ok = np.array_equal(cupy.asnumpy(got), want_objects)
                record(case, "cucim remove_small_objects", time_it(
                    lambda: cmorph.remove_small_objects(db, max_size=19, connectivity=conn), args.runs, sync), ok)
                got = cmorph.remove_small_holes(db, max_size=19, connectivity=conn)
                ok = np.array_equal(cupy.asnumpy(got), want_holes)
                record(case, "cucim remove_small_holes", time_it(
                    lambda: cmorph.remove_small_holes(db, max_size=19, connectivity=conn), args.runs, sync), ok)
            except ImportError:
                pass
            del d, dl, dv, db
            cupy.get_default_memory_pool().free_all_blocks()
        if args.gpu_only:
            continue
        cpu_runs = max(3, args.runs // 3)
        record(case, "parac cpu regionprops_table (%d threads)" % os.cpu_count(), time_it(
            lambda: parac.measure.regionprops_table(lab, vals, properties=PROPS, device="cpu"), cpu_runs), ok_cpu,
            extra_n)
        record(case, "parac cpu label + regionprops", time_it(
            lambda: parac.regionprops(parac.label(img, connectivity=8 if img.ndim == 2 else 26, device="cpu")[0],
                                      device="cpu"), cpu_runs), True)
        if img.ndim == 2:
            import cv2

            nc, _, stats, _ = cv2.connectedComponentsWithStats(img, connectivity=8, ltype=cv2.CV_32S)
            ok = nc - 1 == n and np.array_equal(np.sort(stats[1:, cv2.CC_STAT_AREA]), np.sort(cpu_table["area"]))
            record(case, "cv2.connectedComponentsWithStats (%d thr.)" % cv2.getNumThreads(), time_it(
                lambda: cv2.connectedComponentsWithStats(img, connectivity=8, ltype=cv2.CV_32S), cpu_runs), ok)
        if ref is not None:
            record(case, "skimage regionprops_table", time_it(
                lambda: skm.regionprops_table(lab, vals, properties=PROPS), 1), True)
        got = parac.morphology.remove_small_objects(keep, 20, conn, device="cpu")
        record(case, "parac cpu remove_small_objects", time_it(
            lambda: parac.morphology.remove_small_objects(keep, 20, conn, device="cpu"), cpu_runs),
            np.array_equal(got, want_objects))
        got = skimage_small(skmorph, keep, 20, conn)
        record(case, "skimage remove_small_objects", time_it(lambda: skimage_small(skmorph, keep, 20, conn), 1),
               np.array_equal(got, want_objects))
    if out:
        out.close()
    bad = [r for r in rows if not r[3]]
    if bad:
        print("MISMATCHES:", bad)
        sys.exit(1)


if __name__ == "__main__":
    main()
