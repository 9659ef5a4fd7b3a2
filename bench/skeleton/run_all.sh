#!/usr/bin/env bash
# Skeleton benchmarks: the potential field's kernels (stage 2), the
# approximate field against the exact one, then the whole pipeline on the
# paper's sequence 16x16x487 ... 256x256x487.
# Usage: bench/skeleton/run_all.sh BUILD OUT_DIR [bench_pipeline options]
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-bench-out/skeleton}
shift 2 2>/dev/null || true
mkdir -p "$out"
"$build/bin/bench_field" --radius 20 --length 240 --M 6 | tee "$out/field.txt"
"$build/bin/bench_field" --radius 60 --length 480 --M 6 --runs 3 --cpu-radius 12 --cpu-length 100 | tee -a "$out/field.txt"
"$build/bin/bench_approx" | tee "$out/approx.txt"
"$build/bin/bench_pipeline" --methods tiled,approx "$@" | tee "$out/pipeline.txt"
exit 0
