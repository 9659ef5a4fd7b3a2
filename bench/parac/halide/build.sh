#!/usr/bin/env bash
# Builds the Halide 14 peers ahead of time (Debian's libhalide14-0-dev on the
# CPU machine): the generators, their libraries for the host's cores
# (AVX2/FMA) and for CUDA (PTX for compute 8.6, which Halide 14 knows and
# the driver compiles for newer GPUs; two schedules: stages fused per tile,
# and a kernel per stage), the autoschedulers' schedules (Li2018 for CUDA,
# Adams2019 for the CPU), one Halide runtime, and bench_halide,
# which needs no Halide to run (it opens libcuda when a CUDA pipeline runs).
# Usage: bench/parac/halide/build.sh [OUT_DIR]   (default build-halide)
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-build-halide}
mkdir -p "$out"
inc=/usr/include/halide14
[ -f $inc/Halide.h ] || { echo "build.sh: Halide 14 not found (apt-get install libhalide14-0-dev)"; exit 1; }
CXX=${CXX:-g++}
$CXX -std=c++17 -O1 -I$inc bench/parac/halide/generators.cpp /usr/src/halide14/GenGen.cpp -o "$out/gen" \
  -lHalide14 -ldl -lpthread
cpu=x86-64-linux-sse41-avx-f16c-fma-avx2
plugins=/usr/lib/x86_64-linux-gnu/halide14
for app in blur gaussian laplacian unsharp sharpening; do
  "$out/gen" -g parac_$app -f ${app}_cpu -o "$out" -e static_library,h target=$cpu-no_runtime gpu=false
  "$out/gen" -g parac_$app -f ${app}_cuda -o "$out" -e static_library,h \
    target=x86-64-linux-cuda-cuda_capability_86-no_runtime gpu=true fuse=true
  "$out/gen" -g parac_$app -f ${app}_cuda_root -o "$out" -e static_library,h \
    target=x86-64-linux-cuda-cuda_capability_86-no_runtime gpu=true fuse=false
  # the autoschedulers: Li2018 is the one of Halide 14's three that schedules
  # for GPUs (Mullapudi2016 and Adams2019 give CPU schedules there)
  "$out/gen" -g parac_$app -f ${app}_cuda_auto -o "$out" -e static_library,h,schedule \
    -p $plugins/libautoschedule_li2018.so -s Li2018 target=x86-64-linux-cuda-cuda_capability_86-no_runtime auto_schedule=true
  "$out/gen" -g parac_$app -f ${app}_cpu_auto -o "$out" -e static_library,h,schedule \
    -p $plugins/libautoschedule_adams2019.so -s Adams2019 target=$cpu-no_runtime auto_schedule=true
done
"$out/gen" -r halide_runtime -o "$out" -e static_library,h target=$cpu-cuda
for f in bench/common/bench_cpu.c bench/parac/peers/peers_check.c examples/{blur,gaussian,laplacian,sharpening,unsharp}_ref.c; do
  cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -c "$f" -Ibench/common -o "$out/$(basename "$f" .c).o"
done
$CXX -std=c++17 -O2 -I$inc -I"$out" -Ibench/common -Ibench/parac bench/parac/halide/bench_halide.cpp "$out"/*.o \
  "$out"/{blur,gaussian,laplacian,unsharp,sharpening}_{cpu,cuda,cuda_root,cuda_auto,cpu_auto}.a "$out/halide_runtime.a" -o "$out/bench_halide" -ldl -lpthread -lm
echo "built $out/bench_halide"
