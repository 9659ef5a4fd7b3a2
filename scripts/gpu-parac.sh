#!/usr/bin/env bash
# On a GPU machine: build with OpenCL, run the ParaC compiler's tests on
# NVIDIA's OpenCL (every example at -O0, -O2 and vector widths 2 and 16,
# against the C references) and the evaluation (bench/parac/run_all.sh).
# Results in $OUT. DEPS_DIR: .deb files to unpack. PHASES: "test bench".
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-parac-out}
mkdir -p "$OUT"
PHASES=${PHASES:-test bench}
GPU_OPENCL=ON GPU_BUILD=${GPU_BUILD:-build-gpu-cl}
GPU_TARGETS=${GPU_TARGETS:-"paracc parac"}
source scripts/gpu-env.sh
make -C $b/tests/lang -j"$(nproc)" >> "$OUT/build.log" 2>&1 || { grep -E 'error' "$OUT/build.log" | head -20; exit 1; }
make -C $b/bench/parac -j"$(nproc)" >> "$OUT/build.log" 2>&1 || { grep -E 'error' "$OUT/build.log" | head -20; exit 1; }
echo "build ok"
export PARAC_OPENCL_DEVICE=${PARAC_OPENCL_DEVICE:-NVIDIA}
if [[ $PHASES == *test* ]]; then
  (cd $b && timeout 500 ctest -L lang -j8 --output-on-failure) > "$OUT/ctest-lang.log" 2>&1
  echo "ctest -L lang on $PARAC_OPENCL_DEVICE rc=$?"; grep -E "tests passed|Failed|Not Run" "$OUT/ctest-lang.log" | head -20
  (cd $b && PARAC_TEST_BIG=1 timeout 300 ./tests/lang_big_index_opencl) > "$OUT/big-index.log" 2>&1
  echo "more than 2^31 elements rc=$? $(tail -1 "$OUT/big-index.log")"
  PARAC_BIN=$PWD/$b/bin/parac timeout 500 python3 -m pytest -q -p no:cacheprovider -n 8 tests/python/test_paracc_opt_fuzz.py \
    > "$OUT/pytest-opt-fuzz.log" 2>&1; echo "optimiser fuzz rc=$? $(tail -1 "$OUT/pytest-opt-fuzz.log")"
fi
if [[ $PHASES == *bench* ]]; then
  timeout ${BENCH_TIMEOUT:-500} bench/parac/run_all.sh $b "$OUT/bench" ${RUNS:-20} > "$OUT/bench.log" 2>&1
  echo "bench rc=$?"; cat "$OUT/bench/parac.txt" | grep -v "^variant" | head -5; cat "$OUT/bench/ablation.txt"
fi
