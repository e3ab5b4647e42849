#!/usr/bin/env bash
# clpeak (Debian's) natively and under the shim with LIBSPLIT_LOG=1 and with
# LIBSPLIT_TRACE: it keeps no event of its launches on a profiling queue, the
# pattern with which a log or trace turned on once hung it. Its figures are
# timings, so what must match is the report's structure (every line with its
# numbers blanked) and the exit status, within the timeout.
# usage: clpeak_case.sh SHIM   (exit 77: clpeak not installed)
set -uo pipefail
. "$(dirname "$0")/../../scripts/shim_modes.sh"
shim=$(realpath -e "$1") || { echo "FAIL: shim $1 not found"; exit 1; }
command -v clpeak >/dev/null || { echo "SKIP: clpeak is not installed (scripts/install-deps.sh installs it)"; exit 77; }
per_run=${LIBSPLIT_THIRDPARTY_TIMEOUT:-180}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export POCL_DEVICES="pthread basic"
tests=(-p 0 -d 0 --kernel-latency --compute-sp)
shape() { sed -E 's/[0-9]+(\.[0-9]+)?/N/g' "$1"; }
timeout -k 5 "$per_run" clpeak "${tests[@]}" > "$tmp/native.out" 2>&1 || { echo "SKIP: clpeak fails natively"; exit 77; }
status=0
for mode in log trace; do
  env=(LD_PRELOAD="$shim" LIBSPLIT_CACHE_DIR="$tmp/cache" LIBSPLIT_HOST_DEVICES=all)
  mapfile -t -O ${#env[@]} env < <(shim_mode_env "$mode" "$tmp/trace.csv")
  rc=0
  env "${env[@]}" timeout -k 5 "$per_run" clpeak "${tests[@]}" > "$tmp/$mode.out" 2> "$tmp/$mode.err" || rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL: $mode: exit $rc$([ $rc = 124 ] && echo ' (timeout: a hang)')"; tail -5 "$tmp/$mode.err"; status=1
  elif ! diff <(shape "$tmp/native.out") <(shape "$tmp/$mode.out") > "$tmp/diff"; then
    echo "FAIL: $mode: report differs from native"; head -10 "$tmp/diff"; status=1
  else
    echo "ok: $mode ($(grep -c '^libsplit: launch' "$tmp/$mode.err" || true) launches logged)"
  fi
done
exit $status
