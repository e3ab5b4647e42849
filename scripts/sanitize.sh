#!/usr/bin/env bash
# Builds libsplit with a sanitizer into a folder of its own and runs the test
# suite under it: libsplit.so, its tools, libsplit-cc and every test program
# are instrumented; PoCL, the ICD loader and LLVM are Debian's, not
# instrumented (their reports are suppressed by scripts/sanitizers/*.supp,
# each entry saying why; libsplit's never are).
#
#   scripts/sanitize.sh address [ctest arguments]   # ASan + UBSan (+ LSan), ./build-asan
#   scripts/sanitize.sh thread  [ctest arguments]   # TSan, ./build-tsan
#
# Every report of every process (the tests, the apps they run with and
# without the shim, libsplit-cc and libsplit-build children) is written to
# <build>/sanitizer-reports/<tool>.<pid>; the script prints them and fails
# when there is one, or when a test fails. ctest arguments replace the
# default selection (the suite less what cannot run sanitized, below; e.g.
# -R Preload to run a part only). LIBSPLIT_SANITIZE_TARGETS (build targets,
# space-separated) builds only those instead of everything, and
# LIBSPLIT_SANITIZE_CMAKE_ARGS adds configure arguments: scripts/ci-sanitize.sh
# uses both for CI's subset. LIBSPLIT_SANITIZE_OPT replaces the build type's
# optimisation and debug flags (RelWithDebInfo: -O2 -g) with its own:
# CI's "-O1 -g1" compiles 2.4x faster (preload_test.cpp: 23 s against 54 s)
# and still gives reports with lines.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kind=${1:-}
case "$kind" in
  address)
    flags="-fsanitize=address,undefined -fno-omit-frame-pointer"
    build=${LIBSPLIT_BUILD_DIR:-$root/build-asan} ;;
  thread)
    flags="-fsanitize=thread -fno-omit-frame-pointer"
    build=${LIBSPLIT_BUILD_DIR:-$root/build-tsan} ;;
  *)
    echo "usage: $0 address|thread [ctest arguments]" >&2
    exit 2 ;;
esac
shift
supp=$root/scripts/sanitizers
reports=$build/sanitizer-reports

# The tests give the preloaded shim alone in LD_PRELOAD, ahead of the
# runtime the app links: ASan's check that its runtime comes first would
# stop every such run, although the app itself loads it (the link order
# does not matter here: the app and the shim are both instrumented).
export ASAN_OPTIONS="log_path=$reports/asan:verify_asan_link_order=0:detect_leaks=1:suppressions=$supp/asan.supp"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="log_path=$reports/ubsan:print_stacktrace=1:suppressions=$supp/ubsan.supp"
export TSAN_OPTIONS="log_path=$reports/tsan:suppressions=$supp/tsan.supp:second_deadlock_stack=1:print_suppressions=0"

bash "$root/scripts/install-deps.sh"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# No -Werror here: the sanitizers add warnings of their own (GCC's -Wtsan),
# the default build is the one that must stay free of them.
build_type=RelWithDebInfo
if [ -n "${LIBSPLIT_SANITIZE_OPT:-}" ]; then
  build_type=Sanitize  # a type of no flags of its own: the ones below only
  flags="$flags $LIBSPLIT_SANITIZE_OPT"
fi
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=$build_type \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" \
  -DCMAKE_MODULE_LINKER_FLAGS="$flags" ${LIBSPLIT_SANITIZE_CMAKE_ARGS:-}
# The build runs test binaries too (gtest's test discovery): same options.
mkdir -p "$reports"
targets=()
for t in ${LIBSPLIT_SANITIZE_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" -j "$(nproc)" "${targets[@]}"

# What cannot run sanitized (docs/sanitizers.md):
# - labels thirdparty, conformance, package and apps_pyopencl_binary_cache
#   preload the shim into programs built elsewhere (clpeak, the CTS, piglit,
#   python, the unpacked package): an instrumented shim needs its sanitizer
#   runtime loaded first, which only an instrumented program does;
# - label soak measures host memory, which here is the sanitizer's
#   allocator (ASan keeps freed blocks in quarantine: +93 MB over 5000
#   launches, +5.8 MB natively);
# - tests that time the shim against native runs (exit time, the hidden
#   load followed within 3 launches, partitions that follow measured
#   times): every instrumented process runs 2-15x slower.
default_selection=(-LE 'thirdparty|conformance|package|soak'
  -E 'apps_pyopencl_binary_cache|apps_stencil_locality|Preload.ExitWithABuildInFlightNeitherWaitsNorCrashes|Preload.HiddenLoadIsFollowedWithinThreeLaunches')
[ $# -gt 0 ] || set -- "${default_selection[@]}"

rm -rf "$reports" && mkdir -p "$reports"
status=0
(cd "$build" && ctest --output-on-failure --timeout 1800 -j 2 "$@") || status=$?

shopt -s nullglob
found=("$reports"/*)
if [ ${#found[@]} -gt 0 ]; then
  echo "== ${#found[@]} sanitizer report file(s) in $reports:"
  for f in "${found[@]}"; do echo "--- $f"; head -60 "$f"; done
  status=1
else
  echo "== no sanitizer report"
fi
exit $status
