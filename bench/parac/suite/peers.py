"""GPU peers of the suite's apps that Halide's apps do not have, timed in
the same way as bench_parac_suite_cuda (CUDA events around the call, data
on the device, median of --runs after two warm-up calls), each checked
against the CPU reference of tests/python first:

* median5: cupyx.scipy.ndimage.median_filter(size=5, mode='nearest'),
  scipy.ndimage's semantics (OpenCV's medianBlur(5) on the CPU as well);
* resize (halve and double): torch.nn.functional.interpolate(mode='bilinear',
  align_corners=False, antialias=False), OpenCV's INTER_LINEAR grid.
* box9 (suite/box_windows.pc, a 9 x 9 mean with the edges mirrored):
  cupyx.scipy.ndimage.uniform_filter(size=9, mode='mirror') on float32.

    python bench/parac/suite/peers.py [--runs N] [--sizes 2560x1536,4096x4096] [--json FILE]
"""
import argparse
import json
import os
import sys
import time

import numpy as np


def cuda_median_ms(fn, runs):
    import cupy as cp

    for _ in range(2):
        fn()
    ev = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(runs)]
    for a, b in ev:
        a.record()
        fn()
        b.record()
    cp.cuda.Device().synchronize()
    return float(np.median([cp.cuda.get_elapsed_time(a, b) for a, b in ev]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--sizes", default="2560x1536,4096x4096")
    ap.add_argument("--json")
    args = ap.parse_args()
    import cupy as cp
    import cupyx.scipy.ndimage as cnd
    import scipy.ndimage as nd
    import torch
    import torch.nn.functional as F

    rows = []
    rng = np.random.default_rng(0)
    # correctness first, on a small odd size
    small = rng.integers(0, 256, (67, 91)).astype(np.uint8)
    assert np.array_equal(cnd.median_filter(cp.asarray(small), size=5, mode="nearest").get(),
                          nd.median_filter(small, size=5, mode="nearest"))
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tests", "python"))
    import app_refs

    rgb = rng.random((3, 37, 53)).astype(np.float32)
    for size in ((18, 26), (74, 106)):
        got = F.interpolate(torch.from_numpy(rgb)[None].cuda(), size=size, mode="bilinear", align_corners=False)
        np.testing.assert_allclose(got[0].cpu().numpy(), app_refs.resize(rgb, *size), rtol=1e-5, atol=1e-5)
    f32 = rng.random((41, 67)).astype(np.float32)
    np.testing.assert_allclose(cnd.uniform_filter(cp.asarray(f32), size=9, mode="mirror").get(),
                               nd.uniform_filter(f32.astype(np.float64), size=9, mode="mirror"), rtol=1e-5, atol=1e-6)
    for tok in args.sizes.split(","):
        H, W = (int(v) for v in tok.split("x"))
        img8 = cp.asarray(rng.integers(0, 256, (H, W)).astype(np.uint8))
        out8 = cp.empty_like(img8)
        t = cuda_median_ms(lambda: cnd.median_filter(img8, size=5, mode="nearest", output=out8), args.runs)
        rows.append(("median5", H, W, "cupyx", t))
        x = torch.rand((1, 3, H, W), device="cuda", dtype=torch.float32)
        for name, size in (("resize_down2", (H // 2, W // 2)), ("resize_up2", (2 * H, 2 * W))):
            t = cuda_median_ms(lambda: F.interpolate(x, size=size, mode="bilinear", align_corners=False), args.runs)
            rows.append((name, H, W, "torch", t))
        f = cp.asarray(rng.random((H, W)).astype(np.float32))
        fo = cp.empty_like(f)
        t = cuda_median_ms(lambda: cnd.uniform_filter(f, size=9, mode="mirror", output=fo), args.runs)
        rows.append(("box9", H, W, "cupyx", t))
        del img8, out8, x, f, fo
        cp.get_default_memory_pool().free_all_blocks()
        torch.cuda.empty_cache()
    for app, H, W, peer, t in rows:
        print("  %-13s %5dx%-5d  %-8s %8.4f ms (CUDA events)" % (app, H, W, peer, t))
    if args.json:
        with open(args.json, "a") as f:
            for app, H, W, peer, t in rows:
                f.write(json.dumps({"bench": "parac_suite", "case": "%s_%dx%d" % (app, H, W), "method": peer,
                                    "device": "cuda", "median_ms": t, "when": time.strftime("%Y-%m-%d")}) + "\n")


if __name__ == "__main__":
    main()
