#!/usr/bin/env bash
# Configures and builds libsplit into ./build (or $LIBSPLIT_BUILD_DIR).
# Used by both README commands; installs the Debian packages first.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${LIBSPLIT_BUILD_DIR:-$root/build}

bash "$root/scripts/install-deps.sh"

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" "${generator[@]}" -DLIBSPLIT_WERROR=ON
fi
cmake --build "$build" -j "$(nproc)"
