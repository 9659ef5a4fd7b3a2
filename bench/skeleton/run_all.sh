#!/usr/bin/env bash
# Skeleton benchmarks (so far: the potential field, stage 2).
# Usage: bench/skeleton/run_all.sh BUILD OUT_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-bench-out/skeleton}
mkdir -p "$out"
"$build/bin/bench_field" --radius 20 --length 240 --M 6 | tee "$out/field.txt"
"$build/bin/bench_field" --radius 60 --length 480 --M 6 --runs 3 --cpu-radius 12 --cpu-length 100 | tee -a "$out/field.txt"
exit 0
