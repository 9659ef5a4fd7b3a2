#!/usr/bin/env bash
# ctest under the sanitizers, with one retry for exactly one known fault of
# the tool, not of parac: LeakSanitizer's stop-the-world tracer sometimes
# crashes at process exit ("Tracer caught signal 11 ... LeakSanitizer has
# encountered a fatal error", google/sanitizers#1353) after the test itself
# passed. The tests whose every failure is that crash run once more; a leak
# report, a sanitizer error or a failed check fails at once, and so does a
# second tracer crash. Arguments: ctest's (run in the current directory).
set -uo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
ctest "$@" 2>&1 | tee "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] && exit 0
# the failed tests, and those whose output holds the tracer's crash
other=$(awk '
  /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: / { cur = ""; if ($0 !~ / Passed |\*\*\*Skipped/) { cur = $4; failed[cur] = 1 } next }
  /^ +Start +[0-9]+: / { cur = ""; next }
  cur != "" && /LeakSanitizer has encountered a fatal error/ { tracer[cur] = 1 }
  cur != "" && /ERROR: (LeakSanitizer|AddressSanitizer)|runtime error:/ { real[cur] = 1 }
  END { for (t in failed) if (!tracer[t] || real[t]) print t }' "$log")
if [ -n "$other" ] || ! grep -q 'LeakSanitizer has encountered a fatal error' "$log"; then
  exit 1
fi
echo "== LeakSanitizer's tracer crashed at exit (not a leak): those tests once more"
ctest --rerun-failed "$@"
