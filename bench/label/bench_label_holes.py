#!/usr/bin/env python3
"""Every label's holes filled (parac.fill_label_holes) on a 512^3
segmentation of 10 648 labels: a grid of hollow cells (each a shell around a
cavity), and the same with a tunnel through every second wall (cavities
beside two labels, which the GPU method settles on the host). On the GPU
(CuPy arrays, data on the device) and the CPU, against the fastest scipy
loop a user writes: binary_fill_holes per label over its find_objects box,
largest boxes first (so that nested labels fill last), which is also the
reference every result is checked against. Times: wall clock around the
call after a warm-up, the GPU synchronised, median of --runs.

    bench/label/bench_label_holes.py [--runs 5] [--json out.jsonl] [--size 512] [--cpu-only | --gpu-only]
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

CELL = 23


def cells(size, tunnels):
    """Hollow cubic cells of side CELL (walls 2 thick) on a grid, int32
    labels 1..n; with tunnels, every second cell's cavity opens into its
    right neighbour's."""
    g = size // CELL
    i = np.arange(size)
    cell, local = np.minimum(i // CELL, g), i % CELL
    inside = (i < g * CELL)
    lab = ((cell[:, None, None] * g + cell[None, :, None]) * g + cell[None, None, :] + 1).astype(np.int32)
    lab[~(inside[:, None, None] & inside[None, :, None] & inside[None, None, :])] = 0
    core = (local >= 2) & (local < CELL - 2) & inside
    lab[core[:, None, None] & core[None, :, None] & core[None, None, :]] = 0
    if tunnels:  # through the wall between cells 2k and 2k + 1 along x
        t = (local >= 9) & (local < 14) & inside
        wall = (((cell % 2 == 0) & (local >= CELL - 2)) | ((cell % 2 == 1) & (local < 2))) & inside & (cell < g - (g % 2))
        lab[t[:, None, None] & t[None, :, None] & wall[None, None, :]] = 0
    return lab


def scipy_per_label(lab, rank=1):
    st = ndi.generate_binary_structure(lab.ndim, rank)
    out = lab.copy()
    boxes = ndi.find_objects(lab)
    order = sorted((b for b in enumerate(boxes, 1) if b[1] is not None),
                   key=lambda vb: -np.prod([s.stop - s.start for s in vb[1]]))
    for v, box in order:
        grown = tuple(slice(max(s.start - 1, 0), min(s.stop + 1, n)) for s, n in zip(box, lab.shape))
        sub = lab[grown]
        holes = ndi.binary_fill_holes(sub == v, st) & (sub == 0)
        out[grown][holes] = v
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json")
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--cpu-only", action="store_true")
    ap.add_argument("--gpu-only", action="store_true")
    args = ap.parse_args()
    out = open(args.json, "a") if args.json else None
    bad = 0
    for name, tunnels in (("cells", False), ("cells with tunnels", True)):
        lab = cells(args.size, tunnels)
        case = "%d^3 %s (%d labels)" % (args.size, name, int(lab.max()))
        t0 = time.perf_counter()
        want = scipy_per_label(lab)
        peer_ms = (time.perf_counter() - t0) * 1e3
        rows = [("scipy binary_fill_holes per label box", peer_ms, True)]
        if not args.cpu_only:
            import cupy

            d = cupy.asarray(lab)
            got, filled = parac.fill_label_holes(d)
            ok = np.array_equal(cupy.asnumpy(got), want) and filled == int((want != lab).sum())
            rows.append(("parac cuda", time_it(lambda: parac.fill_label_holes(d), args.runs,
                                               cupy.cuda.Device().synchronize), ok))
        if not args.gpu_only:
            got, filled = parac.fill_label_holes(lab, device="cpu")
            ok = np.array_equal(got, want)
            rows.append(("parac cpu (%d threads)" % os.cpu_count(),
                         time_it(lambda: parac.fill_label_holes(lab, device="cpu"), max(1, args.runs // 2)), ok))
        for method, ms, ok in rows:
            bad += not ok
            print("%-44s %-40s %10.1f ms  %s" % (case, method, ms, "ok" if ok else "MISMATCH"), flush=True)
            if out:
                out.write(json.dumps({"bench": "label_holes", "case": case, "method": method, "median_ms": ms,
                                      "ok": bool(ok)}) + "\n")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
