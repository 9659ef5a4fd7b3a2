#!/bin/sh
# Build the reader fuzzer with clang, generate the seed corpus and fuzz for
# SECONDS (default 300). Crashes land in ARTIFACTS (default build-fuzz/crashes).
# Usage: tests/fuzz/run_fuzz.sh [SECONDS] [BUILD_DIR]
set -eu
seconds=${1:-300}
build=${2:-build-fuzz}
root=$(cd "$(dirname "$0")/../.." && pwd)
cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DPARAC_CUDA=OFF -DPARAC_OPENCL=OFF -DPARAC_BUILD_BENCH=OFF -DPARAC_FUZZ=ON >/dev/null
cmake --build "$build" --target fuzz_read make_seeds -j2 >/dev/null
mkdir -p "$build/corpus" "$build/crashes"
ASAN_OPTIONS=detect_leaks=1 "$build/bin/make_seeds" "$build/corpus"
exec "$build/bin/fuzz_read" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=200000 -dict="$root/tests/fuzz/read.dict" -artifact_prefix="$build/crashes/" \
  "$build/corpus"
