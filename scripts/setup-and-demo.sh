#!/usr/bin/env bash
# From a clean clone: install what is missing, build, and run the demo on the
# best device; open parac-demo/index.html to see inputs, outputs and timings.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build/bin/parac demo --out parac-demo
echo "open parac-demo/index.html"
