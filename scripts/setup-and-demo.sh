#!/usr/bin/env bash
# From a clean clone: install what is missing, build, and run the demo on the
# best device, then time the same operations with scipy, scikit-image and
# OpenCV (and CuPy / cuCIM on a GPU, where importable), check that their
# results agree, and add the comparison to the page. Open
# parac-demo/index.html to see inputs, outputs, timings and the comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build/bin/parac demo --out parac-demo
.venv/bin/python tools/demo_compare.py parac-demo
echo "open parac-demo/index.html"
