#!/usr/bin/env bash
# README command (2): install, build, run the whole test suite with ctest,
# then (without ctest arguments) CI's sanitizer subset: an ASan + UBSan build
# of the shim and the preload tests (scripts/ci-sanitize.sh; skipped with
# LIBSPLIT_CI_SANITIZE=0). Exit status is non-zero when any test fails or a
# sanitizer reports anything.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${LIBSPLIT_BUILD_DIR:-$root/build}
bash "$root/scripts/build.sh"
status=0
(cd "$build" && ctest --output-on-failure --timeout 600 -j 2 "$@") || status=$?
if [ $# -eq 0 ] && [ "${LIBSPLIT_CI_SANITIZE:-1}" != 0 ]; then
  start=$SECONDS
  LIBSPLIT_BUILD_DIR=$build bash "$root/scripts/ci-sanitize.sh" || status=1
  echo "== sanitizer subset: $((SECONDS - start)) s"
fi
exit $status
