#!/usr/bin/env bash
# On a GPU machine, for a change to the runtime of generated code:
#   PHASE=test   build with CUDA and OpenCL, run the ParaC tests on both
#                (ctest -L lang, NVIDIA's OpenCL), and compute-sanitizer's
#                memcheck on CUDA pipelines (with the search too);
#   PHASE=bench  build the tree in BASE_TGZ (git archive of the commit to
#                compare with) and time both, twice, with the same programs.
# DEPS_DIR: .deb files to unpack. Results in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-runtime-out}; mkdir -p "$OUT"
PHASE=${PHASE:-test}
source <(sed -n "/^if \[ -n \"\${DEPS_DIR/,/^fi/p" scripts/gpu-env.sh)
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
cfg() { cmake -S "$1" -B "$2" -DPARAC_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" -DPARAC_OPENCL=ON -DCMAKE_BUILD_TYPE=Release > "$OUT/configure-$3.log" 2>&1 || { tail -20 "$OUT/configure-$3.log"; exit 1; }; }
if [ "$PHASE" = test ]; then
  cfg . build-gpu-rt new
  (cmake --build build-gpu-rt -j16 --target paracc parac && make -C build-gpu-rt/tests/lang -j16 && make -C build-gpu-rt/bench/parac -j16) > "$OUT/build-new.log" 2>&1 || { grep error "$OUT/build-new.log" | head -30; exit 1; }
  echo "build ok $(date +%T)"
  export PARAC_OPENCL_DEVICE=NVIDIA
  (cd build-gpu-rt && timeout 300 ctest -L lang -j12 --output-on-failure) > "$OUT/ctest-lang.log" 2>&1
  echo "ctest -L lang rc=$?"; grep -E "tests passed|Failed|\*\*\*|Not Run" "$OUT/ctest-lang.log" | head -20
  grep -c "Skipped" "$OUT/ctest-lang.log"
  for t in fold_cuda choice_cuda fuse_cuda blur_cuda features_cuda fail_status_cuda stage_cuda; do
    exe=build-gpu-rt/tests/lang_$t; [ -x $exe ] || { echo "no $exe"; continue; }
    PARAC_CACHE_DIR=/tmp/pc compute-sanitizer --tool memcheck --error-exitcode 99 $exe > "$OUT/san-$t.log" 2>&1
    echo "memcheck $t rc=$? $(grep 'ERROR SUMMARY' "$OUT/san-$t.log" | tail -1)"
  done
  PARAC_CU_SEARCH=1 PARAC_CACHE_DIR=/tmp/pcs compute-sanitizer --tool memcheck --error-exitcode 99 build-gpu-rt/tests/lang_choice_cuda > "$OUT/san-search.log" 2>&1
  echo "memcheck search choice_cuda rc=$? $(grep 'ERROR SUMMARY' "$OUT/san-search.log" | tail -1)"
  echo "done $(date +%T)"
fi
if [ "$PHASE" = bench ]; then
  mkdir -p /tmp/base && tar xzf "${BASE_TGZ:-.base.tgz}" -C /tmp/base
  cfg /tmp/base build-gpu-base base
  (cmake --build build-gpu-base -j16 --target paracc parac && make -C build-gpu-base/bench/parac -j16 bench_parac_O2 bench_parac_cuda_O2 bench_parac_cuda_no_fuse bench_parac_no_fuse) > "$OUT/build-base.log" 2>&1 || { grep error "$OUT/build-base.log" | head; exit 1; }
  echo "base built $(date +%T)"
  export PARAC_OPENCL_DEVICE=NVIDIA
  for round in 1 2; do
  for tree in base rt; do
    b=build-gpu-$tree; [ $tree = rt ] && b=build-gpu-rt
    for v in O2 no_fuse cuda_O2 cuda_no_fuse; do
      PARAC_CACHE_DIR=/tmp/cache-$tree $b/bin/bench_parac_$v --runs ${RUNS:-20} > "$OUT/bench-$tree-$v-$round.txt" 2>&1
    done
  done
  done
  echo "bench done $(date +%T)"
  cd "$OUT" && tar czf bench.tgz bench-*.txt && rm bench-*.txt
fi
