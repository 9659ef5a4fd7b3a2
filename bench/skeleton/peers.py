"""Peers of the skeleton benchmark, on the same cylinders as bench_pipeline
(the paper's sequence S x S x 487): scikit-image's skeletonize (Lee
thinning, what Python users pick today) and Kimimaro (TEASAR) where it is
installed. Speed and quality: time, skeleton voxels, 26-connected
components, and the largest and mean distance of a skeleton voxel from the
cylinder's axis.
  python bench/skeleton/peers.py [--sizes 16,32,64,128,256] [--budget 120] [--parac BUILD/bin/parac]"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.ndimage as ndi




def surface_count(S, r, shift):
    c = (S - 1) / 2 + shift
    y, x = np.indices((S, S))
    disk = (x - c) ** 2 + (y - c) ** 2 <= r * r
    rim = disk & ~ndi.binary_erosion(disk, np.ones((3, 3)), border_value=0)
    return int(rim.sum()) * 483 + 2 * int(disk.sum())


def fit(S, want):
    best = None
    for shift in (0.0, 0.5):
        lo, hi = 1.0, (S - 1) / 2 - 1
        for _ in range(40):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if surface_count(S, mid, shift) < want else (lo, mid)
        for r in (lo, hi):
            err = abs(surface_count(S, r, shift) - want)
            if best is None or err < best[0]:
                best = (err, r, shift)
    return best[1], best[2]


def cylinder(S):
    want = {16: 10971, 32: 22254, 64: 45464, 128: 101619, 256: 206010}[S]
    r, shift = fit(S, want)
    c = (S - 1) / 2 + shift
    y, x = np.indices((S, S))
    vol = np.zeros((487, S, S), bool)
    vol[1:486] = ((x - c) ** 2 + (y - c) ** 2 <= r * r)[None]
    return vol, c


def quality(skel, c):
    pts = np.argwhere(skel)
    if len(pts) == 0:
        return "empty"
    d = np.hypot(pts[:, 1] - c, pts[:, 2] - c)
    _, n = ndi.label(skel, np.ones((3, 3, 3)))
    zs = pts[:, 0]
    return (f"{len(pts)} voxels, {n} components, axis distance max {d.max():.2f} mean {d.mean():.2f}, "
            f"z {zs.min()}..{zs.max()} of 1..485")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="16,32,64,128,256")
    ap.add_argument("--budget", type=float, default=120)
    ap.add_argument("--parac", default="build/bin/parac")
    a = ap.parse_args()
    from skimage.morphology import skeletonize
    try:
        import kimimaro
    except ImportError:
        kimimaro = None
        print("kimimaro: not installed")
    tmp = tempfile.mkdtemp()
    for S in map(int, a.sizes.split(",")):
        vol, c = cylinder(S)
        print(f"{S}x{S}x487: {int(vol.sum())} object voxels")
        t0 = time.perf_counter()
        sk = skeletonize(vol)
        t1 = time.perf_counter() - t0
        print(f"  skimage skeletonize (Lee) {t1 * 1e3:10.1f} ms  {quality(sk, c)}")
        if kimimaro is not None and t1 < a.budget:
            t0 = time.perf_counter()
            skels = kimimaro.skeletonize(vol.astype(np.uint32), anisotropy=(1, 1, 1), parallel=os.cpu_count(),
                                         progress=False)
            t2 = time.perf_counter() - t0
            v = np.zeros_like(vol)
            for s in skels.values():
                p = np.round(s.vertices).astype(int)
                v[p[:, 0], p[:, 1], p[:, 2]] = True
            print(f"  kimimaro (TEASAR)         {t2 * 1e3:10.1f} ms  {quality(v, c)}")
        if os.path.exists(a.parac):
            src, out = os.path.join(tmp, "in.npy"), os.path.join(tmp, "out.npy")
            np.save(src, vol.astype(np.uint8) * 255)
            for dev, method in (("cuda", "tiled"), ("cuda", "approx")):
                t0 = time.perf_counter()
                r = subprocess.run([a.parac, "--device", dev, "skeleton", src, out, "--layout", "dhw", "--method",
                                    method], capture_output=True, text=True)
                t3 = time.perf_counter() - t0
                if r.returncode == 0:
                    print(f"  parac skeleton {method:9s}  {t3 * 1e3:10.1f} ms  {quality(np.load(out) > 0, c)}"
                          " (whole CLI run: file I/O, start-up)")
                else:
                    print(f"  parac skeleton {method}: {r.stderr.strip()}")


if __name__ == "__main__":
    main()
