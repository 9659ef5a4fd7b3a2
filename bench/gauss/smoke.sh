#!/usr/bin/env bash
# Short GPU session: conformance sweep (quick), memcheck of every CUDA method
# on small images, and the 4096^2 f32 timings with cupyx alongside.
# Usage: bench/gauss/smoke.sh BUILD_DIR OUT_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
build=$1
out=$2
mkdir -p "$out"
PY=${PYTHON:-python3}
$PY bench/gauss/check_cuda.py "$build/bin/parac" ${CHECK_FULL:+} ${CHECK_FULL:---quick} > "$out/check.txt" 2>&1
tail -30 "$out/check.txt"
$PY -c "
import numpy as np
rng = np.random.default_rng(1)
np.save('/tmp/s_f32.npy', rng.random((41, 67), dtype=np.float32))
np.save('/tmp/s_u8c3.npy', rng.integers(0, 256, (29, 53, 3)).astype(np.uint8))
"
for m in separable texture direct fft recursive deriche2 yvv; do
  for c in "s_f32 reflect101 12" "s_u8c3 constant:3 1.5" "s_f32 wrap 1.5" "s_u8c3 reflect 40"; do
    set -- $c
    compute-sanitizer --tool memcheck --error-exitcode 9 "$build/bin/parac" gauss /tmp/$1.npy /tmp/o.npy \
      --sigma $3 --method $m --border $2 --device cuda > /tmp/cs.txt 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then echo "memcheck FAIL $m $c rc=$rc"; tail -20 /tmp/cs.txt; fi
  done
done 2>&1 | tee "$out/memcheck.txt" | tail -40
echo "memcheck done"
if [ -f tests/python/test_gauss.py ]; then
  PARAC_BIN=$build/bin/parac timeout 120 $PY -m pytest tests/python/test_gauss.py -m gpu -q -x 2>&1 | tail -15
fi
"$build/bin/bench_gauss_cuda" --sides 4096 --dtypes f32 --runs 10 --json "$out/gauss.jsonl" | tee "$out/bench4096.txt"
$PY bench/gauss/peers.py --sides 4096 --dtypes f32 --sigmas 1,5,25 --no-cpu --runs 5 --parac "$out/gauss.jsonl" 2>&1 | tee "$out/peers.txt"
