#!/usr/bin/env bash
# CI's sanitizer subset (scripts/test.sh runs it after the suite): an
# ASan + UBSan (+ LSan) build of libsplit.so and of the test programs the
# subset runs, into ./build-asan-ci, then those tests under it through
# scripts/sanitize.sh, which fails on any sanitizer report or failed test.
#
# The subset: rt_app's preload tests (the shim's paths: splits, merges,
# pass-through, user events, callbacks, logging and tracing, tools, the
# compiled mode), less the ones that time the shim against native runs
# (instrumented processes run 2-15x slower), and the deferred-writes app.
# libsplit-cc is not built instrumented: the tests run the ordinary build's
# (./build, or $LIBSPLIT_BUILD_DIR), so this needs `scripts/build.sh` first.
# The whole suite sanitized: scripts/sanitize.sh (docs/sanitizers.md).
#
#   scripts/ci-sanitize.sh [ctest arguments]   # they replace the subset
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
main_build=${LIBSPLIT_BUILD_DIR:-$root/build}
cc=$main_build/passes/libsplit-cc
if [ ! -x "$cc" ]; then
  echo "ci-sanitize: $cc missing: run scripts/build.sh first" >&2
  exit 2
fi
subset=(-R '^(Preload\.|Scenarios/SameAsNative\.|Tools\.|DeferredWritesTest\.)'
  -E 'Preload\.(ExitWithABuildInFlightNeitherWaitsNorCrashes|HiddenLoadIsFollowedWithinThreeLaunches|SplitLaunchesReturnBeforeTheirSubKernelsEnd|SoakKeepsTheOutputAndFlatHostMemory)')
[ $# -gt 0 ] || set -- "${subset[@]}"
export LIBSPLIT_BUILD_DIR=$root/build-asan-ci
export LIBSPLIT_SANITIZE_TARGETS="libsplit runtime_preload_test apps_shim_test"
export LIBSPLIT_SANITIZE_CMAKE_ARGS="-DLIBSPLIT_TEST_CC=$cc"
# -O1 -g1: the compile took 470 of this step's 550 s at -O2 -g.
export LIBSPLIT_SANITIZE_OPT=${LIBSPLIT_SANITIZE_OPT:--O1 -g1}
exec bash "$root/scripts/sanitize.sh" address "$@"
