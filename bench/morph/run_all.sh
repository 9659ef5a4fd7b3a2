#!/usr/bin/env bash
# Reconstruction benchmarks: parac's methods (bench_morph) and the peers
# (peers.py) in the same run. Usage: bench/morph/run_all.sh BUILD OUT_DIR [quick]
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-bench-out/morph}
mkdir -p "$out"
json="$out/morph.jsonl"
: > "$json"
PY=${PYTHON:-python3}
if [ "${3:-}" = quick ]; then sides=1024; else sides=${SIDES:-1024,4096}; fi
methods=cpu:hybrid,cpu:downhill,cpu:parallel
"$build/bin/parac" devices --cuda-count 2>/dev/null | grep -qv '^0$' && methods=$methods,cuda:wavefront
echo "-- parac (data resident where the method runs)"
"$build/bin/bench_morph" --sides $sides --dtypes u8 --methods $methods --json "$json" | tee "$out/parac.txt"
"$build/bin/bench_morph" --sides 4096 --dtypes u16,f32 --cases hmax10,hmax40 --methods $methods --json "$json" \
  | tee -a "$out/parac.txt"
echo "-- peers"
$PY bench/morph/peers.py --sides 1024 --max-seconds 10 --json "$json" | tee "$out/peers.txt"
$PY bench/morph/peers.py --sides 4096 --peers cucim --max-seconds 10 --json "$json" | tee -a "$out/peers.txt"
