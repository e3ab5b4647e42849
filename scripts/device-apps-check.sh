#!/usr/bin/env bash
# Every test app and bench app natively and under the shim on the GPU machine,
# compared (issue 27: what conformance proved on PoCL, checked on NVIDIA's
# limits). scripts/device-pack.sh copies this file to .devpack/; there:
#   bash .devpack/device-apps-check.sh [SIZES]      (default small,medium,large)
# Only one platform is visible ($APPS_ICD, default libnvidia-opencl.so.1, the
# only .icd of a vendors folder named by OCL_ICD_VENDORS, OCL_ICD_FILENAMES
# unset, ocl-icd's loader first in LD_LIBRARY_PATH: the Khronos loader CUDA
# ships ignores OCL_ICD_VENDORS and loads OCL_ICD_FILENAMES in addition to
# /etc/OpenCL/vendors), so that an app's first device is that platform's first
# GPU and the shim splits over the platform's devices. Three modes:
#   native   no shim
#   default  LD_PRELOAD=libsplit.so, default settings
#   split    the shim with LIBSPLIT_WHOLE=0 LIBSPLIT_SYNC_PREPARE=1 (every
#            launch that can be split is, from the first one), LIBSPLIT_LOG=1
#            (the table shows how many launches split)
# Test apps (tests/apps/bin): exit status and result bytes of each shim mode
# against native; native runs twice, and an app whose two native runs differ
# is reported as nondeterministic, not compared. Bench apps: the app's own
# CPU check must print PASS in every mode, at every size, --iters $APPS_ITERS.
# Environment: APPS_JOBS=8 (runs at once), APPS_TIMEOUT=120 (s per run),
# APPS_ITERS=2, APPS_ONLY (a regex of app names).
# Output under $OUT (default /tmp/libsplit-out): apps-check.txt (one line per
# app and size, then the summary) and apps-check-logs.tgz; exit 1 when any
# shim run differs from native or fails its check.
set -uo pipefail
pack=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/libsplit-out}
sizes=${1:-small,medium,large}
jobs=${APPS_JOBS:-8}
export APPS_TIMEOUT=${APPS_TIMEOUT:-120} APPS_ITERS=${APPS_ITERS:-2}
work=$(mktemp -d /tmp/libsplit-apps.XXXXXX)
mkdir -p "$out" "$work/res"
apps_icd=${APPS_ICD:-libnvidia-opencl.so.1}
unset OCL_ICD_FILENAMES
mkdir -p "$work/vendors"
echo "$apps_icd" >"$work/vendors/apps.icd"
export OCL_ICD_VENDORS=$work/vendors
for d in /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu; do
  [ -e "$d/libOpenCL.so.1" ] && { export LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; break; }
done
export LIBSPLIT_CACHE_DIR=$work/cache SHIM=$pack/libsplit/libsplit.so RES=$work/res PACK=$pack

# One run: KIND (test|bench) APP SIZE MODE; leaves RES/<name>.{out,log,rc}.
run_one() {
  local kind=$1 app=$2 size=$3 mode=$4 name="$1.$2.$3.$4"
  local env=()
  case $mode in
    native*) ;;
    default) env=(LD_PRELOAD="$SHIM") ;;
    split) env=(LD_PRELOAD="$SHIM" LIBSPLIT_WHOLE=0 LIBSPLIT_SYNC_PREPARE=1 LIBSPLIT_LOG=1) ;;
  esac
  local cmd
  if [ "$kind" = test ]; then
    cmd=("$PACK/tests/apps/$app" "$RES/$name.out")
  else
    cmd=("$PACK/bench/bin/$app" --size "$size" --iters "$APPS_ITERS" --device 0)
  fi
  env "${env[@]}" APP_BINARY_FILE="$RES/$name.bin" timeout "$APPS_TIMEOUT" "${cmd[@]}" \
    >"$RES/$name.log" 2>&1
  echo $? >"$RES/$name.rc"
}
export -f run_one

