#!/usr/bin/env bash
# The Python package's benchmarks. Usage: bench/python/run_all.sh BUILD [OUT_DIR]
# (BUILD/python holds the package a CMake build makes).
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-bench-out/python}
mkdir -p "$out"
PY=${PYTHON:-python3}
PYTHONPATH="$build/python" $PY bench/python/overhead.py --device cpu | tee "$out/overhead-cpu.txt"
if "$build/bin/parac" devices --cuda-count 2>/dev/null | grep -qv '^0$'; then
  PYTHONPATH="$build/python" $PY bench/python/overhead.py --device cuda | tee "$out/overhead-cuda.txt"
  PYTHONPATH="$build/python" $PY bench/python/gpu.py | tee "$out/gpu.txt"
fi
