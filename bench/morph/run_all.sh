#!/usr/bin/env bash
# Reconstruction benchmarks: parac's methods (bench_morph) and the peers
# (peers.py) in the same run. Usage: bench/morph/run_all.sh BUILD OUT_DIR [quick]
# BIG=1 adds the 51200² and 102400² u8 runs of the GPU method (GPU only), and on
# a machine with several GPUs the same split over all of them against one GPU,
# both by wall clock (bench/morph/results/two-gpus-split-*.txt).
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-bench-out/morph}
mkdir -p "$out"
json="$out/morph.jsonl"
: > "$json"
PY=${PYTHON:-python3}
B="$build/bin/bench_morph"
if [ "${3:-}" = quick ]; then sides=1024; else sides=${SIDES:-1024,4096}; fi
gpu=0
"$build/bin/parac" devices --cuda-count 2>/dev/null | grep -qv '^0$' && gpu=1
methods=cpu:hybrid,cpu:downhill,cpu:parallel,peer:leptonica
wide=cpu:hybrid,cpu:parallel                # downhill: slow beyond u8, measured on u8
[ $gpu = 1 ] && methods=$methods,cuda:wavefront && wide=$wide,cuda:wavefront
echo "-- parac (data resident where the method runs)"
$B --sides $sides --dtypes u8 --methods $methods --json "$json" | tee "$out/parac.txt"
$B --sides 4096 --dtypes u16,f32 --cases hmax10,hmax40 --methods $wide --json "$json" | tee -a "$out/parac.txt"
if [ $gpu = 1 ]; then
  echo "-- the paper's heap cluster (pathological paths: one pixel per iteration, left out at 4096²)"
  $B --sides 1024 --cases hmax10,hmax40,fill,seed --methods cuda:heap --json "$json" | tee "$out/heap.txt"
  $B --sides 4096 --cases hmax10,hmax40,fill --dtypes u8,f32 --methods cuda:heap --json "$json" | tee -a "$out/heap.txt"
  echo "-- heap: node size r, heap count K, pipelined or serial updates (4096² u8, h = 10)"
  hm=""
  for u in pipelined serial; do for r in 32 64 128 256; do for k in 132 528 1056 4224; do
    hm=$hm${hm:+,}cuda:heap:$r:$k:$u; done; done; done
  $B --sides 4096 --cases hmax10 --methods $hm --runs 3 --json "$json" | tee "$out/heap_sweep.txt"
  echo "-- volumes (26-connected)"
  $B --sides 256,512 --cases vol10 --methods cpu:hybrid,cpu:parallel,cuda:wavefront,cuda:heap --runs 3 --json "$json" | tee "$out/vol.txt"
  echo "-- strips: a memory cap forcing 8192² into strips from host memory, split over two workers on one GPU, whole"
  PARAC_CUDA_MEMORY_CAP=40M $B --sides 8192 --cases hmax10,hmax40 --methods cuda:wavefront --runs 3 --json "$json" | tee "$out/strips.txt"
  PARAC_CUDA_SPLIT=always $B --sides 8192 --cases hmax10,hmax40 --methods cuda:wavefront --runs 3 --cuda cuda:0,cuda:0 --json "$json" | tee -a "$out/strips.txt"
  $B --sides 8192 --cases hmax10,hmax40 --methods cuda:wavefront --runs 3 --json "$json" | tee -a "$out/strips.txt"
  if [ -n "${BIG:-}" ]; then
    echo "-- gigapixel images, one GPU"
    $B --sides 51200 --cases hmax10,hmax40 --methods cuda:wavefront --runs 3 --json "$json" | tee "$out/big.txt"
    $B --sides 102400 --cases hmax10 --methods cuda:wavefront --runs 1 --json "$json" | tee -a "$out/big.txt"
    ngpu=$("$build/bin/parac" devices --cuda-count 2>/dev/null || echo 0)
    if [ "$ngpu" -gt 1 ]; then
      echo "-- split over all $ngpu GPUs against one GPU (wall clock for both)"
      for s in 8192 16384 51200 102400; do
        $B --sides $s --cases hmax10,hmax40 --methods cuda:wavefront --runs 5 --cuda cuda:all --json "$json" | tee -a "$out/split.txt"
        $B --sides $s --cases hmax10,hmax40 --methods cuda:wavefront --runs 5 --wall 1 | tee -a "$out/split.txt"
      done
    fi
  fi
fi
echo "-- peers"
$PY bench/morph/peers.py --sides 1024 --max-seconds 10 --json "$json" | tee "$out/peers.txt"
[ $gpu = 1 ] && $PY bench/morph/peers.py --sides 4096 --peers cucim --max-seconds 10 --json "$json" | tee -a "$out/peers.txt"
exit 0
