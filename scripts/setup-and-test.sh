#!/usr/bin/env bash
# From a clean clone: install what is missing, build, run every test
# (C unit tests, CLI and conformance tests; GPU tests run where a GPU is).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
export PATH="$PWD/.venv/bin:$PATH"
cd build
ctest --output-on-failure -j"$(nproc 2>/dev/null || echo 2)" --timeout 1500
