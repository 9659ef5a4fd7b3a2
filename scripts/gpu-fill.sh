#!/usr/bin/env bash
# On a GPU machine: build, run the region-filling tests (CPU and GPU), the
# GPU methods under compute-sanitizer, and the fill benchmark. Results in
# $OUT. DEPS_DIR: .deb files to unpack for missing headers/libraries.
# PHASES: any of "test sanitize bench" (default all).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-fill-out}
mkdir -p "$OUT"
PHASES=${PHASES:-test sanitize bench}
GPU_TARGETS=${GPU_TARGETS:-"parac test_fill bench_fill"}
source scripts/gpu-env.sh
echo "build ok"
if [[ $PHASES == *test* ]]; then
  (cd $b && timeout 300 ./tests/test_fill) > "$OUT/test_fill.log" 2>&1
  echo "test_fill rc=$? $(grep -E 'PASSED|FAILED' "$OUT/test_fill.log" | tail -2 | tr '\n' ' ')"
  PARAC_BIN=$PWD/$b/bin/parac timeout 500 python3 -m pytest -q -p no:cacheprovider -n 8 tests/python/test_fill.py \
    > "$OUT/pytest-fill.log" 2>&1; echo "pytest test_fill rc=$?"; grep -E "FAILED|Error|passed|failed" "$OUT/pytest-fill.log" | tail -25
fi
if [[ $PHASES == *sanitize* ]]; then
  python3 -c "
import numpy as np, cv2
r = np.random.default_rng(5)
a = ((r.random((301, 517)) < 0.38) * 255).astype(np.uint8)
cv2.circle(a, (200, 150), 100, 255, 1); np.save('/tmp/fa.npy', a)
v = ((r.random((13, 40, 33)) < 0.3) * 255).astype(np.uint16); np.save('/tmp/fv.npy', v)
"
  fails=0; runs=0
  for tool in memcheck racecheck synccheck initcheck; do
    for m in ccl seeds hybrid; do
      for c in "/tmp/fa.npy --connectivity 4" "/tmp/fa.npy --connectivity 8 --contour keep" "/tmp/fv.npy --layout dhw --connectivity 26" \
               "/tmp/fv.npy --layout dhw --connectivity 6 --contour outside" "/tmp/fa.npy --seeds 3"; do
        [ $m = ccl ] && [[ $c == *--seeds* ]] && continue
        timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 $b/bin/parac --device cuda fill $c /tmp/cs_o.npy --method $m \
          > "$OUT/cs.log" 2>&1 || { fails=$((fails+1)); echo "$tool FAIL: $m $c"; tail -8 "$OUT/cs.log"; }
        runs=$((runs+1))
      done
    done
  done
  for tool in memcheck racecheck synccheck initcheck; do
    for c in "/tmp/fa.npy --seed 3,3 --seed 200,100 --value 9 --tolerance 0" "/tmp/fv.npy --layout dhw --seed 1,2,3 --value 7 --connectivity 26"; do
      timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 $b/bin/parac --device cuda floodfill $c /tmp/cs_o.npy \
        > "$OUT/cs.log" 2>&1 || { fails=$((fails+1)); echo "$tool FAIL: floodfill $c"; tail -8 "$OUT/cs.log"; }
      runs=$((runs+1))
    done
  done
  echo "compute-sanitizer on CLI fill and floodfill runs: $runs runs, $fails failures"
fi
if [[ $PHASES == *bench* ]]; then
  timeout ${BENCH_TIMEOUT:-500} bench/fill/run_all.sh $b "$OUT/bench" ${QUICK:+quick} > "$OUT/bench.log" 2>&1
  echo "bench rc=$?"; tail -80 "$OUT/bench.log"
fi
