#!/usr/bin/env python3
"""Quick conformance sweep of the CUDA gauss methods through the CLI, run by
run_all.sh before timing: FIR methods (separable, texture, direct, fft)
against scipy.ndimage.correlate1d in float64 with the matching mode; IIR
methods (recursive, deriche2, yvv) against the same method on the CPU.
Prints one line per failure and a summary; exit status 1 on any failure.
Usage: check_cuda.py PARAC_BIN [--quick]"""
import itertools
import os
import subprocess
import sys
import tempfile

import numpy as np
import scipy.ndimage as ndi

SCIPY_MODE = {"reflect101": "mirror", "reflect": "reflect", "replicate": "nearest",
              "constant": "constant", "wrap": "grid-wrap"}


def taps(sigma, r):
    x = np.arange(-r, r + 1, dtype=np.float64)
    w = np.exp(-0.5 * x * x / (sigma * sigma))
    return w / w.sum()


def reference(a, sigma, border):
    mode, _, val = border.partition(":")
    cval = float(val) if val else 0.0
    r = int(4.0 * sigma + 0.5)
    out = a.astype(np.float64)
    for axis in (0, 1):
        out = ndi.correlate1d(out, taps(sigma, r), axis=axis, mode=SCIPY_MODE[mode], cval=cval)
    return out


def run(parac, args):
    return subprocess.run([parac] + args, capture_output=True, text=True)


def random_image(rng, h, w, c, dtype):
    shape = (h, w) if c == 1 else (h, w, c)
    if dtype == "u8":
        return rng.integers(0, 256, shape).astype(np.uint8)
    if dtype == "u16":
        return rng.integers(0, 65536, shape).astype(np.uint16)
    return rng.standard_normal(shape).astype(np.float32)


def main():
    parac = sys.argv[1]
    quick = "--quick" in sys.argv
    rng = np.random.default_rng(12345)
    tmp = tempfile.mkdtemp()
    fails = total = 0
    fir = ["separable", "texture", "direct", "fft"]
    iir = ["recursive", "deriche2", "yvv"]
    borders = ["reflect101", "reflect", "replicate", "constant", "constant:0.3", "wrap"]
    sigmas = [0.7, 3.0, 9.0, 30.0]
    cases = []
    # every method x border x sigma on f32, one channel, two odd sizes
    for m, b, s, size in itertools.product(fir + iir, borders, sigmas, [(23, 37), (131, 70)]):
        if m == "direct" and s > 9:
            continue
        cases.append((m, b, s, size, 1, "f32"))
    # dtypes and channels on a subset
    for m, b, dt, c in itertools.product(fir + iir, ["reflect101", "reflect", "wrap", "constant:7"],
                                         ["u8", "u16", "f32"], [1, 3, 4]):
        cases.append((m, b, float(rng.choice([1.3, 4.2, 12.0])), (41, 67), c, dt))
    if quick:
        cases = cases[::4]
    for m, b, s, (h, w), c, dt in cases:
        total += 1
        a = random_image(rng, h, w, c, dt)
        src = os.path.join(tmp, "in.npy")
        dst = os.path.join(tmp, "out.npy")
        np.save(src, a)
        args = ["gauss", src, dst, "--sigma", str(s), "--method", m, "--border", b]
        r = run(parac, args + ["--device", "cuda"])
        tag = f"{m:9s} {b:12s} sigma={s:<5g} {h}x{w}x{c} {dt}"
        if r.returncode != 0:
            fails += 1
            print(f"FAIL {tag}: exit {r.returncode}: {r.stderr.strip()[:300]}")
            continue
        got = np.load(dst).astype(np.float64)
        if m in fir:
            ref = reference(a, s, b) if c == 1 else np.stack(
                [reference(a[..., k], s, b) for k in range(c)], axis=-1)
        else:
            rc = run(parac, args + ["--device", "cpu"])
            if rc.returncode != 0:
                fails += 1
                print(f"FAIL {tag}: cpu exit {rc.returncode}: {rc.stderr.strip()[:300]}")
                continue
            ref = np.load(dst).astype(np.float64)
        if dt == "f32":
            scale = max(np.abs(ref).max(), 1e-30)
            err = np.abs(got - ref).max() / scale
            tol = 1e-4 if m in ("fft",) or m in iir else 1e-5
            ok = err <= tol
        else:
            top = 255 if dt == "u8" else 65535
            if m in fir:
                ref = np.clip(np.rint(ref), 0, top)
            err = np.abs(got - ref).max()
            ok = err <= 1
        if got.shape != ref.shape:
            ok = False
        if not ok:
            fails += 1
            print(f"FAIL {tag}: max error {err:.3g}")
    print(f"check_cuda: {total - fails}/{total} cases passed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
