#!/usr/bin/env bash
# A program nobody here wrote, natively and under the shim on two PoCL
# devices: the default (the devices counted as separate hardware), a forced
# uniform split, LIBSPLIT_LOG=1 and LIBSPLIT_TRACE (both checking that no
# driver callback waits; the trace one measuring device clocks with markers),
# each with a cold libsplit cache, under a timeout. stdout must equal the
# native run's byte for byte; exit status 0 everywhere.
# usage: same_as_native.sh SHIM PROGRAM ARGS...   (exit 77: PROGRAM missing)
set -uo pipefail
. "$(dirname "$0")/../../scripts/shim_modes.sh"
shim=$(realpath -e "$1") || { echo "FAIL: shim $1 not found"; exit 1; }
shift
command -v "$1" >/dev/null 2>&1 || [ -x "$1" ] || { echo "SKIP: $1 is not installed"; exit 77; }
per_run=${LIBSPLIT_THIRDPARTY_TIMEOUT:-180}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export POCL_DEVICES="pthread basic"
timeout -k 5 "$per_run" "$@" > "$tmp/native.out" 2> "$tmp/native.err" || {
  echo "SKIP: fails natively (exit $?)"; tail -3 "$tmp/native.err"; exit 77; }
status=0
for mode in default split log trace; do
  env=(LD_PRELOAD="$shim" LIBSPLIT_CACHE_DIR="$tmp/cache-$mode" LIBSPLIT_HOST_DEVICES=all)
  mapfile -t -O ${#env[@]} env < <(shim_mode_env "$mode" "$tmp/trace.csv")
  rc=0
  env "${env[@]}" timeout -k 5 "$per_run" "$@" > "$tmp/$mode.out" 2> "$tmp/$mode.err" || rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL: $mode: exit $rc$([ $rc = 124 ] && echo ' (timeout: a hang)')"; tail -5 "$tmp/$mode.err"; status=1
  elif ! cmp -s "$tmp/native.out" "$tmp/$mode.out"; then
    echo "FAIL: $mode: output differs from native"; diff "$tmp/native.out" "$tmp/$mode.out" | head -10; status=1
  else
    echo "ok: $mode ($(grep -c 'split over' "$tmp/$mode.err" || true) split launches logged)"
  fi
done
exit $status
