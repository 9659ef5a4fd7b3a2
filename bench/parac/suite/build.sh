#!/usr/bin/env bash
# Builds the Halide peers of the ParaC application suite ahead of time, on
# the CPU machine: the generators of halide_apps.cpp, each app's CUDA library
# with the hand-written schedule and with a GPU autoscheduler's (PTX for
# compute 8.6, the newest Halide 14 and 21 know; the driver compiles it for
# newer GPUs), its CPU library (AVX2/FMA, all cores) with Halide's schedule
# and with Adams2019's, one Halide runtime, the ParaC programs' C target
# (paracc, for the check) and bench_halide_suite, which needs no Halide to run.
# Halide 14 (Debian's libhalide14-0-dev) by default, its GPU autoscheduler
# Li2018; with --halide DIR, a Halide >= 15 installed in DIR (include/,
# lib64/ or lib/ with libHalide_GenGen.a, as in PyPI's halide wheel: unzip
# it and name its halide/ folder), its GPU autoscheduler Anderson2021, told
# the GPU it schedules for (an H100's 132 SMs, 228 KB of shared memory a SM).
# With --host first: the algorithms under Halide's default schedule for this
# machine's cores (AVX2; Halide 14's own detection of the host may name AVX-512
# features that a virtual machine lacks) instead: bench_halide_suite_host, which
# checks them without a GPU.
# Usage: bench/parac/suite/build.sh [--host] [--halide DIR] [OUT_DIR] [PARACC]
#        (defaults build-halide-suite, build/bin/paracc)
set -euo pipefail
cd "$(dirname "$0")/../../.."
host=0
if [ "${1:-}" = --host ]; then host=1; shift; fi
halide=
if [ "${1:-}" = --halide ]; then halide=$(cd "$2" && pwd); shift 2; fi
out=${1:-build-halide-suite}
paracc=${2:-build/bin/paracc}
mkdir -p "$out"
CXX=${CXX:-g++}
if [ -z "$halide" ]; then
  inc=/usr/include/halide14 plugins=/usr/lib/x86_64-linux-gnu/halide14
  [ -f $inc/Halide.h ] || { echo "build.sh: Halide 14 not found (apt-get install libhalide14-0-dev)"; exit 1; }
  $CXX -std=c++17 -O1 -I$inc bench/parac/suite/halide_apps.cpp /usr/src/halide14/GenGen.cpp -o "$out/gen" -lHalide14 -ldl -lpthread
  major=14 gpu_auto=Li2018
  gpu_auto_args="-s Li2018 auto_schedule=true"
  cpu_auto_args="-s Adams2019 auto_schedule=true"
else
  inc=$halide/include plugins=$halide/lib64
  [ -d "$plugins" ] || plugins=$halide/lib
  [ -f "$inc/Halide.h" ] && [ -f "$plugins/libHalide_GenGen.a" ] ||
    { echo "build.sh: no Halide.h and libHalide_GenGen.a under $halide"; exit 1; }
  $CXX -std=c++17 -O1 -I"$inc" bench/parac/suite/halide_apps.cpp -o "$out/gen" \
    -Wl,--whole-archive "$plugins/libHalide_GenGen.a" -Wl,--no-whole-archive \
    -L"$plugins" -lHalide -Wl,-rpath,"$plugins" -ldl -lpthread
  major=$(sed -n 's/^#define HALIDE_VERSION_MAJOR \([0-9]*\).*/\1/p' "$inc/HalideRuntime.h")
  gpu_auto=Anderson2021
  # an H100: 132 SMs, 228 KB of shared memory a SM (48 a block without opting in), 32 blocks and 64 warps a SM
  gpu_auto_args="autoscheduler=Anderson2021 autoscheduler.parallelism=132 autoscheduler.shared_memory_limit_kb=48
    autoscheduler.shared_memory_sm_limit_kb=228 autoscheduler.active_block_limit=32 autoscheduler.active_warp_limit=64"
  cpu_auto_args="autoscheduler=Adams2019 autoscheduler.parallelism=16"
fi
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
  # shellcheck disable=SC2086 # the autoscheduler's arguments, one word each
  "$out/gen" -g suite_$app -f ${app}_cuda_auto -o "$out" -e static_library,h,schedule \
    -p "$plugins/libautoschedule_${gpu_auto,,}.so" target=$cuda $gpu_auto_args
  "$out/gen" -g suite_$app -f ${app}_cpu -o "$out" -e static_library,h target=$cpu-no_runtime gpu=false
  # shellcheck disable=SC2086
  "$out/gen" -g suite_$app -f ${app}_cpu_auto -o "$out" -e static_library,h,schedule \
    -p "$plugins/libautoschedule_adams2019.so" target=$cpu-no_runtime $cpu_auto_args
done
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -c bench/common/bench_cpu.c -Ibench/common -o "$out/bench_cpu.o"
if [ $host = 1 ]; then
  "$out/gen" -r halide_runtime -o "$out" -e static_library,h target=$cpu
  $CXX -std=c++17 -O2 -DSUITE_HOST -DHALIDE_PEER_MAJOR=$major -I"$inc" -I"$out" -Ibench/common bench/parac/suite/bench_halide_suite.cpp "$out"/parac_*.o \
    "$out/bench_cpu.o" $(for app in $apps; do echo "$out/${app}_host.a"; done) "$out/halide_runtime.a" \
    -o "$out/bench_halide_suite_host" -fopenmp -ldl -lpthread -lm
  echo "built $out/bench_halide_suite_host"
  exit 0
fi
"$out/gen" -r halide_runtime -o "$out" -e static_library,h target=$cpu-cuda
$CXX -std=c++17 -O2 -I"$inc" -I"$out" -Ibench/common -DHALIDE_PEER_MAJOR=$major -DGPU_AUTOSCHEDULER="\"${gpu_auto,,}\"" \
  bench/parac/suite/bench_halide_suite.cpp "$out"/parac_*.o "$out/bench_cpu.o" \
  $(for app in $apps; do echo "$out/${app}_cuda.a $out/${app}_cuda_auto.a $out/${app}_cpu.a $out/${app}_cpu_auto.a"; done) \
  "$out/halide_runtime.a" -o "$out/bench_halide_suite" -fopenmp -ldl -lpthread -lm
echo "built $out/bench_halide_suite"
