#!/usr/bin/env bash
# On a GPU machine: build, run the skeleton tests (CPU and GPU), the GPU
# kernels and the whole operation under compute-sanitizer, and the skeleton
# benchmarks with their peers. Results in $OUT. DEPS_DIR: .deb files to
# unpack for missing headers/libraries. PHASES: any of "test sanitize bench
# peers" (default all).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-skeleton-out}
mkdir -p "$OUT"
PHASES=${PHASES:-test sanitize bench peers}
GPU_TARGETS=${GPU_TARGETS:-"parac test_field test_field_approx test_critical test_graph bench_field bench_pipeline bench_approx"}
source scripts/gpu-env.sh
echo "build ok"
if [[ $PHASES == *test* ]]; then
  for t in test_field test_field_approx test_critical test_graph; do
    (cd $b && timeout 300 ./tests/$t) > "$OUT/$t.log" 2>&1
    echo "$t rc=$? $(grep -E 'PASSED|FAILED|SKIPPED' "$OUT/$t.log" | tail -3 | tr '\n' ' ')"
  done
  PARAC_BIN=$PWD/$b/bin/parac timeout 500 python3 -m pytest -q -p no:cacheprovider -n 8 tests/python/test_skeleton.py \
    > "$OUT/pytest-skeleton.log" 2>&1; echo "pytest test_skeleton rc=$?"
  grep -E "FAILED|Error|passed|failed" "$OUT/pytest-skeleton.log" | tail -25
fi
if [[ $PHASES == *sanitize* ]]; then
  for tool in memcheck racecheck synccheck initcheck; do
    for t in test_field test_field_approx; do
      (cd $b && timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 ./tests/$t) > "$OUT/cs.log" 2>&1
      echo "$tool $t rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/cs.log" | tail -1)"
    done
  done
  # the whole operation: upload, field, download, on the demo's L-shaped tube
  python3 - "$OUT/sk.npy" <<'PY'
import sys, numpy as np
z, y, x = np.indices((30, 36, 50))
a = (x >= 6) & (x <= 41) & ((y - 12) ** 2 + (z - 15) ** 2 <= 25)
b = (y >= 12) & (y <= 30) & ((x - 37) ** 2 + (z - 15) ** 2 <= 25)
np.save(sys.argv[1], ((a | b) * 255).astype(np.uint8))
PY
  for m in tiled global constant approx; do
    for tool in memcheck initcheck; do
      timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 $b/bin/parac --device cuda skeleton \
        "$OUT/sk.npy" "$OUT/sk-out.npy" --layout dhw --method $m > "$OUT/cs.log" 2>&1
      echo "$tool skeleton --method $m rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/cs.log" | tail -1)"
    done
  done
fi
if [[ $PHASES == *bench* ]]; then
  timeout ${BENCH_TIMEOUT:-400} bench/skeleton/run_all.sh $b "$OUT/bench" > "$OUT/bench.log" 2>&1
  echo "bench rc=$?"; cat "$OUT/bench.log"
fi
if [[ $PHASES == *peers* ]]; then
  # Kimimaro from wheels carried in .peerwheels (the machine has no network)
  if [[ -d .peerwheels ]] && ! python3 -c "import kimimaro" 2>/dev/null; then
    pip install -q --no-deps --no-index --target /tmp/peer-site .peerwheels/*.whl > "$OUT/pip.log" 2>&1 \
      || tail -3 "$OUT/pip.log"
    export PYTHONPATH=/tmp/peer-site${PYTHONPATH:+:$PYTHONPATH}
  fi
  timeout ${PEERS_TIMEOUT:-300} python3 bench/skeleton/peers.py --parac $b/bin/parac ${PEER_ARGS:-} \
    > "$OUT/peers.log" 2>&1
  echo "peers rc=$?"; cat "$OUT/peers.log"
fi
