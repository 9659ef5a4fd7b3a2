#!/usr/bin/env bash
# Configures and builds parac in ./build (CUDA when nvcc is found).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ${PARAC_CMAKE_ARGS:-} >/dev/null
cmake --build build -j"$jobs"
