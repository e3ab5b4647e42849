#!/usr/bin/env bash
# The CTS suites on the GPU machine, from the packed copy only (nothing is
# built there): scripts/device-pack.sh --with-cts copies this file to
# .devpack/device-conformance.sh, beside the shim, the CTS binaries (cts/) and
# the conformance scripts (scripts/). There:
#   bash .devpack/device-conformance.sh [more scripts/conformance.sh options]
# Three columns on one platform (docs/conformance.md):
#   native   the CTS alone on device CTS_DEVICE of platform CTS_PLATFORM
#   default  LD_PRELOAD=libsplit.so, default settings
#   split    the shim over LIBSPLIT_DEVICES=CTS_SPLIT_DEVICES (default: every
#            device of the platform), uniform scheduler, partition-ready
#            programs built in clBuildProgram, LIBSPLIT_LOG=1
# Environment:
#   CTS_PLATFORM    the platform's index (default: the first platform whose
#                   name or vendor says NVIDIA, else 1; platforms.txt lists
#                   them all)
#   CTS_DEVICE=0  CTS_DEVICE_TYPE=all
#   CTS_SPLIT_DEVICES  default P:* (every device of platform P); where P has
#                   one device, * (every device of every platform: the GPU and
#                   PoCL's CPU), so that the split column still splits
#   CTS_SUITES=basic,api,buffers,compiler  CTS_MODES=native,default,split
#   CTS_TIMEOUT=60 (s per sub-test and mode)  CTS_TIME_BUDGET=420 (s for the
#   runs; the report comes after)  CTS_LIST=gpu (CTS_QUICK and CTS_GPU_EXTRA
#   of scripts/conformance_lib.py; quick: CTS_QUICK only)  CTS_FULL=1 (every
#   sub-test)
# Results under $OUT (default /tmp/libsplit-out), three files: report.txt
# (the table), run.log, results.tgz (meta.txt, platforms.txt, devices.txt,
# the per-column .tsv files, each sub-test's log cut to its first and last
# 32 KiB).
set -uo pipefail
pack=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/libsplit-out}
mkdir -p "$out"
: >"$out/run.log"
[ -x "$pack/cts/basic/test_basic" ] || {
  echo "device-conformance: no CTS in $pack/cts (pack with scripts/device-pack.sh --with-cts)" >&2
  exit 2
}

# The libsplit-cc cache starts cold on purpose (what a new user sees).
export LIBSPLIT_CACHE_DIR=${LIBSPLIT_CACHE_DIR:-$(mktemp -d /tmp/libsplit-cts-cache.XXXXXX)}
export LIBSPLIT_CONFORMANCE_COMMIT
LIBSPLIT_CONFORMANCE_COMMIT=$(cat "$pack/COMMIT" 2>/dev/null || echo unknown)
{
  echo "OCL_ICD_FILENAMES=${OCL_ICD_FILENAMES:-}"
  nvidia-smi -L 2>/dev/null
  "$pack/libsplit/libsplit-info" 2>&1 | head -60
} >"$out/devices.txt" 2>&1

python3 "$pack/scripts/conformance_lib.py" platforms >"$out/platforms.txt" 2>&1
platform=${CTS_PLATFORM:-$(awk -F'\t' 'toupper($2 $3) ~ /NVIDIA/ {print $1; exit}' "$out/platforms.txt")}
if [ -z "$platform" ]; then
  # No NVIDIA platform listed (or the listing failed): the GPU machine's
  # NVIDIA platform has been index 1, PoCL's 0.
  platform=1
  echo "device-conformance: no NVIDIA platform in platforms.txt: platform 1 (set CTS_PLATFORM)" |
    tee -a "$out/run.log" >&2
fi
ndev=$(awk -F'\t' -v p="$platform" '$1 == p {print $4}' "$out/platforms.txt")
split=${CTS_SPLIT_DEVICES:-}
if [ -z "$split" ]; then
  split="$platform:*"
  if [ "${ndev:-0}" -lt 2 ]; then
    split='*'
    echo "device-conformance: platform $platform has ${ndev:-no} device(s): the split column splits over every device of every platform" |
      tee -a "$out/run.log" >&2
  fi
fi

res=$(mktemp -d /tmp/libsplit-cts-results.XXXXXX)
args=(--cts-bin "$pack/cts" --shim "$pack/libsplit/libsplit.so" --out "$res"
  --suites "${CTS_SUITES:-basic,api,buffers,compiler}"
  --modes "${CTS_MODES:-native,default,split}"
  --platform "$platform" --device "${CTS_DEVICE:-0}"
  --device-type "${CTS_DEVICE_TYPE:-all}"
  --split-devices "$split"
  --timeout "${CTS_TIMEOUT:-60}" --time-budget "${CTS_TIME_BUDGET:-420}")
[ "${CTS_FULL:-0}" = 1 ] || args+=(--list "${CTS_LIST:-gpu}")
start=$SECONDS
bash "$pack/scripts/conformance.sh" "${args[@]}" "$@" >"$res/report.stdout" 2>>"$out/run.log"
rc=$?
echo "device-conformance: exit $rc after $((SECONDS - start)) s" >>"$out/run.log"

cp "$res"/report.txt "$out/" 2>/dev/null
[ -f "$out/report.txt" ] || cp "$res/report.stdout" "$out/report.txt" 2>/dev/null
# Everything else in one archive (the device tool brings back only a few
# files per call: on 2026-11-27 the .tsv files and the logs of a run with
# 15 files under $OUT were left behind). Logs cut to their head and tail.
if [ -d "$res/logs" ]; then
  find "$res/logs" -type f -size +64k | while IFS= read -r f; do
    { head -c 32768 "$f"; printf '\n[... %s bytes cut ...]\n' "$(($(stat -c %s "$f") - 65536))"
      tail -c 32768 "$f"; } >"$f.cut" && mv "$f.cut" "$f"
  done
fi
(cd "$out" && mv devices.txt platforms.txt "$res/" 2>/dev/null)
tar czf "$out/results.tgz" -C "$res" . 2>/dev/null
cat "$out/report.txt" 2>/dev/null
tail -3 "$out/run.log"
exit "$rc"
