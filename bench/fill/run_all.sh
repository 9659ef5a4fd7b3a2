#!/usr/bin/env bash
# Region-filling benchmarks: parac's methods (bench_fill) and the peers
# (peers.py) on the same inputs, in the same run.
# Usage: bench/fill/run_all.sh BUILD OUT_DIR [quick]
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-bench-out/fill}
mkdir -p "$out" "$out/inputs"
json="$out/fill.jsonl"
: > "$json"
PY=${PYTHON:-python3}
B="$build/bin/bench_fill"
sizes=640x480,1280x720,1920x1080,2560x1440,3840x2160,7680x4320
[ "${3:-}" = quick ] && sizes=640x480,7680x4320
gpu=0
"$build/bin/parac" devices --cuda-count 2>/dev/null | grep -qv '^0$' && gpu=1
methods=cpu:serial,cpu:seeds,cpu:ccl
[ $gpu = 1 ] && methods=$methods,cuda:ccl,cuda:seeds,cuda:hybrid,cuda:ccl+io
echo "-- the paper's six resolutions (4-connected contours)"
$B --sizes $sizes --cases contours --methods $methods --save "$out/inputs" --json "$json" | tee "$out/parac.txt"
echo "-- adversarial inputs at 8K: one spiral corridor, 40% noise"
$B --sizes 7680x4320 --cases spiral,noise --methods $methods --runs 5 --save "$out/inputs" --json "$json" | tee -a "$out/parac.txt"
if [ $gpu = 1 ]; then
  echo "-- batches of 8K images from pinned host memory, end to end (no disk)"
  for w in 1 2 4 8; do
    $B --sizes 7680x4320 --batch 200 --workers $w --methods cuda:ccl --json "$json" | grep batch | tee -a "$out/batch.txt"
  done
  echo "-- the paper's pipeline over 100 images (CPU fill + GPU invert), and the all-GPU stream beside it"
  for s in 1920x1080 3840x2160 7680x4320; do
    for w in 1 2; do
      $B --sizes $s --batch 100 --workers $w --methods cuda:hybrid,cuda:ccl --json "$json" | grep batch | tee -a "$out/batch.txt"
    done
  done
fi
echo "-- peers"
peers=cv2,scipy,skimage
[ $gpu = 1 ] && peers=$peers,cupyx
$PY bench/fill/peers.py --dir "$out/inputs" --peers $peers --json "$json" | tee "$out/peers.txt"
exit 0
