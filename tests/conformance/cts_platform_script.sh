#!/usr/bin/env bash
# The GPU machine's conformance path without a CTS and without a GPU:
# scripts/conformance.sh --cts-bin --platform --time-budget over a stand-in
# CTS suite (a shell script answering --help as the CTS harness does, writing
# its results file, and printing the environment it got), in the modes
# native, default and split. Checks the environment of each mode (the CTS's
# CL_PLATFORM_INDEX / CL_DEVICE_INDEX / CL_DEVICE_TYPE, the shim's variables),
# a sub-test cut by the time budget ("cut", not "hang", and the suite's stop
# noted), and the report's columns.
#   cts_platform_script.sh   (no argument; needs python3 and coreutils)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
conformance=$here/../../scripts/conformance.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# A stand-in suite: its sub-tests are named in $NAMES, test_basic's slow_one
# sleeps $SLOW s.
for suite in basic buffers; do
  mkdir -p "$work/cts/$suite"
  cat >"$work/cts/$suite/test_$suite" <<'EOF'
#!/usr/bin/env bash
if [ "${1:-}" = --help ]; then
  printf 'Common options:\n  -h\nTest names:\n'
  for n in $NAMES; do printf '\t%s\n' "$n"; done
  exit 0
fi
echo "Compute Device Name = stand-in device, Compute Device Vendor = nobody"
env | grep -E '^(CL_PLATFORM_INDEX|CL_DEVICE_INDEX|CL_DEVICE_TYPE|LD_PRELOAD|LIBSPLIT_[A-Z_]+)=' | sort
[ "$1" = slow_one ] && [ "${0##*/}" = test_basic ] && sleep "$SLOW"
printf '{"results": {"%s": "pass"}}\n' "$1" >"$CL_CONFORMANCE_RESULTS_FILENAME"
EOF
  chmod +x "$work/cts/$suite/test_$suite"
done
: >"$work/shim.so" # never loaded for real: ld.so warns and goes on

start=$SECONDS
rc=0
NAMES="fast_one slow_one never_reached" SLOW=30 \
LIBSPLIT_DEVICES=inherited LIBSPLIT_CONFORMANCE_COMMIT=test bash "$conformance" \
  --cts-bin "$work/cts" --shim "$work/shim.so" --suites basic \
  --modes native,default,split --platform 3 --device 1 --device-type gpu --timeout 60 \
  --time-budget 6 --out "$work/out" >"$work/report" 2>"$work/run.log" || rc=$?
cat "$work/run.log" "$work/report"
[ "$rc" = 0 ] || fail "conformance.sh exited $rc"
[ $((SECONDS - start)) -lt 40 ] || fail "the time budget did not cut the slow sub-test"

logs=$work/out/logs/basic
has() { grep -qxF -- "$2" "$logs/$1" || fail "$1 lacks '$2'"; }
hasnt() { ! grep -qF -- "$2" "$logs/$1" || fail "$1 has '$2'"; }
for m in native default split; do
  has "$m/fast_one.log" CL_PLATFORM_INDEX=3
  has "$m/fast_one.log" CL_DEVICE_INDEX=1
  has "$m/fast_one.log" CL_DEVICE_TYPE=gpu
done
hasnt native/fast_one.log LD_PRELOAD=
hasnt native/fast_one.log LIBSPLIT_DEVICES=
has default/fast_one.log "LD_PRELOAD=$work/shim.so"
hasnt default/fast_one.log LIBSPLIT_DEVICES=
hasnt default/fast_one.log LIBSPLIT_SCHEDULER=
has split/fast_one.log "LD_PRELOAD=$work/shim.so"
has split/fast_one.log "LIBSPLIT_DEVICES=3:*"
has split/fast_one.log LIBSPLIT_SCHEDULER=uniform
has split/fast_one.log LIBSPLIT_SYNC_PREPARE=1
has split/fast_one.log LIBSPLIT_LOG=1

row() { grep -P "^$2\t" "$work/out/basic.$1.tsv" | cut -f2; }
for m in native default split; do
  [ "$(row "$m" fast_one)" = pass ] || fail "fast_one in $m: $(row "$m" fast_one)"
  [ "$(row "$m" slow_one)" = cut ] || fail "slow_one in $m: $(row "$m" slow_one), not cut"
  [ -z "$(row "$m" never_reached)" ] || fail "never_reached ran in $m"
done
[ "$(cat "$work/out/basic.cut")" = "$(printf '2\t3')" ] || fail "basic.cut: $(cat "$work/out/basic.cut")"
grep -qE '^sub-test +native +default +split$' "$work/report" || fail "report columns"
grep -q "the CTS's device: stand-in device" "$work/report" || fail "report device"
grep -qE '^basic +2 of 3 sub-tests run$' "$work/report" || fail "report: the budget's stop"
grep -q 'under the shim: 0$' "$work/report" || fail "report: a cut sub-test counted as a failure"

# Two suites, a 40 s budget: basic's slow sub-test (2 x 12 s) overruns its
# share (20 s), so basic stops there; buffers runs (in a few seconds); the
# time left lets basic go on to its end.
rc=0
NAMES="fast_one slow_one after_slow last_one" SLOW=12 bash "$conformance" \
  --cts-bin "$work/cts" --shim "$work/shim.so" --suites basic,buffers \
  --modes native,split --platform 0 --timeout 60 --time-budget 40 \
  --out "$work/out2" >"$work/report2" 2>"$work/run2.log" || rc=$?
cat "$work/run2.log"
[ "$rc" = 0 ] || fail "conformance.sh exited $rc (second run)"
grep -q 'time budget: basic stops after 2 of 4 sub-tests' "$work/run2.log" || fail "basic not stopped by its share"
grep -q 'time left: test_basic goes on from sub-test 3' "$work/run2.log" || fail "basic not resumed"
[ ! -e "$work/out2/basic.cut" ] || fail "basic still noted as stopped"
for m in native split; do
  [ "$(cut -f1,2 "$work/out2/basic.$m.tsv" | tr '\t\n' ': ')" = \
    "fast_one:pass slow_one:pass after_slow:pass last_one:pass " ] ||
    fail "basic.$m.tsv: $(cat "$work/out2/basic.$m.tsv")"
  [ "$(cut -f1 "$work/out2/buffers.$m.tsv" | tr '\n' ' ')" = \
    "fast_one slow_one after_slow last_one " ] || fail "buffers.$m.tsv: $(cat "$work/out2/buffers.$m.tsv")"
done
echo "PASS"
