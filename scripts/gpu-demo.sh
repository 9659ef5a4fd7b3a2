#!/usr/bin/env bash
# On a GPU machine: build parac with CUDA, run the demo on the GPU (also under
# compute-sanitizer's memcheck), compare it with scipy, scikit-image, OpenCV,
# CuPy and cuCIM (tools/demo_compare.py; cuCIM where importable: wheels in
# WHEELS_DIR are installed first), and pack the page as $OUT/demo-page.tgz.
# DEPS_DIR: .deb files to unpack.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-demo-out}
mkdir -p "$OUT"
GPU_TARGETS=${GPU_TARGETS:-"parac test_registry"}
source scripts/gpu-env.sh
echo "build ok"
if [ -n "${WHEELS_DIR:-}" ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    "$WHEELS_DIR"/*.whl && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
$b/tests/test_registry > "$OUT/test_registry.log" 2>&1; echo "test_registry rc=$? $(tail -1 "$OUT/test_registry.log")"
page=/tmp/parac-demo
rm -rf $page
$b/bin/parac --device cuda demo --out $page 2>&1 | tee "$OUT/demo.log"
echo "demo rc=${PIPESTATUS[0]}"
python3 tools/demo_compare.py $page 2>&1 | tee "$OUT/compare.log"
echo "compare rc=${PIPESTATUS[0]}"
compute-sanitizer --tool memcheck --leak-check full --error-exitcode 99 $b/bin/parac --device cuda demo \
  --out /tmp/parac-demo-memcheck > "$OUT/demo-memcheck.log" 2>&1
echo "memcheck of the demo on the GPU rc=$? $(grep 'ERROR SUMMARY' "$OUT/demo-memcheck.log" | tail -1)"
tar czf "$OUT/demo-page.tgz" -C /tmp parac-demo
