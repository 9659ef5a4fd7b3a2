#!/usr/bin/env python3
"""Lines of code of each example program (the paper's Table 1): the ParaC
source, the hand-written CUDA peer (kernels and launcher, bench/parac/peers)
and OpenCL peer (kernels only: its host side is bench_peers_opencl.c, shared
by the five), and what paracc -O2
generates from the source (OpenCL kernels and host C), when GEN_DIR (a
build's bench/parac/gen) is given. A line counts when it holds code: blank
lines and lines with comments only do not.

    python3 bench/parac/loc.py [GEN_DIR]
    python3 bench/parac/loc.py --suite   # the application suite against Halide's versions

With --suite: each app of examples/apps/ against its Halide 14 version
(bench/parac/suite/halide_apps.cpp): the algorithm (generate()) and the
hand-written GPU schedule (schedule() without the autoscheduler's
estimates, the host check and the CPU schedule).
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


SUITE = [("harris", "Harris"), ("stencil_chain", "StencilChain"), ("hist", "Hist"), ("max_filter", "MaxFilter"),
         ("nl_means", "NlMeans"), ("interpolate", "Interpolate"), ("local_laplacian", "LocalLaplacian"),
         ("bilateral_grid", "BilateralGrid"), ("pyramid_blending", "PyramidBlending"), ("camera_pipe", "CameraPipe")]


def block_after(text, start):
    """The text between the brace that follows `start` and its match."""
    i = text.index("{", start)
    depth = 0
    for j in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return text[i + 1:j]
    raise ValueError("unbalanced braces")


def without_branch(body, head):
    """body less every `head { ... }` (or `head statement;`)."""
    while head in body:
        i = body.index(head)
        rest = body[i + len(head):].lstrip()
        if rest.startswith("{"):
            inner = block_after(body, i)
            end = body.index(inner, i) + len(inner) + 1
        else:
            end = body.index(";", i) + 1
        body = body[:i] + body[end:]
    return body


def lines_of(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return sum(1 for line in text.splitlines() if line.strip() and line.strip() not in ("{", "}"))


def suite():
    src = (ROOT / "bench/parac/suite/halide_apps.cpp").read_text()
    print("| app | ParaC (the .pc file) | Halide: algorithm | Halide: GPU schedule | Halide: both |")
    print("|---|---|---|---|---|")
    for app, cls in SUITE:
        start = src.index("class %s " % cls)
        body = block_after(src, start)
        algorithm = lines_of(block_after(src, src.index("void generate()", start)))
        # the class's own helpers (local_laplacian's down / up / at): algorithm too
        private = body[body.index("private:"):] if "private:" in body else ""
        for m in re.finditer(r"\n    \w[^;{}\n]*\)\n    \{", private):
            algorithm += 1 + lines_of(block_after(private, m.start()))
        sched = block_after(src, src.index("void schedule()", start))
        for head in ("if (AUTOSCHEDULED)", "if (check)", "if (!gpu)"):
            sched = without_branch(sched, head)
        gpu = lines_of(sched)
        print(f"| {app} | {lines_of((ROOT / 'examples/apps' / (app + '.pc')).read_text())} | {algorithm} | {gpu} | {algorithm + gpu} |")


def main():
    if sys.argv[1:] == ["--suite"]:
        suite()
        return
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
