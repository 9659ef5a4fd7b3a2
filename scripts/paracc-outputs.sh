#!/usr/bin/env bash
# Writes what paracc makes of every ParaC program in the tree (examples, tests,
# the fuzz corpus) for every target and -O level into OUTDIR, with its exit
# status and messages. Run it before and after a change to the compiler and
# diff the two folders: a refactoring must leave them identical.
# usage: scripts/paracc-outputs.sh OUTDIR [PARACC]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/paracc-outputs.sh OUTDIR [PARACC]}
paracc=${2:-build/bin/paracc}
mkdir -p "$out"
variants=("-O0" "-O1" "-O2" "-O2 -fno-fuse" "-O2 -flocal-memory" "-O2 -fif-convert"
          "-O2 -ffuse-stencils" "-O2 --vector-width 4" "-O2 --rows-per-item 4"
          "-O2 -fno-search-variants" "-O2 -fno-strips")
n=0
for pc in examples/*.pc tests/lang/*.pc tests/lang/errors/*.pc tests/lang/fuzz_corpus/*.pc; do
  name=$(echo "${pc%.pc}" | tr '/' '_')
  for target in c opencl cuda; do
    i=0
    for v in "${variants[@]}"; do
      base="$out/$name.$target.$i"
      # shellcheck disable=SC2086
      "$paracc" "$pc" --target "$target" $v -o "$base" >"$base.log" 2>&1
      echo "exit $?" >>"$base.log"
      # the explain text too: it is the model's decisions in words
      # shellcheck disable=SC2086
      "$paracc" "$pc" --target "$target" $v --explain -o "$out/tmp" >"$base.explain" 2>&1
      rm -f "$out"/tmp.*
      i=$((i + 1)); n=$((n + 1))
    done
  done
done
echo "$n compilations in $out"
