#!/usr/bin/env bash
# From a clean clone: install what is missing, build, run every test
# (C unit tests, CLI and conformance tests; GPU tests run where a GPU is).
#
# The tests run with empty kernel caches (PoCL's, parac's, CUDA's), as on a
# machine that never ran them: a run must not depend on what an earlier run
# compiled. PARAC_TEST_CACHES=DIR keeps the caches in DIR instead, from one
# run to the next (warm). The ten slowest tests are printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
export PATH="$PWD/.venv/bin:$PATH"
if [ -n "${PARAC_TEST_CACHES:-}" ]; then
  caches=$PARAC_TEST_CACHES
else
  caches="$PWD/build/test-caches"
  rm -rf "$caches"
fi
mkdir -p "$caches/pocl" "$caches/parac" "$caches/cuda" "$caches/xdg"
export POCL_CACHE_DIR="$caches/pocl" PARAC_CACHE_DIR="$caches/parac" \
       CUDA_CACHE_PATH="$caches/cuda" XDG_CACHE_HOME="$caches/xdg"
cd build
set +e
ctest --output-on-failure -j"$(nproc 2>/dev/null || echo 2)" --timeout 1500 2>&1 | tee ctest.log
status=${PIPESTATUS[0]}
set -e
echo "the ten slowest tests:"
../scripts/slowest-tests.sh ctest.log 10
exit "$status"
