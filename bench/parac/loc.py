#!/usr/bin/env python3
"""Lines of code of each example program (the paper's Table 1): the ParaC
source, the hand-written CUDA peer (kernels and launcher, bench/parac/peers)
and OpenCL peer (kernels only: its host side is bench_peers_opencl.c, shared
by the five), and what paracc -O2
generates from the source (OpenCL kernels and host C), when GEN_DIR (a
build's bench/parac/gen) is given. A line counts when it holds code: blank
lines and lines with comments only do not.

    python3 bench/parac/loc.py [GEN_DIR]
"""
import pathlib
import re
import sys

APPS = ["blur", "gaussian", "laplacian", "sharpening", "unsharp"]
ROOT = pathlib.Path(__file__).resolve().parents[2]


def code_lines(path):
    text = path.read_text()
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return sum(1 for line in text.splitlines() if line.strip())


def main():
    gen = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else None
    head = "| program | ParaC | hand-written CUDA | hand-written OpenCL kernels |"
    rule = "|---|---|---|---|"
    if gen:
        head += " paracc -O2: OpenCL kernels | host C |"
        rule += "---|---|"
    print(head)
    print(rule)
    for app in APPS:
        peers = ROOT / "bench/parac/peers"
        row = (f"| {app} | {code_lines(ROOT / 'examples' / (app + '.pc'))} | {code_lines(peers / (app + '.cu'))} |"
               f" {code_lines(peers / (app + '.cl'))} |")
        if gen:
            row += f" {code_lines(gen / (app + '_O2.cl'))} | {code_lines(gen / (app + '_O2.c'))} |"
        print(row)


if __name__ == "__main__":
    main()
