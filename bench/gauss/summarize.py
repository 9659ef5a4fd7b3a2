#!/usr/bin/env python3
"""Markdown tables for RESULTS.md from the benchmark outputs:
gauss.jsonl (bench_gauss_cuda --json), peers.jsonl (peers.py --json) and
optionally auto.jsonl (a later bench_gauss_cuda run of `auto` alone, after the
crossover table was filled). Usage: summarize.py RESULTS_DIR"""
import json
import os
import re
import sys
from collections import defaultdict

FIR = ("separable", "texture", "direct", "fft")
ALL = ("separable", "texture", "direct", "fft", "recursive", "deriche2", "yvv")


def load(path):
    out = []
    if os.path.exists(path):
        for line in open(path):
            out.append(json.loads(line))
    return out


def key_of(case):
    m = re.match(r"(\d+)x\d+ (\w+) sigma=([\d.e+-]+)(?: r=(\d+))?", case)
    return int(m.group(1)), m.group(2), float(m.group(3)), int(m.group(4)) if m.group(4) else None


def main():
    d = sys.argv[1]
    runs = load(os.path.join(d, "gauss.jsonl"))
    peers = load(os.path.join(d, "peers.jsonl"))
    autos = load(os.path.join(d, "auto.jsonl"))
    t = defaultdict(dict)     # (side, dt, sigma) -> method -> ms
    floor = {}
    radius = {}
    for j in runs:
        side, dt, sigma, r = key_of(j["case"])
        k = (side, dt, sigma)
        t[k][j["method"]] = j["median_ms"]
        radius[k] = r
        if j["method"] != "cpu-separable" and j.get("extra"):
            floor[k] = j["median_ms"] / j["extra"]
    auto2 = {}
    for j in autos:
        side, dt, sigma, r = key_of(j["case"])
        if j["method"] == "auto":
            auto2[(side, dt, sigma)] = j["median_ms"]
    p = defaultdict(dict)
    for j in peers:
        side, dt, sigma, _ = key_of(j["case"])
        p[(side, dt, sigma)][j["method"]] = j["median_ms"]

    def best(k, methods):
        c = [(t[k][m], m) for m in methods if m in t[k]]
        return min(c) if c else (float("nan"), "-")

    print("### Paper experiment (f32, one channel; kernels 7×7 and 41×41 = radius 3 and 20 with σ = r/4; ms, median)\n")
    print("| image | kernel | " + " | ".join(ALL) + " | CPU separable | GPU ranking |")
    print("|---|---|" + "---|" * (len(ALL) + 2))
    for side in (1024, 2048, 3072, 4096):
        for sigma in (0.75, 5.0):
            k = (side, "f32", sigma)
            if k not in t:
                continue
            r = radius[k]
            cells = [f"{t[k][m]:.4f}" if m in t[k] else "-" for m in ALL]
            rank = " < ".join(m for _, m in sorted((t[k][m], m) for m in ALL if m in t[k]))
            cpu = t[k].get("cpu-separable")
            print(f"| {side}² | {2*r+1}×{2*r+1} | " + " | ".join(cells) +
                  f" | {cpu:.3f} |" + f" {rank} |")

    print("\n### Targets at 4096² f32 (copy floor = image read once + written once at the measured copy rate)\n")
    print("| σ | r | floor ms | best exact method | ms | × floor | fastest overall | ms | × floor | auto ms | auto / best exact | cupyx ms | cupyx / best |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for sigma in (1, 1.5, 3, 5, 10, 25, 50, 100):
        k = (4096, "f32", float(sigma))
        if k not in t:
            continue
        fl = floor[k]
        bm, bn = best(k, FIR)
        am, an = best(k, FIR + ("recursive",))
        au = auto2.get(k, t[k].get("auto", float("nan")))
        cu = p[k].get("cupyx", float("nan"))
        print(f"| {sigma:g} | {radius[k]} | {fl:.4f} | {bn} | {bm:.4f} | {bm/fl:.2f} | {an} | {am:.4f} | {am/fl:.2f} | "
              f"{au:.4f} | {au/bm:.2f} | {cu:.3f} | {cu/bm:.1f} |")

    print("\n### Full grid: fastest exact (FIR) method, the recursive filter, and auto\n")
    print("| image | type | σ | best exact | ms | GB/s eff. | % copy | recursive ms | auto ms | auto / best |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    worst = []
    for dt in ("f32", "u8"):
        for side in (1024, 2048, 4096, 8192):
            for sigma in (1, 1.5, 3, 5, 10, 25, 50, 100):
                k = (side, dt, float(sigma))
                if k not in t:
                    continue
                bm, bn = best(k, FIR)
                fl = floor[k]
                au = auto2.get(k, t[k].get("auto", float("nan")))
                bytes_ = 2.0 * side * side * (1 if dt == "u8" else 4)
                gbs = bytes_ / (bm * 1e-3) / 1e9
                pct = 100.0 * fl / bm
                rec = t[k].get("recursive", float("nan"))
                worst.append((au / bm, k))
                print(f"| {side}² | {dt} | {sigma:g} | {bn} | {bm:.4f} | {gbs:.0f} | {pct:.1f} | {rec:.4f} | {au:.4f} | {au/bm:.2f} |")
    worst.sort(reverse=True)
    print("\nauto / best exact, worst cases: " + ", ".join(f"{w:.2f} ({k[0]}² {k[1]} σ={k[2]:g})" for w, k in worst[:6]))

    print("\n### Peers (same run, same machine): peer time / parac time\n")
    print("| image | type | σ | parac best exact | ms | cupyx ms | × | NPP ms | × | cv2 (CPU) ms | × |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for dt in ("f32", "u8"):
        for side in (1024, 2048, 4096, 8192):
            for sigma in (1, 1.5, 3, 5, 10, 25, 50, 100):
                k = (side, dt, float(sigma))
                if k not in t or k not in p:
                    continue
                bm, bn = best(k, FIR)

                def cell(name):
                    v = p[k].get(name)
                    return (f"{v:.3f}", f"{v/bm:.1f}") if v else ("-", "-")
                c, n, o = cell("cupyx"), cell("npp"), cell("cv2-cpu")
                print(f"| {side}² | {dt} | {sigma:g} | {bn} | {bm:.4f} | {c[0]} | {c[1]} | {n[0]} | {n[1]} | {o[0]} | {o[1]} |")


if __name__ == "__main__":
    main()
