#!/usr/bin/env bash
# The runtime tests' single-device program (tests/runtime/apps/rt_app.cpp)
# natively and under the shim on whatever devices this machine has (the GPU
# node: NVIDIA + PoCL), scenario by scenario, stdout compared byte for byte.
# Columns: the default; a forced uniform split (LIBSPLIT_DEVICES as given);
# the default with LIBSPLIT_LOG=1 and with LIBSPLIT_TRACE, both checking that
# no driver callback waits (LIBSPLIT_INJECT_FAULTS=check_callbacks, the trace
# column with device clocks measured by markers). Every cell: "same", "DIFF"
# or the exit status (124: the 60 s timeout, a hang).
#   scripts/rt_app_vs_native.sh [PACK_DIR] [PLATFORM_INDEX] [SPLIT_DEVICES] [DIFF_DIR]
#   (defaults: .devpack, 0 = the loader's first platform, all devices; every
#   difference and failure is kept in DIFF_DIR when given)
set -uo pipefail
. "$(dirname "$0")/shim_modes.sh"
pack=${1:-.devpack}
export RT_APP_PLATFORM=${2:-0}
split_devices=${3:-}
keep=${4:-}
[ -n "$keep" ] && mkdir -p "$keep"
app=$pack/tests/rt_app
shim=$(cd "$pack/libsplit" && pwd)/libsplit.so
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scenarios="vecadd twod iterative rw merge output groups events errors noevent racy usehost biggroups localsize async"
run() {  # run COLUMN SCENARIO ENV... -> cell
  local column=$1 scenario=$2; shift 2
  env "$@" timeout 60 "$app" "$scenario" > "$work/out" 2> "$work/err"
  local rc=$?
  if [ $rc -ne 0 ]; then
    echo "exit $rc"; cp "$work/err" "$work/last-failure.txt"
    [ -n "$keep" ] && cp "$work/err" "$keep/$scenario-$column.err"
  elif cmp -s "$work/out" "$work/native"; then echo same
  else
    echo DIFF; diff "$work/native" "$work/out" | head -5 > "$work/last-diff.txt"
    [ -n "$keep" ] && diff "$work/native" "$work/out" > "$keep/$scenario-$column.diff"
  fi
}
echo "| scenario | default | forced split | LOG=1 | TRACE |"
echo "|---|---|---|---|---|"
for s in $scenarios; do
  if ! timeout 60 "$app" "$s" > "$work/native" 2> /dev/null; then
    echo "| $s | native fails | | | |"
    continue
  fi
  row="| $s"
  for mode in default split log trace; do
    env=(LD_PRELOAD="$shim" LIBSPLIT_CACHE_DIR="$work/cache")
    mapfile -t -O ${#env[@]} env < <(shim_mode_env "$mode" "$work/trace.csv")
    [ "$mode" = split ] && env+=(LIBSPLIT_HOST_DEVICES=all ${split_devices:+LIBSPLIT_DEVICES=$split_devices})
    row+=" | $(run "$mode" "$s" "${env[@]}")"
  done
  echo "$row |"
done
[ -f "$work/last-diff.txt" ] && { echo "last difference:"; cat "$work/last-diff.txt"; }
[ -f "$work/last-failure.txt" ] && { echo "last failure:"; tail -5 "$work/last-failure.txt"; }
exit 0
