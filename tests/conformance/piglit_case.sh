#!/usr/bin/env bash
# One piglit OpenCL test, natively and under the shim forced to split over two
# PoCL devices: when it passes natively it must pass under the shim.
# usage: piglit_case.sh SHIM "PIGLIT TEST NAME"
# Exit 0: both pass; 1: passes natively, not under the shim; 77 (skipped):
# piglit missing, or the test does not pass natively (nothing to compare).
set -uo pipefail
shim=$(realpath -e "$1") || { echo "FAIL: shim $1 not found"; exit 1; }
name=$2
piglit=${LIBSPLIT_PIGLIT_DIR:-/usr/lib/x86_64-linux-gnu/piglit}
lib=$(cd "$(dirname "$0")/../../scripts" && pwd)/conformance_lib.py
per_run=${LIBSPLIT_PIGLIT_TIMEOUT:-60}

if [ ! -x "$piglit/bin/cl-program-tester" ]; then
  echo "SKIP: piglit's OpenCL tests are not installed (apt-get install piglit; scripts/install-deps.sh does)"
  exit 77
fi
cmd=$(python3 "$lib" piglit-list "$piglit" 0 | awk -F'\t' -v n="$name" '$1 == n {print $2}')
[ -n "$cmd" ] || { echo "FAIL: no piglit OpenCL test named '$name' in $piglit/tests/cl.xml.gz"; exit 1; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
run() { # label env... -> result word (pass/fail/skip/warn/crash/hang)
  local label=$1; shift
  local rc=0
  # shellcheck disable=SC2086  # the command is a word list by design
  (cd "$piglit" && env -u LD_PRELOAD PATH="$piglit/bin:$PATH" "$@" \
     timeout -k 5 "$per_run" $cmd) >"$tmp/$label.log" 2>&1 || rc=$?
  local st; st=$(python3 "$lib" piglit-result "$tmp/$label.log")
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then st=hang; elif [ -z "$st" ]; then st=crash; fi
  echo "$st"
}

native=$(run native POCL_DEVICES="pthread basic")
if [ "$native" != pass ]; then
  echo "SKIP: '$name' does not pass natively ($native): nothing to compare"
  exit 77
fi
split=$(run split POCL_DEVICES="pthread basic" LD_PRELOAD="$shim" LIBSPLIT_LOG=1 \
  LIBSPLIT_SCHEDULER=uniform LIBSPLIT_SYNC_PREPARE=1 LIBSPLIT_CACHE_DIR="$tmp/cache")
splits=$(grep -c '^libsplit: launch .* split over' "$tmp/split.log" || true)
if grep -q "from LD_PRELOAD cannot be preloaded" "$tmp/split.log"; then
  echo "FAIL: the shim did not load:"; grep -m1 "LD_PRELOAD" "$tmp/split.log"; exit 1
fi
echo "$name: native $native, split $split ($splits launches split over 2 devices)"
if [ "$split" != pass ]; then
  echo "--- under the shim (last 40 lines):"; tail -40 "$tmp/split.log"
  exit 1
fi
