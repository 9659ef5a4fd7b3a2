#!/usr/bin/env bash
# On a GPU machine: build with CUDA, run every test (GPU ones included), run
# the GPU tests under compute-sanitizer, and run the benchmarks. Results go to
# $OUT (default ./gpu-check-out). Optional: DEPS_DIR with .deb files to unpack
# (headers/libraries the machine lacks), SKIP_BENCH=1, SANITIZE_ONLY=1.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-check-out}
mkdir -p "$OUT"
if [ -n "${DEPS_DIR:-}" ]; then
  mkdir -p /opt/devdeps
  for f in "$DEPS_DIR"/*.deb; do dpkg -x "$f" /opt/devdeps; done
  export CMAKE_PREFIX_PATH=/opt/devdeps/usr LD_LIBRARY_PATH=/opt/devdeps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
build=build-gpu
cmake -S . -B $build -DPARAC_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" \
      -DCMAKE_BUILD_TYPE=Release > "$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
cmake --build $build -j"$(nproc)" > "$OUT/build.log" 2>&1 || { grep -E 'error' "$OUT/build.log" | head -30; exit 1; }
echo "build ok"
if [ -z "${SANITIZE_ONLY:-}" ]; then
  # The GPU's share: C tests labelled gpu and the conformance tests marked gpu
  # (everything else runs in CI on the CPU).
  (cd $build && ctest -L gpu --output-on-failure -j4 --timeout 1200 ${CTEST_ARGS:-}) > "$OUT/ctest.log" 2>&1
  echo "ctest rc=$?"; grep -E 'tests passed|Failed|\*\*\*|Skipped|Not Run' "$OUT/ctest.log" | tail -40
  PARAC_BIN=$PWD/$build/bin/parac python3 -m pytest -q -p no:cacheprovider -m gpu -n 8 tests/python \
      ${PYTEST_ARGS:-} > "$OUT/pytest-gpu.log" 2>&1
  echo "pytest -m gpu rc=$?"; tail -15 "$OUT/pytest-gpu.log"
fi
# compute-sanitizer on the GPU unit tests (without the >2^32-pixel case).
for t in $build/tests/test_*gpu*; do
  [ -x "$t" ] || continue
  for tool in memcheck racecheck initcheck synccheck; do
    PARAC_TEST_NO_LARGE=1 compute-sanitizer --tool $tool --error-exitcode 99 "$t" > "$OUT/sanitize-$(basename $t)-$tool.log" 2>&1
    echo "compute-sanitizer $tool $(basename $t): rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize-$(basename $t)-$tool.log" | tail -1)"
  done
done
# compute-sanitizer on every CUDA method of the filters, small images, odd sizes.
python3 -c "
import numpy as np
r = np.random.default_rng(1)
np.save('/tmp/gc_f32.npy', r.random((41, 67), dtype=np.float32))
np.save('/tmp/gc_u8c3.npy', r.integers(0, 256, (29, 53, 3)).astype(np.uint8))
np.save('/tmp/gc_vol.npy', r.random((5, 19, 23), dtype=np.float32))
np.save('/tmp/gc_big.npy', r.random((300, 517), dtype=np.float32))
np.save('/tmp/gc_bigu8.npy', r.integers(0, 256, (257, 389)).astype(np.uint8))
"
fails=0; runs=0
for m in separable texture direct fft recursive deriche2 yvv; do
  for c in "gc_f32 reflect101 12" "gc_u8c3 constant:3 1.5" "gc_vol wrap 1.5" "gc_big reflect 5" "gc_bigu8 replicate 3"; do
    set -- $c
    compute-sanitizer --tool memcheck --error-exitcode 9 $build/bin/parac gauss /tmp/$1.npy /tmp/gc_o.npy \
      --sigma $3 --method $m --border $2 --device cuda > "$OUT/cs-gauss.log" 2>&1 || { fails=$((fails+1)); echo "memcheck FAIL $m $c"; tail -5 "$OUT/cs-gauss.log"; }
    runs=$((runs+1))
  done
done
compute-sanitizer --tool memcheck --error-exitcode 9 $build/bin/parac convolve /tmp/gc_u8c3.npy /tmp/gc_o.npy \
  --kernel "1,2,1;2,4,2;1,2,1" --method fft --device cuda > "$OUT/cs-conv.log" 2>&1 || { fails=$((fails+1)); echo "memcheck FAIL convolve"; }
echo "compute-sanitizer memcheck on CLI filter runs: $((runs+1)) runs, $fails failures"
if [ -n "${OPENCL_CHECK:-}" ]; then
  # Generated OpenCL on NVIDIA's OpenCL platform (found even without an ICD file for it).
  (cd $build && PARAC_OPENCL_DEVICE=NVIDIA ctest -L opencl --output-on-failure -j4) > "$OUT/opencl-nvidia.log" 2>&1
  echo "opencl on NVIDIA rc=$?"; grep -E 'tests passed|Failed' "$OUT/opencl-nvidia.log" | tail -10
fi
if [ -z "${SKIP_BENCH:-}" ] && [ -z "${SANITIZE_ONLY:-}" ]; then
  bench/run_all.sh $build "$OUT/bench" > "$OUT/bench.log" 2>&1
  echo "bench rc=$?"; tail -40 "$OUT/bench.log"
fi
