#!/usr/bin/env python3
"""Rows for src/filter/gauss_crossover.c from bench_gauss_cuda --json output:
one row per (method, dtype, side, sigma) measured with the default radius
rule. Usage: crossover.py GAUSS.jsonl"""
import json
import re
import sys

rows = {}
for line in open(sys.argv[1]):
    j = json.loads(line)
    if j.get("bench") != "gauss_cuda" or j["method"] in ("auto", "cpu-separable"):
        continue
    m = re.match(r"(\d+)x\d+ (\w+) sigma=([\d.e+-]+) r=(\d+)", j["case"])
    side, dt, sigma, r = int(m.group(1)), m.group(2), float(m.group(3)), int(m.group(4))
    if r != int(4.0 * sigma + 0.5):
        continue  # the paper's explicit radii
    rows[(j["method"], dt, side, sigma)] = j["median_ms"]
for (meth, dt, side, sigma), ms in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][3], kv[0][0])):
    print(f'    {{"{meth}", PARAC_{dt.upper()}, {side}, {sigma:g}, {ms:.5g}}},')
