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
# Each operation family has bench/<area>/run_all.sh BUILD OUT_DIR (its own
# peers and tables); QUICK=1 asks them for a reduced set.
for area in ${BENCH_AREAS-bench/*/run_all.sh}; do
  [ -x "$area" ] || continue
  name=$(basename "$(dirname "$area")")
  echo "== $name"
  "$area" "$build" "$out/$name" ${QUICK:+quick}
done
echo "== parac / peer"
$PY bench/compare.py "$json" | tee "$out/ratios.txt"
