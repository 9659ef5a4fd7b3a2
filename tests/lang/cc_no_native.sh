#!/bin/sh
# A C compiler that refuses -march=native: parac run must compile the C
# target again without it.
for a in "$@"; do
  [ "$a" = -march=native ] && { echo "cc_no_native.sh: -march=native refused" >&2; exit 1; }
done
exec "${PARAC_REAL_CC:-cc}" "$@"
