#!/usr/bin/env bash
# Packs what a benchmark run needs on another machine of the same Debian
# release (the GPU machine has the LLVM/Clang 16 runtime libraries but no
# headers): the shim, its tools, libsplit-cc, the bench apps and the test apps
# (tests/apps/bin), stripped, in the build tree's own layout so the shim finds
# libsplit-cc (../passes/), and scripts/device-apps-check.sh as
# DEST/device-apps-check.sh (every app natively and under the shim, compared).
#   scripts/device-pack.sh [--with-cts DIR] [--with-remote DIR] [BUILD_DIR] [DEST]
#     (defaults: ./build, ./.devpack)
#   The benchmark scripts (bench_scaling.py, bench_vs_native.py, bench_common.py,
#   timestamp_run.py, host_times.py, ab_settings.py, opening_bound.py) go to DEST/scripts/.
#   --with-cts DIR  also the CTS suites test_basic, test_api, test_buffers and
#                   test_compiler of a CTS build (DIR: its build folder or its
#                   test_conformance/ folder; "auto": the newest one that
#                   scripts/conformance.sh built in its cache), stripped, into
#                   DEST/cts/<suite>/ with the files they read at run time, and
#                   the conformance scripts: on the GPU machine
#                   `bash .devpack/device-conformance.sh` runs them
#                   (scripts/device-conformance.sh, docs/conformance.md).
#   --with-remote DIR  also a PoCL-Remote install (bin/pocld, lib/libpocl.so:
#                   scripts/build-pocl-remote.sh; "auto": its default cache)
#                   into DEST/pocl-remote/ (PoCL is built relocatable) and
#                   scripts/bench_remote.py: issue 26's table there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cts=
remote=
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --with-cts) cts=$2; shift 2 ;;
    --with-remote) remote=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
build=${args[0]:-$root/build}
dest=${args[1]:-$root/.devpack}

if [ "$cts" = auto ]; then
  cache=${LIBSPLIT_CONFORMANCE_DIR:-$HOME/.cache/libsplit-conformance}
  cts=$(ls -td "$cache"/cts-*/build 2>/dev/null | head -1 || true)
  [ -n "$cts" ] || { echo "device-pack: no CTS build in $cache (scripts/conformance.sh --build-only)" >&2; exit 2; }
fi
if [ -n "$cts" ]; then
  [ -d "$cts/test_conformance" ] && cts=$cts/test_conformance
  [ -x "$cts/basic/test_basic" ] ||
    { echo "device-pack: $cts has no basic/test_basic: not a CTS build" >&2; exit 2; }
fi

if [ "$remote" = auto ]; then
  remote=$(bash "$root/scripts/build-pocl-remote.sh" --print)
fi
if [ -n "$remote" ] && [ ! -x "$remote/bin/pocld" ]; then
  echo "device-pack: $remote has no bin/pocld: not a PoCL-Remote install (scripts/build-pocl-remote.sh)" >&2
  exit 2
fi

rm -rf "$dest"
mkdir -p "$dest/libsplit" "$dest/passes" "$dest/bench/bin"
install -s "$build/libsplit/libsplit.so" "$build/libsplit/libsplit-run" \
           "$build/libsplit/libsplit-info" "$build/libsplit/libsplit-build" "$dest/libsplit/"
mkdir -p "$dest/tests"
install -s "$build/tests/runtime/rt_app" "$dest/tests/"
mkdir -p "$dest/tests/apps"
install -s "$build"/tests/apps/bin/* "$dest/tests/apps/"
cp "$root/scripts/device-apps-check.sh" "$dest/device-apps-check.sh"
install -s "$build/passes/libsplit-cc" "$dest/passes/"
install -s "$build"/bench/bin/* "$dest/bench/bin/"
git -C "$root" rev-parse --short HEAD >"$dest/COMMIT" 2>/dev/null || echo unknown >"$dest/COMMIT"
mkdir -p "$dest/scripts"
cp "$root"/scripts/{bench_scaling.py,bench_vs_native.py,bench_common.py,timestamp_run.py,host_times.py,ab_settings.py,opening_bound.py} "$dest/scripts/"
if [ -n "$remote" ]; then
  mkdir -p "$dest/pocl-remote"
  cp -a "$remote" "$dest/pocl-remote/install"
  cp "$root/scripts/bench_remote.py" "$dest/scripts/"
fi

if [ -n "$cts" ]; then
  for s in basic api buffers compiler; do
    src=$cts/$s
    if [ ! -x "$src/test_$s" ]; then
      echo "device-pack: test_$s not built in $cts: left out" >&2
      continue
    fi
    mkdir -p "$dest/cts/$s"
    install -s "$src/test_$s" "$dest/cts/$s/"
    # What a suite reads at run time, relative to its folder (test_compiler:
    # include folders and assembled SPIR-V); not the build's own files.
    for d in "$src"/*/; do
      [ -d "$d" ] || continue
      d=${d%/}
      case ${d##*/} in CMakeFiles) continue ;; esac
      cp -a "$d" "$dest/cts/$s/"
    done
  done
  # The CTS commit: the cache folder is named cts-<commit>.
  id=$(basename "$(dirname "$(dirname "$(realpath "$cts")")")")
  echo "${id#cts-}" >"$dest/cts/CTS_COMMIT"
  mkdir -p "$dest/scripts"
  cp "$root/scripts/conformance.sh" "$root/scripts/conformance_lib.py" "$dest/scripts/"
  cp "$root/scripts/device-conformance.sh" "$dest/device-conformance.sh"
  du -sh "$dest/cts"
fi
du -sh "$dest"