only=${APPS_ONLY:-.}
{
  for a in "$pack"/tests/apps/*; do
    [[ $(basename "$a") =~ $only ]] || continue
    for m in native native2 default split; do echo "test $(basename "$a") - $m"; done
  done
  for s in ${sizes//,/ }; do
    for a in "$pack"/bench/bin/*; do
      n=$(basename "$a")
      # The tools are not apps (no --size).
      "$a" --help 2>&1 | grep -q -- '--size' || continue
      [[ $n =~ $only ]] || continue
      for m in native default split; do echo "bench $n $s $m"; done
    done
  done
} >"$work/jobs"
total=$(wc -l <"$work/jobs")
echo "device-apps-check: $total runs, $jobs at once, platform $apps_icd" >&2
start=$SECONDS
xargs -P "$jobs" -L 1 bash -c 'run_one "$@"' _ <"$work/jobs" &
xargs_pid=$!
while kill -0 $xargs_pid 2>/dev/null; do
  sleep 30
  echo "device-apps-check: $(ls "$work/res" | grep -c '\.rc$') of $total runs after $((SECONDS - start)) s" >&2
done
wait $xargs_pid

bad=0
rc_of() { cat "$work/res/$1.rc" 2>/dev/null || echo none; }
splits_of() { grep -c '^libsplit: launch .* split over' "$work/res/$1.log" 2>/dev/null || true; }
{
  echo "# $(date -u +%FT%RZ) libsplit $(cat "$pack/COMMIT" 2>/dev/null) platform $apps_icd, sizes $sizes, --iters $APPS_ITERS"
  echo "# test apps: result bytes of default / split against native (same: identical bytes and exit status)"
  for a in "$pack"/tests/apps/*; do
    n=$(basename "$a")
    [[ $n =~ $only ]] || continue
    base="test.$n.-"
    line="$n native rc=$(rc_of "$base.native")"
    if ! cmp -s "$work/res/$base.native.out" "$work/res/$base.native2.out" ||
       [ "$(rc_of "$base.native")" != "$(rc_of "$base.native2")" ]; then
      echo "$line  nondeterministic natively (two native runs differ): not compared"
      continue
    fi
    for m in default split; do
      if [ "$(rc_of "$base.$m")" = "$(rc_of "$base.native")" ] &&
         cmp -s "$work/res/$base.native.out" "$work/res/$base.$m.out"; then
        line+="  $m same"
        [ $m = split ] && line+=" ($(splits_of "$base.split") launches split)"
      else
        line+="  $m DIFFERS (rc=$(rc_of "$base.$m"))"
        bad=$((bad + 1))
      fi
    done
    echo "$line"
  done
  echo "# bench apps: the app's own check in each mode (PASS / FAIL / rc)"
  for s in ${sizes//,/ }; do
    for a in "$pack"/bench/bin/*; do
      n=$(basename "$a")
      [ -f "$work/res/bench.$n.$s.native.rc" ] || continue
      line="$n $s"
      for m in native default split; do
        f="$work/res/bench.$n.$s.$m"
        if grep -q '^PASS' "$f.log" 2>/dev/null && [ "$(rc_of "bench.$n.$s.$m")" = 0 ]; then
          line+="  $m PASS"
          [ $m = split ] && line+=" ($(splits_of "bench.$n.$s.split") launches split)"
        else
          line+="  $m FAIL(rc=$(rc_of "bench.$n.$s.$m"))"
          [ "$m" = native ] || bad=$((bad + 1))
        fi
      done
      echo "$line"
    done
  done
  echo "# $bad shim runs differ from native or fail their check; $total runs in $((SECONDS - start)) s"
} >"$out/apps-check.txt"
(cd "$work/res" && tar czf "$out/apps-check-logs.tgz" --exclude='*.bin' .)
tail -1 "$out/apps-check.txt"
[ "$bad" = 0 ]
