#!/usr/bin/env bash
# Prints the N slowest tests (default 10) of a CTest log, slowest first, with
# their times and the total, so that growth of the suite shows before it
# reaches CTest's limit. Usage: scripts/slowest-tests.sh CTEST_LOG [N]
set -eu
log=${1:?usage: scripts/slowest-tests.sh CTEST_LOG [N]}
n=${2:-10}
# CTest's result lines: "  12/256 Test  #34: py_test_gauss ....   Passed   41.20 sec".
# sed reads the whole sorted list (head would close the pipe early).
awk '/Test +#[0-9]+: / && / sec$/ {
       name = $0; sub(/.*Test +#[0-9]+: /, "", name); sub(/ .*/, "", name)
       printf "%10.1f s  %s\n", $(NF - 1), name }' "$log" | sort -rn | sed -n "1,${n}p"
awk '/Total Test time \(real\)/ { print "    total: " $(NF - 1) " s wall" }' "$log"
