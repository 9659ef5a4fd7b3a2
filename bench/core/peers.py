"""The same foundation cases timed with the peers in the same run: numpy on
the CPU, CuPy on the GPU (CUDA events, data resident, rotated inputs)."""
import argparse
import json
import time

import numpy as np


def time_cpu(fn, runs=10):
    fn()
    t = []
    for _ in range(runs):
        s = time.perf_counter()
        fn()
        t.append((time.perf_counter() - s) * 1e3)
    return float(np.median(t))


def time_gpu(cp, fn, inputs, runs=50):
    for i in range(3):
        fn(inputs[i % len(inputs)])
    start = [cp.cuda.Event() for _ in range(runs)]
    stop = [cp.cuda.Event() for _ in range(runs)]
    for i in range(runs):
        start[i].record()
        fn(inputs[i % len(inputs)])
        stop[i].record()
    stop[-1].synchronize()
    return float(np.median([cp.cuda.get_elapsed_time(a, b) for a, b in zip(start, stop)]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--json")
    args = ap.parse_args()
    n = args.size
    rows = []
    a8 = np.full((n, n), 7, np.uint8)
    f32 = np.zeros((n, n), np.float32)
    rows.append(("convert u8->f32", "numpy", "cpu", time_cpu(lambda: a8.astype(np.float32))))
    rows.append(("stats f32", "numpy", "cpu", time_cpu(lambda: (f32.min(), f32.max(), f32.mean(dtype=np.float64)))))
    try:
        import cupy as cp
        rot = 8
        d8 = [cp.asarray(a8) for _ in range(rot)]
        df = [cp.asarray(f32) for _ in range(rot)]
        rows.append(("convert u8->f32", "cupy", "cuda", time_gpu(cp, lambda x: x.astype(cp.float32), d8)))
        rows.append(("stats f32 (with result download)", "cupy", "cuda",
                     time_gpu(cp, lambda x: (float(x.min()), float(x.max()), float(x.mean(dtype=cp.float64))), df)))
    except Exception as e:  # no GPU / no CuPy: CPU peers only
        print(f"cupy unavailable: {e}")
    out = open(args.json, "a") if args.json else None
    for case, peer, dev, ms in rows:
        print(f"{case:34s} {peer:8s} {dev:6s} {ms:10.4f} ms")
        if out:
            out.write(json.dumps({"bench": "core-peer", "case": case, "method": peer, "device": dev,
                                  "median_ms": ms}) + "\n")


if __name__ == "__main__":
    main()
