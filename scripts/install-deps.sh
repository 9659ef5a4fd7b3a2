#!/usr/bin/env bash
# Installs what parac needs on Debian 12: the packages in
# scripts/debian-packages.txt (pinned where the archive still has the version)
# and a Python venv (.venv) with the reference libraries of the conformance
# tests (tests/python/requirements.txt). Safe to run again.
# --browser: also scripts/debian-packages-browser.txt (headless Chromium, for
# the test that opens the demo page in a real browser; CI uses it).
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

lists=(scripts/debian-packages.txt)
for arg in "$@"; do
  case "$arg" in
    --browser) lists+=(scripts/debian-packages-browser.txt) ;;
    *) echo "install-deps: unknown option '$arg'" >&2; exit 1 ;;
  esac
done
want=()
for list in "${lists[@]}"; do
  while read -r line; do
    case "$line" in ''|'#'*) continue ;; esac
    want+=("$line")
  done < "$list"
done

missing=()
for spec in "${want[@]}"; do
  pkg=${spec%%=*}
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$spec")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${#missing[@]} Debian package(s)"
  $SUDO apt-get update -qq
  export DEBIAN_FRONTEND=noninteractive
  if ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/parac-apt.log 2>&1; then
    echo "install-deps: pinned versions unavailable, installing the archive's versions"
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]%%=*}" >>/tmp/parac-apt.log 2>&1 \
      || { tail -20 /tmp/parac-apt.log; exit 1; }
  fi
fi

# CUDA: optional. nvcc is looked for on PATH and in /usr/local/cuda.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "install-deps: CUDA found in /usr/local/cuda (add /usr/local/cuda/bin to PATH to use it)"
fi

# Python reference libraries for the conformance tests.
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
if ! .venv/bin/python -c "import numpy, scipy, skimage, cv2, imageio, tifffile, nrrd, pytest, scikit_build_core, html5lib, dask.array" 2>/dev/null; then
  echo "install-deps: installing Python packages into .venv"
  .venv/bin/pip install -q --disable-pip-version-check -r tests/python/requirements.txt
fi
echo "install-deps: done"
