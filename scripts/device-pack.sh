#!/usr/bin/env bash
# Packs what a benchmark run needs on another machine of the same Debian
# release (the GPU machine has the LLVM/Clang 16 runtime libraries but no
# headers): the shim, its tools, libsplit-cc and the bench apps, stripped, in
# the build tree's own layout so the shim finds libsplit-cc (../passes/).
#   scripts/device-pack.sh [BUILD_DIR] [DEST]   (defaults: ./build, ./.devpack)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
dest=${2:-$root/.devpack}
rm -rf "$dest"
mkdir -p "$dest/libsplit" "$dest/passes" "$dest/bench/bin"
install -s "$build/libsplit/libsplit.so" "$build/libsplit/libsplit-run" \
           "$build/libsplit/libsplit-info" "$build/libsplit/libsplit-build" "$dest/libsplit/"
mkdir -p "$dest/tests"
install -s "$build/tests/runtime/rt_app" "$dest/tests/"
install -s "$build/passes/libsplit-cc" "$dest/passes/"
install -s "$build"/bench/bin/* "$dest/bench/bin/"
du -sh "$dest"
