#!/usr/bin/env bash
# Builds the Halide 14 peers of the ParaC application suite ahead of time
# (Debian's libhalide14-0-dev on the CPU machine): the generators of
# halide_apps.cpp, each app's CUDA library with the hand-written schedule and
# with Li2018's (PTX for compute 8.6, which Halide 14 knows and the driver
# compiles for newer GPUs), its CPU library (AVX2/FMA, all cores) with
# Halide's schedule and with Adams2019's, one Halide runtime, the ParaC programs' C target
# (paracc, for the check) and bench_halide_suite, which needs no Halide to run.
# With --host first: the algorithms under Halide's default schedule for this
# machine's cores (AVX2; Halide 14's own detection of the host may name AVX-512
# features that a virtual machine lacks) instead: bench_halide_suite_host, which
# checks them without a GPU.
# Usage: bench/parac/suite/build.sh [--host] [OUT_DIR] [PARACC]   (defaults build-halide-suite, build/bin/paracc)
set -euo pipefail
cd "$(dirname "$0")/../../.."
host=0
if [ "${1:-}" = --host ]; then host=1; shift; fi
out=${1:-build-halide-suite}
paracc=${2:-build/bin/paracc}
mkdir -p "$out"
inc=/usr/include/halide14
[ -f $inc/Halide.h ] || { echo "build.sh: Halide 14 not found (apt-get install libhalide14-0-dev)"; exit 1; }
CXX=${CXX:-g++}
$CXX -std=c++17 -O1 -I$inc bench/parac/suite/halide_apps.cpp /usr/src/halide14/GenGen.cpp -o "$out/gen" -lHalide14 -ldl -lpthread
cuda=x86-64-linux-cuda-cuda_capability_86-no_runtime
cpu=x86-64-linux-sse41-avx-f16c-fma-avx2
apps="harris stencil_chain hist max_filter nl_means interpolate local_laplacian bilateral_grid pyramid_blending camera_pipe"
for app in $apps; do
  "$paracc" examples/apps/$app.pc --target c -o "$out/parac_$app"
  cc -std=c11 -O2 -fopenmp -c "$out/parac_$app.c" -o "$out/parac_$app.o"
  if [ $host = 1 ]; then
    "$out/gen" -g suite_$app -f ${app}_host -o "$out" -e static_library,h target=$cpu-no_runtime gpu=false check=true
    continue
  fi
  "$out/gen" -g suite_$app -f ${app}_cuda -o "$out" -e static_library,h target=$cuda
  "$out/gen" -g suite_$app -f ${app}_cuda_auto -o "$out" -e static_library,h,schedule \
    -p /usr/lib/x86_64-linux-gnu/halide14/libautoschedule_li2018.so -s Li2018 target=$cuda auto_schedule=true
  "$out/gen" -g suite_$app -f ${app}_cpu -o "$out" -e static_library,h target=$cpu-no_runtime gpu=false
  "$out/gen" -g suite_$app -f ${app}_cpu_auto -o "$out" -e static_library,h,schedule \
    -p /usr/lib/x86_64-linux-gnu/halide14/libautoschedule_adams2019.so -s Adams2019 target=$cpu-no_runtime auto_schedule=true
done
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -c bench/common/bench_cpu.c -Ibench/common -o "$out/bench_cpu.o"
if [ $host = 1 ]; then
  "$out/gen" -r halide_runtime -o "$out" -e static_library,h target=$cpu
  $CXX -std=c++17 -O2 -DSUITE_HOST -I$inc -I"$out" -Ibench/common bench/parac/suite/bench_halide_suite.cpp "$out"/parac_*.o \
    "$out/bench_cpu.o" $(for app in $apps; do echo "$out/${app}_host.a"; done) "$out/halide_runtime.a" \
    -o "$out/bench_halide_suite_host" -fopenmp -ldl -lpthread -lm
  echo "built $out/bench_halide_suite_host"
  exit 0
fi
"$out/gen" -r halide_runtime -o "$out" -e static_library,h target=$cpu-cuda
$CXX -std=c++17 -O2 -I$inc -I"$out" -Ibench/common bench/parac/suite/bench_halide_suite.cpp "$out"/parac_*.o "$out/bench_cpu.o" \
  $(for app in $apps; do echo "$out/${app}_cuda.a $out/${app}_cuda_auto.a $out/${app}_cpu.a $out/${app}_cpu_auto.a"; done) \
  "$out/halide_runtime.a" -o "$out/bench_halide_suite" -fopenmp -ldl -lpthread -lm
echo "built $out/bench_halide_suite"
