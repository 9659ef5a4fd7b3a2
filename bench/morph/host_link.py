"""From host memory to result: parac's in-process reconstruction of NumPy
arrays on a GPU against what the host link can move (the same bytes copied
by CuPy from pageable and from pinned memory) and against the kernels alone
(the same call on CuPy arrays).

    python bench/morph/host_link.py [--size N] [--repeat R] [--device cuda]

Every line: best of R wall times after a warm-up, and the rate of the bytes
that call moves across the link (two inputs in, one output back).
"""
import argparse
import time

import numpy as np


def best(fn, repeat, sync):
    fn()
    sync()
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        sync()
        out.append(time.perf_counter() - t)
    return min(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=51200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--device", default="cuda")
    args = ap.parse_args()
    import cupy
    import cupyx

    import parac

    n = args.size
    sync = cupy.cuda.runtime.deviceSynchronize
    y = (np.arange(n, dtype=np.float32) * np.float32(60.0 / n))
    mask = ((np.sin(y)[:, None] + np.cos(y * 0.7)[None, :] + 2.2) * 50).astype(np.uint8)
    marker = np.where(mask > 10, mask - 10, 0).astype(np.uint8)
    b = mask.nbytes
    moved = 3 * b
    print("# %d^2 u8 (%.2f GB per image), device %s" % (n, b / 1e9, args.device), flush=True)

    def line(case, t, nbytes=moved):
        print("%-64s %9.1f ms  %6.1f GB/s" % (case, t * 1e3, nbytes / t / 1e9), flush=True)

    d = cupy.empty_like(cupy.asarray(mask[:1]))  # context
    d = cupy.empty(mask.shape, cupy.uint8)
    line("link: H2D pageable (cupy set from NumPy), one image", best(lambda: d.set(mask), args.repeat, sync), b)
    pinned = cupyx.empty_pinned(mask.shape, np.uint8)
    pinned[...] = mask
    line("link: H2D pinned, one image", best(lambda: d.set(pinned), args.repeat, sync), b)
    host = np.empty(mask.shape, np.uint8)
    host[...] = 0
    line("link: D2H pageable into touched memory, one image", best(lambda: d.get(out=host), args.repeat, sync), b)
    line("link: D2H pinned, one image", best(lambda: d.get(out=pinned), args.repeat, sync), b)
    line("host: a new NumPy array written once (page faults), one image",
         best(lambda: np.ones(mask.shape, np.uint8), args.repeat, sync), b)
    dm, dk = cupy.asarray(mask), cupy.asarray(marker)
    t_k = best(lambda: parac.reconstruct(dk, dm, device=args.device), args.repeat, sync)
    line("parac.reconstruct on CuPy arrays (device-resident)", t_k, 3 * b)
    del dm, dk, d
    t = best(lambda: parac.reconstruct(marker, mask, device=args.device), args.repeat, sync)
    line("parac.reconstruct on NumPy arrays (host memory to result)", t)
    out = np.empty_like(mask)
    out[...] = 0
    t2 = best(lambda: parac.reconstruct(marker, mask, device=args.device, out=out), args.repeat, sync)
    line("parac.reconstruct on NumPy arrays, out= touched", t2)
    res = parac.reconstruct(marker, mask, device=args.device)
    print("# equal to the CuPy call: %s" % bool((res == parac.reconstruct(cupy.asarray(marker), cupy.asarray(mask),
                                                                             device=args.device).get()).all()))


if __name__ == "__main__":
    main()
