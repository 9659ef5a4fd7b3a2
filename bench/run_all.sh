#!/usr/bin/env bash
# Runs every benchmark, parac and peers in the same invocation, and prints
# the ratio tables. Usage: bench/run_all.sh [BUILD_DIR] [OUT_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-bench-out}
mkdir -p "$out"
json="$out/results.jsonl"
: > "$json"
PY=${PYTHON:-python3}
echo "== devices"; "$build/bin/parac" devices | tee "$out/devices.txt"
echo "== core"
"$build/bin/bench_core" --json "$json"
$PY bench/core/peers.py --json "$json"
for area in bench/*/run.sh; do
  [ -x "$area" ] || continue
  echo "== $(basename "$(dirname "$area")")"
  "$area" "$build" "$out" "$json"
done
echo "== parac / peer"
$PY bench/compare.py "$json" | tee "$out/ratios.txt"
