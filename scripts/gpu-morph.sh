#!/usr/bin/env bash
# On a GPU machine: build, run the reconstruction tests (CPU and GPU), the
# GPU paths under compute-sanitizer, and the reconstruction benchmark.
# Results in $OUT. DEPS_DIR: .deb files to unpack for missing headers/libraries.
# PHASES: any of "test sanitize bench" (default all).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-morph-out}
mkdir -p "$OUT"
PHASES=${PHASES:-test sanitize bench}
GPU_TARGETS="parac test_recon test_recon_gpu bench_morph"
source scripts/gpu-env.sh
echo "build ok"
if [[ $PHASES == *test* ]]; then
  for t in test_recon test_recon_gpu; do
    (cd $b && timeout 300 ./tests/$t) > "$OUT/$t.log" 2>&1; echo "$t rc=$? $(grep -E 'PASSED|FAILED' "$OUT/$t.log" | tail -2 | tr '\n' ' ')"
  done
  PARAC_BIN=$PWD/$b/bin/parac timeout 400 python3 -m pytest -q -p no:cacheprovider -n 8 tests/python/test_morph.py \
    > "$OUT/pytest-morph.log" 2>&1; echo "pytest test_morph rc=$?"; tail -6 "$OUT/pytest-morph.log"
fi
if [[ $PHASES == *sanitize* ]]; then
  python3 -c "
import numpy as np, scipy.ndimage as ndi
r = np.random.default_rng(3)
m = (ndi.gaussian_filter(r.random((300, 517)), 2) * 255).astype(np.uint8)
np.save('/tmp/ms.npy', m); np.save('/tmp/mk.npy', np.maximum(m.astype(int) - 30, 0).astype(np.uint8))
v = (ndi.gaussian_filter(r.random((9, 40, 33)), 1) * 1000).astype(np.float32)
np.save('/tmp/vs.npy', v); np.save('/tmp/vk.npy', v - 50)
"
  fails=0; runs=0
  for tool in memcheck racecheck synccheck initcheck; do
    for c in "reconstruct /tmp/mk.npy /tmp/ms.npy --connectivity 8" "reconstruct /tmp/mk.npy /tmp/ms.npy --connectivity 4" \
             "reconstruct /tmp/vk.npy /tmp/vs.npy --layout dhw --connectivity 26" "reconstruct /tmp/vk.npy /tmp/vs.npy --layout dhw --connectivity 6" \
             "h-maxima /tmp/ms.npy --h 10" "opening-by-reconstruction /tmp/ms.npy --radius 2" "clear-border /tmp/ms.npy" "regional-minima /tmp/vs.npy --layout dhw" \
             "reconstruct /tmp/mk.npy /tmp/ms.npy --method heap" "reconstruct /tmp/mk.npy /tmp/ms.npy --method heap --connectivity 4 --node-size 32 --heaps 5" \
             "reconstruct /tmp/mk.npy /tmp/ms.npy --method heap --node-size 32 --heaps 1" "reconstruct /tmp/mk.npy /tmp/ms.npy --method heap --heap-updates serial" \
             "reconstruct /tmp/vk.npy /tmp/vs.npy --layout dhw --method heap --connectivity 26" "h-minima /tmp/vs.npy --layout dhw --h 30 --method heap"; do
      set -- $c
      op=$1; shift
      if [ $op = reconstruct ]; then a="$1 $2"; shift 2; else a=$1; shift; fi
      timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 $b/bin/parac --device cuda $op $a /tmp/cs_o.npy "$@" \
        > "$OUT/cs.log" 2>&1 || { fails=$((fails+1)); echo "$tool FAIL: $c"; tail -8 "$OUT/cs.log"; }
      runs=$((runs+1))
    done
  done
  # strips (a memory cap) and two workers on one GPU
  for tool in memcheck racecheck; do
    for dev in cuda cuda:0,cuda:0; do
      PARAC_CUDA_MEMORY_CAP=20000 timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 $b/bin/parac --device $dev \
        reconstruct /tmp/mk.npy /tmp/ms.npy /tmp/cs_o.npy > "$OUT/cs.log" 2>&1 || { fails=$((fails+1)); echo "$tool FAIL: strips $dev"; tail -8 "$OUT/cs.log"; }
      runs=$((runs+1))
    done
  done
  # split over three workers on one GPU (strips resident on the workers), 2D and 3D
  for tool in memcheck racecheck synccheck initcheck; do
    for c in "/tmp/mk.npy /tmp/ms.npy /tmp/cs_o.npy" "/tmp/vk.npy /tmp/vs.npy /tmp/cs_o.npy --layout dhw --connectivity 26"; do
      PARAC_CUDA_SPLIT=always timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 $b/bin/parac --device cuda:0,cuda:0,cuda:0 \
        reconstruct $c > "$OUT/cs.log" 2>&1 || { fails=$((fails+1)); echo "$tool FAIL: split $c"; tail -8 "$OUT/cs.log"; }
      runs=$((runs+1))
    done
  done
  echo "compute-sanitizer on CLI reconstruction runs: $runs runs, $fails failures"
  PARAC_TEST_NO_LARGE=1 timeout 400 compute-sanitizer --tool memcheck --error-exitcode 9 $b/tests/test_recon_gpu > "$OUT/cs-test.log" 2>&1
  echo "memcheck test_recon_gpu rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/cs-test.log" | tail -1)"
fi
if [[ $PHASES == *bench* ]]; then
  timeout ${BENCH_TIMEOUT:-500} bench/morph/run_all.sh $b "$OUT/bench" ${QUICK:+quick} > "$OUT/bench.log" 2>&1
  echo "bench rc=$?"; cat "$OUT/bench.log" | tail -80
fi
