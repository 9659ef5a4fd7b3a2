#!/usr/bin/env python3
"""Peers of `parac reconstruct` on the workloads of bench_morph.c, in the same
run: scikit-image's reconstruction (CPU, one thread), the cuCIM GPU
algorithm (CuPy grey_dilation then minimum with the mask, repeated with
doubling convergence checks, as cucim.skimage.morphology.reconstruction
does), and an OpenCV iterate-dilate loop. Prints a table and appends JSON
lines (bench "morph", method "peer:NAME")."""
import argparse
import json
import os
import sys
import time

import numpy as np
import scipy.ndimage as ndi

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from peer_timing import time_it  # noqa: E402


def smooth_noise(n, seed=12345):
    rng = np.random.default_rng(seed)
    a = rng.random((n, n), dtype=np.float32)
    for _ in range(3):
        a = ndi.uniform_filter(a, 9, mode="nearest")
    a = (a - a.min()) / (a.max() - a.min()) * 255
    return np.floor(a)


def serpentine(n):
    m = np.zeros((n, n), np.float32)
    m[0::2, :] = 200
    for k, y in enumerate(range(0, n - 2, 2)):
        m[y + 1, 0 if k % 2 else n - 1] = 200
    mk = np.zeros_like(m)
    mk[0, 0] = 200
    return mk, m


def spiral(n):
    m = np.zeros((n, n), np.float32)
    t, l, b, r = 0, 0, n - 1, n - 1
    while t <= b and l <= r:
        m[t, l:r + 1] = 200
        m[t:b + 1, r] = 200
        if b - 2 > t:
            m[b, l:r + 1] = 200
        if r - 2 > l:
            m[t + 2:b + 1, l] = 200
        t, l, b, r = t + 2, l + 2, b - 2, r - 2
    mk = np.zeros_like(m)
    mk[0, 0] = 200
    return mk, m


def make_case(name, n, dtype):
    if name.startswith("hmax"):
        mask = smooth_noise(n)
        h = float(name[4:])
        marker = np.maximum(mask - h, 0)
    elif name == "seed":
        mask = np.full((n, n), 200, np.float32)
        marker = np.zeros_like(mask)
        marker[n // 2, n // 3] = 200
    elif name == "serpentine":
        marker, mask = serpentine(n)
    elif name == "spiral":
        marker, mask = spiral(n)
    else:
        raise ValueError(name)
    return marker.astype(dtype), mask.astype(dtype)


def cucim_algorithm(cp, cndi, marker, mask, max_seconds):
    """cuCIM's GPU path: dilate, clip, check every 4, 8, ... 64 iterations."""
    fp = cp.ones((3, 3), bool)
    cur = marker.copy()
    check, it, t0 = 4, 0, time.perf_counter()
    while True:
        prev = cur.copy()
        for _ in range(check):
            cur = cp.minimum(cndi.grey_dilation(cur, footprint=fp), mask)
            it += 1
        if bool((cur == prev).all()):
            return cur, it
        check = min(check * 2, 64)
        if time.perf_counter() - t0 > max_seconds:
            return None, it


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sides", default="1024,4096")
    ap.add_argument("--cases", default="hmax10,hmax40,serpentine,spiral,seed")
    ap.add_argument("--dtypes", default="u8")
    ap.add_argument("--peers", default="skimage,cucim,opencv")
    ap.add_argument("--skimage-max-side", type=int, default=2048)
    ap.add_argument("--max-seconds", type=float, default=30)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json")
    a = ap.parse_args()
    dts = {"u8": np.uint8, "u16": np.uint16, "f32": np.float32}
    peers = a.peers.split(",")
    out = open(a.json, "a") if a.json else None
    print(f"{'side':6} {'dt':4} {'case':11} {'peer':10} {'median_ms':>10} {'note'}")
    for side in map(int, a.sides.split(",")):
        for dtn in a.dtypes.split(","):
            for case in a.cases.split(","):
                marker, mask = make_case(case, side, dts[dtn])
                for peer in peers:
                    ms, note = None, ""
                    if peer == "skimage":
                        if side > a.skimage_max_side:
                            continue
                        import skimage.morphology as skm
                        ms = time_it(lambda: skm.reconstruction(marker, mask), 1, budget_s=a.max_seconds)
                    elif peer == "cucim":
                        import cupy as cp
                        import cupyx.scipy.ndimage as cndi
                        dm, dk = cp.asarray(marker), cp.asarray(mask)
                        cucim_algorithm(cp, cndi, dm[:64, :64].copy(), dk[:64, :64].copy(), 60)  # compile first
                        res, its = cucim_algorithm(cp, cndi, dm, dk, a.max_seconds)
                        if res is None:
                            note = f"not converged after {its} iterations in {a.max_seconds:.0f} s"
                        else:
                            sync = cp.cuda.Device().synchronize
                            ms = time_it(lambda: cucim_algorithm(cp, cndi, dm, dk, a.max_seconds), a.runs,
                                         sync, budget_s=a.max_seconds)
                            note = f"{its} iterations"
                    elif peer == "opencv":
                        import cv2
                        k = np.ones((3, 3), np.uint8)

                        def cv_loop():
                            cur = marker.copy()
                            t0 = time.perf_counter()
                            while True:
                                nxt = np.minimum(cv2.dilate(cur, k), mask)
                                if np.array_equal(nxt, cur):
                                    return True
                                cur = nxt
                                if time.perf_counter() - t0 > a.max_seconds:
                                    return False
                        t0 = time.perf_counter()
                        ok = cv_loop()
                        if ok:
                            ms = (time.perf_counter() - t0) * 1e3
                        else:
                            note = f"not converged in {a.max_seconds:.0f} s"
                    shown = f"{ms:10.3f}" if ms is not None else f"{'-':>10}"
                    print(f"{side:<6} {dtn:4} {case:11} {peer:10} {shown} {note}", flush=True)
                    if out and ms is not None:
                        out.write(json.dumps({"bench": "morph", "case": f"{case}_{side}_{dtn}",
                                              "method": "peer:" + peer, "median_ms": ms, "note": note}) + "\n")
    if out:
        out.close()


if __name__ == "__main__":
    main()
