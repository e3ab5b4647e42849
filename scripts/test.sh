#!/usr/bin/env bash
# README command (2): install, build, run the whole test suite with ctest.
# Exit status is ctest's: non-zero when any test fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${LIBSPLIT_BUILD_DIR:-$root/build}
bash "$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure --timeout 600 -j 2 "$@"
