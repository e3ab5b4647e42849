#!/usr/bin/env bash
# The soak at full length: rt_app's soak scenario (a stencil with halos and a
# racy kernel merged every launch, events kept and released, two load steps)
# for LAUNCHES launches (default 100 000) split over PoCL's two CPU devices,
# natively and under the shim; the output must be the native one bit for bit
# and the resident memory (VmRSS) and its peak (VmHWM) may grow by less than
# 1 MB from the tenth of the run to its end. ctest runs the same test with
# 5000 launches (`ctest -L soak`).
#
#   scripts/soak.sh [LAUNCHES]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${LIBSPLIT_BUILD_DIR:-$root/build}
launches=${1:-100000}
cmake --build "$build" -j "$(nproc)" --target runtime_preload_test rt_app libsplit libsplit-cc
RT_SOAK_LAUNCHES=$launches "$build/tests/runtime/runtime_preload_test" \
  --gtest_filter=Preload.SoakKeepsTheOutputAndFlatHostMemory
