#!/usr/bin/env bash
# On a GPU machine: build, run the skeleton tests (CPU and GPU), the GPU
# kernels under compute-sanitizer, and the skeleton benchmark. Results in
# $OUT. DEPS_DIR: .deb files to unpack for missing headers/libraries.
# PHASES: any of "test sanitize bench" (default all).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-skeleton-out}
mkdir -p "$OUT"
PHASES=${PHASES:-test sanitize bench}
GPU_TARGETS=${GPU_TARGETS:-"parac test_field bench_field"}
source scripts/gpu-env.sh
echo "build ok"
if [[ $PHASES == *test* ]]; then
  (cd $b && timeout 300 ./tests/test_field) > "$OUT/test_field.log" 2>&1
  echo "test_field rc=$? $(grep -E 'PASSED|FAILED|SKIPPED' "$OUT/test_field.log" | tail -3 | tr '\n' ' ')"
fi
if [[ $PHASES == *sanitize* ]]; then
  for tool in memcheck racecheck synccheck initcheck; do
    (cd $b && timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 ./tests/test_field) > "$OUT/cs.log" 2>&1
    echo "$tool test_field rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/cs.log" | tail -1)"
  done
fi
if [[ $PHASES == *bench* ]]; then
  timeout ${BENCH_TIMEOUT:-300} bench/skeleton/run_all.sh $b "$OUT/bench" > "$OUT/bench.log" 2>&1
  echo "bench rc=$?"; cat "$OUT/bench.log"
fi
