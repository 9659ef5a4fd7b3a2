#!/usr/bin/env bash
# ParaC evaluation: the example programs compiled with every optimisation
# variant (bench_parac_VARIANT), kernel times on one OpenCL device, and the
# ablation table (bench/parac/ablation.py), then the C and CUDA targets,
# the hand-written CUDA peers and Halide 14 (when built).
# Usage: bench/parac/run_all.sh BUILD OUT_DIR [RUNS]; PARAC_OPENCL_DEVICE picks
# the device (default NVIDIA).
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-bench-out/parac}
runs=${3:-20}
mkdir -p "$out"
json="$out/parac.jsonl"
: > "$json"
: > "$out/parac.txt"
export PARAC_OPENCL_DEVICE=${PARAC_OPENCL_DEVICE:-NVIDIA}
export PARAC_CACHE_DIR=${PARAC_CACHE_DIR:-$out/cache}
for v in O0 O2 no_vectorize no_vector_loads no_merge_stores no_restrict no_fuse no_one_launch no_fuse_stencils w4 w8 r1 if_convert local_memory no_stage; do
  "$build/bin/bench_parac_$v" --runs "$runs" --json "$json" | tee -a "$out/parac.txt"
done
${PYTHON:-python3} bench/parac/ablation.py "$json" | tee "$out/ablation.txt"
# the C target (OpenMP) on the host's cores, wall clock per call
for v in c_O0 c_O2 c_no_fuse c_no_strips c_fuse_stencils c_no_if_convert; do
  [ -x "$build/bin/bench_parac_$v" ] && "$build/bin/bench_parac_$v" --runs "$runs" --json "$json" | tee -a "$out/c-target.txt"
done
# the CUDA target (NVRTC), kernel times by CUDA events, with fusion off too
for v in cuda_O0 cuda_O2 cuda_no_fuse cuda_no_one_launch cuda_no_fuse_stencils cuda_r1 cuda_r2 cuda_r8 cuda_no_if_convert cuda_local_memory cuda_no_fold cuda_no_merge cuda_no_stage; do
  [ -x "$build/bin/bench_parac_$v" ] && "$build/bin/bench_parac_$v" --runs "$runs" --json "$json" | tee -a "$out/cuda-target.txt"
done
# the hand-written CUDA peers, and Halide 14 when bench/parac/halide/build.sh has built it
[ -x "$build/bin/bench_parac_peers" ] && "$build/bin/bench_parac_peers" --runs "$runs" | tee "$out/peers.txt"
halide=${HALIDE_BUILD:-build-halide}
if [ -x "$halide/bench_halide" ]; then
  gbs=$(grep -o 'copy rate [0-9]*' "$out/peers.txt" 2>/dev/null | grep -o '[0-9]*$')
  "$halide/bench_halide" --runs "$runs" --copy-gbs "${gbs:-0}" | tee "$out/halide.txt"
fi
