#!/usr/bin/env bash
# Runs on the GPU machine (see the device notes in bench/README.md): what
# scripts/device-pack.sh packed under .devpack/, no build there. Prints the
# devices, then runs the harness with the arguments given; results land in
# $OUT (when set) so they come back.
#   scripts/bench-device.sh <harness args...>
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pack=$root/.devpack
out=${OUT:-/tmp/libsplit-out}
mkdir -p "$out"
export LIBSPLIT_CACHE_DIR=${LIBSPLIT_CACHE_DIR:-/tmp/libsplit-cache}
echo "OCL_ICD_FILENAMES=${OCL_ICD_FILENAMES:-}"
nvidia-smi -L 2>/dev/null
clinfo -l 2>/dev/null || echo "(no clinfo)"
"$pack/libsplit/libsplit-info"
res=$(mktemp -d)/results
python3 "$root/scripts/bench" --bin-dir "$pack/bench/bin" --shim "$pack/libsplit/libsplit.so" \
  --cc "$pack/passes/libsplit-cc" --out "$res" "$@" 2>&1 | tee "$out/bench.log"
# At most a few files come back from the GPU machine: one archive + the table.
cp "$res/results.md" "$out/" 2>/dev/null
tar czf "$out/results.tgz" -C "$(dirname "$res")" results 2>/dev/null
