#!/usr/bin/env bash
# The GPU Gaussian benchmarks in one command, on the GPU machine:
# correctness sweep, the paper's experiment, the full grid, peers, ratios.
# Usage: bench/gauss/run_all.sh [BUILD_DIR] [OUT_DIR] [quick]
#   quick: a quarter of the conformance cases and the 4096^2 f32 grid only.
#   CHECK=quick: a quarter of the conformance cases, the full grid.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-bench-out/gauss}
quick=${3:-}
mkdir -p "$out"
PY=${PYTHON:-python3}
json="$out/gauss.jsonl"
: > "$json"
{ nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv; date -u; } > "$out/device.txt" 2>&1
echo "== conformance sweep (CUDA vs scipy / CPU)"
check_opt=""
[ -n "$quick" ] || [ "${CHECK:-}" = quick ] && check_opt=--quick
$PY bench/gauss/check_cuda.py "$build/bin/parac" $check_opt 2>&1 | tee "$out/check.txt" | tail -25
echo "== paper experiment"
"$build/bin/bench_gauss_cuda" --paper --runs 10 --json "$json" | tee "$out/paper.txt"
echo "== grid"
if [ -n "$quick" ]; then
  "$build/bin/bench_gauss_cuda" --sides 4096 --dtypes f32 --runs 10 --json "$json" | tee "$out/grid.txt"
  sides=4096; dtypes=f32
else
  "$build/bin/bench_gauss_cuda" --grid --runs 7 --json "$json" | tee "$out/grid.txt"
  sides=1024,2048,4096,8192; dtypes=u8,f32
fi
echo "== crossover rows (src/filter/gauss_crossover.c)"
$PY bench/gauss/crossover.py "$json" > "$out/crossover_rows.txt"
echo "== peers"
$PY bench/gauss/peers.py --sides $sides --dtypes $dtypes --runs 5 --json "$out/peers.jsonl" --parac "$json" \
  | tee "$out/peers.txt"
