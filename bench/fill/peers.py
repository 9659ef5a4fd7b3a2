#!/usr/bin/env python3
"""Peers of `parac fill` on the inputs bench_fill saved (--save DIR), in the
same run: cv2.floodFill from the border of a 1-pixel padded copy then an
inverting threshold (the paper's OpenCV reference), scipy's
binary_fill_holes, skimage's flood_fill from the border then inverting, and
cupyx.scipy.ndimage.binary_fill_holes on the GPU (data on the device,
CUDA-event timing). All 4-connected background. Each result is checked
against scipy's. Prints a table and appends JSON lines (bench "fill",
method "peer:NAME")."""
import argparse
import glob
import json
import sys
import os
import time

import numpy as np
import scipy.ndimage as ndi

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from peer_timing import time_it  # noqa: E402


def cv2_fill(img):
    import cv2
    h, w = img.shape
    pad = np.zeros((h + 2, w + 2), np.uint8)
    pad[1:-1, 1:-1] = img
    mask = np.zeros((h + 4, w + 4), np.uint8)
    cv2.floodFill(pad, mask, (0, 0), 128, 0, 0, 4)
    # 128 = outside; everything else (contour 255, holes 0) is the filled object
    return cv2.compare(pad[1:-1, 1:-1], 128, cv2.CMP_NE)


def skimage_fill(img):
    from skimage.segmentation import flood_fill
    pad = np.pad(img, 1)
    f = flood_fill(pad, (0, 0), 128, connectivity=1)
    return np.where(f[1:-1, 1:-1] == 128, 0, 255).astype(np.uint8)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--peers", default="cv2,scipy,skimage,cupyx")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json")
    a = ap.parse_args()
    peers = a.peers.split(",")
    out = open(a.json, "a") if a.json else None
    import cv2
    cv2.setNumThreads(os.cpu_count())
    files = sorted(glob.glob(os.path.join(a.dir, "*.npy")), key=lambda p: (p.split("_")[0], os.path.getsize(p)))
    print(f"{'input':28s} " + " ".join(f"{p:>14s}" for p in peers) + "   (ms, median)")
    for path in files:
        name = os.path.basename(path)[:-4]
        img = np.load(path)
        ref = (ndi.binary_fill_holes(img > 0) * 255).astype(np.uint8)
        row = []
        for p in peers:
            ms = float("nan")
            try:
                if p == "cv2":
                    assert np.array_equal(cv2_fill(img), ref)
                    ms = time_it(lambda: cv2_fill(img), a.runs)
                elif p == "scipy":
                    ms = time_it(lambda: ndi.binary_fill_holes(img > 0), max(1, a.runs // 2), budget_s=20)
                elif p == "skimage":
                    assert np.array_equal(skimage_fill(img), ref)
                    ms = time_it(lambda: skimage_fill(img), max(1, a.runs // 2), budget_s=20)
                elif p == "cupyx":
                    import cupy as cp
                    import cupyx.scipy.ndimage as cndi
                    d = cp.asarray(img > 0)
                    assert np.array_equal(cp.asnumpy(cndi.binary_fill_holes(d)) * 255, ref)
                    start, end = cp.cuda.Event(), cp.cuda.Event()

                    def run():
                        start.record()
                        cndi.binary_fill_holes(d)
                        end.record()
                        end.synchronize()
                    run()
                    ts = []
                    for _ in range(a.runs):
                        run()
                        ts.append(cp.cuda.get_elapsed_time(start, end))
                    ms = float(np.median(ts))
            except Exception as e:  # a peer missing on this machine is reported, not fatal
                print(f"  {p}: {type(e).__name__}: {e}")
            row.append(ms)
            if out and ms == ms:
                out.write(json.dumps({"bench": "fill", "case": name, "method": "peer:" + p,
                                      "device": "cuda" if p == "cupyx" else "cpu", "median_ms": ms}) + "\n")
        print(f"{name:28s} " + " ".join(f"{m:14.3f}" for m in row))
    if out:
        out.close()


if __name__ == "__main__":
    main()
